//===- NoBlas.cpp - the BLAS entry points of the runtime for GPU code -----===//
//
// GPU outputs run their matmuls as kernels and link no BLAS; the thread
// count that a runner may set (--threads) has nothing to configure.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Runtime.h"

extern "C" void tad_rt_set_num_threads(int threads) { (void)threads; }

extern "C" const char *tad_rt_blas_core() { return "none"; }
