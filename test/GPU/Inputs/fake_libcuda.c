/* A stand-in for the CUDA driver (libcuda.so.1) that runs no kernel: it
 * checks the calls tad's runtime makes (a fatbin per module load, a
 * launch only with a loaded kernel and within a GPU's grid and block
 * limits, a synchronization after each launch, managed memory freed once)
 * and prints what it saw at exit. It lets the
 * tests exercise runtime/lib/Cuda.cpp on machines without a GPU.
 *
 * FAKE_CUDA_DEVICES=0 reports no device; FAKE_CUDA_NO_BINARY=1 makes
 * module loads fail as on a GPU that the fatbin has no code for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

static int modules, launches, syncs, pendingLaunch, allocs, frees, errors;
static long long liveBytes, peakBytes;

static void report(void) {
  fprintf(stderr,
          "fake libcuda: %d modules, %d launches, %d synchronizations, %d "
          "allocations, %d frees, peak %lld bytes, %d errors\n",
          modules, launches, syncs, allocs, frees, peakBytes, errors);
}

static void misuse(const char *what) {
  fprintf(stderr, "fake libcuda: misuse: %s\n", what);
  ++errors;
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  atexit(report);
  return 0;
}
CUresult cuDeviceGetCount(int *count) {
  const char *n = getenv("FAKE_CUDA_DEVICES");
  *count = n ? atoi(n) : 1;
  return 0;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return 0;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  *value = attribute == 75 ? 7 : 0; /* compute capability 7.0 */
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device;
  *context = (void *)0x1;
  return 0;
}
CUresult cuCtxSetCurrent(void *context) {
  if (context != (void *)0x1)
    misuse("unknown context");
  return 0;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  unsigned magic;
  memcpy(&magic, image, sizeof magic);
  if (magic != 0xBA55ED50u)
    misuse("a module that is not a fatbin");
  if (getenv("FAKE_CUDA_NO_BINARY"))
    return 209; /* CUDA_ERROR_NO_BINARY_FOR_GPU */
  ++modules;
  *module = (void *)(long)(0x1000 + modules);
  return 0;
}
CUresult cuModuleUnload(void *module) {
  (void)module;
  return 0;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  if ((long)module <= 0x1000 || !name || !*name)
    misuse("a kernel of an unknown module");
  *function = (void *)0x2;
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra) {
  (void)stream;
  (void)extra;
  if (f != (void *)0x2 || !gx || !gy || !gz || !bx || !by || !bz || smem ||
      !params)
    misuse("a launch with an unknown kernel or an empty grid");
  /* A GPU's limits (compute capability 8.0 and 9.0). */
  if (gx > 2147483647u || gy > 65535 || gz > 65535 || bz > 64 ||
      (unsigned long long)bx * by * bz > 1024)
    misuse("a launch past the grid's or the block's limits");
  if (pendingLaunch)
    misuse("a launch before the previous one was synchronized");
  ++launches;
  pendingLaunch = 1;
  return 0;
}
CUresult cuStreamSynchronize(void *stream) {
  (void)stream;
  ++syncs;
  pendingLaunch = 0;
  return 0;
}
CUresult cuMemAllocManaged(unsigned long long *ptr, size_t bytes,
                           unsigned flags) {
  if (flags != 1)
    misuse("managed memory not attached globally");
  /* Zeroed, so that a program whose only kernels fill zeros computes
   * correctly here (fake_libcublas.c does its matmuls on the host). */
  size_t *block = calloc(1, bytes + 64);
  block[0] = bytes;
  *ptr = (unsigned long long)(size_t)((char *)block + 64);
  ++allocs;
  liveBytes += (long long)bytes;
  if (liveBytes > peakBytes)
    peakBytes = liveBytes;
  return 0;
}
CUresult cuMemFree_v2(unsigned long long ptr) {
  size_t *block = (size_t *)((char *)(size_t)ptr - 64);
  liveBytes -= (long long)block[0];
  ++frees;
  free(block);
  return 0;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == 209 ? "no kernel image is available for execution on the "
                         "device"
                       : "unknown error";
  return 0;
}
