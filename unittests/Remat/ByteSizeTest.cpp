//===- ByteSizeTest.cpp - budgets written by users ------------------------===//

#include "tad/Remat/ByteSize.h"

#include "gtest/gtest.h"

using namespace tad::remat;

namespace {

TEST(ByteSizeTest, AcceptsBytesAndBinarySuffixes) {
  struct Case {
    const char *text;
    int64_t bytes;
  } cases[] = {{"0", 0},
               {"65536", 65536},
               {"12B", 12},
               {"64KiB", 65536},
               {"1.5 KiB", 1536},
               {"3MiB", 3 << 20},
               {"2GiB", int64_t(2) << 30},
               {"0.5GiB", int64_t(1) << 29},
               {"1TiB", int64_t(1) << 40},
               // As the report prints sizes: the whole bytes reached.
               {"1.1KiB", 1126},
               {"14.8 MiB", 15518924},
               {"1.0 TiB", int64_t(1) << 40}};
  for (const Case &c : cases) {
    int64_t bytes = -1;
    std::string error;
    EXPECT_TRUE(parseByteSize(c.text, bytes, error)) << c.text << ": " << error;
    EXPECT_EQ(bytes, c.bytes) << c.text;
  }
}

TEST(ByteSizeTest, RejectsWithAReason) {
  struct Case {
    const char *text, *error;
  } cases[] = {{"", "expected a number of bytes"},
               {"-5", "expected a number of bytes"},
               {"KiB", "expected a number of bytes"},
               {"10kb", "unknown unit 'kb'"},
               {"10 KB", "unknown unit 'KB'"},
               {"1.5", "not a whole number of bytes"},
               {"99999999999GiB", "too large"},
               {"1234567890123456789012", "too large"}};
  for (const Case &c : cases) {
    int64_t bytes = 0;
    std::string error;
    EXPECT_FALSE(parseByteSize(c.text, bytes, error)) << c.text;
    EXPECT_NE(error.find(c.error), std::string::npos)
        << c.text << ": " << error;
  }
}

} // namespace
