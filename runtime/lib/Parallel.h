//===- Parallel.h - the threads that run tad's loop nests -------*- C++ -*-===//

#ifndef TAD_RUNTIME_PARALLEL_H
#define TAD_RUNTIME_PARALLEL_H

#include "tad/runtime/Runtime.h"

#include <cstdint>

namespace tad::rt {

/// How many threads tad_rt_parallel_for uses (1: it runs every range on the
/// calling thread). tad_rt_set_num_threads calls it with the BLAS count.
void setLoopThreads(int threads);

/// The count in use: the last setLoopThreads; else 1 where OpenBLAS is
/// shared with the process (isBlasShared: its own threads run the GEMMs, and
/// the pool's would compete with them); else TAD_NUM_THREADS, else
/// OpenBLAS's default (OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS, else the
/// machine's cores).
int getLoopThreads();

/// Whether setLoopThreads was called.
bool wereLoopThreadsSet();

/// Whether the process loaded OpenBLAS before the runtime did (Blas.cpp;
/// false in the runtime of GPU code, NoBlas.cpp).
bool isBlasShared();

using ParallelTask = void (*)(void *, int64_t, int64_t);

/// tad_rt_parallel_for, with `partsPerThread` parts a thread (it takes 4).
void parallelForParts(ParallelTask task, void *context, int64_t lo, int64_t hi,
                      int partsPerThread);

/// parallelForParts with a callable `f(begin, end)`.
template <typename F>
void parallelFor(int64_t lo, int64_t hi, int partsPerThread, F f) {
  parallelForParts(
      [](void *context, int64_t begin, int64_t end) {
        (*static_cast<F *>(context))(begin, end);
      },
      &f, lo, hi, partsPerThread);
}

} // namespace tad::rt

#endif // TAD_RUNTIME_PARALLEL_H
