/* Trains examples/mlp.tad data-parallel: every process of an MPI run
 * (`mpirun -np N train_mlp_dp`) calls sgd_step on its own 64 rows of an
 * N x 64-row batch, through the library that
 * `tadc examples/mlp.tad --entry sgd_step --data-parallel --emit=lib`
 * writes, whose gradients are averaged across the processes: the model
 * file is unchanged, and every process takes the same steps, those of one
 * process on the whole batch. `make demo` runs it on 2 processes. The
 * program itself calls no MPI: the library starts it (docs/distributed.md). */
#include "libmlp_dp.h"

#include "random_fill.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 64 /* per process: the batch of examples/mlp.tad */

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 100;
  tad_rt_mpi_init();
  int rank = tad_rt_process_rank(), processes = tad_rt_process_count();
  /* The whole batch, as every process draws it; this one keeps its rows. */
  float *all_x = malloc(sizeof(float) * processes * ROWS * 256);
  static float x[ROWS * 256], y[ROWS * 10], teacher[256 * 10];
  static float w1[256 * 128], b1[128], w2[128 * 10], b2[10];
  static float nw1[256 * 128], nb1[128], nw2[128 * 10], nb2[10];
  fill(teacher, 256 * 10, 0.1f);
  fill(all_x, processes * ROWS * 256, 1.0f);
  memcpy(x, all_x + (size_t)rank * ROWS * 256, sizeof(x));
  free(all_x);
  teacher_targets(x, ROWS, 256, 10, teacher, y);
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
    if (rank == 0 && step % 25 == 0)
      printf("step %3d  loss on process 0's rows %.6f\n", step, loss);
  }
  /* Every process holds the same weights: print a checksum of each's. */
  double sum = 0;
  for (int i = 0; i < 256 * 128; ++i)
    sum += w1[i];
  for (int i = 0; i < 128 * 10; ++i)
    sum += w2[i];
  tad_rt_stats stats = tad_rt_get_stats();
  printf("process %d of %d: weight checksum %.9f, peak bytes of a step %lld\n",
         rank, processes, sum, (long long)stats.peak_bytes);
  return 0;
}
