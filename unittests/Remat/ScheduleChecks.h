//===- ScheduleChecks.h - checks the remat solver tests share ---*- C++ -*-===//

#ifndef TAD_UNITTESTS_REMAT_SCHEDULECHECKS_H
#define TAD_UNITTESTS_REMAT_SCHEDULECHECKS_H

#include "tad/Remat/Solver.h"

#include "gtest/gtest.h"

#include "TestGraphs.h"

namespace tad::remat::testing {

/// Expects `schedule` to be valid and within `budget`; returns its stats.
inline ScheduleStats checked(const Graph &g, const std::vector<Event> &schedule,
                             int64_t budget) {
  ScheduleStats s = simulate(g, schedule);
  EXPECT_TRUE(s.valid) << s.error;
  EXPECT_LE(s.peak, budget);
  return s;
}

/// Runs `improve` on DTR's schedules (tightened first if asked) of `trials`
/// random joint graphs of `nodes` forward nodes at `fraction` of their
/// store-all peak; checks that each result is valid, within the budget and
/// no dearer, and returns how many became cheaper.
template <typename Improve>
int improveDtrSchedules(unsigned seed, int trials, int nodes, double fraction,
                        bool tightenFirst, Improve improve) {
  std::mt19937 rng(seed);
  int improved = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Graph g = randomJointGraph(nodes, rng);
    int64_t budget =
        int64_t(fraction * double(simulate(g, storeAllSchedule(g)).peak));
    std::vector<Event> schedule;
    if (!dtrSchedule(g, budget, schedule))
      continue;
    if (tightenFirst)
      tightenSchedule(g, budget, schedule);
    double before = simulate(g, schedule).cost;
    improve(g, budget, schedule);
    double after = checked(g, schedule, budget).cost;
    EXPECT_LE(after, before + 1e-9);
    improved += after < before - 1e-9;
  }
  return improved;
}

} // namespace tad::remat::testing

#endif // TAD_UNITTESTS_REMAT_SCHEDULECHECKS_H
