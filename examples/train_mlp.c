/* Trains examples/mlp.tad with SGD through the shared library that
 * `tadc examples/mlp.tad --emit=lib -o libmlp.so` writes: every step calls
 * sgd_step, whose gradients come from tad's AD. The targets come from a
 * fixed random "teacher" network, so the loss can fall. `make demo` builds
 * and runs this program; it needs no LLVM or MLIR. */
#include "libmlp.h"

#include "random_fill.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 300;
  static float x[64 * 256], y[64 * 10], teacher[256 * 10];
  static float w1[256 * 128], b1[128], w2[128 * 10], b2[10];
  static float nw1[256 * 128], nb1[128], nw2[128 * 10], nb2[10];
  fill(x, 64 * 256, 1.0f);
  fill(teacher, 256 * 10, 0.1f);
  teacher_targets(x, 64, 256, 10, teacher, y);
  fill(w1, 256 * 128, 0.06f);
  fill(w2, 128 * 10, 0.09f);
  memset(b1, 0, sizeof(b1));
  memset(b2, 0, sizeof(b2));
  float lr = 0.1f, loss = 0;
  tad_rt_set_num_threads(1);
  tad_rt_reset_peak();
  for (int step = 0; step <= steps; ++step) {
    if (sgd_step(x, y, w1, b1, w2, b2, &lr, &loss, nw1, nb1, nw2, nb2) != 0)
      return 1;
    memcpy(w1, nw1, sizeof(w1));
    memcpy(b1, nb1, sizeof(b1));
    memcpy(w2, nw2, sizeof(w2));
    memcpy(b2, nb2, sizeof(b2));
    if (step % 25 == 0)
      printf("step %3d  loss %.6f\n", step, loss);
  }
  tad_rt_stats stats = tad_rt_get_stats();
  printf("peak bytes of a training step, as the runtime allocator measured: "
         "%lld\n", (long long)stats.peak_bytes);
  return 0;
}
