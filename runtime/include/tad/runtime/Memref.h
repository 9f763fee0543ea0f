//===- Memref.h - memref descriptors for calling compiled code --*- C++ -*-===//
//
// Compiled functions take and return MLIR memref descriptors:
//   { T *allocated; T *aligned; int64_t offset; int64_t sizes[R];
//     int64_t strides[R]; }
// which are 3 + 2R machine words. These helpers build them for inputs and
// read results out of them, for the JIT runner and the generated wrappers.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_RUNTIME_MEMREF_H
#define TAD_RUNTIME_MEMREF_H

#include "tad/runtime/Npy.h"

#include <cstdint>
#include <vector>

namespace tad::rt {

/// The number of 8-byte words in a descriptor of rank `rank`.
inline size_t getDescriptorWords(size_t rank) { return 3 + 2 * rank; }

/// A row-major descriptor of `data` with `shape`.
std::vector<int64_t> makeDescriptor(void *data,
                                    const std::vector<int64_t> &shape);

/// Copies the (possibly strided) memref described at `words` into a
/// contiguous array of `dtype` and `shape`.
NpyArray copyFromDescriptor(const int64_t *words, DType dtype,
                            const std::vector<int64_t> &shape);

/// The allocated pointer of a descriptor: what the runtime frees.
inline void *getAllocatedPointer(const int64_t *words) {
  return reinterpret_cast<void *>(words[0]);
}

/// Converts an element to double and back, for summaries and initializers
/// (f16 and bf16 included). An integer element stores the nearest whole
/// number, saturated to its range (NaN stores 0).
double loadAsDouble(const uint8_t *element, DType dtype);
void storeFromDouble(uint8_t *element, DType dtype, double value);

/// Converts an element to int64_t and back: exact for i32 and i64 (a
/// double holds i64's only up to 2^53), as loadAsDouble and storeFromDouble
/// round for floats. An i32 stores `value` only when it fits (fitsIn).
int64_t loadAsInt64(const uint8_t *element, DType dtype);
void storeFromInt64(uint8_t *element, DType dtype, int64_t value);
/// Whether `dtype` holds `value` exactly: the integers in its range, for
/// an integer dtype; always for a float one, which rounds.
bool fitsIn(int64_t value, DType dtype);

} // namespace tad::rt

#endif // TAD_RUNTIME_MEMREF_H
