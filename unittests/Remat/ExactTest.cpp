//===- ExactTest.cpp - the exact remat search
//------------------------------===//

#include "tad/Remat/Exact.h"

#include "gtest/gtest.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <queue>
#include <random>

#include "TestGraphs.h"

using namespace tad::remat;
using namespace tad::remat::testing;

namespace {

TEST(ExactTest, StoreAllBudgetRecomputesNothing) {
  Graph g = gradientChain(4);
  ScheduleStats all = simulate(g, storeAllSchedule(g));
  std::vector<Event> schedule;
  ASSERT_EQ(exactSchedule(g, all.peak, schedule), ExactResult::optimal);
  ScheduleStats s = simulate(g, schedule);
  ASSERT_TRUE(s.valid) << s.error;
  EXPECT_DOUBLE_EQ(s.cost, all.cost);
  EXPECT_LE(s.peak, all.peak);
}

// A tighter budget forces recomputation: the gradient of a 4-chain with
// room for three values recomputes forward nodes, and no cheaper valid
// schedule exists below the store-all peak of five values.
TEST(ExactTest, TightBudgetsRecompute) {
  Graph g = gradientChain(4);
  EXPECT_EQ(simulate(g, storeAllSchedule(g)).peak, 50);
  std::vector<Event> schedule;
  ASSERT_EQ(exactSchedule(g, 30, schedule), ExactResult::optimal);
  ScheduleStats s = simulate(g, schedule);
  ASSERT_TRUE(s.valid) << s.error;
  EXPECT_LE(s.peak, 30);
  EXPECT_GT(s.cost, 8); // more than one compute per node
  EXPECT_EQ(exactMinimumBudget(g), 30);
  EXPECT_EQ(exactSchedule(g, 29, schedule), ExactResult::infeasible);
}

// On random small graphs the exact schedule is valid, within budget, never
// costlier than the DTR greedy, and infeasible only below the minimum.
TEST(ExactTest, NeverWorseThanDtr) {
  std::mt19937 rng(7);
  int compared = 0;
  for (int trial = 0; trial < 30; ++trial) {
    Graph g = randomGraph(9, rng);
    ScheduleStats all = simulate(g, storeAllSchedule(g));
    int64_t minimum = exactMinimumBudget(g);
    ASSERT_GT(minimum, 0);
    ASSERT_LE(minimum, all.peak);
    std::vector<Event> schedule;
    EXPECT_EQ(exactSchedule(g, minimum - 1, schedule), ExactResult::infeasible);
    for (int64_t budget : {minimum, (minimum + all.peak) / 2, all.peak}) {
      ASSERT_EQ(exactSchedule(g, budget, schedule), ExactResult::optimal);
      ScheduleStats exact = simulate(g, schedule);
      ASSERT_TRUE(exact.valid) << exact.error;
      EXPECT_LE(exact.peak, budget);
      std::vector<Event> greedy;
      if (dtrSchedule(g, budget, greedy)) {
        ScheduleStats d = simulate(g, greedy);
        ASSERT_TRUE(d.valid) << d.error;
        EXPECT_LE(exact.cost, d.cost + 1e-9);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 30);
}

/// The least cost of any schedule of `g` within `budget` (-1: none), by
/// uniform-cost search over every event: a compute when the inputs are
/// resident, a free of any resident value at any point. The exact search
/// frees only right after a compute that read or wrote the value, and
/// bounds its search with a heuristic; this one assumes neither.
static double referenceCost(const Graph &g, int64_t budget) {
  int n = g.size();
  uint32_t all = (1u << n) - 1;
  using Item = std::pair<double, uint64_t>; // (cost, computed << 32 | resident)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  std::map<uint64_t, double> best{{0, 0.0}};
  queue.push({0.0, 0});
  while (!queue.empty()) {
    auto [cost, key] = queue.top();
    queue.pop();
    if (cost > best[key])
      continue;
    uint32_t resident = uint32_t(key), computed = uint32_t(key >> 32);
    if (computed == all)
      return cost;
    int64_t bytes = 0;
    for (int v = 0; v < n; ++v)
      if (resident & (1u << v))
        bytes += g.nodes[v].bytes;
    auto relax = [&](uint32_t r, uint32_t c, double next) {
      uint64_t k = (uint64_t(c) << 32) | r;
      auto it = best.find(k);
      if (it != best.end() && it->second <= next)
        return;
      best[k] = next;
      queue.push({next, k});
    };
    for (int v = 0; v < n; ++v) {
      uint32_t bit = 1u << v;
      if (resident & bit) {
        relax(resident & ~bit, computed, cost);
        continue;
      }
      bool inputs = llvm::all_of(g.nodes[v].inputs, [&](int i) {
        return (resident >> i) & 1;
      });
      if (inputs && (g.nodes[v].recomputable || !(computed & bit)) &&
          bytes + g.nodes[v].bytes + g.nodes[v].transient <= budget)
        relax(resident | bit, computed | bit, cost + g.nodes[v].cost);
    }
  }
  return -1;
}

// The exact search's restrictions (frees only after a compute that read
// or wrote the value; its heuristic) lose no schedule: on random graphs
// and gradient chains its cost is the reference search's at every budget
// from below the minimum to the store-all peak.
TEST(ExactTest, EqualsTheSearchOverEveryEvent) {
  std::mt19937 rng(11);
  std::vector<Graph> graphs = {gradientChain(3), gradientChain(4)};
  for (int trial = 0; trial < 12; ++trial)
    graphs.push_back(randomGraph(8, rng));
  int feasible = 0;
  for (const Graph &g : graphs) {
    int64_t minimum = exactMinimumBudget(g);
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    for (int64_t budget : {minimum - 1, minimum, (2 * minimum + peak) / 3,
                           (minimum + 2 * peak) / 3, peak}) {
      std::vector<Event> schedule;
      ExactResult result = exactSchedule(g, budget, schedule);
      double reference = referenceCost(g, budget);
      if (reference < 0) {
        EXPECT_EQ(result, ExactResult::infeasible) << "budget " << budget;
        continue;
      }
      ASSERT_EQ(result, ExactResult::optimal) << "budget " << budget;
      ScheduleStats s = simulate(g, schedule);
      ASSERT_TRUE(s.valid) << s.error;
      EXPECT_LE(s.peak, budget);
      EXPECT_NEAR(s.cost, reference, 1e-9) << "budget " << budget;
      ++feasible;
    }
  }
  EXPECT_GT(feasible, 40);
}

TEST(ExactTest, LargeGraphsAreRefused) {
  Graph g = gradientChain(11); // 22 nodes
  std::vector<Event> schedule;
  EXPECT_EQ(exactSchedule(g, 1000, schedule), ExactResult::tooLarge);
  EXPECT_EQ(exactMinimumBudget(g), -1);
}

} // namespace

namespace {

// The greedy's recompute on demand can thrash on large graphs at tight
// budgets (a 1000-node joint graph at 0.3 of its peak once ran for more
// than ten minutes). It must stop within its compute bound, and whatever it
// returns must be a valid schedule within the budget.
TEST(DtrTest, StopsOnLargeGraphsAtTightBudgets) {
  std::mt19937 rng(3);
  int stopped = 0;
  for (Graph g : {randomJointGraph(500, rng), randomGraph(1000, rng),
                  gradientChain(500)}) {
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    int64_t footprint = 0;
    for (int v = 0; v < g.size(); ++v)
      footprint = std::max(footprint, g.getComputeFootprint(v));
    for (double fraction : {0.9, 0.5, 0.3, 0.1}) {
      int64_t budget = std::max(footprint, int64_t(fraction * double(peak)));
      std::vector<Event> schedule;
      if (!dtrSchedule(g, budget, schedule)) {
        ++stopped;
        continue;
      }
      ScheduleStats s = simulate(g, schedule);
      ASSERT_TRUE(s.valid) << s.error;
      EXPECT_LE(s.peak, budget);
      EXPECT_LE(s.computes,
                std::max<int64_t>(kDtrComputesPerNode * int64_t(g.size()),
                                  kDtrMinComputeLimit));
    }
  }
  EXPECT_GT(stopped, 0); // the joint graph does thrash at 0.3 and 0.1
}

} // namespace
