//===- MatmulTest.cpp - the runtime's GEMM entry points -------------------===//
//
// tad-matmul-to-runtime calls `tad_rt_matmul_*` (C += A B) and, where it
// dropped the zero fill of C before the matmul, `tad_rt_matmul_assign_*`
// (C = A B, beta = 0). Both must give the plain triple loop's result on every
// layout: BLAS's (contiguous, transposed views) and the strided loop's (a C
// without a unit last stride), and `assign` must not read C.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

constexpr int64_t M = 5, N = 7, K = 3;

/// Element (i, j) of a strided 2-D view.
template <typename T>
T at(const std::vector<T> &data, int64_t s0, int64_t s1, int64_t i, int64_t j) {
  return data[i * s0 + j * s1];
}

template <typename T>
tad_rt_memref2 view(std::vector<T> &data, int64_t rows, int64_t cols,
                    int64_t s0, int64_t s1) {
  return {data.data(), data.data(), 0, {rows, cols}, {s0, s1}};
}

/// Runs `gemm` on A (row-major, or a transposed view of a K x M buffer when
/// `transposedA`) and a C with column stride `cStride`, starting from
/// `initial`, and checks every element against a double-precision loop.
template <typename T>
void check(void (*gemm)(tad_rt_memref2 *, tad_rt_memref2 *, tad_rt_memref2 *),
           bool accumulate, bool transposedA, int64_t cStride, T initial) {
  std::vector<T> a(M * K), b(K * N), c(M * N * cStride, initial);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = T(0.25) * T(i % 7) - T(0.5);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = T(0.125) * T(i % 5) + T(0.25);
  // A transposed view of a K x M buffer: element (i, p) at p * M + i.
  int64_t a0 = transposedA ? 1 : K, a1 = transposedA ? M : 1;
  tad_rt_memref2 va = view(a, M, K, a0, a1), vb = view(b, K, N, N, 1),
                 vc = view(c, M, N, N * cStride, cStride);
  gemm(&va, &vb, &vc);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = accumulate ? double(initial) : 0.0;
      for (int64_t p = 0; p < K; ++p)
        want += double(at(a, a0, a1, i, p)) * double(at(b, N, 1, p, j));
      T got = at(c, N * cStride, cStride, i, j);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got)) << i << "," << j;
      else
        EXPECT_NEAR(double(got), want, 1e-5) << i << "," << j;
    }
}

TEST(MatmulTest, AccumulatesIntoC) {
  for (bool transposed : {false, true})
    for (int64_t stride : {1, 2}) {
      check<float>(_mlir_ciface_tad_rt_matmul_f32, true, transposed, stride,
                   1.5f);
      check<double>(_mlir_ciface_tad_rt_matmul_f64, true, transposed, stride,
                    -2.0);
    }
}

TEST(MatmulTest, AssignDoesNotReadC) {
  // C starts as NaN: beta = 0 (and the strided loop's zeroing) must not read
  // it, where 0 * NaN would be NaN.
  for (bool transposed : {false, true})
    for (int64_t stride : {1, 2}) {
      check<float>(_mlir_ciface_tad_rt_matmul_assign_f32, false, transposed,
                   stride, std::numeric_limits<float>::quiet_NaN());
      check<double>(_mlir_ciface_tad_rt_matmul_assign_f64, false, transposed,
                    stride, std::numeric_limits<double>::quiet_NaN());
    }
}

TEST(MatmulTest, BatchAssignWritesEveryBatch) {
  constexpr int64_t B = 3;
  std::vector<float> a(B * M * K, 1.0f), b(B * K * N, 2.0f),
      c(B * M * N, std::numeric_limits<float>::quiet_NaN());
  tad_rt_memref3 va{a.data(), a.data(), 0, {B, M, K}, {M * K, K, 1}};
  tad_rt_memref3 vb{b.data(), b.data(), 0, {B, K, N}, {K * N, N, 1}};
  tad_rt_memref3 vc{c.data(), c.data(), 0, {B, M, N}, {M * N, N, 1}};
  _mlir_ciface_tad_rt_batch_matmul_assign_f32(&va, &vb, &vc);
  for (float x : c)
    EXPECT_EQ(x, 2.0f * K);
  // And the accumulating form adds the same again.
  _mlir_ciface_tad_rt_batch_matmul_f32(&va, &vb, &vc);
  for (float x : c)
    EXPECT_EQ(x, 4.0f * K);
}

} // namespace
