//===- Matmul.cpp - GEMM through BLAS -------------------------------------===//
//
// C += A B (C = A B: the `assign` entry points, BLAS's beta = 0) for the
// memrefs that tad-matmul-to-runtime passes. Buffers with a
// unit stride in one dimension go to cblas_?gemm (transposed when the unit
// stride is the outer one); any other layout runs a plain loop, so every
// strided view is correct.
//
// OpenBLAS runs on one thread (unless the process had loaded it before the
// runtime and the thread count was not set: then OpenBLAS's threads run
// each GEMM whole, and the loop nests one thread). A GEMM large enough is
// cut into blocks of C's rows (or columns, where it has more of them), one
// per thread of the runtime's pool, which also runs tad's loop nests
// (Parallel.cpp); one block a thread, since each block packs all of the
// other operand again. With OpenBLAS's own threads beside that pool the two
// kinds of threads fought for the cores: on 2 cores a transformer step took
// 4.4 times as long with both at 2 threads as with OpenBLAS's alone, and 3
// to 6% less with the pool running both (docs/runtime.md#threads).
//
//===----------------------------------------------------------------------===//

#include "Blas.h"
#include "Parallel.h"
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
  tad::rt::getBlas().sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb,
                           accumulate ? 1.0f : 0.0f, c, ldc);
}

void blasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k,
              const double *a, int lda, const double *b, int ldb, double *c,
              int ldc, bool accumulate) {
  tad::rt::getBlas().dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb,
                           accumulate ? 1.0 : 0.0, c, ldc);
}

/// The fewest multiply-adds (m n k) of a GEMM cut over the pool's threads:
/// below it a block's work is about what handing it to a thread costs.
constexpr double kThreadedGemmWork = 1 << 18;

/// C += A B (C = A B when `!accumulate`) through BLAS when every operand has
/// a unit stride in some dimension (and C in its last), through a loop
/// otherwise (and when OpenBLAS could not be loaded). `threaded`: a large
/// GEMM may be cut over the pool's threads (not when the call already runs
/// on them, one batch of a batched GEMM).
template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, const T *a, int64_t a0, int64_t a1,
          const T *b, int64_t b0, int64_t b1, T *c, int64_t c0, int64_t c1,
          bool accumulate, bool threaded = true) {
  BlasView va = viewOf(m, k, a0, a1), vb = viewOf(k, n, b0, b1);
  BlasView vc = viewOf(m, n, c0, c1);
  if (!(va.ok && vb.ok && vc.ok && vc.trans == CblasNoTrans &&
        tad::rt::getBlas().sgemm)) {
    tad::rt::stridedGemmLoop(m, n, k, a, a0, a1, b, b0, b1, c, c0, c1,
                             accumulate);
    return;
  }
  // A shared OpenBLAS runs on its own threads, unless the threads were set.
  if (!threaded || tad::rt::getLoopThreads() < 2 ||
      (tad::rt::getBlas().shared && !tad::rt::wereLoopThreadsSet()) ||
      double(m) * double(n) * double(k) < kThreadedGemmWork) {
    blasGemm(va.trans, vb.trans, int(m), int(n), int(k), a, int(va.ld), b,
             int(vb.ld), c, int(vc.ld), accumulate);
    return;
  }
  // Rows of A and C, or columns of B and C: element (i, j) of each is at
  // i * s0 + j * s1 whatever BLAS's view of it.
  if (m >= n)
    tad::rt::parallelFor(0, m, 1, [&](int64_t begin, int64_t end) {
      blasGemm(va.trans, vb.trans, int(end - begin), int(n), int(k),
               a + begin * a0, int(va.ld), b, int(vb.ld), c + begin * c0,
               int(vc.ld), accumulate);
    });
  else
    tad::rt::parallelFor(0, n, 1, [&](int64_t begin, int64_t end) {
      blasGemm(va.trans, vb.trans, int(m), int(end - begin), int(k), a,
               int(va.ld), b + begin * b1, int(vb.ld), c + begin * c1,
               int(vc.ld), accumulate);
    });
}

/// gemm with the signature StridedGemm.h's gemm2 calls.
template <typename T>
void gemm2d(int64_t m, int64_t n, int64_t k, const T *a, int64_t a0, int64_t a1,
            const T *b, int64_t b0, int64_t b1, T *c, int64_t c0, int64_t c1,
            bool accumulate) {
  gemm<T>(m, n, k, a, a0, a1, b, b0, b1, c, c0, c1, accumulate);
}

/// A batched GEMM: its batches over the pool's threads where there are as
/// many as threads, else one after another, each cut over the threads.
template <typename T>
void batchGemm(tad_rt_memref3 *a, tad_rt_memref3 *b, tad_rt_memref3 *c,
               bool accumulate) {
  int64_t batches = c->sizes[0];
  auto run = [&](int64_t begin, int64_t end, bool threaded) {
    for (int64_t i = begin; i < end; ++i)
      gemm<T>(
          c->sizes[1], c->sizes[2], a->sizes[2],
          static_cast<const T *>(a->aligned) + a->offset + i * a->strides[0],
          a->strides[1], a->strides[2],
          static_cast<const T *>(b->aligned) + b->offset + i * b->strides[0],
          b->strides[1], b->strides[2],
          static_cast<T *>(c->aligned) + c->offset + i * c->strides[0],
          c->strides[1], c->strides[2], accumulate, threaded);
  };
  if (batches >= tad::rt::getLoopThreads() && batches > 1)
    tad::rt::parallelFor(0, batches, 1, [&](int64_t begin, int64_t end) {
      run(begin, end, /*threaded=*/false);
    });
  else
    run(0, batches, /*threaded=*/true);
}

} // namespace

extern "C" {

void _mlir_ciface_tad_rt_matmul_f32(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                    tad_rt_memref2 *c) {
  tad::rt::gemm2<float>(a, b, c, true, gemm2d<float>);
}
void _mlir_ciface_tad_rt_matmul_f64(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                    tad_rt_memref2 *c) {
  tad::rt::gemm2<double>(a, b, c, true, gemm2d<double>);
}
void _mlir_ciface_tad_rt_batch_matmul_f32(tad_rt_memref3 *a,
                                          tad_rt_memref3 *b,
                                          tad_rt_memref3 *c) {
  batchGemm<float>(a, b, c, true);
}
void _mlir_ciface_tad_rt_batch_matmul_f64(tad_rt_memref3 *a,
                                          tad_rt_memref3 *b,
                                          tad_rt_memref3 *c) {
  batchGemm<double>(a, b, c, true);
}

void _mlir_ciface_tad_rt_matmul_assign_f32(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                           tad_rt_memref2 *c) {
  tad::rt::gemm2<float>(a, b, c, false, gemm2d<float>);
}
void _mlir_ciface_tad_rt_matmul_assign_f64(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                           tad_rt_memref2 *c) {
  tad::rt::gemm2<double>(a, b, c, false, gemm2d<double>);
}
void _mlir_ciface_tad_rt_batch_matmul_assign_f32(tad_rt_memref3 *a,
                                                 tad_rt_memref3 *b,
                                                 tad_rt_memref3 *c) {
  batchGemm<float>(a, b, c, false);
}
void _mlir_ciface_tad_rt_batch_matmul_assign_f64(tad_rt_memref3 *a,
                                                 tad_rt_memref3 *b,
                                                 tad_rt_memref3 *c) {
  batchGemm<double>(a, b, c, false);
}

void tad_rt_set_num_threads(int threads) {
  // OpenBLAS on one thread (Blas.cpp sets it so where it loaded it): the
  // pool cuts GEMMs.
  tad::rt::setLoopThreads(threads);
  const tad::rt::Blas &blas = tad::rt::getBlas();
  if (blas.shared && blas.setNumThreads)
    blas.setNumThreads(1);
}

} // extern "C"
