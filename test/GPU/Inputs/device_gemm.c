/* A GEMM whose layout cuBLAS cannot take (no unit stride) runs as a loop on
 * the host (runtime/lib/CudaBlas.cpp). Its operands here are device memory
 * (tad_rt_mark_device_buffer), which the stand-in driver (fake_libcuda.c)
 * keeps from the host: the runtime copies each operand's span to the host,
 * and the output's back. C += A B with A 3 x 5 at strides (10, 2), B 5 x 4
 * at (4, 1), C 3 x 4 at (8, 2); the elements of C's span between C's keep
 * their value. Prints the largest error against the host's product and
 * the bytes the runtime copied. */
#include "tad/runtime/Runtime.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

void _mlir_ciface_tad_rt_cuda_matmul_f32(tad_rt_memref2 *a, tad_rt_memref2 *b,
                                         tad_rt_memref2 *c);

typedef int (*Copy)(unsigned long long, const void *, size_t);
typedef int (*CopyBack)(void *, unsigned long long, size_t);

static float *deviceBuffer(size_t count) {
  tad_rt_mark_device_buffer();
  return _mlir_memref_to_llvm_alloc(count * sizeof(float));
}

int main(void) {
  if (tad_rt_cuda_begin() != 0) {
    fprintf(stderr, "%s\n", tad_rt_cuda_error());
    return 2;
  }
  void *driver = dlopen("libcuda.so.1", RTLD_NOW);
  Copy toDevice = (Copy)dlsym(driver, "cuMemcpyHtoD_v2");
  CopyBack toHost = (CopyBack)dlsym(driver, "cuMemcpyDtoH_v2");
  float a[30], b[20], c[24], expected[24];
  for (int i = 0; i < 30; ++i)
    a[i] = (float)(i % 7) - 3.0f;
  for (int i = 0; i < 20; ++i)
    b[i] = 0.5f * (float)(i % 5) - 1.0f;
  for (int i = 0; i < 24; ++i)
    c[i] = expected[i] = 7.0f;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int p = 0; p < 5; ++p)
        expected[i * 8 + j * 2] += a[i * 10 + p * 2] * b[p * 4 + j];
  float *da = deviceBuffer(30), *db = deviceBuffer(20), *dc = deviceBuffer(24);
  toDevice((unsigned long long)(size_t)da, a, sizeof a);
  toDevice((unsigned long long)(size_t)db, b, sizeof b);
  toDevice((unsigned long long)(size_t)dc, c, sizeof c);
  tad_rt_memref2 ma = {da, da, 0, {3, 5}, {10, 2}};
  tad_rt_memref2 mb = {db, db, 0, {5, 4}, {4, 1}};
  tad_rt_memref2 mc = {dc, dc, 0, {3, 4}, {8, 2}};
  tad_rt_reset_peak();
  _mlir_ciface_tad_rt_cuda_matmul_f32(&ma, &mb, &mc);
  toHost(c, (unsigned long long)(size_t)dc, sizeof c);
  float error = 0;
  for (int i = 0; i < 24; ++i)
    error = fmaxf(error, fabsf(c[i] - expected[i]));
  tad_rt_gpu_counts counts = tad_rt_get_gpu_counts();
  printf("largest error %g, %lld bytes copied, %lld bytes in device memory\n",
         error, (long long)counts.copied_bytes, (long long)counts.device_bytes);
  fflush(stdout); /* before the stand-in's report at exit */
  return 0;
}
