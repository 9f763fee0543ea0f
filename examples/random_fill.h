/* The deterministic random numbers of the example training programs
 * (train_mlp.c, train_deep_mlp.c, train_mlp_dp.c): a fixed xorshift64*
 * stream, so that every run trains on the same data, and the targets of a
 * "teacher" layer. */
#ifndef TAD_EXAMPLES_RANDOM_FILL_H
#define TAD_EXAMPLES_RANDOM_FILL_H

#include <math.h>

static unsigned long long state = 0x9E3779B97F4A7C15ull;

static double uniform(void) { /* xorshift64*, in [0, 1) */
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return (double)((state * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

static float normal(void) { /* Box-Muller */
  double u = uniform() + 1e-12, v = uniform();
  return (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

/* a[i] = scale x a standard normal sample. */
static void fill(float *a, int n, float scale) {
  for (int i = 0; i < n; ++i)
    a[i] = normal() * scale;
}

/* The targets of the `rows` x `in` inputs x: y = tanh(x @ teacher), with
 * teacher `in` x `out`, so that a network can learn them. */
static void teacher_targets(const float *x, int rows, int in, int out,
                            const float *teacher, float *y) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < out; ++j) {
      float s = 0;
      for (int k = 0; k < in; ++k)
        s += x[i * in + k] * teacher[k * out + j];
      y[i * out + j] = tanhf(s);
    }
}

#endif /* TAD_EXAMPLES_RANDOM_FILL_H */
