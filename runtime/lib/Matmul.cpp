//===- Matmul.cpp - GEMM through BLAS -------------------------------------===//
//
// C += A B for the memrefs that tad-matmul-to-runtime passes. Buffers with a
// unit stride in one dimension go to cblas_?gemm (transposed when the unit
// stride is the outer one); any other layout runs a plain loop, so every
// strided view is correct.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Runtime.h"

#include <cblas.h>

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

template <typename T>
void gemmLoop(int64_t m, int64_t n, int64_t k, const T *a, int64_t a0,
              int64_t a1, const T *b, int64_t b0, int64_t b1, T *c, int64_t c0,
              int64_t c1) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      T aip = a[i * a0 + p * a1];
      for (int64_t j = 0; j < n; ++j)
        c[i * c0 + j * c1] += aip * b[p * b0 + j * b1];
    }
}

void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
              const float *a, int lda, const float *b, int ldb, float *c,
              int ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 1.0f, c,
              ldc);
}

void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
              const double *a, int lda, const double *b, int ldb, double *c,
              int ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 1.0, c,
              ldc);
}

/// C += A B through BLAS when every operand has a unit stride in some
/// dimension (and C in its last), through a loop otherwise.
template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, const T *a, int64_t a0, int64_t a1,
          const T *b, int64_t b0, int64_t b1, T *c, int64_t c0, int64_t c1) {
  BlasView va = viewOf(m, k, a0, a1), vb = viewOf(k, n, b0, b1);
  BlasView vc = viewOf(m, n, c0, c1);
  if (va.ok && vb.ok && vc.ok && vc.trans == CblasNoTrans)
    blasGemm(va.trans, vb.trans, int(m), int(n), int(k), a, int(va.ld), b,
             int(vb.ld), c, int(vc.ld));
  else
    gemmLoop(m, n, k, a, a0, a1, b, b0, b1, c, c0, c1);
}

template <typename T>
void matmul2(tad_rt_memref2 *a, tad_rt_memref2 *b, tad_rt_memref2 *c) {
  const T *pa = static_cast<const T *>(a->aligned) + a->offset;
  const T *pb = static_cast<const T *>(b->aligned) + b->offset;
  T *pc = static_cast<T *>(c->aligned) + c->offset;
  gemm(c->sizes[0], c->sizes[1], a->sizes[1], pa, a->strides[0],
       a->strides[1], pb, b->strides[0], b->strides[1], pc, c->strides[0],
       c->strides[1]);
}

template <typename T>
void matmul3(tad_rt_memref3 *a, tad_rt_memref3 *b, tad_rt_memref3 *c) {
  for (int64_t batch = 0; batch < c->sizes[0]; ++batch) {
    const T *pa =
        static_cast<const T *>(a->aligned) + a->offset + batch * a->strides[0];
    const T *pb =
        static_cast<const T *>(b->aligned) + b->offset + batch * b->strides[0];
    T *pc = static_cast<T *>(c->aligned) + c->offset + batch * c->strides[0];
    gemm(c->sizes[1], c->sizes[2], a->sizes[2], pa, a->strides[1],
         a->strides[2], pb, b->strides[1], b->strides[2], pc, c->strides[1],
         c->strides[2]);
  }
}

} // namespace

extern "C" {

void _mlir_ciface_tad_rt_matmul_f32(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                    tad_rt_memref2 *c) {
  matmul2<float>(a, b, c);
}
void _mlir_ciface_tad_rt_matmul_f64(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                    tad_rt_memref2 *c) {
  matmul2<double>(a, b, c);
}
void _mlir_ciface_tad_rt_batch_matmul_f32(tad_rt_memref3 *a,
                                          tad_rt_memref3 *b,
                                          tad_rt_memref3 *c) {
  matmul3<float>(a, b, c);
}
void _mlir_ciface_tad_rt_batch_matmul_f64(tad_rt_memref3 *a,
                                          tad_rt_memref3 *b,
                                          tad_rt_memref3 *c) {
  matmul3<double>(a, b, c);
}

void tad_rt_set_num_threads(int threads) { openblas_set_num_threads(threads); }

} // extern "C"
