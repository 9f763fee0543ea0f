//===- WindowTest.cpp - re-solving stretches of a schedule exactly --------===//

#include "tad/Remat/Exact.h"
#include "tad/Remat/Solver.h"

#include "gtest/gtest.h"

#include "ScheduleChecks.h"

using namespace tad::remat;
using namespace tad::remat::testing;

namespace {

constexpr int64_t kUnlimited = int64_t(1) << 50;

/// The budgets of the solver's tables, raised to the exact minimum.
std::vector<int64_t> budgetsOf(const Graph &g) {
  int64_t peak = simulate(g, storeAllSchedule(g)).peak;
  int64_t minimum = exactMinimumBudget(g);
  std::vector<int64_t> budgets;
  for (double fraction : {0.5, 0.6, 0.7, 0.8, 0.9})
    budgets.push_back(std::max(minimum, int64_t(fraction * double(peak))));
  return budgets;
}

// The last window is the whole sequence: on a graph this small its search
// is exact, so from any valid schedule it reaches the cost of Exact.cpp's
// search (an independent implementation, over other states), and from
// DTR's schedules it has to do real work to get there.
TEST(WindowTest, TheWholeSequenceIsSolvedExactly) {
  std::mt19937 rng(3);
  int cases = 0, improved = 0;
  for (int trial = 0; trial < 12; ++trial) {
    Graph g = randomJointGraph(7, rng);
    for (int64_t budget : budgetsOf(g)) {
      std::vector<Event> exact, schedule;
      ASSERT_EQ(exactSchedule(g, budget, exact), ExactResult::optimal);
      if (!dtrSchedule(g, budget, schedule))
        continue;
      ++cases;
      double before = simulate(g, schedule).cost;
      windowSchedule(g, budget, schedule, kUnlimited);
      double after = checked(g, schedule, budget).cost;
      EXPECT_NEAR(after, simulate(g, exact).cost, 1e-9)
          << trial << " " << budget;
      improved += after < before - 1e-9;
    }
  }
  EXPECT_GT(cases, 40);
  EXPECT_GT(improved, cases / 3);
}

// On larger graphs the windows are stretches of the sequence: each result
// is valid, within the budget and no dearer, and some are cheaper than the
// tightened DTR schedule they start from, at half the store-all peak.
TEST(WindowTest, WindowsOnlyImprove) {
  EXPECT_GT(improveDtrSchedules(5, 10, 40, 0.5, true,
                                [](const Graph &g, int64_t budget,
                                   std::vector<Event> &schedule) {
                                  windowSchedule(g, budget, schedule,
                                                 int64_t(1) << 24);
                                }),
            0);
}

// A value resident over a whole window and unread in it counts once: here
// P (100 bytes) passes over the window that holds the smallest exchange
// (SolverTest.ExchangeTradesADearRecomputationForACheapOne: 45 bytes, cost
// 15), between two chains that make the graph too large for a window of
// its own. The window computes F first, before A and B are resident, and
// recomputes nothing.
TEST(WindowTest, ValuesPassingThroughCountOnce) {
  Graph g;
  auto add = [&](const std::string &name, double cost, int64_t bytes) {
    g.nodes.push_back({name, cost, bytes, {}, {}});
    return g.size() - 1;
  };
  std::vector<Event> schedule;
  auto compute = [&](int v) { schedule.push_back({Event::compute, v}); };
  auto free = [&](int v) { schedule.push_back({Event::free, v}); };
  auto chain = [&](const std::string &prefix, int length) {
    int last = -1;
    for (int i = 0; i < length; ++i) {
      int v = add(prefix + std::to_string(i), 1, 1);
      if (last >= 0)
        g.addEdge(last, v);
      compute(v);
      if (last >= 0)
        free(last);
      last = v;
    }
    return last;
  };
  int p = add("P", 1, 100);
  compute(p);
  free(chain("c", 30));
  // A, B; C reads both; F is large; D reads A, E reads B.
  int a = add("A", 5, 10), b = add("B", 1, 10), c = add("C", 1, 1),
      f = add("F", 1, 30), d = add("D", 1, 1), e = add("E", 1, 1);
  for (auto [input, user] : {std::pair<int, int>{a, c}, {b, c}, {a, d}, {b, e}})
    g.addEdge(input, user);
  for (int v : {a, b, c})
    compute(v);
  free(c);
  free(a);
  compute(f);
  free(f);
  compute(a);
  compute(d);
  free(d);
  free(a);
  compute(e);
  free(e);
  free(b);
  int tail = chain("t", 30);
  int z = add("Z", 1, 1);
  g.addEdge(p, z);
  g.addEdge(tail, z);
  compute(z);
  free(tail);
  free(p);
  free(z);
  const int64_t budget = 100 + 45;
  EXPECT_DOUBLE_EQ(checked(g, schedule, budget).cost, 1 + 30 + 15 + 30 + 1);
  windowSchedule(g, budget, schedule, kUnlimited);
  EXPECT_DOUBLE_EQ(checked(g, schedule, budget).cost, 1 + 30 + 10 + 30 + 1);
}

// From nothing, the whole-graph search is exact too: at the exact minimum
// it finds a schedule of the exact cost, one byte below it proves that
// none fits, and without work it gives up. fastSchedule falls back on it,
// so it succeeds at the exact minimum, and fastMinimumBudget finds it.
TEST(WindowTest, TheWholeGraphFromNothing) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 8; ++trial) {
    Graph g = randomJointGraph(7, rng);
    int64_t minimum = exactMinimumBudget(g);
    std::vector<Event> exact, whole, fast;
    ASSERT_EQ(exactSchedule(g, minimum, exact), ExactResult::optimal);
    ASSERT_EQ(wholeGraphSchedule(g, minimum, whole, kUnlimited),
              WholeGraphResult::found);
    EXPECT_NEAR(checked(g, whole, minimum).cost, simulate(g, exact).cost, 1e-9);
    EXPECT_EQ(wholeGraphSchedule(g, minimum - 1, whole, kUnlimited),
              WholeGraphResult::infeasible);
    EXPECT_EQ(wholeGraphSchedule(g, minimum, whole, 0),
              WholeGraphResult::gaveUp);
    ASSERT_TRUE(fastSchedule(g, minimum, fast));
    EXPECT_NEAR(checked(g, fast, minimum).cost, simulate(g, exact).cost, 1e-9);
    EXPECT_EQ(fastMinimumBudget(g), minimum);
  }
}

// The bounds that the whole-graph search starts from exclude a budget only
// where no schedule fits it (the exact minimum is above it), and on graphs
// with values that must not be recomputed they exclude budgets that the
// lower bound of every solver does not: the fast solver then fails at once.
// Over kMaxWindowNodes nodes they say nothing.
TEST(WindowTest, BoundsExcludeOnlyWhatNothingFits) {
  std::mt19937 rng(5);
  int excludedAboveLowerBound = 0;
  for (int trial = 0; trial < 12; ++trial) {
    Graph g = randomJointGraph(7, rng);
    for (int v = 0; v < 7; v += 3)
      g.nodes[v].recomputable = false;
    int64_t minimum = exactMinimumBudget(g);
    ASSERT_GT(minimum, 0);
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    for (int64_t budget = lowerBound(g); budget <= peak; ++budget) {
      if (!boundExcludes(g, budget))
        continue;
      EXPECT_LT(budget, minimum) << trial;
      excludedAboveLowerBound += budget > lowerBound(g);
      std::vector<Event> schedule;
      EXPECT_FALSE(fastSchedule(g, budget, schedule)) << trial << " " << budget;
    }
    EXPECT_FALSE(boundExcludes(g, minimum)) << trial;
  }
  EXPECT_GT(excludedAboveLowerBound, 100);
  std::mt19937 large(1);
  Graph g = randomJointGraph(kMaxWindowNodes, large);
  EXPECT_FALSE(boundExcludes(g, 1));
}

// An arena answers a whole-graph search it has seen from memory, the same
// as the search: found, infeasible and gave up, each for its own graph,
// budget, work and cost bound.
TEST(WindowTest, AnArenaRemembersWholeGraphAnswers) {
  std::mt19937 rng(11);
  WindowArena arena;
  for (int trial = 0; trial < 8; ++trial) {
    Graph g = randomJointGraph(7, rng);
    int64_t minimum = exactMinimumBudget(g);
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<Event> fresh, remembered = {Event{Event::free, -1}};
      ASSERT_EQ(wholeGraphSchedule(g, minimum, fresh, kUnlimited),
                WholeGraphResult::found);
      ASSERT_EQ(wholeGraphSchedule(g, minimum, remembered, kUnlimited,
                                   nullptr, &arena),
                WholeGraphResult::found);
      EXPECT_EQ(remembered, fresh);
      EXPECT_EQ(wholeGraphSchedule(g, minimum - 1, remembered, kUnlimited,
                                   nullptr, &arena),
                WholeGraphResult::infeasible);
      EXPECT_EQ(wholeGraphSchedule(g, minimum, remembered, 0, nullptr,
                                   &arena),
                WholeGraphResult::gaveUp);
      double optimum = simulate(g, fresh).cost;
      EXPECT_EQ(wholeGraphSchedule(g, minimum, remembered, kUnlimited,
                                   nullptr, &arena, optimum - 0.5),
                WholeGraphResult::infeasible);
    }
    // The same shape with a node of other bytes is another question.
    Graph other = g;
    other.nodes.back().bytes += minimum;
    std::vector<Event> schedule;
    EXPECT_EQ(wholeGraphSchedule(other, minimum, schedule, kUnlimited,
                                 nullptr, &arena),
              WholeGraphResult::infeasible);
  }
}

// A cost bound (the overhead policy's): the exact and whole-graph searches
// find the optimum when it costs at most the bound, and prove that nothing
// fits within a bound below it; fastSchedule then fails, though a dearer
// schedule fits the budget. Without a bound fastSchedule finds one.
TEST(WindowTest, CostBounds) {
  std::mt19937 rng(9);
  int bounded = 0;
  for (int trial = 0; trial < 8; ++trial) {
    Graph g = randomJointGraph(7, rng);
    int64_t minimum = exactMinimumBudget(g);
    std::vector<Event> exact, schedule;
    ASSERT_EQ(exactSchedule(g, minimum, exact), ExactResult::optimal);
    double optimum = simulate(g, exact).cost;
    ASSERT_EQ(exactSchedule(g, minimum, schedule, 4'000'000, optimum),
              ExactResult::optimal);
    EXPECT_NEAR(simulate(g, schedule).cost, optimum, 1e-9);
    ASSERT_EQ(wholeGraphSchedule(g, minimum, schedule, kUnlimited, nullptr,
                                 nullptr, optimum),
              WholeGraphResult::found);
    EXPECT_NEAR(checked(g, schedule, minimum).cost, optimum, 1e-9);
    double below = optimum - 0.5;
    EXPECT_EQ(exactSchedule(g, minimum, schedule, 4'000'000, below),
              ExactResult::infeasible);
    EXPECT_EQ(wholeGraphSchedule(g, minimum, schedule, kUnlimited, nullptr,
                                 nullptr, below),
              WholeGraphResult::infeasible);
    // fastSchedule's heuristics run unbounded: only where they miss the
    // minimum does the bound decide.
    SolverLimits limits;
    limits.maxCost = below;
    std::vector<Event> fast;
    if (!fastSchedule(g, minimum, fast, nullptr, true, limits)) {
      ++bounded;
      EXPECT_TRUE(fastSchedule(g, minimum, fast));
    }
  }
  EXPECT_GT(bounded, 0);
}

// Without work, nothing changes.
TEST(WindowTest, NoWorkNoChange) {
  std::mt19937 rng(7);
  Graph g = randomJointGraph(7, rng);
  int64_t budget = budgetsOf(g)[0];
  std::vector<Event> schedule;
  ASSERT_TRUE(dtrSchedule(g, budget, schedule));
  std::vector<Event> unchanged = freeAfterLastUse(g, schedule);
  windowSchedule(g, budget, schedule, 0);
  EXPECT_EQ(schedule, unchanged);
}

// Transient bytes count while their node is computed, and a node that must
// not be recomputed is computed once: the window search and the whole-graph
// search keep both rules and still reach the exact cost.
TEST(WindowTest, TransientBytesAndEffects) {
  Graph g = gradientChain(6);
  g.nodes[2].transient = 25; // f2
  g.nodes[0].recomputable = false;
  int feasible = 0;
  for (int64_t budget = 70; budget >= 45; budget -= 5) {
    std::vector<Event> exact, schedule;
    ExactResult result = exactSchedule(g, budget, exact);
    ASSERT_NE(result, ExactResult::tooLarge);
    if (result == ExactResult::infeasible)
      continue;
    ++feasible;
    // DTR may evict f0; the portfolio never does.
    if (!dtrSchedule(g, budget, schedule)) {
      ASSERT_TRUE(solveSchedule(g, budget, schedule)) << budget;
    }
    windowSchedule(g, budget, schedule, kUnlimited);
    EXPECT_NEAR(checked(g, schedule, budget).cost, simulate(g, exact).cost,
                1e-9)
        << budget;
    // From nothing too: f0 is held over every backward compute, and the
    // memory bound makes room from the other values.
    std::vector<Event> whole;
    ASSERT_EQ(wholeGraphSchedule(g, budget, whole, kUnlimited),
              WholeGraphResult::found)
        << budget;
    EXPECT_NEAR(checked(g, whole, budget).cost, simulate(g, exact).cost, 1e-9)
        << budget;
    for (const std::vector<Event> *s : {&schedule, &whole})
      EXPECT_EQ(std::count(s->begin(), s->end(), Event{Event::compute, 0}), 1);
  }
  EXPECT_GE(feasible, 3);
}

} // namespace

// A compute that reads inputs still of use after it may free any subset of
// them: one successor per subset. Past the window's size each counts as
// work (n more), so that one such state cannot run a search far past its
// limit (15 states of a dense graph's schedule made 4 million of them,
// and its windows took 15 s). Here y reads the twelve leaves that z reads
// after it: computing y makes 2^12 successors, which pass a limit of
// 10,000 that the fourteen states expanded on the way (14^2 each) alone
// would stay within.
TEST(WindowTest, FreedSubsetsCountAsWork) {
  constexpr int kLeaves = 12;
  Graph g;
  for (int i = 0; i < kLeaves + 2; ++i)
    g.nodes.push_back({"v" + std::to_string(i), 1, 1, {}, {}});
  int y = kLeaves, z = kLeaves + 1;
  for (int leaf = 0; leaf < kLeaves; ++leaf) {
    g.addEdge(leaf, y);
    g.addEdge(leaf, z);
  }
  g.addEdge(y, z);
  int64_t budget = kLeaves + 2;
  std::vector<Event> schedule;
  EXPECT_EQ(wholeGraphSchedule(g, budget, schedule, 10000),
            WholeGraphResult::gaveUp);
  EXPECT_EQ(wholeGraphSchedule(g, budget, schedule, int64_t(1) << 20),
            WholeGraphResult::found);
  EXPECT_EQ(checked(g, schedule, budget).cost, kLeaves + 2);
}
