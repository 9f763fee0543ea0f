//===- Allocator.cpp - the counting allocator -----------------------------===//
//
// Compiled code allocates every buffer here. The live bytes of a call are
// the bytes of the buffers it allocated that are still alive: current_bytes,
// whose maximum is the measured peak that tests compare with the budget.
// After tad_rt_cuda_begin() (GPU code), buffers are CUDA managed memory,
// so the same counts are the device's (docs/gpu.md).
//
// Freed host buffers are kept for reuse by size (compiled code allocates
// the same sizes on every call), as long as the live and kept bytes
// together stay within the highest live total reached: a buffer that the C
// library would hand back to the kernel costs a page fault per page when
// it is allocated again (docs/memory.md measures what that cost). Kept
// buffers are not live and not counted.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include "tad/runtime/Runtime.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace {

struct Buffer {
  size_t bytes;
  bool device; // CUDA managed memory
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
  // Freed host buffers by rounded size, their bytes, and the highest live
  // total ever reached (tad_rt_reset_peak does not lower it).
  std::unordered_map<size_t, std::vector<void *>> kept;
  int64_t keptBytes = 0;
  int64_t highWater = 0;
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

/// A kept buffer of `rounded` bytes, or null. Called with the lock held.
void *takeKept(AllocatorState &s, size_t rounded) {
  auto it = s.kept.find(rounded);
  if (it == s.kept.end() || it->second.empty())
    return nullptr;
  void *ptr = it->second.back();
  it->second.pop_back();
  s.keptBytes -= int64_t(rounded);
  return ptr;
}

/// Frees every kept buffer. Called with the lock held.
void releaseKept(AllocatorState &s) {
  for (auto &[bytes, buffers] : s.kept)
    for (void *ptr : buffers)
      std::free(ptr);
  s.kept.clear();
  s.keptBytes = 0;
}

void *allocate(size_t size) {
  size_t rounded = roundUp(size);
  // Managed memory is aligned to at least 256 bytes.
  bool device = tad::rt::cuda::isActive();
  void *ptr = nullptr;
  if (device) {
    ptr = tad::rt::cuda::allocateManaged(rounded);
  } else {
    {
      AllocatorState &s = state();
      std::lock_guard<std::mutex> lock(s.mutex);
      ptr = takeKept(s, rounded);
    }
    if (!ptr)
      ptr = std::aligned_alloc(kAlignment, rounded);
    if (!ptr) {
      // Kept buffers of other sizes may be what the allocation lacks.
      AllocatorState &s = state();
      {
        std::lock_guard<std::mutex> lock(s.mutex);
        releaseKept(s);
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
  s.live[ptr] = {size, device};
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

extern "C" {

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
  bool device;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.live.find(ptr);
    if (it == s.live.end())
      return; // not ours (a caller's input), or freed already
    size_t bytes = it->second.bytes;
    s.stats.current_bytes -= int64_t(bytes);
    s.stats.frees += 1;
    s.record(-int64_t(bytes));
    device = it->second.device;
    s.live.erase(it);
    size_t rounded = roundUp(bytes);
    if (TAD_RT_KEEP_FREED && !device &&
        s.stats.current_bytes + s.keptBytes + int64_t(rounded) <=
            s.highWater) {
      s.kept[rounded].push_back(ptr);
      s.keptBytes += int64_t(rounded);
      return;
    }
  }
  if (device)
    tad::rt::cuda::freeManaged(ptr);
  else
    std::free(ptr);
}

int64_t tad_rt_release_kept(void) {
  AllocatorState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  int64_t bytes = s.keptBytes;
  releaseKept(s);
  return bytes;
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
  s.stats.allocations = 0;
  s.stats.frees = 0;
  for (std::atomic<int64_t> &count : revolveCounts)
    count.store(0, std::memory_order_relaxed);
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
