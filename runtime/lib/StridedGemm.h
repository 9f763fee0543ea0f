//===- StridedGemm.h - what the CPU and GPU GEMM entry points share -------===//
//
// tad-matmul-to-runtime passes C += A B (or C = A B, the `assign` entry
// points) as memref descriptors of any strides. Matmul.cpp (BLAS) and
// CudaBlas.cpp (cuBLAS) unpack them the same way, and both fall back to the
// same loop for layouts their library cannot take.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_RUNTIME_LIB_STRIDEDGEMM_H
#define TAD_RUNTIME_LIB_STRIDEDGEMM_H

#include "tad/runtime/Runtime.h"

#include <cstdint>

namespace tad::rt {

/// C += A B (C = A B when `!accumulate`) for an m x k A and a k x n B, each
/// element (i, j) of a matrix at i * s0 + j * s1: correct for every strided
/// view.
template <typename T>
void stridedGemmLoop(int64_t m, int64_t n, int64_t k, const T *a, int64_t a0,
                     int64_t a1, const T *b, int64_t b0, int64_t b1, T *c,
                     int64_t c0, int64_t c1, bool accumulate) {
  if (!accumulate)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * c0 + j * c1] = T(0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      T aip = a[i * a0 + p * a1];
      for (int64_t j = 0; j < n; ++j)
        c[i * c0 + j * c1] += aip * b[p * b0 + j * b1];
    }
}

/// Calls `gemm(m, n, k, a, a0, a1, b, b0, b1, c, c0, c1, accumulate)` for
/// rank-2 descriptors.
template <typename T, typename Gemm>
void gemm2(tad_rt_memref2 *a, tad_rt_memref2 *b, tad_rt_memref2 *c,
           bool accumulate, Gemm gemm) {
  gemm(c->sizes[0], c->sizes[1], a->sizes[1],
       static_cast<const T *>(a->aligned) + a->offset, a->strides[0],
       a->strides[1], static_cast<const T *>(b->aligned) + b->offset,
       b->strides[0], b->strides[1], static_cast<T *>(c->aligned) + c->offset,
       c->strides[0], c->strides[1], accumulate);
}

/// Calls `gemm` once per batch for rank-3 descriptors.
template <typename T, typename Gemm>
void gemm3(tad_rt_memref3 *a, tad_rt_memref3 *b, tad_rt_memref3 *c,
           bool accumulate, Gemm gemm) {
  for (int64_t i = 0; i < c->sizes[0]; ++i)
    gemm(c->sizes[1], c->sizes[2], a->sizes[2],
         static_cast<const T *>(a->aligned) + a->offset + i * a->strides[0],
         a->strides[1], a->strides[2],
         static_cast<const T *>(b->aligned) + b->offset + i * b->strides[0],
         b->strides[1], b->strides[2],
         static_cast<T *>(c->aligned) + c->offset + i * c->strides[0],
         c->strides[1], c->strides[2], accumulate);
}

} // namespace tad::rt

#endif // TAD_RUNTIME_LIB_STRIDEDGEMM_H
