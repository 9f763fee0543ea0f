//===- ChainTest.cpp - the chain dynamic program
//---------------------------===//

#include "tad/Remat/Chain.h"
#include "tad/Remat/Exact.h"
#include "tad/Remat/Revolve.h"
#include "tad/Remat/Solver.h"

#include "gtest/gtest.h"

#include "TestGraphs.h"

using namespace tad::remat;
using namespace tad::remat::testing;

namespace {

/// A gradient chain with random costs and sizes (heterogeneous stages).
Graph randomChain(int n, std::mt19937 &rng) {
  Graph g = gradientChain(n);
  std::uniform_int_distribution<int64_t> bytes(1, 8);
  std::uniform_int_distribution<int> cost(1, 9);
  for (Node &node : g.nodes) {
    node.bytes = 8 * bytes(rng);
    node.cost = cost(rng);
  }
  return g;
}

TEST(ChainTest, RecognizesGradientChains) {
  int steps = 0;
  EXPECT_TRUE(isGradientChain(gradientChain(5), steps));
  EXPECT_EQ(steps, 5);
  Graph other = gradientChain(5);
  other.addEdge(0, 2); // a skip connection
  EXPECT_FALSE(isGradientChain(other, steps));
  Graph pinned = gradientChain(3);
  pinned.nodes[1].recomputable = false;
  EXPECT_FALSE(isGradientChain(pinned, steps));
  std::vector<Event> schedule;
  EXPECT_EQ(chainSchedule(other, 1000, schedule), ChainResult::notAChain);
}

// The dynamic program is exact: on random heterogeneous chains of up to 9
// steps (14 nodes), at every budget from the largest compute footprint to
// the store-all peak, it finds a schedule exactly when the exhaustive
// search does, of the same cost, that replays within the budget.
TEST(ChainTest, MatchesTheExactSearch) {
  std::mt19937 rng(17);
  int compared = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Graph g = randomChain(2 + trial % 6, rng);
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    int64_t low = 0;
    for (int v = 0; v < g.size(); ++v)
      low = std::max(low, g.getComputeFootprint(v));
    for (int64_t budget = low; budget <= peak; budget += 8) {
      std::vector<Event> chain, exact;
      ExactResult e = exactSchedule(g, budget, exact);
      ASSERT_NE(e, ExactResult::tooLarge);
      ChainResult c = chainSchedule(g, budget, chain);
      ASSERT_EQ(c == ChainResult::optimal, e == ExactResult::optimal)
          << "trial " << trial << " budget " << budget;
      if (c != ChainResult::optimal)
        continue;
      ScheduleStats s = simulate(g, chain);
      ASSERT_TRUE(s.valid) << s.error;
      EXPECT_LE(s.peak, budget);
      EXPECT_DOUBLE_EQ(s.cost, simulate(g, exact).cost)
          << "trial " << trial << " budget " << budget;
      ++compared;
    }
  }
  EXPECT_GT(compared, 300);
}

// On a homogeneous chain, room for c forward values besides the two
// backward ones b_{i+1}, b_i gives revolve's count of forward steps: t(l, c)
// for l steps (each f_i computed once more than the l of the first sweep
// when it is recomputed).
TEST(ChainTest, HomogeneousChainsMatchRevolve) {
  for (int l : {4, 10, 20})
    for (int c : {2, 3, 5}) {
      Graph g = gradientChain(l, /*bytes=*/10, /*cost=*/1);
      std::vector<Event> schedule;
      // c checkpoints, the f being computed, and two backward values.
      int64_t budget = 10 * (c + 1 + 2);
      ASSERT_EQ(chainSchedule(g, budget, schedule), ChainResult::optimal)
          << l << " " << c;
      ScheduleStats s = simulate(g, schedule);
      ASSERT_TRUE(s.valid) << s.error;
      int64_t forwardSteps = int64_t(s.cost) - l; // minus the b's
      EXPECT_LE(forwardSteps, optimalForwardSteps(l, c + 1) + l)
          << l << " " << c;
      EXPECT_GE(forwardSteps, l);
    }
}

// Chains beyond the exhaustive search's reach: the program's schedules
// replay within the budget and cost no more than any lookahead heuristic's
// (tightened). Too many steps, or more candidates than the work limit,
// give tooLarge and no schedule.
TEST(ChainTest, LongChainsAndTheWorkLimit) {
  std::mt19937 rng(29);
  int solved = 0;
  for (int steps : {20, 32, 48}) {
    Graph g = randomChain(steps, rng);
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    for (double fraction : {0.4, 0.7}) {
      int64_t budget = int64_t(fraction * double(peak));
      std::vector<Event> chain;
      ChainResult c = chainSchedule(g, budget, chain);
      if (c == ChainResult::tooLarge)
        continue;
      ASSERT_EQ(c, ChainResult::optimal) << steps << " " << fraction;
      ++solved;
      ScheduleStats s = simulate(g, chain);
      ASSERT_TRUE(s.valid) << s.error;
      EXPECT_LE(s.peak, budget);
      for (int variant = 0; variant < kLookaheadVariants; ++variant) {
        LookaheadOptions options = lookaheadVariant(variant);
        std::vector<Event> heuristic;
        if (!lookaheadSchedule(g, budget, options, heuristic))
          continue;
        tightenSchedule(g, budget, heuristic);
        EXPECT_GE(simulate(g, heuristic).cost, s.cost - 1e-9)
            << steps << " " << fraction << " variant " << variant;
      }
    }
  }
  EXPECT_GE(solved, 3);
  Graph g = randomChain(10, rng);
  int64_t budget = simulate(g, storeAllSchedule(g)).peak / 2;
  std::vector<Event> schedule;
  EXPECT_EQ(chainSchedule(g, budget, schedule, /*workLimit=*/1),
            ChainResult::tooLarge);
  EXPECT_TRUE(schedule.empty());
  EXPECT_EQ(chainSchedule(gradientChain(kMaxChainSteps + 1), 1 << 30, schedule),
            ChainResult::tooLarge);
}

} // namespace
