//===- Arena.cpp - host memory that stays mapped between calls ------------===//

#include "Arena.h"

#include <sys/mman.h>
#include <unistd.h>

using namespace tad::rt;

Arena::Arena(size_t reserve) {
  // Address space only: pages are committed when first touched.
  void *p = mmap(nullptr, reserve, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return;
  base = static_cast<char *>(p);
  reserved = reserve;
}

Arena::~Arena() {
  if (base)
    munmap(base, reserved);
}

void Arena::insertFree(size_t offset, size_t bytes) {
  freeByOffset.emplace(offset, bytes);
  freeBySize.emplace(bytes, offset);
  freeBytes += bytes;
}

void Arena::eraseFree(std::map<size_t, size_t>::iterator block) {
  auto [first, last] = freeBySize.equal_range(block->second);
  for (auto it = first; it != last; ++it)
    if (it->second == block->first) {
      freeBySize.erase(it);
      break;
    }
  freeBytes -= block->second;
  freeByOffset.erase(block);
}

void *Arena::allocate(size_t bytes, size_t maxExtent) {
  if (!base || bytes == 0)
    return nullptr;
  // Best fit: the smallest free block that holds it, its start used.
  auto fit = freeBySize.lower_bound(bytes);
  if (fit != freeBySize.end()) {
    size_t offset = fit->second, size = fit->first;
    eraseFree(freeByOffset.find(offset));
    if (size > bytes)
      insertFree(offset + bytes, size - bytes);
    return base + offset;
  }
  // Otherwise at the end, taking a free block that ends there.
  size_t offset = extent;
  if (!freeByOffset.empty()) {
    auto last = std::prev(freeByOffset.end());
    if (last->first + last->second == extent)
      offset = last->first;
  }
  if (offset + bytes > maxExtent || offset + bytes > reserved)
    return nullptr;
  if (offset < extent)
    eraseFree(freeByOffset.find(offset));
  extent = offset + bytes;
  return base + offset;
}

void Arena::deallocate(void *ptr, size_t bytes) {
  size_t offset = static_cast<char *>(ptr) - base;
  // Coalesce with the free blocks on either side.
  auto next = freeByOffset.lower_bound(offset);
  if (next != freeByOffset.end() && offset + bytes == next->first) {
    bytes += next->second;
    eraseFree(next);
  }
  auto after = freeByOffset.lower_bound(offset);
  if (after != freeByOffset.begin()) {
    auto previous = std::prev(after);
    if (previous->first + previous->second == offset) {
      offset = previous->first;
      bytes += previous->second;
      eraseFree(previous);
    }
  }
  insertFree(offset, bytes);
}

size_t Arena::release() {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  size_t released = 0;
  for (auto [offset, bytes] : freeByOffset) {
    size_t start = (offset + page - 1) / page * page;
    size_t end = (offset + bytes) / page * page;
    if (end > start && madvise(base + start, end - start, MADV_DONTNEED) == 0)
      released += end - start;
  }
  return released;
}
