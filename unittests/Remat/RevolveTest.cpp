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
