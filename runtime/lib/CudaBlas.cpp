//===- CudaBlas.cpp - GEMM on the GPU through cuBLAS ----------------------===//
//
// `tadc --target=cuda --cuda-matmul=cublas` lowers matmuls to calls of
// these functions (tad-matmul-to-runtime with the `tad_rt_cuda_` prefix)
// instead of generating kernels, so that the two can be compared on a GPU
// (docs/gpu.md). cuBLAS is loaded at run time, like the driver, so nothing
// links against it.
//
// cuBLAS is column-major: a row-major C = A B is the column-major
// C^T = B^T A^T, so the operands are passed swapped. An operand stored with
// its unit stride in the other dimension is passed transposed. A layout
// without a unit stride runs as a loop on the host after the GPU has
// finished: in managed memory, which both can address, or on copies of the
// operands that lie in device memory (tad_rt_mark_device_buffer). A batched
// matmul is one strided batched GEMM (its batch stride is the descriptor's),
// not a call per matrix: attention's [B, H, T, T] products are B x H matrices.
// GEMMs go to the kernels' stream, after the kernels before them; with CUDA
// graphs (TAD_CUDA_GRAPHS) they are recorded with them (CudaGraphs.cpp).
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"
#include "StridedGemm.h"

#include "tad/runtime/Runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using cublasHandle = void *;
using cublasStatus = int;
constexpr int kOpN = 0, kOpT = 1; // CUBLAS_OP_N, CUBLAS_OP_T

struct Cublas {
  std::once_flag loaded;
  /// Why cuBLAS cannot be used, or empty once it is loaded.
  std::string error;
  cublasHandle handle = nullptr;
  cublasStatus (*create)(cublasHandle *);
  cublasStatus (*destroy)(cublasHandle);
  cublasStatus (*sgemm)(cublasHandle, int, int, int, int, int, const float *,
                        const float *, int, const float *, int, const float *,
                        float *, int);
  cublasStatus (*dgemm)(cublasHandle, int, int, int, int, int, const double *,
                        const double *, int, const double *, int,
                        const double *, double *, int);
  /// A batch of GEMMs at fixed strides in one call; null where the
  /// library lacks it (each matrix is then a call of its own).
  cublasStatus (*sgemmBatched)(cublasHandle, int, int, int, int, int,
                               const float *, const float *, int, long long,
                               const float *, int, long long, const float *,
                               float *, int, long long, int);
  cublasStatus (*dgemmBatched)(cublasHandle, int, int, int, int, int,
                               const double *, const double *, int, long long,
                               const double *, int, long long, const double *,
                               double *, int, long long, int);
};

Cublas &cublas() {
  static Cublas *c = new Cublas;
  return *c;
}

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "tad runtime: error: cuBLAS: %s\n", what.c_str());
  std::exit(4);
}

/// Loads cuBLAS and makes its handle, or says why not in `error`: code
/// compiled with --cuda-matmul=cublas stops with it (requireLoaded), and
/// --cuda-matmul=auto runs its kernels instead (tad_rt_cuda_blas_available).
void load() {
  Cublas &c = cublas();
  void *library = nullptr;
  for (const char *name : {"libcublas.so.13", "libcublas.so.12"})
    if ((library = dlopen(name, RTLD_NOW | RTLD_GLOBAL)))
      break;
  if (!library) {
    c.error = "cannot load libcublas.so.13 or libcublas.so.12, which code "
              "compiled with --cuda-matmul=cublas needs";
    return;
  }
  c.create = reinterpret_cast<decltype(c.create)>(
      dlsym(library, "cublasCreate_v2"));
  c.sgemm = reinterpret_cast<decltype(c.sgemm)>(
      dlsym(library, "cublasSgemm_v2"));
  c.dgemm = reinterpret_cast<decltype(c.dgemm)>(
      dlsym(library, "cublasDgemm_v2"));
  if (!c.create || !c.sgemm || !c.dgemm) {
    c.error = "libcublas lacks cublasCreate_v2, cublasSgemm_v2 or "
              "cublasDgemm_v2";
    return;
  }
  c.destroy = reinterpret_cast<decltype(c.destroy)>(
      dlsym(library, "cublasDestroy_v2"));
  c.sgemmBatched = reinterpret_cast<decltype(c.sgemmBatched)>(
      dlsym(library, "cublasSgemmStridedBatched"));
  c.dgemmBatched = reinterpret_cast<decltype(c.dgemmBatched)>(
      dlsym(library, "cublasDgemmStridedBatched"));
  if (cublasStatus s = c.create(&c.handle)) {
    c.error = "cublasCreate failed with status " + std::to_string(s);
    return;
  }
  // GEMMs go where the kernels go: with CUDA graphs, the runtime's stream.
  if (void *stream = tad::rt::cuda::workStream()) {
    auto setStream = reinterpret_cast<cublasStatus (*)(cublasHandle, void *)>(
        dlsym(library, "cublasSetStream_v2"));
    cublasStatus s = setStream ? setStream(c.handle, stream) : -1;
    if (s) {
      c.error = "cublasSetStream failed (status " + std::to_string(s) +
                "), which CUDA graphs (TAD_CUDA_GRAPHS) need";
      return;
    }
  }
  // The handle holds device memory (its workspace, 64 MiB on an H200),
  // which compute-sanitizer reports as leaked unless it is destroyed
  // before the process ends. Registered after the driver's setup, this
  // runs before anything that setup registered.
  if (c.destroy)
    std::atexit([] {
      Cublas &c = cublas();
      c.destroy(c.handle);
      c.handle = nullptr;
    });
}

void requireLoaded() {
  std::call_once(cublas().loaded, load);
  if (!cublas().error.empty())
    fail(cublas().error);
}

/// How one row-major operand maps onto cuBLAS's column-major view.
struct View {
  bool ok = false;
  int op = kOpN;
  int64_t ld = 0;
};

View viewOf(int64_t rows, int64_t cols, int64_t rowStride,
            int64_t colStride) {
  // A dimension of size 1 may have any stride; normalize it.
  if (cols == 1)
    colStride = 1;
  if (rows == 1)
    rowStride = cols;
  // Row-major with a unit column stride is, column-major, the transpose:
  // cuBLAS reads it untransposed in the swapped product.
  if (colStride == 1 && rowStride >= cols)
    return {true, kOpN, rowStride};
  if (rowStride == 1 && colStride >= rows)
    return {true, kOpT, colStride};
  return {};
}

/// A GEMM as cuBLAS takes it (alpha 1, beta 1 or 0), of one matrix
/// (`batch` 0) or a strided batch: also the key by which CUDA graphs record
/// it (CudaGraphs.cpp), by its bytes, so it has no padding.
struct GemmCall {
  int f64, opB, opA, n, m, k, ldb, lda, ldc, batch, accumulate;
  int zero; // fills what would be padding before the strides
  long long sb, sa, sc;
  const void *b, *a;
  void *c;
};
static_assert(std::has_unique_object_representations_v<GemmCall>,
              "a GemmCall is compared by its bytes");

template <typename T>
cublasStatus issueTyped(
    const GemmCall &g,
    cublasStatus (*one)(cublasHandle, int, int, int, int, int, const T *,
                        const T *, int, const T *, int, const T *, T *, int),
    cublasStatus (*batched)(cublasHandle, int, int, int, int, int, const T *,
                            const T *, int, long long, const T *, int,
                            long long, const T *, T *, int, long long, int)) {
  const T alpha = 1, beta = g.accumulate ? 1 : 0;
  auto *b = static_cast<const T *>(g.b), *a = static_cast<const T *>(g.a);
  auto *c = static_cast<T *>(g.c);
  if (!g.batch)
    return one(cublas().handle, g.opB, g.opA, g.n, g.m, g.k, &alpha, b, g.ldb,
               a, g.lda, &beta, c, g.ldc);
  return batched(cublas().handle, g.opB, g.opA, g.n, g.m, g.k, &alpha, b, g.ldb,
                 g.sb, a, g.lda, g.sa, &beta, c, g.ldc, g.sc, g.batch);
}

/// Issues the GEMM `key` (a GemmCall) on the work stream: 0, or cuBLAS's
/// status.
int issueGemm(const void *key) {
  GemmCall g;
  std::memcpy(&g, key, sizeof g);
  Cublas &c = cublas();
  return g.f64 ? issueTyped<double>(g, c.dgemm, c.dgemmBatched)
               : issueTyped<float>(g, c.sgemm, c.sgemmBatched);
}

/// Issues `g`, or records it where CUDA graphs are enabled; after the
/// kernels before it and before those after it, on the work stream. The
/// host waits where it reads C (tad-gpu-host-waits).
void runGemm(const GemmCall &g) {
  tad::rt::cuda::countBlasCall();
  if (!tad::rt::cuda::graphs::recordWork(&g, sizeof g, issueGemm))
    if (int status = issueGemm(&g))
      fail(std::string(g.batch ? "strided batched gemm" : "gemm") +
           " failed with status " + std::to_string(status));
  tad::rt::cuda::issued();
}

/// A zeroed GemmCall of element type T.
template <typename T> GemmCall gemmCall() {
  GemmCall g{};
  g.f64 = std::is_same_v<T, double>;
  return g;
}

bool hasBatched(float) { return cublas().sgemmBatched; }
bool hasBatched(double) { return cublas().dgemmBatched; }

/// A matrix operand of a GEMM that runs on the host: its elements where
/// the host can address them, else (device memory) a copy of the span of
/// memory they lie in.
template <typename T> class HostOperand {
public:
  HostOperand(const T *ptr, int64_t rows, int64_t cols, int64_t s0, int64_t s1)
      : host(const_cast<T *>(ptr)) {
    if (rows <= 0 || cols <= 0 || !tad::rt::cuda::isDeviceOnly(ptr))
      return;
    // The span's first and last elements, whatever the strides' signs.
    int64_t low = std::min<int64_t>(0, (rows - 1) * s0) +
                  std::min<int64_t>(0, (cols - 1) * s1);
    int64_t high = std::max<int64_t>(0, (rows - 1) * s0) +
                   std::max<int64_t>(0, (cols - 1) * s1);
    device = const_cast<T *>(ptr) + low;
    copy.resize(size_t(high - low + 1));
    tad::rt::cuda::copyToHost(copy.data(), device, copy.size() * sizeof(T));
    host = copy.data() - low;
  }
  T *get() const { return host; }
  /// Copies the span back where it is a copy (the output's).
  void writeBack() const {
    if (device)
      tad::rt::cuda::copyToDevice(device, copy.data(), copy.size() * sizeof(T));
  }

private:
  T *host;
  T *device = nullptr;
  std::vector<T> copy;
};

/// C += A B (C = A B when `!accumulate`; row-major, strided).
template <typename T>
void gemm(int64_t m, int64_t n, int64_t k, const T *a, int64_t a0, int64_t a1,
          const T *b, int64_t b0, int64_t b1, T *c, int64_t c0, int64_t c1,
          bool accumulate) {
  View va = viewOf(m, k, a0, a1), vb = viewOf(k, n, b0, b1);
  View vc = viewOf(m, n, c0, c1);
  if (!(va.ok && vb.ok && vc.ok && vc.op == kOpN)) {
    tad::rt::cuda::synchronize();
    HostOperand<T> ha(a, m, k, a0, a1), hb(b, k, n, b0, b1),
        hc(c, m, n, c0, c1);
    tad::rt::stridedGemmLoop(m, n, k, ha.get(), a0, a1, hb.get(), b0, b1,
                             hc.get(), c0, c1, accumulate);
    hc.writeBack();
    return;
  }
  requireLoaded();
  GemmCall g = gemmCall<T>();
  g.opB = vb.op, g.opA = va.op, g.n = int(n), g.m = int(m), g.k = int(k);
  g.b = b, g.ldb = int(vb.ld), g.a = a, g.lda = int(va.ld), g.c = c;
  g.ldc = int(vc.ld), g.accumulate = accumulate;
  runGemm(g);
}

/// The batch of C[i] += A[i] B[i] of rank-3 descriptors as one strided
/// batched GEMM, where each matrix has a layout cuBLAS takes and the
/// outputs do not overlap; else one GEMM per matrix. A batch stride of 0
/// (an operand shared by the batch) is one cuBLAS takes too.
template <typename T>
void batchGemm(tad_rt_memref3 *a, tad_rt_memref3 *b, tad_rt_memref3 *c,
               bool accumulate) {
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2],
          k = a->sizes[2];
  View va = viewOf(m, k, a->strides[1], a->strides[2]);
  View vb = viewOf(k, n, b->strides[1], b->strides[2]);
  View vc = viewOf(m, n, c->strides[1], c->strides[2]);
  // The last element of one output matrix, past which the next begins.
  int64_t extent = (m - 1) * c->strides[1] + (n - 1) * c->strides[2] + 1;
  bool layout = batch >= 2 && va.ok && vb.ok && vc.ok && vc.op == kOpN &&
                c->strides[0] >= extent &&
                batch <= std::numeric_limits<int>::max();
  if (layout)
    requireLoaded();
  if (!layout || !hasBatched(T())) {
    tad::rt::gemm3<T>(a, b, c, accumulate, gemm<T>);
    return;
  }
  GemmCall g = gemmCall<T>();
  g.opB = vb.op, g.opA = va.op, g.n = int(n), g.m = int(m), g.k = int(k);
  g.b = static_cast<const T *>(b->aligned) + b->offset, g.ldb = int(vb.ld);
  g.sb = b->strides[0];
  g.a = static_cast<const T *>(a->aligned) + a->offset, g.lda = int(va.ld);
  g.sa = a->strides[0];
  g.c = static_cast<T *>(c->aligned) + c->offset, g.ldc = int(vc.ld);
  g.sc = c->strides[0], g.batch = int(batch), g.accumulate = accumulate;
  runGemm(g);
}

} // namespace

extern "C" {

int tad_rt_cuda_blas_available(void) {
  std::call_once(cublas().loaded, load);
  return cublas().error.empty();
}
// The name compiled code calls (every function of its module gets a C
// interface; one without memref arguments has the same signature).
int _mlir_ciface_tad_rt_cuda_blas_available(void) {
  return tad_rt_cuda_blas_available();
}

void _mlir_ciface_tad_rt_cuda_matmul_f32(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                         tad_rt_memref2 *c) {
  tad::rt::gemm2<float>(a, b, c, true, gemm<float>);
}
void _mlir_ciface_tad_rt_cuda_matmul_f64(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                         tad_rt_memref2 *c) {
  tad::rt::gemm2<double>(a, b, c, true, gemm<double>);
}
void _mlir_ciface_tad_rt_cuda_batch_matmul_f32(tad_rt_memref3 *a,
                                               tad_rt_memref3 *b,
                                               tad_rt_memref3 *c) {
  batchGemm<float>(a, b, c, true);
}
void _mlir_ciface_tad_rt_cuda_batch_matmul_f64(tad_rt_memref3 *a,
                                               tad_rt_memref3 *b,
                                               tad_rt_memref3 *c) {
  batchGemm<double>(a, b, c, true);
}

void _mlir_ciface_tad_rt_cuda_matmul_assign_f32(tad_rt_memref2 *a,
                                                tad_rt_memref2 *b,
                                                tad_rt_memref2 *c) {
  tad::rt::gemm2<float>(a, b, c, false, gemm<float>);
}
void _mlir_ciface_tad_rt_cuda_matmul_assign_f64(tad_rt_memref2 *a,
                                                tad_rt_memref2 *b,
                                                tad_rt_memref2 *c) {
  tad::rt::gemm2<double>(a, b, c, false, gemm<double>);
}
void _mlir_ciface_tad_rt_cuda_batch_matmul_assign_f32(tad_rt_memref3 *a,
                                                      tad_rt_memref3 *b,
                                                      tad_rt_memref3 *c) {
  batchGemm<float>(a, b, c, false);
}
void _mlir_ciface_tad_rt_cuda_batch_matmul_assign_f64(tad_rt_memref3 *a,
                                                      tad_rt_memref3 *b,
                                                      tad_rt_memref3 *c) {
  batchGemm<double>(a, b, c, false);
}

} // extern "C"
