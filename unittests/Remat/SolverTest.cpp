//===- SolverTest.cpp - the fast remat solver and Chen's baseline ---------===//

#include "tad/Remat/Solver.h"
#include "tad/Remat/Exact.h"

#include "gtest/gtest.h"

#include <functional>
#include <tuple>

#include "ScheduleChecks.h"

using namespace tad::remat;
using namespace tad::remat::testing;

namespace {

TEST(SolverTest, StoreAllWhenItFits) {
  Graph g = gradientChain(6);
  ScheduleStats all = simulate(g, storeAllSchedule(g));
  std::vector<Event> schedule;
  SolveInfo info;
  ASSERT_TRUE(solveSchedule(g, all.peak, schedule, &info));
  EXPECT_EQ(info.winner, "store-all");
  EXPECT_DOUBLE_EQ(checked(g, schedule, all.peak).cost, all.cost);
}

TEST(SolverTest, BelowTheComputeFootprintFails) {
  Graph g = gradientChain(6);
  std::vector<Event> schedule;
  EXPECT_EQ(lowerBound(g), 30); // b_i reads f_i and b_(i+1)
  EXPECT_FALSE(solveSchedule(g, 29, schedule));
  EXPECT_GE(solverMinimumBudget(g), lowerBound(g));
  EXPECT_TRUE(solveSchedule(g, solverMinimumBudget(g), schedule));
}

// On random joint graphs the portfolio's schedules are valid and within the
// budget, cost no less than the exact optimum and no more than DTR.
TEST(SolverTest, BetweenExactAndDtr) {
  std::mt19937 rng(11);
  int solved = 0, optimal = 0;
  for (int trial = 0; trial < 25; ++trial) {
    Graph g = randomJointGraph(7, rng);
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    int64_t minimum = exactMinimumBudget(g);
    ASSERT_GT(minimum, 0);
    for (double fraction : {0.5, 0.7, 0.9}) {
      int64_t budget = std::max(minimum, int64_t(fraction * double(peak)));
      std::vector<Event> exact, fast, dtr;
      ASSERT_EQ(exactSchedule(g, budget, exact), ExactResult::optimal);
      double best = simulate(g, exact).cost;
      if (!solveSchedule(g, budget, fast)) {
        EXPECT_FALSE(dtrSchedule(g, budget, dtr));
        continue;
      }
      ++solved;
      double cost = checked(g, fast, budget).cost;
      EXPECT_GE(cost, best - 1e-9);
      optimal += cost <= best + 1e-9;
      if (dtrSchedule(g, budget, dtr)) {
        EXPECT_LE(cost, simulate(g, dtr).cost + 1e-9);
      }
    }
  }
  EXPECT_GT(solved, 60);
  EXPECT_GT(optimal, solved / 2);
}

// Every lookahead variant, depth-first ones included, returns valid
// schedules within the budget. Depth first fits where breadth first does
// not: on this joint graph at its exact minimum, recomputing the last
// stage's missing inputs one at a time (freeing what the first needed
// before the second) is the only way in.
TEST(SolverTest, LookaheadVariants) {
  std::mt19937 rng(23);
  int depthFirstSolved = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Graph g = randomJointGraph(trial % 2 ? 8 : 30, rng);
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    for (double fraction : {0.5, 0.7, 0.9}) {
      int64_t budget =
          std::max(lowerBound(g), int64_t(fraction * double(peak)));
      for (int variant = 0; variant < kLookaheadVariants; ++variant) {
        LookaheadOptions options = lookaheadVariant(variant);
        std::vector<Event> schedule;
        if (!lookaheadSchedule(g, budget, options, schedule))
          continue;
        checked(g, schedule, budget);
        depthFirstSolved += options.depthFirst;
      }
    }
  }
  EXPECT_GT(depthFirstSolved, 100);
}

// A 16-node joint graph of bench/remat/gaps.py (seed 0, graph 63) at its
// exact minimum budget, 544 bytes. The last stage, g0, misses g3 and g5,
// whose recomputations share f1 .. f4. The optimum (cost 156) recomputes
// f1, f2 and g3, frees f2, then f3, f1 again, f4 and g5: only depth-first
// recomputation expresses that. Recomputing every missing input of g0 and
// holding them all until g0 costs more, in every breadth-first variant.
TEST(SolverTest, DepthFirstRecomputation) {
  // (id, cost, bytes) in order, and the edges (input, user).
  const std::tuple<const char *, double, int64_t> nodes[] = {
      {"f0", 9, 112}, {"f1", 2, 48},  {"f2", 7, 32},  {"f3", 10, 32},
      {"f4", 9, 48},  {"f5", 8, 48},  {"f6", 7, 80},  {"f7", 9, 64},
      {"g7", 7, 48},  {"g6", 9, 48},  {"g5", 1, 80},  {"g4", 10, 128},
      {"g3", 9, 112}, {"g2", 4, 128}, {"g1", 4, 112}, {"g0", 2, 32}};
  const std::pair<int, int> edges[] = {
      {0, 1},   {1, 2},  {0, 3},   {2, 3},   {1, 4},   {3, 4},  {0, 5},
      {4, 5},   {3, 6},  {5, 6},   {6, 7},   {7, 8},   {8, 9},  {3, 9},
      {5, 9},   {9, 10}, {0, 10},  {4, 10},  {10, 11}, {1, 11}, {3, 11},
      {11, 12}, {9, 12}, {0, 12},  {2, 12},  {12, 13}, {1, 13}, {13, 14},
      {11, 14}, {0, 14}, {14, 15}, {12, 15}, {10, 15}, {0, 15}};
  Graph g;
  for (auto [id, cost, bytes] : nodes)
    g.nodes.push_back({id, cost, bytes, {}, {}});
  for (auto [input, user] : edges)
    g.addEdge(input, user);
  const int64_t budget = 544;
  std::vector<Event> exact, schedule;
  ASSERT_EQ(exactSchedule(g, budget, exact), ExactResult::optimal);
  EXPECT_DOUBLE_EQ(simulate(g, exact).cost, 156);
  double breadthFirst = 1e300, depthFirst = 1e300;
  for (int variant = 0; variant < kLookaheadVariants; ++variant) {
    LookaheadOptions options = lookaheadVariant(variant);
    if (!lookaheadSchedule(g, budget, options, schedule))
      continue;
    tightenSchedule(g, budget, schedule);
    double cost = checked(g, schedule, budget).cost;
    double &best = options.depthFirst ? depthFirst : breadthFirst;
    best = std::min(best, cost);
  }
  EXPECT_GT(breadthFirst, 156);
  EXPECT_DOUBLE_EQ(depthFirst, 156);
  ASSERT_TRUE(solveSchedule(g, budget, schedule));
  EXPECT_DOUBLE_EQ(checked(g, schedule, budget).cost, 156);
}

// Neutral weights leave lookahead eviction unchanged, and the portfolio
// (perturbed and guided runs included) gives the same answer every time.
TEST(SolverTest, WeightsAndDeterminism) {
  std::mt19937 rng(5);
  Graph g = randomJointGraph(40, rng);
  int64_t peak = simulate(g, storeAllSchedule(g)).peak;
  int64_t budget = int64_t(0.6 * double(peak));
  std::vector<double> ones(g.size(), 1.0);
  std::vector<Event> plain, weighted, first, second;
  LookaheadOptions options;
  bool ok = lookaheadSchedule(g, budget, options, plain);
  options.weights = &ones;
  EXPECT_EQ(lookaheadSchedule(g, budget, options, weighted), ok);
  EXPECT_EQ(plain, weighted);
  ASSERT_TRUE(solveSchedule(g, budget, first));
  ASSERT_TRUE(solveSchedule(g, budget, second));
  EXPECT_EQ(first, second);
  checked(g, first, budget);
}

// Tightening keeps a schedule valid and within its budget and never raises
// its cost; on DTR's schedules it removes recomputations.
TEST(SolverTest, TighteningOnlyImproves) {
  EXPECT_GT(improveDtrSchedules(5, 20, 40, 0.6, false,
                                [](const Graph &g, int64_t budget,
                                   std::vector<Event> &schedule) {
                                  tightenSchedule(g, budget, schedule);
                                }),
            0);
}

// Keeping A (cost 5) across F instead of recomputing it overflows the
// budget at F, so tightening cannot; recomputing B (cost 1), resident and
// unread at F, makes the room: the exchange.
TEST(SolverTest, ExchangeTradesADearRecomputationForACheapOne) {
  // A, B; C reads both; F is large; D reads A, E reads B.
  Graph g;
  for (auto [id, cost, bytes] :
       {std::tuple<const char *, double, int64_t>{"A", 5, 10},
        {"B", 1, 10},
        {"C", 1, 1},
        {"F", 1, 30},
        {"D", 1, 1},
        {"E", 1, 1}})
    g.nodes.push_back({id, cost, bytes, {}, {}});
  for (auto [input, user] : {std::pair<int, int>{0, 2}, {1, 2}, {0, 4}, {1, 5}})
    g.addEdge(input, user);
  const int64_t budget = 45;
  auto compute = [](int v) { return Event{Event::compute, v}; };
  auto free = [](int v) { return Event{Event::free, v}; };
  std::vector<Event> schedule = {compute(0), compute(1), compute(2), free(2),
                                 free(0),    compute(3), free(3),    compute(0),
                                 compute(4), free(4),    free(0),    compute(5),
                                 free(5),    free(1)};
  EXPECT_DOUBLE_EQ(checked(g, schedule, budget).cost, 15);
  std::vector<Event> tightened = schedule;
  tightenSchedule(g, budget, tightened);
  EXPECT_DOUBLE_EQ(checked(g, tightened, budget).cost, 15);
  exchangeSchedule(g, budget, schedule, int64_t(1) << 20);
  EXPECT_DOUBLE_EQ(checked(g, schedule, budget).cost, 11);
  // Without work, no exchange.
  exchangeSchedule(g, budget, tightened, 0);
  EXPECT_DOUBLE_EQ(checked(g, tightened, budget).cost, 15);
}

// Exchanges keep a schedule valid and within its budget and never raise
// its cost; on DTR's schedules they improve on tightening.
TEST(SolverTest, ExchangesOnlyImprove) {
  EXPECT_GT(improveDtrSchedules(7, 20, 30, 0.6, true,
                                [](const Graph &g, int64_t budget,
                                   std::vector<Event> &schedule) {
                                  exchangeSchedule(g, budget, schedule,
                                                   int64_t(1) << 20);
                                }),
            0);
}

// Chen's schedule holds about sqrt(n) checkpoints and one segment: on the
// gradient of a 100-chain of equal nodes it peaks far below store-all and
// recomputes each forward node at most once.
TEST(SolverTest, ChenOnAChain) {
  Graph g = gradientChain(100);
  ScheduleStats all = simulate(g, storeAllSchedule(g));
  ScheduleStats chen = simulate(g, chenSchedule(g));
  ASSERT_TRUE(chen.valid) << chen.error;
  EXPECT_LT(chen.peak, all.peak / 3);
  EXPECT_LE(chen.cost, all.cost + 100);
  // The fast solver at Chen's peak costs no more than Chen.
  std::vector<Event> schedule;
  ASSERT_TRUE(solveSchedule(g, chen.peak, schedule));
  EXPECT_LE(checked(g, schedule, chen.peak).cost, chen.cost);
}

// Transient bytes count only while their node is computed, and a node that
// is not recomputable is computed once by every solver, or not at all.
TEST(SolverTest, TransientBytesAndEffects) {
  Graph g = gradientChain(6);
  g.nodes[2].transient = 25; // f2
  ScheduleStats all = simulate(g, storeAllSchedule(g));
  EXPECT_EQ(all.peak, 70);      // b5 with f0..f5, or f2's 25 over f0, f1, f2
  EXPECT_EQ(lowerBound(g), 45); // f1, f2 and 25 transient bytes
  std::vector<Event> twice = {
      {Event::compute, 0}, {Event::free, 0}, {Event::compute, 0}};
  EXPECT_EQ(simulate(g, twice).error, "node f1 is never computed");
  g.nodes[0].recomputable = false;
  EXPECT_EQ(simulate(g, twice).error,
            "event 2 recomputes f0, which must be computed once");
  for (int64_t budget : {70, 65}) {
    std::vector<Event> fast, exact, dtr;
    ASSERT_EQ(exactSchedule(g, budget, exact), ExactResult::optimal);
    checked(g, exact, budget);
    ASSERT_TRUE(solveSchedule(g, budget, fast)) << budget;
    checked(g, fast, budget);
    if (dtrSchedule(g, budget, dtr))
      checked(g, dtr, budget);
    for (const std::vector<Event> *s : {&fast, &exact})
      EXPECT_EQ(std::count(s->begin(), s->end(), Event{Event::compute, 0}), 1);
  }
}

// Large graphs at tight budgets: the solver returns valid schedules (its
// speed is measured by bench/remat/solvers.py, not here).
TEST(SolverTest, LargeGraphs) {
  std::mt19937 rng(2);
  for (Graph g : {randomJointGraph(500, rng), randomGraph(1000, rng)}) {
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    for (double fraction : {0.8, 0.5}) {
      int64_t budget =
          std::max(lowerBound(g), int64_t(fraction * double(peak)));
      std::vector<Event> schedule;
      ASSERT_TRUE(solveSchedule(g, budget, schedule)) << fraction;
      checked(g, schedule, budget);
    }
  }
}

// The eviction queue (LookaheadOptions::queue) gives valid schedules
// within the budget in every variant, perturbed ones included, and finds
// them about as often as the scan of every resident value.
TEST(SolverTest, LookaheadQueue) {
  std::mt19937 rng(29);
  int solved[2] = {0, 0};
  for (int trial = 0; trial < 12; ++trial) {
    Graph g = randomJointGraph(trial % 2 ? 30 : 120, rng);
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    for (double fraction : {0.5, 0.7, 0.9}) {
      int64_t budget =
          std::max(lowerBound(g), int64_t(fraction * double(peak)));
      for (int variant = 0; variant < kLookaheadVariants; ++variant)
        for (bool queue : {false, true}) {
          LookaheadOptions options = lookaheadVariant(variant);
          options.queue = queue;
          options.seed = variant % 3 ? 0 : 7;
          std::vector<Event> schedule;
          if (!lookaheadSchedule(g, budget, options, schedule))
            continue;
          checked(g, schedule, budget);
          ++solved[queue];
        }
    }
  }
  EXPECT_GT(solved[0], 100);
  EXPECT_GT(solved[1], solved[0] * 9 / 10);
}

// Past SolverLimits::queueNodes, every run stops at maxRecompute times the
// store-all cost. At 1 no run may recompute anything, and below its
// store-all peak a joint graph needs recomputation: no schedule.
TEST(SolverTest, RecomputeLimitOnLargeGraphs) {
  std::mt19937 rng(31);
  Graph g = randomJointGraph(60, rng);
  int64_t peak = simulate(g, storeAllSchedule(g)).peak;
  int64_t budget = std::max(lowerBound(g), int64_t(0.8 * double(peak)));
  SolverLimits limits;
  limits.queueNodes = 0;
  std::vector<Event> schedule;
  ASSERT_TRUE(solveSchedule(g, budget, schedule, nullptr, limits));
  checked(g, schedule, budget);
  limits.maxRecompute = 1;
  EXPECT_FALSE(solveSchedule(g, budget, schedule, nullptr, limits));
}

// The bisection for the smallest budget stops each probe at the first
// schedule that fits; its answer is the one of probes by the whole
// portfolio.
TEST(SolverTest, MinimumBudgetProbes) {
  std::mt19937 rng(37);
  for (int trial = 0; trial < 3; ++trial) {
    Graph g = randomJointGraph(24, rng);
    int64_t peak = simulate(g, storeAllSchedule(g)).peak;
    std::vector<Event> schedule;
    int64_t reference =
        smallestFittingBudget(lowerBound(g), peak, [&](int64_t budget) {
          return solveSchedule(g, budget, schedule);
        });
    EXPECT_EQ(solverMinimumBudget(g), reference);
  }
}

// Coming from above finds the same answer as a bisection under a monotone
// feasibility, to within the slack, and tries fewer budgets when the
// answer is near the top.
TEST(SolverTest, SmallestBudgetFromAbove) {
  for (int64_t answer : {0, 1, 700, 4979, 4990, 4991, 5000}) {
    int probes = 0;
    auto fits = [&](int64_t budget) {
      ++probes;
      EXPECT_GE(budget, 0);
      EXPECT_LE(budget, 5000);
      return budget >= answer;
    };
    int64_t exact = smallestFittingBudgetFromAbove(0, 5000, fits, 0);
    EXPECT_EQ(exact, answer);
    probes = 0;
    int64_t coarse = smallestFittingBudgetFromAbove(0, 5000, fits, 10);
    EXPECT_GE(coarse, answer);
    EXPECT_LE(coarse, answer + 10);
    if (answer >= 4970) {
      EXPECT_LE(probes, 3) << "answer " << answer;
    }
  }
  // Nothing below `high` fits: `high`, which the caller knows fits.
  EXPECT_EQ(smallestFittingBudgetFromAbove(
                10, 20, [](int64_t) { return false; }, 3),
            20);
}

// Coming from below, where `low` does not fit, finds the same answer to
// within the slack, and tries few budgets when the answer is just above
// `low`.
TEST(SolverTest, SmallestBudgetFromBelow) {
  for (int64_t answer : {1, 21, 700, 4999, 5000}) {
    int probes = 0;
    auto fits = [&](int64_t budget) {
      ++probes;
      EXPECT_GT(budget, 0);
      EXPECT_LE(budget, 5000);
      return budget >= answer;
    };
    EXPECT_EQ(smallestFittingBudgetFromBelow(0, 5000, fits, 0), answer);
    probes = 0;
    int64_t coarse = smallestFittingBudgetFromBelow(0, 5000, fits, 10);
    EXPECT_GE(coarse, answer);
    EXPECT_LE(coarse, answer + 10);
    if (answer <= 21) {
      EXPECT_LE(probes, 3) << "answer " << answer;
    }
  }
  // Nothing below `high` fits: `high`, which the caller knows fits.
  EXPECT_EQ(smallestFittingBudgetFromBelow(
                10, 20, [](int64_t) { return false; }, 3),
            20);
}

} // namespace

/// A dense layered joint graph like bench/remat/layered_graph.py's: a chain
/// of `layers` forward nodes in which each earlier layer feeds a later one
/// with probability `skip`, then one adjoint per forward node that reads
/// the adjoints of the node's users and the node's own inputs.
static Graph denseLayeredGraph(int layers, double skip, std::mt19937 &rng) {
  std::uniform_int_distribution<int> cost(1, 10), size(1, 8);
  std::bernoulli_distribution edge(skip);
  Graph g;
  auto add = [&](const std::string &name) {
    Node node;
    node.name = name;
    node.cost = cost(rng);
    node.bytes = 16 * size(rng);
    g.nodes.push_back(node);
    return g.size() - 1;
  };
  std::vector<std::vector<int>> inputs(layers), users(layers);
  for (int v = 0; v < layers; ++v) {
    add("f" + std::to_string(v));
    for (int u = 0; u < v; ++u)
      if (u == v - 1 || edge(rng)) {
        inputs[v].push_back(u);
        users[u].push_back(v);
        g.addEdge(u, v);
      }
  }
  std::vector<int> adjoint(layers);
  for (int v = layers - 1; v >= 0; --v) {
    adjoint[v] = add("g" + std::to_string(v));
    if (v == layers - 1)
      g.addEdge(v, adjoint[v]);
    for (int w : users[v])
      g.addEdge(adjoint[w], adjoint[v]);
    for (int u : inputs[v])
      g.addEdge(u, adjoint[v]);
  }
  return g;
}

// A large dense graph runs the lead lookahead variants with a bounded
// walk, and stops when they fail: its schedules fit, and the search for
// its smallest budget starts above a budget that failed.
TEST(SolverTest, DenseGraphs) {
  std::mt19937 rng(41);
  Graph g = denseLayeredGraph(160, 0.15, rng);
  SolverLimits limits;
  limits.queueNodes = 0;
  ScheduleStats storeAll = simulate(g, storeAllSchedule(g));
  int64_t edges = 0;
  for (const Node &node : g.nodes)
    edges += int64_t(node.inputs.size());
  ASSERT_GT(double(edges), limits.denseInputs * g.size());
  std::vector<Event> schedule;
  int64_t budget = int64_t(0.97 * double(storeAll.peak));
  ASSERT_TRUE(solveSchedule(g, budget, schedule, nullptr, limits));
  checked(g, schedule, budget);
  int64_t failed = lowerBound(g) + 1;
  ASSERT_FALSE(solveSchedule(g, failed, schedule, nullptr, limits));
  int64_t minimum = solverMinimumBudget(g, limits, failed);
  EXPECT_GT(minimum, failed);
  ASSERT_TRUE(solveSchedule(g, minimum, schedule, nullptr, limits));
  checked(g, schedule, minimum);
  // A lead variant whose walk stops at the value itself (its own cost and
  // its missing inputs') still fits a budget with room.
  LookaheadOptions options = lookaheadVariant(2);
  options.queue = true;
  options.walkLimit = 1;
  ASSERT_TRUE(lookaheadSchedule(g, budget, options, schedule));
  checked(g, schedule, budget);
}

/// Checks a limit on thrashing runs on a dense graph at 0.97 of its
/// store-all peak, where a run fits after recomputing: `strict` stops that
/// run and not one at the peak, which recomputes nothing, and `loose`
/// leaves it unchanged.
static void checkThrashLimit(
    const std::function<void(LookaheadOptions &, double storeAllCost)> &strict,
    const std::function<void(LookaheadOptions &, double storeAllCost)> &loose) {
  std::mt19937 rng(41);
  Graph g = denseLayeredGraph(160, 0.15, rng);
  ScheduleStats storeAll = simulate(g, storeAllSchedule(g));
  int64_t budget = int64_t(0.97 * double(storeAll.peak));
  LookaheadOptions options = lookaheadVariant(2);
  options.queue = true;
  std::vector<Event> unlimited, limited;
  ASSERT_TRUE(lookaheadSchedule(g, budget, options, unlimited));
  ASSERT_GT(simulate(g, unlimited).cost, storeAll.cost);
  LookaheadOptions stopped = options;
  strict(stopped, storeAll.cost);
  EXPECT_FALSE(lookaheadSchedule(g, budget, stopped, limited));
  ASSERT_TRUE(lookaheadSchedule(g, storeAll.peak, stopped, limited));
  EXPECT_EQ(simulate(g, limited).cost, storeAll.cost);
  loose(options, storeAll.cost);
  ASSERT_TRUE(lookaheadSchedule(g, budget, options, limited));
  EXPECT_EQ(simulate(g, limited).cost, simulate(g, unlimited).cost);
}

// A run stops once its cost passes thrashRatio times the store-all cost of
// the stages it has reached (plus the slack): at a ratio of 1 without
// slack, the first recompute stops it, and a budget with room for every
// value needs none. The default ratio leaves a run that fits unchanged.
TEST(SolverTest, ThrashingRunsStop) {
  checkThrashLimit(
      [](LookaheadOptions &options, double) { options.thrashRatio = 1; },
      [](LookaheadOptions &options, double storeAllCost) {
        options.thrashRatio = SolverLimits().thrashRecompute;
        options.thrashSlack = 0.02 * storeAllCost;
      });
}

// The same over a window of stages: at a ratio of 1 the first recompute
// after the first window stops a run, and the default ratio leaves a run
// that fits unchanged.
TEST(SolverTest, ThrashingWindowsStop) {
  checkThrashLimit(
      [](LookaheadOptions &options, double) {
        options.windowRatio = 1;
        options.thrashWindow = 4;
      },
      [](LookaheadOptions &options, double) {
        options.windowRatio = SolverLimits().windowRecompute;
      });
}

// A scan that defers the walks of values whose lower bound loses
// (LookaheadOptions::deferScores) chooses as one that scores every value:
// the same schedule, event for event, with either walk, every variant and
// budgets from far below the store-all peak to near it, on dense and
// sparse graphs.
TEST(SolverTest, DeferredScoresChooseAsEveryScore) {
  std::mt19937 rng(52);
  std::vector<Graph> graphs = {denseLayeredGraph(120, 0.15, rng),
                               randomJointGraph(40, rng),
                               randomJointGraph(150, rng)};
  int failed = 0, recomputed = 0;
  for (const Graph &g : graphs) {
    ScheduleStats storeAll = simulate(g, storeAllSchedule(g));
    for (double fraction : {0.4, 0.55, 0.7, 0.85, 0.95})
      for (int64_t walk : {int64_t(16), std::numeric_limits<int64_t>::max()})
        for (int variant = 0; variant < 16; ++variant) {
          int64_t budget = int64_t(fraction * double(storeAll.peak));
          LookaheadOptions options = lookaheadVariant(variant);
          options.queue = false;
          options.walkLimit = walk;
          options.costLimit = 40 * storeAll.cost;
          std::vector<Event> deferred, every;
          bool fits = lookaheadSchedule(g, budget, options, deferred);
          options.deferScores = false;
          ASSERT_EQ(lookaheadSchedule(g, budget, options, every), fits)
              << "variant " << variant << " at " << fraction;
          if (!fits) {
            ++failed;
            continue;
          }
          EXPECT_TRUE(deferred == every)
              << "variant " << variant << " at " << fraction;
          recomputed += simulate(g, every).cost > storeAll.cost;
        }
  }
  // The schedules compared recompute, and some budgets fit no run.
  EXPECT_GT(recomputed, 100);
  EXPECT_GT(failed, 0);
}
