//===- ParallelTest.cpp - tad_rt_parallel_for
//------------------------------===//
//
// Every iteration of the range runs exactly once, at every thread count and
// range length (shorter than the pool too), over many calls in a row (the
// workers' spin and sleep), when several threads call at once (one runs on
// the pool, the others alone), and when the machine has fewer cores than
// the pool has threads.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Runtime.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> calls{0};
  explicit Counts(int64_t n) : hits(n) {}
};

void count(void *context, int64_t begin, int64_t end) {
  auto *counts = static_cast<Counts *>(context);
  counts->calls.fetch_add(1);
  for (int64_t i = begin; i < end; ++i)
    counts->hits[i].fetch_add(1);
}

void expectOnce(const Counts &counts, int64_t lo, int64_t hi) {
  for (int64_t i = 0; i < int64_t(counts.hits.size()); ++i)
    EXPECT_EQ(counts.hits[i].load(), (i >= lo && i < hi) ? 1 : 0) << i;
}

TEST(ParallelTest, EveryIterationOnce) {
  for (int threads : {1, 2, 3, 8}) {
    tad_rt_set_num_threads(threads);
    for (int64_t n : {0, 1, 2, 3, 7, 64, 1000}) {
      Counts counts(n + 5);
      tad_rt_parallel_for(count, &counts, 5, n + 5);
      expectOnce(counts, 5, n + 5);
      // At most four parts a thread (one on one thread), and none empty.
      EXPECT_LE(counts.calls.load(), threads == 1 ? 1 : 4 * threads);
      EXPECT_LE(counts.calls.load(), n);
    }
  }
}

TEST(ParallelTest, ManyCallsInARow) {
  tad_rt_set_num_threads(2);
  Counts counts(256);
  for (int call = 0; call < 2000; ++call)
    tad_rt_parallel_for(count, &counts, 0, 256);
  for (const std::atomic<int> &hit : counts.hits)
    EXPECT_EQ(hit.load(), 2000);
  // After the workers have gone to sleep.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Counts again(256);
  tad_rt_parallel_for(count, &again, 0, 256);
  expectOnce(again, 0, 256);
}

TEST(ParallelTest, MoreThreadsThanCores) {
  tad_rt_set_num_threads(int(std::thread::hardware_concurrency()) * 4 + 1);
  Counts counts(4096);
  for (int call = 0; call < 300; ++call)
    tad_rt_parallel_for(count, &counts, 0, 4096);
  for (const std::atomic<int> &hit : counts.hits)
    EXPECT_EQ(hit.load(), 300);
}

TEST(ParallelTest, SeveralCallersAtOnce) {
  tad_rt_set_num_threads(2);
  std::vector<Counts *> all;
  for (int t = 0; t < 4; ++t)
    all.push_back(new Counts(512));
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      for (int call = 0; call < 200; ++call)
        tad_rt_parallel_for(count, all[t], 0, 512);
    });
  for (std::thread &caller : callers)
    caller.join();
  for (Counts *counts : all) {
    for (const std::atomic<int> &hit : counts->hits)
      EXPECT_EQ(hit.load(), 200);
    delete counts;
  }
}

} // namespace
