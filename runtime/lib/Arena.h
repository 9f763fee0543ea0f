//===- Arena.h - host memory that stays mapped between calls ----*- C++ -*-===//
//
// Host buffers come from one reserved range of virtual memory whose pages,
// once touched, stay: compiled code allocates the same buffers on every
// call, and memory that the C library hands back to the kernel between
// calls (it trims the top of its heap, and unmaps large blocks) costs a
// page fault per page when it is allocated again: 2.3 ms of a 21 ms
// transformer gradient step (docs/memory.md). Free blocks are kept by
// offset, coalesced with their neighbours, and found best-fit.
//
// The arena grows only while its extent stays within a bound that the
// allocator sets (a multiple of the highest live total): its footprint
// follows tad's peak, not the sum of every buffer ever allocated.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_RUNTIME_ARENA_H
#define TAD_RUNTIME_ARENA_H

#include <cstddef>
#include <cstdint>
#include <map>

namespace tad::rt {

class Arena {
public:
  /// Reserves `reserve` bytes of address space (no memory yet); an arena
  /// that could not reserve them hands out nothing.
  explicit Arena(size_t reserve);
  ~Arena();
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  /// A block of `bytes` (a multiple of 64), 64-byte aligned, or null when
  /// no free block fits and the extent would pass `maxExtent`.
  void *allocate(size_t bytes, size_t maxExtent);
  /// Returns a block that `allocate` gave, of `bytes`.
  void deallocate(void *ptr, size_t bytes);
  bool owns(const void *ptr) const {
    auto p = static_cast<const char *>(ptr);
    return base && p >= base && p < base + reserved;
  }
  /// Hands the pages of every free block back to the kernel; the bytes.
  size_t release();
  /// The bytes from the start of the arena to the end of its last block
  /// ever used: what the process has touched.
  size_t getExtent() const { return extent; }
  size_t getFreeBytes() const { return freeBytes; }

private:
  void insertFree(size_t offset, size_t bytes);
  void eraseFree(std::map<size_t, size_t>::iterator block);

  char *base = nullptr;
  size_t reserved = 0;
  size_t extent = 0;
  size_t freeBytes = 0;
  std::map<size_t, size_t> freeByOffset;        // offset -> bytes
  std::multimap<size_t, size_t> freeBySize;     // bytes -> offset
};

} // namespace tad::rt

#endif // TAD_RUNTIME_ARENA_H
