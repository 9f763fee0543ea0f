//===- Memref.cpp - memref descriptors for calling compiled code ----------===//

#include "tad/runtime/Memref.h"
#include "tad/runtime/Runtime.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tad::rt;

std::vector<int64_t>
tad::rt::makeDescriptor(void *data, const std::vector<int64_t> &shape) {
  size_t rank = shape.size();
  std::vector<int64_t> words(getDescriptorWords(rank));
  words[0] = reinterpret_cast<int64_t>(data);
  words[1] = reinterpret_cast<int64_t>(data);
  words[2] = 0;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    words[3 + i] = shape[i];
    words[3 + rank + i] = stride;
    stride *= shape[i];
  }
  return words;
}

NpyArray tad::rt::copyFromDescriptor(const int64_t *words, DType dtype,
                                     const std::vector<int64_t> &shape) {
  NpyArray array;
  array.dtype = dtype;
  array.shape = shape;
  array.data.resize(size_t(array.getNumElements()) * getDTypeSize(dtype));
  tad_rt_copy_out(words, int64_t(shape.size()), int64_t(getDTypeSize(dtype)),
                  array.data.data());
  return array;
}

namespace {
float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exponent = (h >> 10) & 0x1f,
           mantissa = h & 0x3ff, bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else { // subnormal: normalize
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        --exponent;
      }
      bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  // Round to nearest even through the hardware-independent path: scale and
  // let the float arithmetic round, as in the classic branchless conversion.
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t absBits = bits & 0x7fffffff;
  if (absBits >= 0x7f800000) // inf or NaN
    return uint16_t(sign | 0x7c00 | (absBits > 0x7f800000 ? 0x200 : 0));
  if (absBits >= 0x477ff000) // rounds to >= 65520: overflow to inf
    return uint16_t(sign | 0x7c00);
  if (absBits < 0x38800000) { // subnormal or zero in f16
    float a;
    std::memcpy(&a, &absBits, 4);
    float scaled = a * 16777216.0f; // 2^24: f16 subnormal unit is 2^-24
    return uint16_t(sign | uint16_t(std::nearbyint(scaled)));
  }
  uint32_t mantissa = absBits & 0x7fffff;
  uint32_t exponent = (absBits >> 23) - 127 + 15;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return uint16_t(sign | half);
}

float bf16ToFloat(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffff) > 0x7f800000) // NaN stays a quiet NaN
    return uint16_t((bits >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return uint16_t((bits + rounding) >> 16);
}

/// The integer of type T nearest to `value`: a cast of a double out of T's
/// range is undefined, and a random or converted input may be one.
template <typename T> T roundToInteger(double value) {
  if (std::isnan(value))
    return 0;
  double rounded = std::nearbyint(value);
  // T's bounds as doubles: the lowest exactly (-2^k), the highest as 2^k,
  // the first double above it.
  double lowest = double(std::numeric_limits<T>::lowest());
  if (rounded <= lowest)
    return std::numeric_limits<T>::lowest();
  if (rounded >= -lowest)
    return std::numeric_limits<T>::max();
  return T(rounded);
}

template <typename T> T loadAs(const uint8_t *element) {
  T value;
  std::memcpy(&value, element, sizeof(T));
  return value;
}

template <typename T> void storeAs(uint8_t *element, T value) {
  std::memcpy(element, &value, sizeof(T));
}
} // namespace

double tad::rt::loadAsDouble(const uint8_t *element, DType dtype) {
  switch (dtype) {
  case DType::f32: {
    float f;
    std::memcpy(&f, element, 4);
    return f;
  }
  case DType::f64: {
    double d;
    std::memcpy(&d, element, 8);
    return d;
  }
  case DType::f16: {
    uint16_t h;
    std::memcpy(&h, element, 2);
    return halfToFloat(h);
  }
  case DType::bf16: {
    uint16_t b;
    std::memcpy(&b, element, 2);
    return bf16ToFloat(b);
  }
  case DType::i32: return loadAs<int32_t>(element);
  case DType::i64: return double(loadAs<int64_t>(element));
  }
  return 0;
}

void tad::rt::storeFromDouble(uint8_t *element, DType dtype, double value) {
  switch (dtype) {
  case DType::f32: {
    float f = float(value);
    std::memcpy(element, &f, 4);
    return;
  }
  case DType::f64:
    std::memcpy(element, &value, 8);
    return;
  case DType::f16: {
    uint16_t h = floatToHalf(float(value));
    std::memcpy(element, &h, 2);
    return;
  }
  case DType::bf16: {
    uint16_t b = floatToBf16(float(value));
    std::memcpy(element, &b, 2);
    return;
  }
  case DType::i32: return storeAs(element, roundToInteger<int32_t>(value));
  case DType::i64: return storeAs(element, roundToInteger<int64_t>(value));
  }
}

int64_t tad::rt::loadAsInt64(const uint8_t *element, DType dtype) {
  switch (dtype) {
  case DType::f32:
  case DType::f64:
  case DType::f16:
  case DType::bf16:
    return roundToInteger<int64_t>(loadAsDouble(element, dtype));
  case DType::i32: return loadAs<int32_t>(element);
  case DType::i64: return loadAs<int64_t>(element);
  }
  return 0;
}

void tad::rt::storeFromInt64(uint8_t *element, DType dtype, int64_t value) {
  switch (dtype) {
  case DType::f32:
  case DType::f64:
  case DType::f16:
  case DType::bf16: return storeFromDouble(element, dtype, double(value));
  case DType::i32: return storeAs(element, int32_t(value));
  case DType::i64: return storeAs(element, value);
  }
}

bool tad::rt::fitsIn(int64_t value, DType dtype) {
  switch (dtype) {
  case DType::f32:
  case DType::f64:
  case DType::f16:
  case DType::bf16:
  case DType::i64: return true;
  case DType::i32:
    return value >= std::numeric_limits<int32_t>::lowest() &&
           value <= std::numeric_limits<int32_t>::max();
  }
  return false;
}

extern "C" void tad_rt_copy_out(const int64_t *descriptor, int64_t rank,
                                int64_t element_size, void *destination) {
  const uint8_t *base = reinterpret_cast<const uint8_t *>(descriptor[1]);
  int64_t offset = descriptor[2];
  const int64_t *sizes = descriptor + 3, *strides = descriptor + 3 + rank;
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    count *= sizes[d];
  if (count == 0)
    return;
  auto *out = static_cast<uint8_t *>(destination);
  // The innermost dimensions that are contiguous in the source (a
  // dimension of size 1 is, whatever its stride) are copied as one run:
  // a row-major result, the usual case, is one memcpy.
  int64_t run = 1, inner = rank;
  while (inner > 0 && (sizes[inner - 1] == 1 || strides[inner - 1] == run)) {
    run *= sizes[inner - 1];
    --inner;
  }
  size_t runBytes = size_t(run * element_size);
  std::vector<int64_t> index(size_t(inner), 0);
  for (int64_t linear = 0; linear < count; linear += run) {
    int64_t element = offset;
    for (int64_t d = 0; d < inner; ++d)
      element += index[size_t(d)] * strides[d];
    std::memcpy(out + linear * element_size, base + element * element_size,
                runBytes);
    for (int64_t d = inner - 1; d >= 0; --d) {
      if (++index[size_t(d)] < sizes[d])
        break;
      index[size_t(d)] = 0;
    }
  }
}

extern "C" void tad_rt_release(const int64_t *descriptor) {
  void *allocated = reinterpret_cast<void *>(descriptor[0]);
  if (tad_rt_owns(allocated))
    tad_rt_free(allocated);
}
