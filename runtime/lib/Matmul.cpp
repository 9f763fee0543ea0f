//===- Matmul.cpp - GEMM through BLAS -------------------------------------===//
//
// C += A B (C = A B: the `assign` entry points, BLAS's beta = 0) for the
// memrefs that tad-matmul-to-runtime passes. Buffers with a
// unit stride in one dimension go to cblas_?gemm (transposed when the unit
// stride is the outer one); any other layout runs a plain loop, so every
// strided view is correct.
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "StridedGemm.h"

#include "tad/runtime/Runtime.h"

namespace {

/// How one operand maps onto BLAS: row-major with leading dimension `ld`,
/// possibly transposed; `ok` is false when neither stride is 1.
struct BlasView {
  bool ok = false;
  CBLAS_TRANSPOSE trans = CblasNoTrans;
  int64_t ld = 0;
};

BlasView viewOf(int64_t rows, int64_t cols, int64_t rowStride,
                int64_t colStride) {
  // A dimension of size 1 may have any stride; normalize it.
  if (cols == 1)
    colStride = 1;
  if (rows == 1)
    rowStride = cols;
  BlasView v;
  if (colStride == 1 && rowStride >= cols) {
    v = {true, CblasNoTrans, rowStride};
  } else if (rowStride == 1 && colStride >= rows) {
    v = {true, CblasTrans, colStride};
  }
  return v;
}

void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
              const float *a, int lda, const float *b, int ldb, float *c,
              int ldc, bool accumulate) {
  tad::rt::getBlas().sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b,
                           ldb, accumulate ? 1.0f : 0.0f, c, ldc);
}

void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
              const double *a, int lda, const double *b, int ldb, double *c,
              int ldc, bool accumulate) {
  tad::rt::getBlas().dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b,
                           ldb, accumulate ? 1.0 : 0.0, c, ldc);
}

/// C += A B (C = A B when `!accumulate`) through BLAS when every operand has a unit stride in some
/// dimension (and C in its last), through a loop otherwise (and when
/// OpenBLAS could not be loaded).
template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, const T *a, int64_t a0, int64_t a1,
          const T *b, int64_t b0, int64_t b1, T *c, int64_t c0, int64_t c1,
          bool accumulate) {
  BlasView va = viewOf(m, k, a0, a1), vb = viewOf(k, n, b0, b1);
  BlasView vc = viewOf(m, n, c0, c1);
  if (va.ok && vb.ok && vc.ok && vc.trans == CblasNoTrans &&
      tad::rt::getBlas().sgemm)
    blasGemm(va.trans, vb.trans, int(m), int(n), int(k), a, int(va.ld), b,
             int(vb.ld), c, int(vc.ld), accumulate);
  else
    tad::rt::stridedGemmLoop(m, n, k, a, a0, a1, b, b0, b1, c, c0, c1,
                             accumulate);
}

} // namespace

extern "C" {

void _mlir_ciface_tad_rt_matmul_f32(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                    tad_rt_memref2 *c) {
  tad::rt::gemm2<float>(a, b, c, true, gemm<float>);
}
void _mlir_ciface_tad_rt_matmul_f64(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                    tad_rt_memref2 *c) {
  tad::rt::gemm2<double>(a, b, c, true, gemm<double>);
}
void _mlir_ciface_tad_rt_batch_matmul_f32(tad_rt_memref3 *a,
                                          tad_rt_memref3 *b,
                                          tad_rt_memref3 *c) {
  tad::rt::gemm3<float>(a, b, c, true, gemm<float>);
}
void _mlir_ciface_tad_rt_batch_matmul_f64(tad_rt_memref3 *a,
                                          tad_rt_memref3 *b,
                                          tad_rt_memref3 *c) {
  tad::rt::gemm3<double>(a, b, c, true, gemm<double>);
}

void _mlir_ciface_tad_rt_matmul_assign_f32(tad_rt_memref2 *a,
                                           tad_rt_memref2 *b,
                                           tad_rt_memref2 *c) {
  tad::rt::gemm2<float>(a, b, c, false, gemm<float>);
}
void _mlir_ciface_tad_rt_matmul_assign_f64(tad_rt_memref2 *a,
                                           tad_rt_memref2 *b,
                                           tad_rt_memref2 *c) {
  tad::rt::gemm2<double>(a, b, c, false, gemm<double>);
}
void _mlir_ciface_tad_rt_batch_matmul_assign_f32(tad_rt_memref3 *a,
                                                 tad_rt_memref3 *b,
                                                 tad_rt_memref3 *c) {
  tad::rt::gemm3<float>(a, b, c, false, gemm<float>);
}
void _mlir_ciface_tad_rt_batch_matmul_assign_f64(tad_rt_memref3 *a,
                                                 tad_rt_memref3 *b,
                                                 tad_rt_memref3 *c) {
  tad::rt::gemm3<double>(a, b, c, false, gemm<double>);
}

void tad_rt_set_num_threads(int threads) {
  if (auto set = tad::rt::getBlas().setNumThreads)
    set(threads);
}

} // extern "C"
