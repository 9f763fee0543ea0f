//===- Npy.h - NumPy .npy files -------------------------------*- C++ -*-===//
//
// Reads and writes C-order .npy arrays of f32 ('<f4'), f64 ('<f8'), f16
// ('<f2'), bf16, i32 ('<i4') and i64 ('<i8'). NumPy has no bfloat16 dtype:
// bf16 arrays are stored as their 16-bit patterns with dtype '<u2'
// (ml_dtypes reads them with `.view(ml_dtypes.bfloat16)`).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_RUNTIME_NPY_H
#define TAD_RUNTIME_NPY_H

#include "tad/runtime/Output.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tad::rt {

/// The float dtypes, and the integer ones of token ids (never
/// differentiated).
enum class DType { f32, f64, f16, bf16, i32, i64 };

/// "f32", "f64", "f16", "bf16", "i32", "i64".
const char *getDTypeName(DType dtype);
/// The size of one element in bytes.
size_t getDTypeSize(DType dtype);
/// The .npy descr string: "<f4", "<f8", "<f2", "<u2", "<i4", "<i8".
const char *getNpyDescr(DType dtype);
/// i32 and i64: their values are whole numbers, printed and converted as
/// such rather than through floating point.
bool isIntegerDType(DType dtype);

struct NpyArray {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; // C order, little endian

  int64_t getNumElements() const;
};

/// Reads `path`. On failure returns false and sets `error` to a message
/// that names the file and what is wrong with it.
bool readNpy(const std::string &path, NpyArray &out, std::string &error);

/// Parses .npy bytes; `name` is used in messages.
bool parseNpy(const std::string &name, const uint8_t *bytes, size_t size,
              NpyArray &out, std::string &error);

/// Writes `array` to `path` (format version 1.0), whole or not at all.
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

/// Writes `array` into `file`, which the caller finishes and commits.
bool writeNpy(OutputFile &file, const NpyArray &array, std::string &error);

/// "f32[2, 3]", for messages.
std::string describeArray(DType dtype, const std::vector<int64_t> &shape);

} // namespace tad::rt

#endif // TAD_RUNTIME_NPY_H
