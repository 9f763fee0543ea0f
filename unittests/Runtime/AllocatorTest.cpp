//===- AllocatorTest.cpp - the counting allocator -------------------------===//

#include "tad/runtime/Runtime.h"

#include "gtest/gtest.h"

namespace {

TEST(AllocatorTest, CountsCurrentAndPeakBytes) {
  tad_rt_reset_peak();
  tad_rt_stats start = tad_rt_get_stats();
  void *a = _mlir_memref_to_llvm_alloc(1000);
  void *b = _mlir_memref_to_llvm_alloc(24);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_TRUE(tad_rt_owns(a));
  _mlir_memref_to_llvm_free(a);
  EXPECT_FALSE(tad_rt_owns(a));
  void *c = _mlir_memref_to_llvm_aligned_alloc(128, 8);
  tad_rt_stats s = tad_rt_get_stats();
  EXPECT_EQ(s.current_bytes - start.current_bytes, 32);
  EXPECT_EQ(s.peak_bytes - start.current_bytes, 1024);
  EXPECT_EQ(s.allocations, 3);
  EXPECT_EQ(s.frees, 1);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  EXPECT_EQ(tad_rt_get_stats().current_bytes, start.current_bytes);
}

TEST(AllocatorTest, ForeignAndRepeatedFreesAreIgnored) {
  tad_rt_stats start = tad_rt_get_stats();
  int local = 0;
  _mlir_memref_to_llvm_free(&local); // not the runtime's
  _mlir_memref_to_llvm_free(nullptr);
  void *a = _mlir_memref_to_llvm_alloc(16);
  tad_rt_free(a);
  EXPECT_EQ(tad_rt_get_stats().current_bytes, start.current_bytes);
}

} // namespace
