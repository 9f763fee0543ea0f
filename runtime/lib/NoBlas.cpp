//===- NoBlas.cpp - the BLAS entry points of the runtime for GPU code -----===//
//
// GPU outputs run their matmuls as kernels and link no BLAS; the thread
// count that a runner may set (--threads) is the host loops' alone.
//
//===----------------------------------------------------------------------===//

#include "Parallel.h"

#include "tad/runtime/Runtime.h"

bool tad::rt::isBlasShared() { return false; }

extern "C" void tad_rt_set_num_threads(int threads) {
  tad::rt::setLoopThreads(threads);
}

extern "C" const char *tad_rt_blas_core() { return "none"; }
