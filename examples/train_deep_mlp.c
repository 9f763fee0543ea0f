/* Trains examples/deep_mlp.tad with SGD through the shared library that
 * `tadc examples/deep_mlp.tad --emit=lib --entry net_value_and_grad
 * --remat-budget=BYTES -o libdeep_mlp.so` writes: the gradient runs within
 * the budget, recomputing activations the budget cannot hold. The targets
 * come from a fixed random "teacher" layer, so the loss can fall. Prints the
 * loss, and the peak bytes of a gradient call as the runtime's allocator
 * measured them. `make demo` builds and runs this program. The C function
 * takes the Mlp record `p` as its tensors in field order (p_l1_w, p_l1_b,
 * ..., p_l8_b) and returns its gradient likewise (grad_p_l1_w, ...). */
#include "libdeep_mlp.h"

#include "random_fill.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBatch = 512, kWidth = 128, kLayers = 8 };

static float x[kBatch * kWidth], y[kBatch * kWidth], teacher[kWidth * kWidth];
static float w[kLayers][kWidth * kWidth], b[kLayers][kWidth];
static float gw[kLayers][kWidth * kWidth], gb[kLayers][kWidth];

static int gradient(float *loss) {
  return net_value_and_grad(
      x, y, w[0], b[0], w[1], b[1], w[2], b[2], w[3], b[3], w[4], b[4], w[5],
      b[5], w[6], b[6], w[7], b[7], loss, gw[0], gb[0], gw[1], gb[1], gw[2],
      gb[2], gw[3], gb[3], gw[4], gb[4], gw[5], gb[5], gw[6], gb[6], gw[7],
      gb[7]);
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 100;
  fill(x, kBatch * kWidth, 1.0f);
  fill(teacher, kWidth * kWidth, 0.1f);
  teacher_targets(x, kBatch, kWidth, kWidth, teacher, y);
  for (int l = 0; l < kLayers; ++l)
    fill(w[l], kWidth * kWidth, 1.0f / sqrtf((float)kWidth));
  tad_rt_set_num_threads(1);
  float lr = 0.5f, loss = 0;
  int64_t peak = 0;
  for (int step = 0; step <= steps; ++step) {
    tad_rt_reset_peak();
    tad_rt_stats before = tad_rt_get_stats();
    if (gradient(&loss) != 0)
      return 1;
    tad_rt_stats after = tad_rt_get_stats();
    if (after.peak_bytes - before.current_bytes > peak)
      peak = after.peak_bytes - before.current_bytes;
    for (int l = 0; l < kLayers; ++l) {
      for (int i = 0; i < kWidth * kWidth; ++i)
        w[l][i] -= lr * gw[l][i];
      for (int i = 0; i < kWidth; ++i)
        b[l][i] -= lr * gb[l][i];
    }
    if (step % 20 == 0)
      printf("step %3d  loss %.6f\n", step, loss);
  }
  printf("measured peak of a gradient call: %lld bytes (allocator)\n",
         (long long)peak);
  return 0;
}
