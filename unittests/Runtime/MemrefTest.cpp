//===- MemrefTest.cpp - element conversions of the runtime ----------------===//

#include "tad/runtime/Memref.h"
#include "tad/runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace tad::rt;

namespace {

template <typename T> T storedFromDouble(DType dtype, double value) {
  uint8_t element[8] = {};
  storeFromDouble(element, dtype, value);
  T result;
  std::memcpy(&result, element, sizeof(T));
  return result;
}

// An integer element stores the nearest whole number (ties to even, as
// the float stores round), saturated to its range: a double out of range
// has no integer, and a cast of one would be undefined.
TEST(MemrefTest, IntegersStoreTheNearestWholeNumberInRange) {
  EXPECT_EQ(storedFromDouble<int32_t>(DType::i32, 2.4), 2);
  EXPECT_EQ(storedFromDouble<int32_t>(DType::i32, -2.6), -3);
  EXPECT_EQ(storedFromDouble<int32_t>(DType::i32, 2.5), 2);
  EXPECT_EQ(storedFromDouble<int32_t>(DType::i32, 1e10), INT32_MAX);
  EXPECT_EQ(storedFromDouble<int32_t>(DType::i32, -1e10), INT32_MIN);
  EXPECT_EQ(storedFromDouble<int32_t>(DType::i32, NAN), 0);
  EXPECT_EQ(storedFromDouble<int64_t>(DType::i64, 0x1p63), INT64_MAX);
  EXPECT_EQ(storedFromDouble<int64_t>(DType::i64, -0x1p63), INT64_MIN);
  EXPECT_EQ(storedFromDouble<int64_t>(DType::i64, -INFINITY), INT64_MIN);
  EXPECT_EQ(storedFromDouble<int64_t>(DType::i64, 0x1p62), int64_t(1) << 62);
}

// Integers load and store exactly through int64_t, past 2^53 too.
TEST(MemrefTest, IntegersRoundTripThroughInt64) {
  uint8_t element[8];
  int64_t big = (int64_t(1) << 53) + 1;
  storeFromInt64(element, DType::i64, big);
  EXPECT_EQ(loadAsInt64(element, DType::i64), big);
  EXPECT_NE(int64_t(loadAsDouble(element, DType::i64)), big);
  storeFromInt64(element, DType::i32, INT32_MIN);
  EXPECT_EQ(loadAsInt64(element, DType::i32), INT32_MIN);
  EXPECT_EQ(loadAsDouble(element, DType::i32), double(INT32_MIN));
}

TEST(MemrefTest, FitsIn) {
  EXPECT_TRUE(fitsIn(INT32_MAX, DType::i32));
  EXPECT_FALSE(fitsIn(int64_t(INT32_MAX) + 1, DType::i32));
  EXPECT_FALSE(fitsIn(int64_t(INT32_MIN) - 1, DType::i32));
  EXPECT_TRUE(fitsIn(INT64_MIN, DType::i64));
  EXPECT_TRUE(fitsIn(INT64_MAX, DType::f16)); // a float rounds
}

} // namespace

// tad_rt_copy_out writes a result descriptor's elements in row-major order,
// whatever its strides: contiguous runs as one copy, a transposed view, a
// broadcast (stride 0), size-1 dimensions with any stride, an offset.
namespace {
std::vector<float> copyOut(const float *base, int64_t offset,
                           std::vector<int64_t> sizes,
                           std::vector<int64_t> strides) {
  std::vector<int64_t> descriptor = {int64_t(intptr_t(base)),
                                     int64_t(intptr_t(base)), offset};
  descriptor.insert(descriptor.end(), sizes.begin(), sizes.end());
  descriptor.insert(descriptor.end(), strides.begin(), strides.end());
  int64_t count = 1;
  for (int64_t s : sizes)
    count *= s;
  std::vector<float> out(size_t(count), -1.0f);
  tad_rt_copy_out(descriptor.data(), int64_t(sizes.size()), sizeof(float),
                  out.data());
  return out;
}
} // namespace

TEST(MemrefTest, CopyOutFollowsStrides) {
  float data[12];
  for (int i = 0; i < 12; ++i)
    data[i] = float(i);
  EXPECT_EQ(copyOut(data, 0, {3, 4}, {4, 1}),
            std::vector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(copyOut(data, 0, {4, 3}, {1, 4}),
            std::vector<float>({0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  EXPECT_EQ(copyOut(data, 2, {2, 3}, {0, 1}),
            std::vector<float>({2, 3, 4, 2, 3, 4}));
  EXPECT_EQ(copyOut(data, 1, {2, 1, 2}, {6, 99, 1}),
            std::vector<float>({1, 2, 7, 8}));
  EXPECT_EQ(copyOut(data, 0, {2, 2}, {6, 2}),
            std::vector<float>({0, 2, 6, 8}));
  EXPECT_EQ(copyOut(data, 5, {}, {}), std::vector<float>({5}));
  EXPECT_EQ(copyOut(data, 0, {0, 3}, {3, 1}), std::vector<float>());
}
