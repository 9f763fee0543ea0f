//===- ExactTest.cpp - the exact remat search ------------------------------===//

#include "tad/Remat/Exact.h"

#include "gtest/gtest.h"

#include <random>

using namespace tad::remat;

namespace {

/// The graph of a gradient through a chain: forward nodes f0..f(n-1), then
/// backward nodes b(n-1)..b0 where b_i reads f_i and b_(i+1).
Graph gradientChain(int n, int64_t bytes = 10, double cost = 1) {
  Graph g;
  for (int i = 0; i < n; ++i)
    g.nodes.push_back({"f" + std::to_string(i), cost, bytes, {}, {}});
  for (int i = n - 1; i >= 0; --i)
    g.nodes.push_back({"b" + std::to_string(i), cost, bytes, {}, {}});
  for (int i = 0; i + 1 < n; ++i)
    g.addEdge(i, i + 1);
  for (int k = 0; k < n; ++k) {
    int b = n + k, f = n - 1 - k;
    g.addEdge(f, b);
    if (k > 0)
      g.addEdge(b - 1, b);
  }
  return g;
}

Graph randomGraph(int n, std::mt19937 &rng) {
  Graph g;
  std::uniform_int_distribution<int64_t> bytes(1, 20);
  std::uniform_real_distribution<double> cost(0.5, 5);
  for (int i = 0; i < n; ++i) {
    g.nodes.push_back({"v" + std::to_string(i), cost(rng), bytes(rng), {}, {}});
    for (int k = 0; k < 2 && i > 0; ++k) {
      int input = int(rng() % unsigned(i));
      auto &in = g.nodes[i].inputs;
      if (std::find(in.begin(), in.end(), input) == in.end())
        g.addEdge(input, i);
    }
  }
  return g;
}

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
    EXPECT_EQ(exactSchedule(g, minimum - 1, schedule),
              ExactResult::infeasible);
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

TEST(ExactTest, LargeGraphsAreRefused) {
  Graph g = gradientChain(11); // 22 nodes
  std::vector<Event> schedule;
  EXPECT_EQ(exactSchedule(g, 1000, schedule), ExactResult::tooLarge);
  EXPECT_EQ(exactMinimumBudget(g), -1);
}

} // namespace

namespace {

/// The joint graph of the gradient of a random forward DAG, as in
/// bench/remat/gaps.py: forward nodes with the previous node and sometimes
/// an earlier one as inputs, then one adjoint per forward node, in reverse,
/// reading its users' adjoints and its own inputs.
Graph randomJointGraph(int forward, std::mt19937 &rng) {
  Graph g;
  std::uniform_int_distribution<int64_t> bytes(1, 8);
  std::uniform_int_distribution<int> cost(1, 10);
  std::bernoulli_distribution skip(0.4);
  std::vector<std::vector<int>> users(forward);
  for (int v = 0; v < forward; ++v) {
    g.nodes.push_back({"f" + std::to_string(v), double(cost(rng)),
                       16 * bytes(rng), {}, {}});
    if (v > 0) {
      g.addEdge(v - 1, v);
      users[v - 1].push_back(v);
    }
    if (v > 1 && skip(rng)) {
      int u = int(rng() % unsigned(v - 1));
      g.addEdge(u, v);
      users[u].push_back(v);
    }
  }
  auto adjoint = [&](int v) { return 2 * forward - 1 - v; };
  for (int v = forward - 1; v >= 0; --v) {
    g.nodes.push_back({"g" + std::to_string(v), double(cost(rng)),
                       16 * bytes(rng), {}, {}});
    for (int w : users[v])
      g.addEdge(adjoint(w), adjoint(v));
    std::vector<int> residuals = g.nodes[v].inputs;
    if (residuals.empty() || users[v].empty())
      residuals = {v};
    for (int u : residuals)
      g.addEdge(u, adjoint(v));
  }
  return g;
}

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
