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
#include <string>

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

/// `size` bytes of managed memory for a staged input (tad_rt_stage_input):
/// a block of that size that freeStaged() kept (the lowest address), else
/// the driver's; null if there is none.
void *allocateStaged(size_t size);
/// Keeps a block of allocateStaged() for the next staged input of its size
/// (released with the pool: releasePool()).
void freeStaged(void *ptr);

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

/// Records that work was issued to the work stream (a launch, a GEMM).
void issued();

/// Waits for the GPU's work on the work stream, if any was issued since the
/// last wait (only then counted), after issuing what graphs::flush() holds;
/// stops the program with a message if a kernel failed.
void synchronize();

/// The stream that all of compiled code's work goes to, in order: the
/// legacy default stream (null), or the runtime's own stream where CUDA
/// graphs are enabled (graphs::enabled(); none is captured from the legacy
/// stream). Made blocking, so the copies on the legacy stream wait for it.
void *workStream();

/// The driver's description of CUDA error `result`.
std::string describe(int result);
/// Stops the program with `what` and the error's description if `result`
/// is an error: compiled code has no way to handle a failed launch.
void check(int result, const char *what);

/// The driver's function `name` (null if it lacks it, or there is no
/// driver): for the functions that only some uses need.
void *driverSymbol(const char *name);

/// Launches a kernel on `stream` now, stopping the program if the driver
/// refuses (mgpuLaunchKernel's launch, without counting it).
void launchNow(void *function, const unsigned dims[6], unsigned sharedMemory,
               void *stream, void **params);

/// CUDA graphs (CudaGraphs.cpp): where the environment sets TAD_CUDA_GRAPHS,
/// the work issued between two waits of the host (a segment) is recorded
/// instead of issued, and issued at the next wait: as the graph captured
/// from an equal segment before (the same kernels, dimensions, parameter
/// values and GEMMs, in order), which a training loop's calls repeat, else
/// op by op, and captured as a graph the second time it is seen.
namespace graphs {
/// Whether TAD_CUDA_GRAPHS is set and the driver has what graphs need
/// (CUDA 12.4: cuFuncGetParamInfo); decided once.
bool enabled();
/// Records the launch of `function` instead of launching it; false (after
/// issuing what was recorded before, to keep the order) where graphs are
/// off or the kernel's parameters cannot be read: launch it now.
bool recordLaunch(void *function, const unsigned dims[6], unsigned sharedMemory,
                  void **params, size_t paramCount);
/// Records other work (a GEMM) instead of issuing it: `key`'s bytes say
/// what it is, and `issue` is given a copy of them to issue it on the work
/// stream, returning 0 or the library's status. False (after issuing what
/// was recorded before) where graphs are off: issue it now.
bool recordWork(const void *key, size_t bytes, int (*issue)(const void *key));
/// Issues what was recorded since the last flush.
void flush();
} // namespace graphs

/// The counts of tad_rt_get_gpu_counts() (GpuCounts.cpp): one more launch,
/// cuBLAS call, synchronization or graph launched, or `bytes` more staged
/// or copied; resetCalls() zeroes all but the staged bytes
/// (tad_rt_reset_peak()).
void countLaunch();
void countBlasCall();
void countSynchronization();
void countGraphLaunch();
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
