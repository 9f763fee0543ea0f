/* A stand-in for cuBLAS (libcublas.so.13) that checks each call as cuBLAS
 * would (operations, sizes, leading dimensions) and computes it on the
 * host: with fake_libcuda.c, "device" memory is host memory. It lets the
 * tests check tad's row-major-to-column-major mapping of matmuls
 * (runtime/lib/CudaBlas.cpp) on machines without a GPU. A GEMM is work on
 * the stand-in device: it may touch device memory while kernels are
 * pending, and leaves its own pending, until the host waits.
 *
 * With FAKE_CUBLAS_LOG set, each call is also a line on stderr (its kind,
 * operations, sizes, leading dimensions, and a batch's strides and count):
 * bench/gpu/gemm_calls.py lists a program's GEMMs from it. With
 * FAKE_CUBLAS_SKIP set too, the calls are checked and logged but not
 * computed (their outputs are left as they were), for programs whose GEMMs
 * the host would take minutes to compute.
 *
 * A GEMM on a stream that fake_libcuda.c is capturing (the runtime's
 * TAD_CUDA_GRAPHS) is recorded in the graph instead, and runs (checked,
 * logged, computed) when the graph is launched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int gemms, batched, handles, errors;

/* Whether the environment variable `name` is set and not empty. */
static int flag(const char *name) {
  const char *value = getenv(name);
  return value && *value;
}

/* fake_libcuda.c's, when it is the driver. */
static void deviceWork(int begin, const void *a, const void *b, const void *c) {
  void (*work)(int, const void *, const void *, const void *) =
      (void (*)(int, const void *, const void *, const void *))dlsym(
          RTLD_DEFAULT, "fake_cuda_device_work");
  if (work)
    work(begin, a, b, c);
}

/* cublasSetStream_v2's stream: the runtime's own, with CUDA graphs. */
static void *stream;

int cublasSetStream_v2(void *handle, void *s) {
  if (handle != (void *)0x3)
    ++errors;
  stream = s;
  return 0;
}

/* A GEMM captured in a graph: its arguments, and whether it is a batch. */
struct Deferred {
  int isDouble, isBatched, opA, opB, m, n, k, lda, ldb, ldc, batch;
  void *handle;
  double alpha, beta;
  const void *a, *b;
  void *c;
  long long strideA, strideB, strideC;
};
static void runDeferred(void *arg);
/* The fields of a Deferred that a GEMM and a batch share, from the
 * arguments of the cuBLAS function. */
#define DEFERRED_GEMM(T)                                                       \
  .isDouble = sizeof(T) == 8, .opA = opA, .opB = opB, .m = m, .n = n, .k = k,  \
  .lda = lda, .ldb = ldb, .ldc = ldc, .handle = handle, .alpha = *alpha,       \
  .beta = *beta, .a = a, .b = b, .c = c

/* Records `d` in the graph that fake_libcuda.c captures from `stream`, if
 * it captures one: 1 then, else 0. */
static int deferred(struct Deferred d) {
  int (*capture)(void *, void (*)(void *), void *) =
      (int (*)(void *, void (*)(void *), void *))dlsym(
          RTLD_DEFAULT, "fake_cuda_capture_host");
  if (!capture || !stream)
    return 0;
  struct Deferred *copy = malloc(sizeof *copy);
  *copy = d;
  if (capture(stream, runDeferred, copy))
    return 1;
  free(copy);
  return 0;
}

static void report(void) {
  fprintf(stderr,
          "fake libcublas: %d gemms (%d strided batched calls), %d handles "
          "left, %d errors\n",
          gemms, batched, handles, errors);
}

int cublasCreate_v2(void **handle) {
  *handle = (void *)0x3;
  ++handles;
  atexit(report);
  return 0;
}

int cublasDestroy_v2(void *handle) {
  if (handle != (void *)0x3)
    ++errors;
  --handles;
  return 0;
}

/* Column-major C (m x n) = alpha op(A) op(B) + beta C, checked as cuBLAS
 * checks it; NAME##_one is one matrix of a batch (logged by the batch). */
#define GEMM(NAME, T)                                                          \
  static int NAME##_one(void *handle, int opA, int opB, int m, int n, int k,   \
                        const T *alpha, const T *a, int lda, const T *b,       \
                        int ldb, const T *beta, T *c, int ldc) {               \
    int aRows = opA ? k : m, bRows = opB ? n : k;                              \
    if (handle != (void *)0x3 || opA < 0 || opA > 1 || opB < 0 || opB > 1 ||   \
        m < 0 || n < 0 || k < 0 || lda < (aRows > 1 ? aRows : 1) ||            \
        ldb < (bRows > 1 ? bRows : 1) || ldc < (m > 1 ? m : 1)) {              \
      fprintf(stderr,                                                          \
              "fake libcublas: invalid gemm %d %d %d %d %d %d %d %d\n", opA,   \
              opB, m, n, k, lda, ldb, ldc);                                    \
      ++errors;                                                                \
      return 7; /* CUBLAS_STATUS_INVALID_VALUE */                              \
    }                                                                          \
    ++gemms;                                                                   \
    if (flag("FAKE_CUBLAS_SKIP"))                                              \
      return 0;                                                                \
    deviceWork(1, a, b, c);                                                    \
    for (int j = 0; j < n; ++j)                                                \
      for (int i = 0; i < m; ++i) {                                            \
        T sum = 0;                                                             \
        for (int p = 0; p < k; ++p)                                            \
          sum += (opA ? a[p + i * lda] : a[i + p * lda]) *                     \
                 (opB ? b[j + p * ldb] : b[p + j * ldb]);                      \
        c[i + j * ldc] = *alpha * sum + *beta * c[i + j * ldc];                \
      }                                                                        \
    deviceWork(0, a, b, c);                                                    \
    return 0;                                                                  \
  }                                                                            \
  int NAME(void *handle, int opA, int opB, int m, int n, int k,                \
           const T *alpha, const T *a, int lda, const T *b, int ldb,           \
           const T *beta, T *c, int ldc) {                                     \
    struct Deferred d = {DEFERRED_GEMM(T)};                                    \
    if (deferred(d))                                                           \
      return 0;                                                                \
    if (flag("FAKE_CUBLAS_LOG"))                                               \
      fprintf(stderr, "fake libcublas: gemm %d %d %d %d %d %d %d %d\n", opA,   \
              opB, m, n, k, lda, ldb, ldc);                                    \
    return NAME##_one(handle, opA, opB, m, n, k, alpha, a, lda, b, ldb, beta,  \
                      c, ldc);                                                 \
  }

GEMM(cublasSgemm_v2, float)
GEMM(cublasDgemm_v2, double)

/* The batch as cuBLAS defines it: matrix i at A + i * strideA, ... (a
 * stride of 0 shares an operand), each checked and computed as above, and
 * counted as one call. */
#define GEMM_BATCHED(NAME, GEMM1, T)                                           \
  int NAME(void *handle, int opA, int opB, int m, int n, int k,                \
           const T *alpha, const T *a, int lda, long long strideA, const T *b, \
           int ldb, long long strideB, const T *beta, T *c, int ldc,           \
           long long strideC, int batch) {                                     \
    struct Deferred d = {DEFERRED_GEMM(T),   .isBatched = 1,                   \
                         .batch = batch,     .strideA = strideA,               \
                         .strideB = strideB, .strideC = strideC};              \
    if (deferred(d))                                                           \
      return 0;                                                                \
    if (batch < 0 || strideC < (long long)ldc * (n > 0 ? n - 1 : 0) + m) {     \
      fprintf(stderr, "fake libcublas: invalid batch %d, strideC %lld\n",      \
              batch, strideC);                                                 \
      ++errors;                                                                \
      return 7;                                                                \
    }                                                                          \
    if (flag("FAKE_CUBLAS_LOG"))                                               \
      fprintf(stderr,                                                          \
              "fake libcublas: batched gemm %d %d %d %d %d %d %d %d %lld "     \
              "%lld %lld %d\n",                                                \
              opA, opB, m, n, k, lda, ldb, ldc, strideA, strideB, strideC,     \
              batch);                                                          \
    for (int i = 0; i < batch; ++i)                                            \
      if (GEMM1##_one(handle, opA, opB, m, n, k, alpha, a + i * strideA, lda,  \
                      b + i * strideB, ldb, beta, c + i * strideC, ldc))       \
        return 7;                                                              \
    ++batched;                                                                 \
    return 0;                                                                  \
  }

GEMM_BATCHED(cublasSgemmStridedBatched, cublasSgemm_v2, float)
GEMM_BATCHED(cublasDgemmStridedBatched, cublasDgemm_v2, double)

static void runDeferred(void *arg) {
  const struct Deferred *d = arg;
  if (d->isDouble) {
    const double alpha = d->alpha, beta = d->beta;
    if (d->isBatched)
      cublasDgemmStridedBatched(d->handle, d->opA, d->opB, d->m, d->n, d->k,
                                &alpha, d->a, d->lda, d->strideA, d->b, d->ldb,
                                d->strideB, &beta, d->c, d->ldc, d->strideC,
                                d->batch);
    else
      cublasDgemm_v2(d->handle, d->opA, d->opB, d->m, d->n, d->k, &alpha, d->a,
                     d->lda, d->b, d->ldb, &beta, d->c, d->ldc);
    return;
  }
  const float alpha = (float)d->alpha, beta = (float)d->beta;
  if (d->isBatched)
    cublasSgemmStridedBatched(d->handle, d->opA, d->opB, d->m, d->n, d->k,
                              &alpha, d->a, d->lda, d->strideA, d->b, d->ldb,
                              d->strideB, &beta, d->c, d->ldc, d->strideC,
                              d->batch);
  else
    cublasSgemm_v2(d->handle, d->opA, d->opB, d->m, d->n, d->k, &alpha, d->a,
                   d->lda, d->b, d->ldb, &beta, d->c, d->ldc);
}
