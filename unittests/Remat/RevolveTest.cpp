//===- RevolveTest.cpp - binomial checkpointing of loops ------------------===//

#include "tad/Remat/Revolve.h"

#include "gtest/gtest.h"

using namespace tad::remat;

namespace {

TEST(RevolveTest, SmallCasesByHand) {
  EXPECT_EQ(optimalForwardSteps(0, 1), 0);
  EXPECT_EQ(optimalForwardSteps(1, 1), 0);
  // One slot (x_0 only): recompute from x_0 for every step.
  EXPECT_EQ(optimalForwardSteps(5, 1), 4 + 3 + 2 + 1);
  // As many slots as states: one forward sweep storing everything.
  EXPECT_EQ(optimalForwardSteps(5, 5), 4);
  EXPECT_EQ(optimalForwardSteps(3, 2), 2);
}

// The closed form and the dynamic program agree on the whole grid
// l <= 200, c <= 10.
TEST(RevolveTest, ClosedFormEqualsDynamicProgram) {
  for (int64_t c = 1; c <= 10; ++c)
    for (int64_t l = 0; l <= 200; ++l)
      ASSERT_EQ(optimalForwardSteps(l, c), optimalForwardStepsByDP(l, c))
          << "l = " << l << ", c = " << c;
}

// The schedule reverses every step, in order, within c slots, and its
// forward steps are exactly t(l, c).
TEST(RevolveTest, ScheduleMeetsTheOptimumOnTheGrid) {
  for (int64_t c = 1; c <= 10; ++c)
    for (int64_t l = 0; l <= 200; ++l) {
      std::vector<RevolveAction> schedule = makeRevolveSchedule(l, c);
      ASSERT_EQ(checkRevolveSchedule(schedule, l, c), optimalForwardSteps(l, c))
          << "l = " << l << ", c = " << c;
    }
}

// The closed-form split is a minimizer of the dynamic program.
TEST(RevolveTest, SplitIsOptimal) {
  for (int64_t c = 2; c <= 10; ++c)
    for (int64_t l = 2; l <= 200; ++l) {
      int64_t m = revolveSplit(l, c);
      ASSERT_TRUE(m >= 1 && m < l) << "l = " << l << ", c = " << c;
      ASSERT_EQ(m + optimalForwardSteps(l - m, c - 1) +
                    optimalForwardSteps(m, c),
                optimalForwardSteps(l, c))
          << "l = " << l << ", c = " << c;
    }
}

/// Checks that no subproblem of the schedule of (l, c) needs more
/// repetitions than the whole: the compiled schedule looks for r among
/// 1..revolveRepetitions(l, c) only.
static void checkRepetitionBound(int64_t l, int64_t c, int64_t bound) {
  if (l <= 1 || c <= 1)
    return;
  ASSERT_LE(revolveRepetitions(l, c), bound) << "l = " << l << ", c = " << c;
  int64_t m = revolveSplit(l, c);
  checkRepetitionBound(l - m, c - 1, bound);
  checkRepetitionBound(m, c, bound);
}

TEST(RevolveTest, SubproblemsNeedNoMoreRepetitions) {
  for (int64_t c = 1; c <= 12; ++c)
    for (int64_t l = 0; l <= 300; ++l)
      checkRepetitionBound(l, c, revolveRepetitions(l, c));
  for (int64_t c : {2, 3, 5, 10})
    checkRepetitionBound(100000, c, revolveRepetitions(100000, c));
}

// The counts after the first sweep, and the first sweep's stores, are
// those of the schedule itself.
TEST(RevolveTest, CountsAndFirstSweepMatchTheSchedule) {
  for (int64_t c = 1; c <= 10; ++c)
    for (int64_t l = 1; l <= 200; ++l) {
      std::vector<RevolveAction> schedule = makeRevolveSchedule(l, c);
      RevolveCounts expected;
      std::vector<int64_t> sweep;
      bool inSweep = true;
      for (const RevolveAction &a : schedule) {
        inSweep &= a.kind != RevolveAction::reverse;
        if (inSweep) {
          ASSERT_TRUE(a.kind == RevolveAction::advance ||
                      a.kind == RevolveAction::store);
          if (a.kind == RevolveAction::store) {
            ASSERT_EQ(a.slot, int64_t(sweep.size()) + 1);
            sweep.push_back(a.step);
          }
          continue;
        }
        expected.stores += a.kind == RevolveAction::store;
        expected.restores += a.kind == RevolveAction::restore;
        expected.advances += a.kind == RevolveAction::advance;
        expected.reverses += a.kind == RevolveAction::reverse;
      }
      ASSERT_EQ(revolveFirstSweepStores(l, c), sweep)
          << "l = " << l << ", c = " << c;
      RevolveCounts counts = countRevolveActions(l, c);
      ASSERT_EQ(counts.stores, expected.stores) << "l = " << l << ", c = " << c;
      ASSERT_EQ(counts.restores, expected.restores)
          << "l = " << l << ", c = " << c;
      ASSERT_EQ(counts.advances, expected.advances)
          << "l = " << l << ", c = " << c;
      ASSERT_EQ(counts.reverses, l);
    }
}

// A loop of 10^9 steps: the counts take no time or memory that grows with
// l, and the advances are t(l, c) less the first sweep's l - 1.
TEST(RevolveTest, CountsAtAThousandMillionSteps) {
  const int64_t l = 1000000000;
  for (int64_t c : {2, 3, 10, 50}) {
    RevolveCounts counts = countRevolveActions(l, c);
    EXPECT_EQ(counts.advances + (l - 1), optimalForwardSteps(l, c)) << c;
    EXPECT_EQ(counts.reverses, l);
    EXPECT_LT(counts.stores, l);
    EXPECT_LE(counts.restores, counts.stores + l);
  }
}

TEST(RevolveTest, CheckerRejectsInvalidSchedules) {
  std::vector<RevolveAction> schedule = makeRevolveSchedule(10, 3);
  EXPECT_GE(checkRevolveSchedule(schedule, 10, 3), 0);
  // With fewer slots than it uses, it is invalid.
  EXPECT_EQ(checkRevolveSchedule(schedule, 10, 2), -1);
  // Reversing out of order is invalid.
  std::vector<RevolveAction> wrong = {{RevolveAction::reverse, 0, -1}};
  EXPECT_EQ(checkRevolveSchedule(wrong, 2, 2), -1);
  // Stopping early is invalid.
  EXPECT_EQ(checkRevolveSchedule({}, 1, 1), -1);
}

} // namespace
