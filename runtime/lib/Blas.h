//===- Blas.h - OpenBLAS, loaded when the first GEMM runs -------*- C++ -*-===//
//
// The runtime loads OpenBLAS itself (dlopen) instead of linking it, so that
// it can choose OpenBLAS's core type, which OpenBLAS reads once, when it
// loads (docs/runtime.md#openblas).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_RUNTIME_BLAS_H
#define TAD_RUNTIME_BLAS_H

#include <cblas.h>

namespace tad::rt {

/// OpenBLAS's entry points; null when it could not be loaded (the runtime
/// then runs GEMMs as loops, after one warning on standard error).
struct Blas {
  void (*sgemm)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint,
                blasint, blasint, float, const float *, blasint,
                const float *, blasint, float, float *, blasint) = nullptr;
  void (*dgemm)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint,
                blasint, blasint, double, const double *, blasint,
                const double *, blasint, double, double *, blasint) = nullptr;
  void (*setNumThreads)(int) = nullptr;
  char *(*getCorename)() = nullptr;
  /// The process had loaded this OpenBLAS before the runtime (NumPy,
  /// PyTorch): its thread count is the process's, not the runtime's.
  bool shared = false;
};

/// Loads OpenBLAS on the first call (thread-safe) and returns it.
const Blas &getBlas();

/// The core type to ask OpenBLAS for on this CPU, or null to let OpenBLAS
/// detect it: "SkylakeX" (AVX-512 kernels) where the CPU has AVX-512 F, BW,
/// DQ and VL, "Haswell" (AVX2) where it has AVX2 and FMA.
const char *chooseCoreType();

} // namespace tad::rt

#endif // TAD_RUNTIME_BLAS_H
