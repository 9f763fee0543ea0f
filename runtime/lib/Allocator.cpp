//===- Allocator.cpp - the counting allocator -----------------------------===//
//
// Compiled code allocates every buffer here. The live bytes of a call are
// the bytes of the buffers it allocated that are still alive: current_bytes,
// whose maximum is the measured peak that tests compare with the budget.
// After tad_rt_cuda_begin() (GPU code), buffers are CUDA managed memory,
// or device memory where the compiler marked them as touched by the GPU
// only (tad_rt_mark_device_buffer), so the same counts are the device's
// (docs/gpu.md).
//
// Host buffers come from an arena (Arena.h) whose pages stay mapped
// between calls, as long as its extent stays within 5/4 of the highest
// live total reached (else from the C library): compiled code allocates
// the same buffers on every call, and memory that the C library hands back
// to the kernel costs a page fault per page when it is allocated again
// (docs/memory.md measures what that cost). Free arena memory is not live
// and not counted.
//===----------------------------------------------------------------------===//

#include "Arena.h"
#include "Cuda.h"

#include "tad/runtime/Runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace {

struct Buffer {
  size_t bytes;
  bool device;     // CUDA managed or device memory
  bool deviceOnly; // device memory (tad_rt_mark_device_buffer)
  bool scratch;    // not the plan's (tad_rt_mark_scratch): counted apart
};

#if defined(__SANITIZE_ADDRESS__)
#define TAD_RT_KEEP_FREED 0 // AddressSanitizer must see every free
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TAD_RT_KEEP_FREED 0
#endif
#endif
#ifndef TAD_RT_KEEP_FREED
#define TAD_RT_KEEP_FREED 1
#endif

struct AllocatorState {
  std::mutex mutex;
  std::unordered_map<const void *, Buffer> live;
  tad_rt_stats stats{0, 0, 0, 0};
  // The host arena (made at the first host allocation), and the highest
  // live total ever reached (tad_rt_reset_peak does not lower it).
  std::unique_ptr<tad::rt::Arena> arena;
  int64_t highWater = 0;
  // Device blocks (scratch too) live, in the sizes the pool keeps them
  // (rounded up), and their highest total: what the pool may keep.
  int64_t deviceBytes = 0, deviceHighWater = 0;
  // Scratch buffers' live bytes and their most since the last reset.
  int64_t scratchBytes = 0, scratchPeak = 0;
  // The live buffers in device memory by address (each one's end), for
  // isDeviceOnly(), and their bytes and most since the last reset.
  std::map<uintptr_t, uintptr_t> deviceOnlyBlocks;
  int64_t deviceOnlyBytes = 0, deviceOnlyPeak = 0;
  bool tracing = false;
  std::vector<tad_rt_trace_event> trace;

  void record(int64_t size) {
    if (tracing)
      trace.push_back({tad_rt_now_seconds(), size, stats.current_bytes});
  }
};

AllocatorState &state() {
  static AllocatorState *s = new AllocatorState; // never destroyed: buffers
  return *s;                                     // may outlive static dtors
}

/// Every buffer is 64-byte aligned: enough for any vector width, and the
/// same for every allocation, so that counts do not depend on alignment.
constexpr size_t kAlignment = 64;

size_t roundUp(size_t size) {
  size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  return rounded ? rounded : kAlignment;
}

/// The arena's reservation: the machine's memory (address space only),
/// at most 1 TiB.
size_t arenaReservation() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t bytes = pages > 0 && page > 0 ? size_t(pages) * size_t(page)
                                       : size_t(1) << 34;
  return std::min(bytes, size_t(1) << 40);
}

/// A block of the arena for `size` bytes, or null. Called with the lock
/// held.
void *allocateFromArena(AllocatorState &s, size_t size) {
  if (!TAD_RT_KEEP_FREED)
    return nullptr;
  if (!s.arena)
    s.arena = std::make_unique<tad::rt::Arena>(arenaReservation());
  int64_t high = std::max(s.highWater, s.stats.current_bytes + int64_t(size));
  size_t maxExtent = roundUp(size_t(high)) / 4 * 5;
  return s.arena->allocate(roundUp(size), maxExtent);
}

/// Whether the calling thread's next allocation is scratch, and whether
/// it is a buffer that only the GPU touches.
thread_local bool nextIsScratch = false, nextIsDeviceOnly = false;

void *allocate(size_t size) {
  bool scratch = nextIsScratch, deviceOnly = nextIsDeviceOnly;
  nextIsScratch = nextIsDeviceOnly = false;
  size_t rounded = roundUp(size);
  // Managed and device memory are aligned to at least 256 bytes.
  bool device = tad::rt::cuda::isActive();
  deviceOnly = deviceOnly && device && tad::rt::cuda::deviceBuffersEnabled();
  void *ptr = nullptr;
  if (device) {
    ptr = tad::rt::cuda::allocatePooled(rounded, deviceOnly);
  } else {
    {
      AllocatorState &s = state();
      std::lock_guard<std::mutex> lock(s.mutex);
      ptr = allocateFromArena(s, size);
    }
    if (!ptr)
      ptr = std::aligned_alloc(kAlignment, rounded);
    if (!ptr) {
      // The arena's free pages may be what the allocation lacks.
      AllocatorState &s = state();
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (s.arena)
          s.arena->release();
      }
      ptr = std::aligned_alloc(kAlignment, rounded);
    }
  }
  if (!ptr) {
    // Compiled code cannot handle a failed allocation: stop with a message
    // rather than let it write through a null pointer.
    std::fprintf(stderr,
                 "tad runtime: error: out of %s memory: allocating %zu "
                 "bytes failed with %lld bytes live\n",
                 device ? "GPU" : "host", size,
                 (long long)state().stats.current_bytes);
    std::exit(3);
  }
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.live[ptr] = {size, device, deviceOnly, scratch};
  if (device) {
    s.deviceBytes += int64_t(rounded);
    s.deviceHighWater = std::max(s.deviceHighWater, s.deviceBytes);
  }
  if (deviceOnly) {
    uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
    s.deviceOnlyBlocks[begin] = begin + size;
    s.deviceOnlyBytes += int64_t(size);
    s.deviceOnlyPeak = std::max(s.deviceOnlyPeak, s.deviceOnlyBytes);
  }
  if (scratch) {
    s.scratchBytes += int64_t(size);
    s.scratchPeak = std::max(s.scratchPeak, s.scratchBytes);
    return ptr;
  }
  s.stats.current_bytes += int64_t(size);
  s.stats.allocations += 1;
  if (s.stats.current_bytes > s.stats.peak_bytes)
    s.stats.peak_bytes = s.stats.current_bytes;
  if (s.stats.current_bytes > s.highWater)
    s.highWater = s.stats.current_bytes;
  s.record(int64_t(size));
  return ptr;
}

} // namespace

int64_t tad::rt::cuda::scratchPeak() {
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.scratchPeak;
}

int64_t tad::rt::cuda::deviceOnlyPeak() {
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.deviceOnlyPeak;
}

bool tad::rt::cuda::isDeviceOnly(const void *ptr) {
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  uintptr_t at = reinterpret_cast<uintptr_t>(ptr);
  auto it = s.deviceOnlyBlocks.upper_bound(at);
  if (it == s.deviceOnlyBlocks.begin())
    return false;
  --it;
  return at < it->second;
}

extern "C" {

void tad_rt_mark_scratch(void) { nextIsScratch = true; }
void _mlir_ciface_tad_rt_mark_scratch(void) { nextIsScratch = true; }

void tad_rt_mark_device_buffer(void) { nextIsDeviceOnly = true; }
void _mlir_ciface_tad_rt_mark_device_buffer(void) { nextIsDeviceOnly = true; }

void *_mlir_memref_to_llvm_alloc(size_t size) { return allocate(size); }

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  // Buffers are 64-byte aligned; a larger alignment is not requested by
  // tad's lowering.
  (void)alignment;
  return allocate(size);
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  AllocatorState &s = state();
  bool device, deviceOnly;
  size_t rounded;
  int64_t keep;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.live.find(ptr);
    if (it == s.live.end())
      return; // not ours (a caller's input), or freed already
    size_t bytes = it->second.bytes;
    if (it->second.scratch) {
      s.scratchBytes -= int64_t(bytes);
    } else {
      s.stats.current_bytes -= int64_t(bytes);
      s.stats.frees += 1;
      s.record(-int64_t(bytes));
    }
    device = it->second.device;
    deviceOnly = it->second.deviceOnly;
    if (deviceOnly) {
      s.deviceOnlyBlocks.erase(reinterpret_cast<uintptr_t>(ptr));
      s.deviceOnlyBytes -= int64_t(bytes);
    }
    rounded = roundUp(bytes);
    // The pool keeps freed device blocks while the live blocks and the kept
    // ones together stay within twice the high-water mark of live blocks:
    // the device holds at most twice their peak. (Not the kept ones alone
    // within the mark: with blocks of two kinds, managed and device memory,
    // each kind's blocks of a step must fit to be reused by the next.)
    if (device)
      s.deviceBytes -= int64_t(rounded);
    keep = 2 * s.deviceHighWater - s.deviceBytes;
    s.live.erase(it);
    if (!device && s.arena && s.arena->owns(ptr)) {
      s.arena->deallocate(ptr, roundUp(bytes));
      return;
    }
  }
  if (device)
    tad::rt::cuda::freePooled(ptr, rounded, size_t(keep), deviceOnly);
  else
    std::free(ptr);
}

int64_t tad_rt_release_kept(void) {
  int64_t device = int64_t(tad::rt::cuda::releasePool());
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return device + (s.arena ? int64_t(s.arena->release()) : 0);
}

int64_t tad_rt_held_bytes(void) {
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.arena ? int64_t(s.arena->getExtent()) : 0;
}

tad_rt_stats tad_rt_get_stats(void) {
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.stats;
}

/// Revolve's actions by kind (store, restore, advance, reverse), counted
/// by the compiled code, which runs one reverse loop at a time.
static std::atomic<int64_t> revolveCounts[4];

void tad_rt_count_revolve_action(int64_t kind) {
  if (kind >= 0 && kind < 4)
    revolveCounts[kind].fetch_add(1, std::memory_order_relaxed);
}

void _mlir_ciface_tad_rt_count_revolve_action(int64_t kind) {
  tad_rt_count_revolve_action(kind);
}

void tad_rt_revolve_counts(int64_t counts[4]) {
  for (int k = 0; k < 4; ++k)
    counts[k] = revolveCounts[k].load(std::memory_order_relaxed);
}

void tad_rt_reset_peak(void) {
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stats.peak_bytes = s.stats.current_bytes;
  s.scratchPeak = s.scratchBytes;
  s.deviceOnlyPeak = s.deviceOnlyBytes;
  s.stats.allocations = 0;
  s.stats.frees = 0;
  for (std::atomic<int64_t> &count : revolveCounts)
    count.store(0, std::memory_order_relaxed);
  tad::rt::cuda::resetCalls();
}

void tad_rt_trace_enable(int enable) {
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (enable)
    s.trace.clear();
  s.tracing = enable != 0;
}

size_t tad_rt_trace_size(void) { return state().trace.size(); }

const tad_rt_trace_event *tad_rt_trace_data(void) {
  return state().trace.data();
}

int tad_rt_owns(const void *ptr) {
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.live.count(ptr) ? 1 : 0;
}

void tad_rt_free(void *ptr) { _mlir_memref_to_llvm_free(ptr); }

} // extern "C"
