/* Calls the GPU library of examples/rrule.tad's model_grad from C (N times:
 * `caller N`, once by default): without a GPU it returns 1, and
 * tad_rt_cuda_error() says why; with one, it prints what the calls
 * launched. */
#include "libmodel.h"

#include <stdio.h>
#include <stdlib.h>

static float x[32 * 64], w1[64 * 64], w2[64 * 64], g1[64 * 64], g2[64 * 64];

int main(int argc, char **argv) {
  for (int i = 0; i < 64 * 64; ++i)
    w1[i] = w2[i] = 0.01f * (float)(i % 7);
  int calls = argc > 1 ? atoi(argv[1]) : 1, status = 0;
  for (int call = 0; call < calls && status == 0; ++call)
    status = model_grad(x, w1, w2, g1, g2);
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
