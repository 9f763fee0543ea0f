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

/// Frees memory from allocateManaged().
void freeManaged(void *ptr);

/// `size` bytes of managed memory for a buffer of compiled code: a block of
/// that size that freePooled() kept, else allocateManaged()'s. Reusing
/// blocks spares the driver's allocation and free (which waits for the
/// device) and the page faults of a new block's first use, every call.
void *allocatePooled(size_t size);

/// Keeps `ptr` (of `size` bytes, from allocatePooled()) for reuse while
/// the pool holds at most `keep` bytes, else frees it.
void freePooled(void *ptr, size_t size, size_t keep);

/// Frees every block the pool keeps; returns their bytes.
size_t releasePool();

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
void resetCalls();
/// The most bytes of scratch (tad_rt_mark_scratch) live at once since the
/// last tad_rt_reset_peak (Allocator.cpp).
int64_t scratchPeak();

} // namespace tad::rt::cuda

#endif // TAD_RUNTIME_LIB_CUDA_H
