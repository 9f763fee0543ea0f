//===- MemrefTest.cpp - element conversions of the runtime ----------------===//

#include "tad/runtime/Memref.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>

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
