//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "tad/runtime/Npy.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include <string>
#include <unistd.h>

using namespace tad::rt;

namespace {

std::vector<uint8_t> npyBytes(const std::string &header,
                              const std::vector<uint8_t> &data) {
  std::string h = header;
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                uint8_t(h.size() & 0xff),
                                uint8_t(h.size() >> 8)};
  bytes.insert(bytes.end(), h.begin(), h.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

bool parse(const std::vector<uint8_t> &bytes, NpyArray &out,
           std::string &error) {
  return parseNpy("t.npy", bytes.data(), bytes.size(), out, error);
}

TEST(NpyTest, ParsesEveryDType) {
  struct {
    const char *descr;
    DType dtype;
    size_t size;
  } cases[] = {{"<f4", DType::f32, 4}, {"<f8", DType::f64, 8},
               {"<f2", DType::f16, 2}, {"<u2", DType::bf16, 2},
               {"<i4", DType::i32, 4}, {"<i8", DType::i64, 8}};
  for (auto c : cases) {
    std::vector<uint8_t> data(6 * c.size, 7);
    auto bytes = npyBytes(std::string("{'descr': '") + c.descr +
                              "', 'fortran_order': False, 'shape': (2, 3), }",
                          data);
    NpyArray a;
    std::string error;
    ASSERT_TRUE(parse(bytes, a, error)) << error;
    EXPECT_EQ(a.dtype, c.dtype);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(a.data, data);
  }
}

TEST(NpyTest, ScalarsAndVectors) {
  NpyArray a;
  std::string error;
  ASSERT_TRUE(parse(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (), }",
                             {0, 0, 128, 63}),
                    a, error))
      << error;
  EXPECT_TRUE(a.shape.empty());
  ASSERT_TRUE(parse(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (1,), }",
                             {0, 0, 128, 63}),
                    a, error))
      << error;
  EXPECT_EQ(a.shape, (std::vector<int64_t>{1}));
}

struct BadCase {
  std::vector<uint8_t> bytes;
  const char *message;
};

TEST(NpyTest, RejectsMalformedFiles) {
  std::vector<uint8_t> twelve(12, 0);
  BadCase cases[] = {
      {{'n', 'o', 't', ' ', 'n', 'u', 'm', 'p', 'y', '!', '!'},
       "not a .npy file"},
      {npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }",
                twelve),
       "unsupported dtype '>f4'"},
      {npyBytes("{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }",
                twelve),
       "unsupported dtype '>i4'"},
      {npyBytes("{'descr': '<i2', 'fortran_order': False, 'shape': (6,), }",
                twelve),
       "unsupported dtype '<i2'; tad reads '<f4' (f32), '<f8' (f64), '<f2' "
       "(f16), '<u2' (bf16 bit patterns), '<i4' (i32) and '<i8' (i64)"},
      {npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }",
                twelve),
       "Fortran-order arrays are not supported"},
      {npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
                twelve),
       "the header says f32[4] (16 bytes of data) but the file has 12"},
      {npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }",
                twelve),
       "malformed shape (x,)"},
      {npyBytes("{'descr': '<f4', 'shape': (3,), }", twelve),
       "malformed .npy header"},
      {npyBytes("{'descr': '<f4', 'fortran_order': False, "
                "'shape': (99999999, 99999999), }",
                twelve),
       "has more than 2^40 elements"},
  };
  for (const BadCase &c : cases) {
    NpyArray a;
    std::string error;
    EXPECT_FALSE(parse(c.bytes, a, error));
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
    EXPECT_EQ(error.rfind("t.npy: ", 0), 0u) << error;
  }
  // A header longer than the file.
  std::vector<uint8_t> truncated = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 200, 0,
                                    '{'};
  NpyArray a;
  std::string error;
  EXPECT_FALSE(parse(truncated, a, error));
  EXPECT_NE(error.find("truncated .npy header"), std::string::npos) << error;
}

TEST(NpyTest, WriteThenReadRoundTrips) {
  NpyArray a;
  a.dtype = DType::f64;
  a.shape = {2, 2};
  double values[] = {1.5, -2.25, 3.0, 1e-300};
  a.data.resize(sizeof(values));
  std::memcpy(a.data.data(), values, sizeof(values));
  std::string path = ::testing::TempDir() + "/roundtrip.npy";
  std::string error;
  ASSERT_TRUE(writeNpy(path, a, error)) << error;
  NpyArray b;
  ASSERT_TRUE(readNpy(path, b, error)) << error;
  EXPECT_EQ(b.dtype, a.dtype);
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.data, a.data);
  std::remove(path.c_str());
}

// Integers round-trip bit for bit, extremes included: an i64 beyond 2^53
// that a double would round, and each type's lowest and highest.
TEST(NpyTest, IntegersRoundTrip) {
  auto roundTrip = [](DType dtype, const void *values, size_t bytes) {
    NpyArray a;
    a.dtype = dtype;
    a.shape = {int64_t(bytes / getDTypeSize(dtype))};
    a.data.resize(bytes);
    std::memcpy(a.data.data(), values, bytes);
    std::string path = ::testing::TempDir() + "/integers.npy";
    std::string error;
    ASSERT_TRUE(writeNpy(path, a, error)) << error;
    NpyArray b;
    ASSERT_TRUE(readNpy(path, b, error)) << error;
    EXPECT_EQ(b.dtype, dtype);
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.data, a.data);
    std::remove(path.c_str());
  };
  int32_t i32s[] = {0, -1, 7, INT32_MIN, INT32_MAX};
  roundTrip(DType::i32, i32s, sizeof(i32s));
  int64_t i64s[] = {0, -1, (int64_t(1) << 53) + 1, INT64_MIN, INT64_MAX};
  roundTrip(DType::i64, i64s, sizeof(i64s));
}

// What the dtypes are called in messages, and their sizes and descrs.
TEST(NpyTest, IntegerDTypes) {
  EXPECT_STREQ(getDTypeName(DType::i32), "i32");
  EXPECT_STREQ(getDTypeName(DType::i64), "i64");
  EXPECT_EQ(getDTypeSize(DType::i32), 4u);
  EXPECT_EQ(getDTypeSize(DType::i64), 8u);
  EXPECT_STREQ(getNpyDescr(DType::i32), "<i4");
  EXPECT_STREQ(getNpyDescr(DType::i64), "<i8");
  EXPECT_TRUE(isIntegerDType(DType::i32));
  EXPECT_TRUE(isIntegerDType(DType::i64));
  EXPECT_FALSE(isIntegerDType(DType::bf16));
  EXPECT_EQ(describeArray(DType::i64, {2, 3}), "i64[2, 3]");
}

// A header too long for version 1.0's 2-byte length (30000 dimensions)
// is written as version 2.0, and reads back.
TEST(NpyTest, LongHeadersAreVersion2) {
  NpyArray a;
  a.dtype = DType::i32;
  a.shape.assign(30000, 1);
  a.data = {1, 2, 3, 4};
  std::string path = ::testing::TempDir() + "/long-header.npy";
  std::string error;
  ASSERT_TRUE(writeNpy(path, a, error)) << error;
  NpyArray b;
  ASSERT_TRUE(readNpy(path, b, error)) << error;
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.data, a.data);
  std::FILE *file = std::fopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr);
  uint8_t prefix[12];
  ASSERT_EQ(std::fread(prefix, 1, 12, file), 12u);
  std::fclose(file);
  EXPECT_EQ(prefix[6], 2);
  EXPECT_EQ((12 + (prefix[8] | prefix[9] << 8 | prefix[10] << 16)) % 64, 0);
  std::remove(path.c_str());
}

TEST(NpyTest, MissingFile) {
  NpyArray a;
  std::string error;
  EXPECT_FALSE(readNpy("/nonexistent/x.npy", a, error));
  EXPECT_EQ(error, "/nonexistent/x.npy: cannot open file: no such file");
}

TEST(NpyTest, DirectoryIsAnError) {
  NpyArray a;
  std::string error;
  EXPECT_FALSE(readNpy(::testing::TempDir(), a, error));
  EXPECT_NE(error.find("is a directory, not a .npy file"), std::string::npos)
      << error;
}

// A file much larger than its header says is refused from the header and
// the file's size, without reading (or allocating) its data: a sparse file
// of 3 GiB after a (64, 256) f32 header.
TEST(NpyTest, WrongSizeIsRefusedBeforeReading) {
  NpyArray small;
  small.dtype = DType::f32;
  small.shape = {64, 256};
  small.data.resize(64 * 256 * 4);
  std::string path = ::testing::TempDir() + "/sparse.npy";
  std::string error;
  ASSERT_TRUE(writeNpy(path, small, error)) << error;
  ASSERT_EQ(::truncate(path.c_str(), off_t(3) << 30), 0);
  NpyArray a;
  EXPECT_FALSE(readNpy(path, a, error));
  EXPECT_NE(error.find("but the file has 3221225344 bytes of data"),
            std::string::npos)
      << error;
  EXPECT_TRUE(a.data.empty());
  std::remove(path.c_str());
}

} // namespace
