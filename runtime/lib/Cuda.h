//===- Cuda.h - the runtime's use of the CUDA driver (private) ------------===//
//
// The driver is loaded at run time (dlopen of libcuda.so.1), so that the
// runtime, and every library and executable that carries it, links and
// runs on machines without one; compiled GPU code then stops with a clear
// error instead of failing to load.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_RUNTIME_LIB_CUDA_H
#define TAD_RUNTIME_LIB_CUDA_H

#include <cstddef>
#include <cstdint>

namespace tad::rt::cuda {

/// Whether tad_rt_cuda_begin() succeeded: from then on the allocator
/// allocates managed memory.
bool isActive();

/// `size` bytes of managed memory (addressable by the GPU and the host), or
/// null when the driver cannot allocate them.
void *allocateManaged(size_t size);

/// Frees memory from allocateManaged(), or device memory of allocatePooled()
/// (cuMemFree frees either), after the work issued so far.
void freeManaged(void *ptr);

/// Whether buffers that compiled code marks as the device's
/// (tad_rt_mark_device_buffer) are device memory: unless the environment
/// sets TAD_CUDA_MANAGED_ONLY (every buffer managed, as before the mark, to
/// measure what the mark does).
bool deviceBuffersEnabled();

/// `size` bytes for a buffer of compiled code: device memory (cuMemAlloc,
/// which the host cannot address) where `deviceOnly`, else managed memory;
/// a block of that size and kind that freePooled() kept, else the
/// driver's. Reusing blocks spares the driver's allocation and free (which
/// waits for the device) and the page faults of a new block's first use,
/// every call.
void *allocatePooled(size_t size, bool deviceOnly);

/// Keeps `ptr` (of `size` bytes and its kind, from allocatePooled()) for
/// reuse while the pool holds at most `keep` bytes of both kinds, else
/// frees it.
void freePooled(void *ptr, size_t size, size_t keep, bool deviceOnly);

/// Frees every block the pool keeps; returns their bytes.
size_t releasePool();

/// Copies `bytes` between host memory and device memory, after the work
/// issued so far (the copy waits for it), and counts them (countCopied).
void copyToHost(void *host, const void *device, size_t bytes);
void copyToDevice(void *device, const void *host, size_t bytes);

/// Whether `ptr` points into a live buffer in device memory (Allocator.cpp).
bool isDeviceOnly(const void *ptr);

/// Records that work was issued to the default stream (a launch, a GEMM).
void issued();

/// Waits for the GPU's work on the default stream, if any was issued since
/// the last wait (only then counted); stops the program with a message if
/// a kernel failed.
void synchronize();

/// The counts of tad_rt_get_gpu_counts() (GpuCounts.cpp): one more launch,
/// cuBLAS call or synchronization, or `bytes` more staged; resetCalls()
/// zeroes the first three (tad_rt_reset_peak()).
void countLaunch();
void countBlasCall();
void countSynchronization();
void countStaged(size_t bytes);
void countCopied(size_t bytes);
void resetCalls();
/// The most bytes of scratch (tad_rt_mark_scratch) live at once since the
/// last tad_rt_reset_peak (Allocator.cpp).
int64_t scratchPeak();
/// The most bytes of buffers in device memory live at once since the last
/// tad_rt_reset_peak (Allocator.cpp).
int64_t deviceOnlyPeak();

} // namespace tad::rt::cuda

#endif // TAD_RUNTIME_LIB_CUDA_H
