/* Calls model() from the shared library that `tadc --emit=lib` wrote, on
 * inputs computed by a formula that make_inputs.py reproduces exactly, and
 * prints every result element. */
#include "libmodel.h"

#include <stdio.h>

static float value(int i, int salt) {
  /* Exact in f32: a small integer over a power of two. */
  return (float)((i * 7 + salt) % 13 - 6) / 8.0f;
}

int main(void) {
  float x[8 * 16], w[16 * 4], b[4], h[8 * 4], loss;
  for (int i = 0; i < 8 * 16; ++i) x[i] = value(i, 1);
  for (int i = 0; i < 16 * 4; ++i) w[i] = value(i, 2);
  for (int i = 0; i < 4; ++i) b[i] = value(i, 3);
  tad_rt_reset_peak();
  if (model(x, w, b, h, &loss) != 0)
    return 1;
  tad_rt_stats stats = tad_rt_get_stats();
  for (int i = 0; i < 8 * 4; ++i)
    printf("result0[%d] = %.9g\n", i, h[i]);
  printf("result1 = %.9g\n", loss);
  /* The wrapper frees what the compiled code returned. */
  printf("live after the call: %lld bytes\n", (long long)stats.current_bytes);
  return 0;
}
