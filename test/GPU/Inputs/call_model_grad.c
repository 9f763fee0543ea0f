/* Calls the GPU library of examples/rrule.tad's model_grad from C: without
 * a GPU it returns 1, and tad_rt_cuda_error() says why; with one, it prints
 * what the call launched. */
#include "libmodel.h"

#include <stdio.h>

static float x[32 * 64], w1[64 * 64], w2[64 * 64], g1[64 * 64], g2[64 * 64];

int main(void) {
  for (int i = 0; i < 64 * 64; ++i)
    w1[i] = w2[i] = 0.01f * (float)(i % 7);
  int status = model_grad(x, w1, w2, g1, g2);
  if (status != 0) {
    fprintf(stderr, "model_grad returned %d: %s\n", status, tad_rt_cuda_error());
    return 1;
  }
  printf("g1[0] = %g\n", g1[0]);
  tad_rt_gpu_counts counts = tad_rt_get_gpu_counts();
  printf("%lld kernel launches, %lld synchronizations\n",
         (long long)counts.kernel_launches, (long long)counts.synchronizations);
  return 0;
}
