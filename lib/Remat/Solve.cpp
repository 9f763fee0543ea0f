//===- Solve.cpp - the portfolio solver and Chen's baseline ---------------===//
//
// No single eviction score wins on every graph and budget (bench/remat
// measures them), and each run takes a few milliseconds at 1000 nodes, so
// the solver runs them all, tightens each result, and keeps the cheapest.
//
//===----------------------------------------------------------------------===//

#include "BudgetSearch.h"
#include "ComputeSequence.h"
#include "FlatGraph.h"
#include "tad/Remat/Chain.h"
#include "tad/Remat/Exact.h"
#include "tad/Remat/Solver.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <thread>
#include <utility>

using namespace tad::remat;

// Perturbed and guided runs: at most these many, and at most kRunNodes / n
// for a graph of n nodes.
static constexpr int kRunNodes = 2048;
static constexpr int kMaxRandomRuns = 64;
static constexpr int kMaxGuidedRuns = 16;
// Weight-search runs: at most kMaxSearchRuns, and kSearchWork / n^2 (a
// run's time grows about as n^2): none from 1025 nodes on.
static constexpr int kMaxSearchRuns = 512;
static constexpr int64_t kSearchWork = int64_t(1) << 20;
// The weight search restarts from its best point after this many steps.
static constexpr int kWalkSteps = 128;
// The exchange search (Exchange.cpp) stops after checking this many
// compute events.
static constexpr int64_t kExchangeWork = int64_t(1) << 20;
static constexpr int64_t kExchangeNodeWork = int64_t(1) << 27;
// The window search (Window.cpp) stops after this much work (a window's
// node count squared per state expanded), and after kWindowNodeWork / n
// for a graph of n nodes, so that large graphs stay fast. A graph of at
// most kMaxWindowNodes nodes, whose last window is an exact search of the
// whole sequence, gets min(kSmallGraphWindowWork, kSmallGraphWindowNodeWork
// / n) instead, four times as much at 30 nodes: up to about 0.45 s at 30
// to 50 nodes (docs/remat-solver.md), spent only where the schedule has room
// for improvement or its proof is hard.
static constexpr int64_t kWindowWork = int64_t(1) << 25;
static constexpr int64_t kWindowNodeWork = int64_t(1) << 30;
static constexpr int64_t kSmallGraphWindowWork = int64_t(1) << 27;
static constexpr int64_t kSmallGraphWindowNodeWork = int64_t(1) << 32;
// The exchange search starts from this many of the cheapest schedules.
static constexpr int kExchangeStarts = 8;
// The lookahead variants (lookaheadVariant) that a solve runs first: every
// breadth-first one and the depth-first ones of the score that wins most
// often. Large graphs (SolverLimits::queueNodes) leave out of these the
// variants that keep ancestors (perturbed runs still draw from all): on the
// large graphs measured (dense and random joint graphs, the transformer's;
// bench/remat/variants.py) none of them was ever the cheapest or fit a smaller
// budget, and they take up to 20 times as long as the others. Large dense
// graphs (SolverLimits::denseInputs) run first the kLeadVariants that fit the
// smallest budgets there, rc/b and rc/(b*d), and stop when both fail. (On
// sparse graphs, such as the random joint graphs, the other runs do fit where
// those two fail.)
static constexpr int kVariants[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12};
static constexpr int kLargeGraphVariants[] = {0, 1, 2, 3, 8};
static constexpr int kDenseGraphVariants[] = {2, 0, 8, 1, 3};
static constexpr int kLeadVariants = 2;
/// A lookahead variant run again on a large graph, other than as the
/// portfolio's runs go there: the last resort's, and the scanning reruns.
struct Rerun {
  int variant;
  /// Scanning (scanInstead), and if so, whether its walk for a recompute
  /// cost is unbounded (it is bounded on dense graphs: recomputeWalk).
  bool scan, unboundedWalk;
  /// Only on graphs of at most kFullLastResortEdges.
  bool smallGraphsOnly;
};
// The last resort of a large graph, where no run fits: rc/b depth first,
// choosing as a scan of every resident value at each eviction does on
// smaller graphs (a queued score that lags behind a fallen recompute cost
// can miss the order that fits; the runs evict best first, scanInstead),
// with the walk for a recompute cost bounded and unbounded; on graphs of
// at most kFullLastResortEdges also rc/b depth first keeping ancestors,
// scanning with the unbounded walk, and rc/b depth first from the queue.
// The runs go in this order, two at a time with two threads. On 60 dense
// graphs with sizes in kilobytes to megabytes and adjoints about half
// their values' size (issue 52), at 0.5, 0.45 and 0.4 of their store-all
// peak, these fit 23 of 180 budgets that the other runs do not on 602
// nodes, and 55 on 1,002 nodes (bench/remat/last_resort.py [--nodes
// 1002]; docs/remat-solver.md, "The last resort"). The rc/b pair fits
// most of them; the other two add budgets on the 602-node graphs, and
// none on the 1,002-node ones, whose refusals they would only slow.
static constexpr Rerun kLastResort[] = {{10, true, false, false},
                                        {14, true, true, true},
                                        {10, true, true, false},
                                        {10, false, false, true}};
// Where a run fits a large graph, rc/(b*d) breadth and depth first run
// again at the end of the solve, scanning with the unbounded walk, and
// exchanges start from what they find: the eviction queue and the
// bounded walk only approximate the scan's choices, and on dense graphs
// with sizes in kilobytes to megabytes (issue 52; bench/remat/scale.py
// --weights loguniform) the schedules the queue led to cost more at 0.8
// of the store-all peak of 2,402 nodes and at 0.95 of 10,002 nodes than
// the solver's before it had the queue (the tree at 755c36e). rc/(b*d) is
// the score whose runs won on those graphs. They run after the exchanges of
// the other runs, so that everything before them finds what it found
// without them.
static constexpr Rerun kScanningReruns[] = {{0, true, true, false},
                                            {8, true, true, false}};
// The most values a scanning run looks at, whatever the edges: a budget
// that nothing fits is refused that much later where the last resort
// runs.
static constexpr int64_t kMaxScanLooks = int64_t(1) << 23;
// The largest graphs, in edges, whose last resort runs all of
// kLastResort. The runs kept to such graphs fitted budgets of the 602-node
// graphs of bench/remat/last_resort.py (about 8,600 edges) that the rc/b
// pair did not, and none of its 1,002-node graphs' (about 23,000), where
// they would make each refusal that waits for the last resort about 0.06 s
// slower; scale.py's 1,002-node graph (20,528 edges) is refused at 0.8 of
// its peak in 0.06 to 0.07 s (`tad-remat --time --verbose`).
static constexpr int64_t kFullLastResortEdges = 16384;
// The largest graphs that get the last resort. On bench/remat/scale.py's
// 2,002- and 5,002-node graphs it fitted nothing at 0.5, 0.8 and 0.95 of
// their peak (with this limit raised).
static constexpr int kMaxLastResortNodes = 1024;
// The last resort runs only at budgets of at least this share of the
// smallest budget that the runs before it fit (searchMinimumBudget's), on
// graphs of at most kFullLastResortEdges and above them: on the budgets
// of 0.4, 0.45 and 0.5 of the store-all peak of 60 dense graphs that
// those runs did not fit, it fitted budgets at 0.757 to 0.947 of that
// budget on 602 nodes (none of the 38 below 0.75), and at 0.649 to 0.861
// on 1,002 nodes (`bench/remat/last_resort.py --fractions 0.5,0.45,0.4
// [--nodes 1002]`). Far below it, a refusal does not wait for it (on
// scale.py's 502-node graph at half its peak, 0.63 of that budget, 0.09 s
// instead of 0.01 s with the share of the larger graphs).
static constexpr double kLastResortShare = 0.75;
static constexpr double kLargeGraphLastResortShare = 0.6;
// How much less likely a guided run evicts the node it protects.
static constexpr double kProtectWeight = 16;

void SolveInfo::addPhase(llvm::StringRef name, double seconds) {
  auto it =
      llvm::find_if(phases, [&](const Phase &p) { return p.name == name; });
  if (it == phases.end())
    it = phases.insert(phases.end(), Phase{name.str(), 0, 0});
  it->seconds += seconds;
  ++it->runs;
}

namespace {
/// Adds the wall time of its scope to a phase of `info`, when there is one.
class PhaseTimer {
public:
  PhaseTimer(SolveInfo *info, const char *name)
      : info(info), name(name), start(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    if (info)
      info->addPhase(name, std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start)
                               .count());
  }

private:
  SolveInfo *info;
  const char *name;
  std::chrono::steady_clock::time_point start;
};
} // namespace

int64_t tad::remat::lowerBound(const Graph &graph) {
  int64_t footprint = 0;
  for (int v = 0; v < graph.size(); ++v)
    footprint = std::max(footprint, graph.getComputeFootprint(v));
  return footprint;
}

namespace {

/// The cheapest valid schedule seen so far.
struct Best {
  const Graph &graph;
  int64_t budget;
  std::vector<Event> schedule;
  std::string name;
  double cost = 1e300;
  int attempts = 0, feasible = 0;
  /// Whether offered schedules are tightened (not where only whether one
  /// fits matters).
  bool tighten = true;
  /// The kExchangeStarts cheapest distinct schedules, cheapest first: the
  /// exchange search starts from each.
  struct Start {
    double cost;
    std::vector<Event> schedule;
    std::string name;
  };
  std::vector<Start> top;

  void keepTop(double c, const std::vector<Event> &candidate,
               const std::string &by) {
    if (int(top.size()) == kExchangeStarts && c >= top.back().cost)
      return;
    for (const Start &other : top)
      if (other.cost == c && other.schedule == candidate)
        return;
    auto at = std::find_if(top.begin(), top.end(),
                           [&](const Start &other) { return other.cost > c; });
    top.insert(at, {c, candidate, by});
    if (int(top.size()) > kExchangeStarts)
      top.pop_back();
  }

  /// Tightens and keeps `candidate` when it is cheaper than the best.
  /// Returns its cost after tightening, or infinity if it failed or costs
  /// more than `maxCost` then.
  double offer(bool ok, std::vector<Event> &candidate, const std::string &by,
               double maxCost = std::numeric_limits<double>::infinity()) {
    ++attempts;
    if (!ok)
      return 1e300;
    if (tighten)
      tightenSchedule(graph, budget, candidate);
    ScheduleStats stats = simulate(graph, candidate);
    if (!stats.valid || stats.peak > budget)
      return 1e300; // never expected; the caller gets only checked schedules
    if (stats.cost > maxCost)
      return 1e300;
    ++feasible;
    keepTop(stats.cost, candidate, by);
    if (stats.cost < cost) {
      cost = stats.cost;
      schedule = std::move(candidate);
      name = by;
    }
    return stats.cost;
  }
};

/// The nodes `schedule` computes more than once.
std::vector<int> recomputedNodes(const Graph &graph,
                                 const std::vector<Event> &schedule) {
  std::vector<int> computes(graph.size(), 0), out;
  for (const Event &e : schedule)
    computes[e.node] += e.kind == Event::compute;
  for (int v = 0; v < graph.size(); ++v)
    if (computes[v] > 1)
      out.push_back(v);
  return out;
}

/// The eviction scores misjudge a few values: the best schedule's most
/// expensive recomputations show which. Reruns the best variant with each
/// of them in turn weighted against eviction, most recompute cost first,
/// and keeps each weight that lowers the cost: a hill climb over the
/// weights, `runs` runs at most. `run` returns whether a run improved.
/// Returns the weights kept.
std::vector<double>
guidedRuns(const Graph &graph, const std::vector<Event> &schedule, int runs,
           const std::function<bool(const std::vector<double> &)> &run) {
  std::vector<int> computes(graph.size(), 0);
  for (const Event &e : schedule)
    computes[e.node] += e.kind == Event::compute;
  std::vector<int> recomputed = recomputedNodes(graph, schedule);
  auto waste = [&](int v) { return graph.nodes[v].cost * (computes[v] - 1); };
  std::stable_sort(recomputed.begin(), recomputed.end(),
                   [&](int a, int b) { return waste(a) > waste(b); });
  std::vector<double> weights(graph.size(), 1.0);
  for (int i = 0; i < runs && i < int(recomputed.size()); ++i) {
    weights[recomputed[i]] = kProtectWeight;
    if (!run(weights))
      weights[recomputed[i]] = 1.0;
  }
  return weights;
}

/// A random walk over the eviction weights, from those of the guided runs.
/// Each step changes the weights of one or two nodes by kProtectWeight: it
/// protects a node the best schedule recomputes, exposes one it keeps, or
/// moves a random node either way; a quarter of the steps also try another
/// lookahead variant. The walk moves to the step when the run costs no
/// more than the current point (equal costs move too, to cross plateaus),
/// and restarts from the best point every kWalkSteps steps. The guided
/// runs change one weight at a time and keep only strict gains, so they
/// miss exchanges: recompute two cheap values instead of two dear ones.
/// `run` returns a run's cost (or infinity); `best` is the best schedule,
/// which it updates. The steps come from a fixed seed, so the answer is
/// reproducible.
void weightSearch(
    const Graph &graph, const std::vector<Event> &best,
    std::vector<double> weights, int runs, int variant,
    const std::function<double(const std::vector<double> &, int)> &run) {
  uint64_t state = 0x2545f4914f6cdd1dull;
  auto next = [&]() { // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  // Without a schedule yet, any run that finds one is a step forward.
  double current = best.empty() ? 1e300 : simulate(graph, best).cost;
  std::vector<double> bestWeights = weights;
  double bestCost = current;
  int bestVariant = variant;
  for (int r = 0; r < runs; ++r) {
    if (r % kWalkSteps == 0) { // restart from the best point so far
      weights = bestWeights;
      current = bestCost;
      variant = bestVariant;
    }
    std::vector<double> trial = weights;
    std::vector<int> recomputed = recomputedNodes(graph, best), kept;
    {
      std::vector<char> again(graph.size(), 0);
      for (int v : recomputed)
        again[v] = 1;
      for (int v = 0; v < graph.size(); ++v)
        if (!again[v] && graph.nodes[v].recomputable &&
            !graph.nodes[v].users.empty())
          kept.push_back(v);
    }
    int changes = 1 + int(next() % 2);
    for (int c = 0; c < changes; ++c) {
      uint64_t kind = next() % 3;
      if (kind == 0 && !recomputed.empty()) {
        trial[recomputed[next() % recomputed.size()]] *= kProtectWeight;
      } else if (kind == 1 && !kept.empty()) {
        trial[kept[next() % kept.size()]] /= kProtectWeight;
      } else {
        int u = int(next() % uint64_t(graph.size()));
        trial[u] *= next() % 2 ? kProtectWeight : 1 / kProtectWeight;
      }
    }
    int v = next() % 4 == 0 ? int(next() % kLookaheadVariants) : variant;
    double cost = run(trial, v);
    if (cost <= current) {
      current = cost;
      weights = std::move(trial);
      variant = v;
      if (cost < bestCost) {
        bestCost = cost;
        bestWeights = weights;
        bestVariant = v;
      }
    }
  }
}

} // namespace

/// Whether the nodes of `graph` have more than limits.denseInputs inputs
/// on average.
/// The graph's edges: its nodes' inputs.
static int64_t edgeCount(const Graph &graph) {
  int64_t inputs = 0;
  for (const Node &node : graph.nodes)
    inputs += int64_t(node.inputs.size());
  return inputs;
}

static bool isDense(const Graph &graph, const SolverLimits &limits) {
  return double(edgeCount(graph)) > limits.denseInputs * double(graph.size());
}

LookaheadOptions tad::remat::fastLookaheadOptions(int variant,
                                                  const Graph &graph,
                                                  const SolverLimits &limits,
                                                  double storeAllCost) {
  LookaheadOptions options = lookaheadVariant(variant);
  if (graph.size() > limits.queueNodes) {
    options.queue = true;
    options.costLimit = limits.maxRecompute * storeAllCost;
    options.thrashRatio = limits.thrashRecompute;
    options.thrashSlack = 0.02 * storeAllCost;
    if (isDense(graph, limits)) {
      options.walkLimit = limits.recomputeWalk;
      options.windowRatio = limits.windowRecompute;
    }
  }
  return options;
}

/// The end of a solve: what `info` reports, and the best schedule.
static bool finish(Best &best, SolveInfo *info, bool optimal,
                   std::vector<Event> &out) {
  if (info) {
    info->attempts = best.attempts;
    info->feasible = best.feasible;
    info->winner = best.name;
    info->optimal = optimal;
  }
  if (best.feasible == 0)
    return false;
  out = std::move(best.schedule);
  return true;
}

namespace {
/// What each solve of a graph starts from, prepared once: the search for
/// the smallest budget solves the same graph at several budgets, and a
/// solve runs many lookahead runs on the same FlatGraph.
struct Prepared {
  Prepared(const Graph &graph, const SolverLimits &limits)
      : flat(graph), storeAll(storeAllSchedule(graph)),
        storeAllStats(simulate(graph, storeAll)), lower(lowerBound(graph)),
        large(graph.size() > limits.queueNodes),
        dense(large && isDense(graph, limits)), edges(edgeCount(graph)),
        twoAtOnce(large && limits.threads > 1) {}

  FlatGraph flat;
  std::vector<Event> storeAll;
  ScheduleStats storeAllStats;
  int64_t lower;
  // Large graphs: the eviction queue, and runs that stop at
  // limits.maxRecompute times the store-all cost.
  bool large, dense;
  int64_t edges;
  /// Whether runs and the least-budget search's budgets go two at a time
  /// (SolverLimits::threads): on large graphs only, where a run takes long
  /// enough to pay for a thread.
  bool twoAtOnce;
};

/// What a solve is for.
enum class Goal {
  /// The cheapest schedule it finds.
  cheapest,
  /// Whether any schedule fits, for the search for the smallest budget: it
  /// stops at the first schedule that fits (the runs up to it are the
  /// same, so it fits exactly where a solve for the cheapest does), and
  /// does not tighten it. On a large dense graph it runs the first lead
  /// variant only: that variant is the one that fits the smallest budgets
  /// there (docs/remat-solver.md), a budget it fits is one the whole
  /// solve fits, and failing runs are what the search spends its time on.
  anyFits,
};
} // namespace

/// A last resort's run (kLastResort) of a large graph: scanning every
/// resident value instead of the queue, within the scan limit. The runs
/// that fitted there passed the thrash limits (4 times their stages'
/// store-all cost), and one the cost limit that stops the other runs
/// (maxRecompute times the store-all cost) before tightening took its
/// schedule back to 4.1 times: the scan limit bounds them instead, and
/// the cost limit applies to the tightened schedule (PlannedRun::maxCost).
/// It evicts best first (LookaheadOptions::bestFirst): with the unbounded
/// walk that chooses as the scan does while walks stay within their depth
/// cap (test/Remat/best-first.test), in about half the time; with the
/// bounded walk, whose memo depends on the order of the walks, the choices
/// differ, and on the graphs of bench/remat/last_resort.py best first
/// fitted one budget more than the scan.
static void scanInstead(LookaheadOptions &options, const SolverLimits &limits,
                        int64_t edges, bool unboundedWalk) {
  options.queue = false;
  if (unboundedWalk)
    options.walkLimit = std::numeric_limits<int64_t>::max();
  options.thrashRatio = 0;
  options.windowRatio = 0;
  options.costLimit = std::numeric_limits<double>::infinity();
  options.scanLimit =
      std::min(kMaxScanLooks, int64_t(limits.scanLooksPerEdge * double(edges)));
  options.bestFirst = true;
}

namespace {
/// One lookahead run of the portfolio, planned: its variant
/// (lookaheadVariant), its options and the name of what it finds.
struct PlannedRun {
  int variant;
  LookaheadOptions options;
  std::string name;
  /// The most its schedule may cost once tightened: the cost limit of a
  /// run that has none while it runs (scanInstead).
  double maxCost = std::numeric_limits<double>::infinity();
};

/// The portfolio's lookahead runs on one graph at one budget, each
/// tightened and offered to `best` in the order asked. A run whose cost
/// passes twice the best so far will not win even after tightening, and
/// is stopped: that bounds the time spent on runs that thrash.
///
/// With a second thread (SolverLimits::threads), runs that do not depend
/// on each other's schedules go two at a time (runAll). The second of a
/// pair runs under the cost limit from before the first, and where its
/// cost passes the limit it would have had after the first, it is taken
/// to have failed: a run's cost only grows, so it would have been stopped
/// there, and under the limit it runs exactly as alone. The answers are
/// those of one thread, run for run.
class PortfolioRuns {
public:
  PortfolioRuns(const Graph &graph, const Prepared &prepared,
                const SolverLimits &limits, int64_t budget, Best &best,
                std::function<bool()> done)
      : graph(graph), prepared(prepared), limits(limits), budget(budget),
        best(best), done(std::move(done)) {}

  PlannedRun plan(int variant, uint64_t seed,
                  const std::vector<double> *weights, const char *how,
                  const Rerun *last = nullptr) const {
    // The names of the scores, in EvictionScore's order.
    static constexpr const char *scores[] = {"lookahead rc/(b*d)",
                                             "lookahead rc/(b*d^2)",
                                             "lookahead rc/b", "lookahead 1/d"};
    LookaheadOptions options = fastLookaheadOptions(
        variant, graph, limits, prepared.storeAllStats.cost);
    double maxCost = std::numeric_limits<double>::infinity();
    if (last && last->scan) {
      maxCost = options.costLimit;
      scanInstead(options, limits, prepared.edges, last->unboundedWalk);
    }
    options.seed = seed;
    options.weights = weights;
    std::string name = std::string(scores[variant % 4]) + how +
                       (options.keepAncestors ? ", keeping ancestors" : "") +
                       (options.depthFirst ? ", depth first" : "");
    return {variant, options, std::move(name), maxCost};
  }

  /// Runs `run` and offers it; returns its cost after tightening, or
  /// infinity if it failed.
  double run(PlannedRun run) {
    limitCost(run);
    bool fits = lookaheadSchedule(prepared.flat, budget, run.options, schedule);
    return offer(run, fits, schedule);
  }

  /// Runs each of `runs` in order while not done(), two at a time with a
  /// second thread.
  void runAll(std::vector<PlannedRun> runs) {
    for (size_t i = 0; i < runs.size() && !done(); ++i) {
      if (!prepared.twoAtOnce || i + 1 == runs.size()) {
        run(std::move(runs[i]));
        continue;
      }
      PlannedRun &first = runs[i], &second = runs[i + 1];
      limitCost(first);
      limitCost(second);
      std::vector<Event> secondSchedule;
      bool secondFits = false;
      std::thread side([&] {
        secondFits = lookaheadSchedule(prepared.flat, budget, second.options,
                                       secondSchedule);
      });
      bool firstFits =
          lookaheadSchedule(prepared.flat, budget, first.options, schedule);
      side.join();
      offer(first, firstFits, schedule);
      ++i;
      if (done())
        break; // alone, the second would not have run
      if (secondFits && computeCost(secondSchedule) > 2 * best.cost)
        secondFits = false;
      offer(second, secondFits, secondSchedule);
    }
  }

  /// The variant that found the best schedule so far: what guided runs and
  /// the weight search rerun.
  int bestVariant = 0;

private:
  void limitCost(PlannedRun &run) const {
    run.options.costLimit = std::min(2 * best.cost, run.options.costLimit);
  }

  double offer(const PlannedRun &run, bool fits, std::vector<Event> &found) {
    double before = best.cost;
    double cost = best.offer(fits, found, run.name, run.maxCost);
    if (best.cost < before)
      bestVariant = run.variant;
    return cost;
  }

  /// A run's cost as the run counts it: its computes' costs, in order.
  double computeCost(const std::vector<Event> &events) const {
    double cost = 0;
    for (const Event &e : events)
      if (e.kind == Event::compute)
        cost += prepared.flat.cost[e.node];
    return cost;
  }

  const Graph &graph;
  const Prepared &prepared;
  const SolverLimits &limits;
  int64_t budget;
  Best &best;
  std::function<bool()> done;
  /// The schedule of the run on this thread.
  std::vector<Event> schedule;
};
} // namespace

/// Exchanges, from each of the cheapest schedules that `best` kept: the
/// cheapest one is not always the one a few exchanges improve most.
///
/// The work of the search is shared among the starts, as among `shares`
/// of them when there are fewer.
static void exchangeFromCheapest(const Graph &graph, int64_t budget, Best &best,
                                 SolveInfo *info, int shares = 1) {
  PhaseTimer timer(info, "exchanges");
  std::vector<Best::Start> starts = std::exchange(best.top, {});
  int64_t n = std::max(1, graph.size());
  int64_t work = std::min<int64_t>(kExchangeWork, kExchangeNodeWork / n) /
                 std::max<int64_t>(shares, int64_t(starts.size()));
  for (Best::Start &start : starts) {
    // A search whose work does not cover a pass over the schedule's
    // computes checks one exchange and stops, after tightening the
    // schedule again: on the 10,002-node graph of bench/remat/scale.py
    // --weights loguniform at 0.95 of its peak, that was a quarter of the
    // solve's time (tad-remat --verbose), and no start found an exchange.
    if (work < int64_t(computesOf(start.schedule).size()))
      continue;
    exchangeSchedule(graph, budget, start.schedule, work);
    if (simulate(graph, start.schedule).cost < best.cost)
      best.offer(true, start.schedule, start.name + ", exchanges");
  }
}

/// kScanningReruns, then exchanges from their schedules, each with the
/// share of one start out of kExchangeStarts.
static void scanningReruns(const Graph &graph, int64_t budget,
                           PortfolioRuns &runs, Best &best, SolveInfo *info,
                           llvm::function_ref<bool()> done) {
  PhaseTimer timer(info, "scanning lookahead");
  best.top.clear(); // what the exchanges before improved
  std::vector<PlannedRun> planned;
  for (const Rerun &rerun : kScanningReruns) {
    planned.push_back(runs.plan(rerun.variant, 0, nullptr,
                                ", scanning, every ancestor", &rerun));
    // Not the last resort's limit per edge (SolverLimits::scanLooksPerEdge,
    // whose 0 turns that off), only the most any scanning run looks at.
    planned.back().options.scanLimit = kMaxScanLooks;
  }
  runs.runAll(std::move(planned));
  if (!best.top.empty() && !done())
    exchangeFromCheapest(graph, budget, best, info, kExchangeStarts);
}

static int64_t searchMinimumBudget(const Graph &graph, const Prepared &prepared,
                                   const SolverLimits &limits, int64_t failed);

/// solveSchedule, for `goal`. Where it weighs the last resort, it searches
/// the smallest budget that the runs before it fit, and `minimum` (when
/// given) receives it: the caller would search it next.
static bool solve(const Graph &graph, const Prepared &prepared, int64_t budget,
                  std::vector<Event> &out, SolveInfo *info,
                  const SolverLimits &limits, Goal goal,
                  std::optional<int64_t> *minimum = nullptr) {
  bool anyFits = goal == Goal::anyFits;
  if (budget < prepared.lower)
    return false;
  Best best{graph, budget, {}, {}};
  best.tighten = !anyFits;
  bool optimal = false;
  std::vector<Event> schedule = prepared.storeAll;
  const ScheduleStats &storeAll = prepared.storeAllStats;
  bool large = prepared.large, dense = prepared.dense;
  double runLimit = large ? limits.maxRecompute * storeAll.cost : 1e300;
  auto done = [&] {
    return (anyFits && best.feasible > 0) || limits.stopped();
  };
  if (storeAll.peak <= budget) {
    optimal = true;
    // Every node once: nothing is cheaper.
    best.offer(true, schedule, "store-all");
  } else if (ChainResult chain = chainSchedule(graph, budget, schedule);
             chain == ChainResult::optimal ||
             chain == ChainResult::infeasible) {
    // A gradient chain: the dynamic program is exact. (One too long for
    // it goes to the heuristics below.)
    best.offer(chain == ChainResult::optimal, schedule,
               "chain dynamic program");
    optimal = chain == ChainResult::optimal;
  } else {
    PortfolioRuns runs(graph, prepared, limits, budget, best, done);
    auto lookahead = [&](int variant, uint64_t seed,
                         const std::vector<double> *weights, const char *how) {
      return runs.run(runs.plan(variant, seed, weights, how));
    };
    // kLastResort, where nothing else fits a large graph. (Not for the
    // search for the smallest budget, whose failing budgets would each
    // pay for it.)
    auto lastResort = [&] {
      if (!large || graph.size() > kMaxLastResortNodes || anyFits ||
          best.feasible > 0 || done() || limits.scanLooksPerEdge <= 0)
        return;
      {
        PhaseTimer timer(info, "smallest budget of the heuristics (bisection)");
        int64_t found = searchMinimumBudget(graph, prepared, limits, budget);
        if (minimum)
          *minimum = found;
        double share = prepared.edges <= kFullLastResortEdges
                           ? kLastResortShare
                           : kLargeGraphLastResortShare;
        if (double(budget) < share * double(found))
          return;
      }
      PhaseTimer timer(info, "last resort");
      std::vector<PlannedRun> planned;
      for (const Rerun &run : kLastResort)
        if (!run.smallGraphsOnly || prepared.edges <= kFullLastResortEdges)
          planned.push_back(runs.plan(run.variant, 0, nullptr,
                                      !run.scan ? ", last resort"
                                      : run.unboundedWalk
                                          ? ", scanning, every ancestor"
                                          : ", scanning",
                                      &run));
      runs.runAll(std::move(planned));
    };
    // kVariants (perturbed runs below draw from all variants). On large
    // dense graphs, where none of the lead variants fits, nothing else is
    // tried: on the graphs measured (docs/remat-solver.md), no other run fit a
    // budget that both missed, and failing runs are what takes their time.
    {
      PhaseTimer timer(info, "lookahead variants");
      llvm::ArrayRef<int> order(kVariants);
      if (dense)
        order = kDenseGraphVariants;
      else if (large)
        order = kLargeGraphVariants;
      // On a dense graph, the lead variants first (at once, with a
      // second thread), and if none fits, only the last resort.
      size_t lead = dense ? (anyFits ? 1 : kLeadVariants) : 0;
      std::vector<PlannedRun> leads;
      for (int variant : order.take_front(lead))
        leads.push_back(runs.plan(variant, 0, nullptr, ""));
      runs.runAll(std::move(leads));
      if (dense && best.feasible == 0) {
        lastResort();
        return finish(best, info, optimal, out);
      }
      std::vector<PlannedRun> rest;
      for (int variant : order.drop_front(lead))
        rest.push_back(runs.plan(variant, 0, nullptr, ""));
      runs.runAll(std::move(rest));
    }
    // DTR is stopped once its own cost passes the best: the portfolio is
    // never worse than DTR's schedule either way.
    {
      PhaseTimer timer(info, "dtr");
      if (!done())
        best.offer(
            dtrSchedule(graph, budget, schedule, std::min(best.cost, runLimit)),
            schedule, "dtr");
    }
    // The counts of the runs below depend only on the graph, so that the
    // answer is reproducible, and shrink as it grows, to keep the solver
    // fast.
    int share = done() ? 0 : kRunNodes / std::max(1, graph.size());
    // Perturbed scores: over the breadth-first variants, then (on small
    // graphs) over the depth-first ones.
    {
      PhaseTimer timer(info, "perturbed lookahead");
      std::vector<PlannedRun> perturbed;
      for (int r = 0; r < std::min(kMaxRandomRuns, share); ++r)
        perturbed.push_back(runs.plan(
            r < kMaxRandomRuns / 2 ? (r % 2) * 4 + (r / 2) % 4 : 8 + r % 8,
            uint64_t(r) + 1, nullptr, ", perturbed"));
      runs.runAll(std::move(perturbed));
    }
    std::vector<double> weights;
    {
      PhaseTimer timer(info, "guided lookahead");
      weights =
          guidedRuns(graph, best.schedule, std::min(kMaxGuidedRuns, share),
                     [&](const std::vector<double> &weights) {
                       if (done())
                         return false;
                       double before = best.cost;
                       lookahead(runs.bestVariant, 0, &weights, ", guided");
                       return best.cost < before;
                     });
    }
    int64_t n = std::max(1, graph.size());
    {
      PhaseTimer timer(info, "weight search");
      weightSearch(graph, best.schedule, weights,
                   done() ? 0
                          : int(std::min<int64_t>(kMaxSearchRuns,
                                                  kSearchWork / (n * n))),
                   runs.bestVariant,
                   [&](const std::vector<double> &weights, int variant) {
                     return lookahead(variant, 0, &weights, ", weight search");
                   });
    }
    if (!done())
      exchangeFromCheapest(graph, budget, best, info);
    if (large && best.feasible > 0 && !done())
      scanningReruns(graph, budget, runs, best, info, done);
    lastResort();
  }
  return finish(best, info, optimal, out);
}

bool tad::remat::solveSchedule(const Graph &graph, int64_t budget,
                               std::vector<Event> &out, SolveInfo *info,
                               const SolverLimits &limits) {
  return solve(graph, Prepared(graph, limits), budget, out, info, limits,
               Goal::cheapest);
}

/// Where the smallest budget lies: from the largest compute to the
/// store-all peak.
static std::pair<int64_t, int64_t> budgetRange(const Graph &graph) {
  int64_t low = lowerBound(graph);
  return {low, std::max(low, simulate(graph, storeAllSchedule(graph)).peak)};
}

int64_t tad::remat::minimumBudgetSlack(const Graph &graph,
                                       const SolverLimits &limits) {
  if (graph.size() <= limits.queueNodes)
    return 0;
  auto [low, high] = budgetRange(graph);
  return int64_t(double(high - low) * limits.minimumPrecision);
}

/// solverMinimumBudget on a prepared graph.
static int64_t searchMinimumBudget(const Graph &graph, const Prepared &prepared,
                                   const SolverLimits &limits, int64_t failed) {
  int64_t low = prepared.lower;
  int64_t high = std::max(low, prepared.storeAllStats.peak);
  // minimumBudgetSlack, without simulating store-all again.
  int64_t slack = prepared.large
                      ? int64_t(double(high - low) * limits.minimumPrecision)
                      : 0;
  if (prepared.large)
    low = std::max(low, std::min(high, failed + 1));
  SolverLimits probe = limits;
  if (limits.thrashRecompute > 0 && limits.searchThrashRecompute > 0)
    probe.thrashRecompute =
        std::min(limits.thrashRecompute, limits.searchThrashRecompute);
  else
    probe.thrashRecompute = 0;
  // A budget asked ahead (on a large graph, with a second thread) runs
  // with a stop flag of its own, and without the arena, which is for one
  // thread at a time.
  AskingAhead fits(
      [&](int64_t budget, const std::atomic<bool> *aside) {
        SolverLimits asked = probe;
        if (aside) {
          asked.stop = aside;
          asked.arena = nullptr;
        }
        std::vector<Event> schedule;
        return !asked.stopped() && solve(graph, prepared, budget, schedule,
                                         nullptr, asked, Goal::anyFits);
      },
      limits.stop, prepared.twoAtOnce);
  // A dense graph's smallest budget is close to its store-all peak (0.87
  // to 0.99 of it on the graphs of docs/remat-solver.md), and a budget tried
  // near it costs a run that thrashes long before it fails: coming from
  // above tries fewer budgets than bisecting from the one that failed.
  if (prepared.dense)
    return descendBudgets(low, high, fits, slack);
  return bisectBudgets(low, high, fits, slack);
}

int64_t tad::remat::solverMinimumBudget(const Graph &graph,
                                        const SolverLimits &limits,
                                        int64_t failed) {
  return searchMinimumBudget(graph, Prepared(graph, limits), limits, failed);
}

std::vector<Event> tad::remat::chenSchedule(const Graph &graph) {
  int n = graph.size();
  // The forward part ends where store-all holds the most: before the first
  // backward node, which finds every forward value resident.
  std::vector<Event> storeAll = storeAllSchedule(graph);
  int forwardEnd = 0;
  {
    int64_t bytes = 0, peak = -1;
    for (const Event &e : storeAll) {
      bytes += (e.kind == Event::compute ? 1 : -1) * graph.nodes[e.node].bytes;
      if (e.kind == Event::compute && bytes > peak) {
        peak = bytes;
        forwardEnd = e.node;
      }
    }
  }
  // About sqrt(k) checkpoints, evenly spaced by bytes.
  int k = forwardEnd;
  int64_t total = 0;
  for (int v = 0; v < k; ++v)
    total += graph.nodes[v].bytes;
  double segment = double(total) / std::max(1.0, std::sqrt(double(k)));
  std::vector<char> kept(n, 0);
  double accumulated = 0;
  for (int v = 0; v < k; ++v) {
    accumulated += double(graph.nodes[v].bytes);
    if (accumulated >= segment) {
      kept[v] = 1;
      accumulated = 0;
    }
  }
  // Forward values that are not kept die after their last forward reader;
  // everything else lives to its last reader. A backward compute that
  // misses an input recomputes it (and what it needs) first.
  std::vector<char> resident(n, 0);
  std::vector<int> computes;
  for (int t = 0; t < n; ++t) {
    if (t == k)
      for (int v = 0; v < k; ++v)
        if (!kept[v])
          resident[v] = 0;
    if (t >= k) {
      std::vector<int> missing, stack(graph.nodes[t].inputs);
      std::vector<char> seen(n, 0);
      while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        if (resident[v] || seen[v])
          continue;
        seen[v] = 1;
        missing.push_back(v);
        for (int i : graph.nodes[v].inputs)
          stack.push_back(i);
      }
      std::sort(missing.begin(), missing.end());
      for (int v : missing) {
        computes.push_back(v);
        resident[v] = 1;
      }
    }
    computes.push_back(t);
    resident[t] = 1;
  }
  return scheduleOf(graph, computes);
}

ExactResult tad::remat::rememberedExactSchedule(
    const Graph &graph, int64_t budget, std::vector<Event> &schedule,
    int64_t maxStates, double maxCost, SearchMemos *memo) {
  if (!memo || graph.size() > kMaxExactNodes)
    return exactSchedule(graph, budget, schedule, maxStates, maxCost);
  std::string question = questionKey(graph, budget, maxStates, maxCost);
  auto answer = memo->exactSchedules.answer(question, [&] {
    std::vector<Event> found;
    ExactResult result =
        exactSchedule(graph, budget, found, maxStates, maxCost);
    return std::make_pair(result, std::move(found));
  });
  if (answer.first == ExactResult::optimal)
    schedule = std::move(answer.second);
  return answer.first;
}

std::string tad::remat::autoSchedule(const Graph &graph, int64_t budget,
                                     std::vector<Event> &out, bool improve,
                                     SearchMemos *memo) {
  if (graph.size() <= kMaxExactNodes) {
    switch (rememberedExactSchedule(graph, budget, out, kAutoExactStates,
                                    std::numeric_limits<double>::infinity(),
                                    memo)) {
    case ExactResult::optimal:
      return "exact";
    case ExactResult::infeasible:
      return "";
    case ExactResult::tooLarge:
      break;
    }
  }
  SolverLimits limits;
  limits.memo = memo;
  return fastSchedule(graph, budget, out, nullptr, improve, limits) ? "fast"
                                                                    : "";
}

/// fastMinimumBudget, given solverMinimumBudget. Where the answer is
/// below heuristicMinimum, a search found a schedule there, the cheapest
/// within it, and `atMinimum` (when given) receives it: searching that
/// budget again would find it again.
static int64_t
lowerByWholeGraphSearch(const Graph &graph, int64_t heuristicMinimum,
                        const SolverLimits &limits, WindowArena &arena,
                        std::vector<Event> *atMinimum = nullptr) {
  std::vector<Event> schedule;
  int64_t foundAt = -1;
  int64_t minimum = smallestFittingBudget(
      lowerBound(graph), heuristicMinimum, [&](int64_t b) {
        if (b >= heuristicMinimum)
          return true;
        if (wholeGraphSchedule(graph, b, schedule, limits.wholeGraphProbeWork,
                               limits.stop, &arena, limits.maxCost,
                               limits.memo) != WholeGraphResult::found)
          return false;
        // The bisection only goes down from a budget that fits.
        foundAt = b;
        if (atMinimum)
          *atMinimum = schedule;
        return true;
      });
  if (atMinimum && foundAt != minimum)
    atMinimum->clear();
  return minimum;
}

/// What a fastSchedule answer depends on besides the graph: the budget,
/// `improve` and every number of the limits that a run reads. (Not
/// `threads`: two threads give one thread's answers, run for run.)
static std::string fastScheduleKey(const Graph &graph, int64_t budget,
                                   bool improve, const SolverLimits &limits) {
  return questionKey(
      graph, budget, improve, limits.queueNodes, limits.maxRecompute,
      limits.thrashRecompute, limits.searchThrashRecompute,
      limits.minimumPrecision, limits.denseInputs, limits.recomputeWalk,
      limits.windowRecompute, limits.scanLooksPerEdge, limits.wholeGraphWork,
      limits.wholeGraphProbeWork, limits.maxCost);
}

static bool solveFast(const Graph &graph, int64_t budget,
                      std::vector<Event> &out, SolveInfo *info, bool improve,
                      const SolverLimits &limits);

bool tad::remat::fastSchedule(const Graph &graph, int64_t budget,
                              std::vector<Event> &out, SolveInfo *info,
                              bool improve, const SolverLimits &limits) {
  // A SolveInfo's caller reads how the answer was found, which a kept
  // answer does not say.
  if (!limits.memo || info)
    return solveFast(graph, budget, out, info, improve, limits);
  auto answer = limits.memo->fastSchedules.answer(
      fastScheduleKey(graph, budget, improve, limits),
      [&] {
        std::vector<Event> schedule;
        bool found =
            solveFast(graph, budget, schedule, nullptr, improve, limits);
        return std::make_pair(found, std::move(schedule));
      },
      [&] { return !limits.stopped(); });
  // (A failed search's schedule is of no use to any caller.)
  if (answer.first)
    out = std::move(answer.second);
  return answer.first;
}

/// fastSchedule's search.
static bool solveFast(const Graph &graph, int64_t budget,
                      std::vector<Event> &out, SolveInfo *info, bool improve,
                      const SolverLimits &limits) {
  SolveInfo local;
  // Only a caller that reads the SolveInfo asks for the minimum budget of
  // a failure (below).
  bool reportMinimum = info != nullptr;
  if (!info)
    info = &local;
  // Where the bounds of the exact search already prove that nothing fits
  // (on small graphs), everything below would fail: the heuristics, the
  // search for their smallest budget (a dozen failing solves) and the
  // whole-graph search, which starts from those bounds. (A caller that
  // reads the SolveInfo wants that smallest budget all the same.)
  if (!reportMinimum && boundExcludes(graph, budget))
    return false;
  Prepared prepared(graph, limits);
  // One arena for every window search below: the whole-graph searches of
  // a bisection would each grow their table again.
  std::optional<WindowArena> own;
  WindowArena &arena = limits.arena ? *limits.arena : own.emplace();
  std::optional<int64_t> searched;
  if (!solve(graph, prepared, budget, out, info, limits, Goal::cheapest,
             &searched)) {
    if (budget < prepared.lower || limits.stopped())
      return false;
    // The heuristics may fail at one budget and succeed at a smaller one,
    // whose schedule fits here. (Where the solve weighed its last resort,
    // it searched that budget already.)
    int64_t minimum;
    if (searched) {
      minimum = *searched;
    } else {
      PhaseTimer timer(info, "smallest budget of the heuristics (bisection)");
      minimum = searchMinimumBudget(graph, prepared, limits, budget);
    }
    if (minimum > budget ||
        !solve(graph, prepared, minimum, out, info, limits, Goal::cheapest)) {
      PhaseTimer timer(info, "whole-graph search");
      // Where they find nothing, a graph small enough for one window is
      // searched whole, from nothing. Where that search gives up, a caller
      // that reads the SolveInfo is told the smallest budget at which a
      // search finishes (fastMinimumBudget's), and gets its schedule where
      // that is within this budget.
      WholeGraphResult whole =
          wholeGraphSchedule(graph, budget, out, limits.wholeGraphWork,
                             limits.stop, &arena, limits.maxCost, limits.memo);
      // Found at this budget, the schedule is optimal.
      info->optimal = whole == WholeGraphResult::found;
      // Under a cost bound, where the search finds nothing within it, the
      // caller (the overhead policy) tries a larger budget: looking for a
      // smaller budget at which the search finishes would cost many more
      // searches of the graph. (Infeasible, a smaller budget holds nothing
      // cheaper either.)
      if (whole != WholeGraphResult::found &&
          limits.maxCost != std::numeric_limits<double>::infinity())
        return false;
      // Other callers (the remat pass) only want a schedule, and that
      // bisection, a dozen searches of a quarter of the work each, is
      // most of their time where it runs, and it never found one: 0 of
      // the 19 in `make test` and 0 of the 123 in the random programs'
      // budget compiles (bench/remat/budget_compiles.py's budgets,
      // seed 0, every second program) ended within the budget.
      if (whole != WholeGraphResult::found && !reportMinimum)
        return false;
      if (whole != WholeGraphResult::found) {
        std::vector<Event> atMinimum;
        info->minimumBudget =
            lowerByWholeGraphSearch(graph, minimum, limits, arena, &atMinimum);
        if (whole == WholeGraphResult::infeasible ||
            info->minimumBudget > budget)
          return false;
        if (!atMinimum.empty())
          out = std::move(atMinimum);
        else if (wholeGraphSchedule(graph, info->minimumBudget, out,
                                    limits.wholeGraphWork, limits.stop, &arena,
                                    limits.maxCost,
                                    limits.memo) != WholeGraphResult::found)
          return false;
      }
      info->winner = "whole-graph search";
    }
  }
  if (info->optimal || !improve)
    return true;
  // The windows last, on the chosen schedule only: they cost more per
  // schedule than everything before them.
  PhaseTimer timer(info, "windows");
  double before = simulate(graph, out).cost;
  int64_t n = std::max(1, graph.size());
  int64_t windowWork =
      n <= kMaxWindowNodes
          ? std::min(kSmallGraphWindowWork, kSmallGraphWindowNodeWork / n)
          : std::min(kWindowWork, kWindowNodeWork / n);
  windowSchedule(graph, budget, out, windowWork, limits.stop, &arena);
  if (simulate(graph, out).cost < before)
    info->winner += ", windows";
  return true;
}

int64_t tad::remat::fastMinimumBudget(const Graph &graph,
                                      const SolverLimits &limits) {
  auto search = [&] {
    std::optional<WindowArena> own;
    return lowerByWholeGraphSearch(
        graph, solverMinimumBudget(graph, limits), limits,
        limits.arena ? *limits.arena : own.emplace());
  };
  if (!limits.memo)
    return search();
  // The loop choice's trials ask it of the same loop bodies again (the
  // remat pass's floor of a body, bodyPeaks): a body whose loop kept its
  // count is the graph of the trial before. (The budget and `improve` of
  // fastScheduleKey are no part of this question: fixed values. Nor is the
  // last resort's scan limit, which probes set to 0 and the compile does
  // not: the searches for the least budget ask only whether a schedule is
  // easily found, and never run the last resort. So the compile finds the
  // floors of the bodies its probes asked.)
  SolverLimits asked = limits;
  asked.scanLooksPerEdge = 0;
  return limits.memo->fastMinimum.answer(
      fastScheduleKey(graph, /*budget=*/0, /*improve=*/false, asked), search,
      [&] { return !limits.stopped(); });
}

int64_t tad::remat::autoMinimumBudget(const Graph &graph,
                                      const SolverLimits &limits) {
  auto exactMinimum = [&] {
    return exactMinimumBudget(graph, kAutoExactStates);
  };
  // (A graph over kMaxExactNodes gets -1 at once: no key is made.)
  int64_t exact =
      limits.memo && graph.size() <= kMaxExactNodes
          ? limits.memo->exactMinimum.answer(graphKey(graph), exactMinimum)
          : exactMinimum();
  return exact >= 0 ? exact : fastMinimumBudget(graph, limits);
}

std::vector<Event>
tad::remat::freeAfterLastUse(const Graph &graph,
                             const std::vector<Event> &schedule) {
  return scheduleOf(graph, computesOf(schedule));
}
