//===- SearchMemoTest.cpp - the solver's answers, shared between solves ---===//

#include "tad/Remat/SearchMemo.h"
#include "tad/Remat/Solver.h"

#include "gtest/gtest.h"

#include "TestGraphs.h"

#include <atomic>

using namespace tad::remat;
using namespace tad::remat::testing;

namespace {

TEST(SearchMemoTest, AnswersOnceAndKeepsOnlyWhatItIsToldTo) {
  SearchMemo<int> memo;
  int searches = 0;
  auto search = [&] { return ++searches; };
  EXPECT_EQ(memo.answer("q", search), 1);
  EXPECT_EQ(memo.answer("q", search), 1);
  EXPECT_EQ(searches, 1);
  // A search that is not kept (it was stopped) is asked again.
  EXPECT_EQ(memo.answer("r", search, [] { return false; }), 2);
  EXPECT_EQ(memo.answer("r", search), 3);
  EXPECT_EQ(memo.answer("r", search), 3);
}

TEST(SearchMemoTest, TheKeyIsWhatASchedulesDependsOnNotTheNames) {
  Graph g = gradientChain(4);
  Graph renamed = g;
  renamed.nodes[1].name = "another";
  EXPECT_EQ(graphKey(g), graphKey(renamed));
  for (auto change : std::vector<std::function<void(Graph &)>>{
           [](Graph &h) { h.nodes[2].bytes += 1; },
           [](Graph &h) { h.nodes[2].cost += 0.5; },
           [](Graph &h) { h.nodes[2].transient = 4; },
           [](Graph &h) { h.nodes[0].recomputable = false; },
           [](Graph &h) { h.addEdge(0, 3); }}) {
    Graph h = g;
    change(h);
    EXPECT_NE(graphKey(g), graphKey(h));
  }
}

// A whole-graph search asked again is answered from the memo: asked with
// its stop flag set, it would have given up.
TEST(SearchMemoTest, AWholeGraphSearchIsNotRunTwice) {
  std::mt19937 rng(5);
  Graph g = randomJointGraph(6, rng);
  int64_t budget = exactMinimumBudget(g);
  SearchMemos memo;
  std::vector<Event> first, again;
  std::atomic<bool> stop{false};
  ASSERT_EQ(wholeGraphSchedule(g, budget, first, int64_t(1) << 30, &stop,
                               nullptr, std::numeric_limits<double>::infinity(),
                               &memo),
            WholeGraphResult::found);
  stop = true;
  EXPECT_EQ(wholeGraphSchedule(g, budget, again, int64_t(1) << 30, &stop,
                               nullptr, std::numeric_limits<double>::infinity(),
                               &memo),
            WholeGraphResult::found);
  EXPECT_EQ(first, again);
  // Stopped, a new question gives up, and its answer is not kept.
  EXPECT_EQ(wholeGraphSchedule(g, budget + 1, again, int64_t(1) << 30, &stop,
                               nullptr, std::numeric_limits<double>::infinity(),
                               &memo),
            WholeGraphResult::gaveUp);
  stop = false;
  EXPECT_EQ(wholeGraphSchedule(g, budget + 1, again, int64_t(1) << 30, &stop,
                               nullptr, std::numeric_limits<double>::infinity(),
                               &memo),
            WholeGraphResult::found);
}

// fastSchedule asked again is answered from the memo (stopped, it would
// fail); a stopped search's failure is not kept; a SolveInfo's caller is
// not answered from it.
TEST(SearchMemoTest, AFastScheduleIsNotRunTwice) {
  std::mt19937 rng(3);
  Graph g = randomJointGraph(12, rng);
  int64_t budget = (simulate(g, storeAllSchedule(g)).peak * 3) / 4;
  SearchMemos memo;
  std::atomic<bool> stop{false};
  SolverLimits limits;
  limits.memo = &memo;
  limits.stop = &stop;
  std::vector<Event> first, again;
  ASSERT_TRUE(fastSchedule(g, budget, first, nullptr, true, limits));
  stop = true;
  EXPECT_TRUE(fastSchedule(g, budget, again, nullptr, true, limits));
  EXPECT_EQ(first, again);
  SolveInfo info;
  EXPECT_FALSE(fastSchedule(g, budget, again, &info, true, limits));
  EXPECT_FALSE(fastSchedule(g, budget + 1, again, nullptr, true, limits));
  stop = false;
  EXPECT_TRUE(fastSchedule(g, budget + 1, again, nullptr, true, limits));
}

// The least budget that fastMinimumBudget finds does not depend on the
// last resort's scan limit (its searches never run the last resort): a
// probe that sets it to 0 and the compile that keeps it share the answer,
// and the compile does not search again (stopped, it would not find it).
TEST(SearchMemoTest, AFloorIsTheSameWhateverTheScanLimit) {
  std::mt19937 rng(3);
  Graph g = randomJointGraph(12, rng);
  SolverLimits probe, compile;
  probe.scanLooksPerEdge = 0;
  int64_t minimum = fastMinimumBudget(g, compile);
  ASSERT_LT(minimum, simulate(g, storeAllSchedule(g)).peak);
  EXPECT_EQ(fastMinimumBudget(g, probe), minimum);
  SearchMemos memo;
  std::atomic<bool> stop{false};
  probe.memo = compile.memo = &memo;
  probe.stop = compile.stop = &stop;
  EXPECT_EQ(fastMinimumBudget(g, probe), minimum);
  stop = true;
  EXPECT_EQ(fastMinimumBudget(g, compile), minimum);
  // Without the memo, the stopped search answers another budget.
  compile.memo = nullptr;
  EXPECT_NE(fastMinimumBudget(g, compile), minimum);
}

// Solves that share a memo answer as solves that do not: the same
// schedules and minimums, asked in any order.
TEST(SearchMemoTest, SharedAnswersAreTheSolversOwn) {
  std::mt19937 rng(7);
  SearchMemos memo;
  SolverLimits shared;
  shared.memo = &memo;
  for (int trial = 0; trial < 6; ++trial) {
    Graph g = randomJointGraph(trial % 2 ? 6 : 9, rng);
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    for (int pass = 0; pass < 2; ++pass) {
      EXPECT_EQ(autoMinimumBudget(g, shared), autoMinimumBudget(g));
      for (double fraction : {0.5, 0.7, 0.9}) {
        int64_t budget = int64_t(fraction * double(peak));
        std::vector<Event> alone, withMemo;
        std::string solver = autoSchedule(g, budget, alone);
        EXPECT_EQ(autoSchedule(g, budget, withMemo, true, &memo), solver);
        EXPECT_EQ(alone, withMemo);
        alone.clear();
        withMemo.clear();
        bool fits = fastSchedule(g, budget, alone, nullptr, true);
        EXPECT_EQ(fastSchedule(g, budget, withMemo, nullptr, true, shared),
                  fits);
        EXPECT_EQ(alone, withMemo);
      }
    }
  }
}

} // namespace
