//===- Copy.cpp - strided copies between buffers --------------------------===//

#include "tad/runtime/Runtime.h"

#include <cstring>
#include <vector>

extern "C" void memrefCopy(int64_t elemSize, tad_rt_unranked_memref *src,
                           tad_rt_unranked_memref *dst) {
  // Descriptor layout: allocated, aligned, offset, sizes[rank], strides[rank].
  auto *s = static_cast<int64_t *>(src->descriptor);
  auto *d = static_cast<int64_t *>(dst->descriptor);
  int64_t rank = src->rank;
  auto *srcBase = reinterpret_cast<char *>(s[1]) + s[2] * elemSize;
  auto *dstBase = reinterpret_cast<char *>(d[1]) + d[2] * elemSize;
  const int64_t *sizes = s + 3, *srcStrides = s + 3 + rank,
                *dstStrides = d + 3 + rank;
  int64_t count = 1;
  for (int64_t i = 0; i < rank; ++i)
    count *= sizes[i];
  if (count == 0)
    return;
  std::vector<int64_t> index(size_t(rank), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t so = 0, dof = 0;
    for (int64_t i = 0; i < rank; ++i) {
      so += index[size_t(i)] * srcStrides[i];
      dof += index[size_t(i)] * dstStrides[i];
    }
    std::memcpy(dstBase + dof * elemSize, srcBase + so * elemSize,
                size_t(elemSize));
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[size_t(i)] < sizes[i])
        break;
      index[size_t(i)] = 0;
    }
  }
}
