//===- Blas.cpp - OpenBLAS, loaded when the first GEMM runs ---------------===//
//
// OpenBLAS chooses its kernels (its "core type") once, when it loads: from
// $OPENBLAS_CORETYPE if set, else from the CPU's identity, which it may not
// know (version 0.3.21, Debian 12's, falls back to its generic Prescott
// kernels on CPUs newer than it or behind hypervisors that hide the model).
// A program linked against OpenBLAS has loaded it before its first line
// runs, so the runtime loads it itself: unless the user set
// $OPENBLAS_CORETYPE, it sets it from the CPU's features (which a
// hypervisor passes through), then opens the library. On the development
// machine, an AMD EPYC with AVX-512, the SkylakeX core's AVX-512 kernels
// make a transformer gradient step 1.5 times faster than the Haswell
// core's AVX2 ones (docs/runtime.md#openblas). In a process that loaded
// OpenBLAS already (NumPy, PyTorch), dlopen returns that library with the
// core type it chose.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "Parallel.h"

#include "tad/runtime/Runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <initializer_list>

#ifndef TAD_OPENBLAS_PATH
#define TAD_OPENBLAS_PATH "libopenblas.so.0"
#endif

using namespace tad::rt;

const char *tad::rt::chooseCoreType() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "Haswell";
#endif
  return nullptr;
}

static Blas load() {
  const char *set = std::getenv("OPENBLAS_CORETYPE");
  if (!set || !*set)
    if (const char *core = chooseCoreType())
      setenv("OPENBLAS_CORETYPE", core, /*overwrite=*/1);
  // The library tad was built against first, then the system's; one that
  // the process has loaded already (NumPy, PyTorch) is shared.
  void *library = nullptr;
  bool shared = false;
  for (int flags : {RTLD_NOW | RTLD_NOLOAD, RTLD_NOW | RTLD_GLOBAL}) {
    for (const char *name : {TAD_OPENBLAS_PATH, "libopenblas.so.0"})
      if ((library = dlopen(name, flags)))
        break;
    if (library) {
      shared = flags & RTLD_NOLOAD;
      break;
    }
  }
  Blas blas;
  blas.shared = shared;
  if (!library) {
    std::fprintf(stderr,
                 "tad runtime: warning: cannot load OpenBLAS (%s): %s; "
                 "matmuls run as plain loops\n",
                 TAD_OPENBLAS_PATH, dlerror());
    return blas;
  }
  blas.sgemm = reinterpret_cast<decltype(blas.sgemm)>(
      dlsym(library, "cblas_sgemm"));
  blas.dgemm = reinterpret_cast<decltype(blas.dgemm)>(
      dlsym(library, "cblas_dgemm"));
  blas.setNumThreads = reinterpret_cast<decltype(blas.setNumThreads)>(
      dlsym(library, "openblas_set_num_threads"));
  blas.getCorename = reinterpret_cast<decltype(blas.getCorename)>(
      dlsym(library, "openblas_get_corename"));
  // One thread: the runtime's pool cuts large GEMMs over its own threads
  // (Matmul.cpp), which also run the loop nests. A shared OpenBLAS keeps
  // the threads its process gave it, until tad_rt_set_num_threads.
  if (blas.setNumThreads && !shared)
    blas.setNumThreads(1);
  if (!blas.sgemm || !blas.dgemm) {
    std::fprintf(stderr,
                 "tad runtime: warning: %s has no cblas_sgemm or "
                 "cblas_dgemm; matmuls run as plain loops\n",
                 TAD_OPENBLAS_PATH);
    blas = Blas();
  }
  return blas;
}

const Blas &tad::rt::getBlas() {
  static const Blas blas = load();
  return blas;
}

bool tad::rt::isBlasShared() { return getBlas().shared; }

extern "C" const char *tad_rt_blas_core() {
  const Blas &blas = getBlas();
  return blas.getCorename ? blas.getCorename() : "none";
}
