//===- Solve.cpp - the portfolio solver and Chen's baseline ---------------===//
//
// No single eviction score wins on every graph and budget (bench/remat
// measures them), and each run takes a few milliseconds at 1000 nodes, so
// the solver runs them all, tightens each result, and keeps the cheapest.
//
//===----------------------------------------------------------------------===//

#include "ComputeSequence.h"
#include "tad/Remat/Chain.h"
#include "tad/Remat/Exact.h"
#include "tad/Remat/Solver.h"

#include <algorithm>
#include <cmath>

using namespace tad::remat;

static constexpr int kMaxRandomRuns = 32;
static constexpr int kRandomRunNodes = 2048;
static constexpr int kMaxGuidedRuns = 16;
// How much less likely a guided run evicts the node it protects.
static constexpr double kProtectWeight = 16;

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

  /// Tightens and keeps `candidate` when it is cheaper than the best.
  void offer(bool ok, std::vector<Event> &candidate, const std::string &by) {
    ++attempts;
    if (!ok)
      return;
    tightenSchedule(graph, budget, candidate);
    ScheduleStats stats = simulate(graph, candidate);
    if (!stats.valid || stats.peak > budget)
      return; // never expected; the caller gets only checked schedules
    ++feasible;
    if (stats.cost < cost) {
      cost = stats.cost;
      schedule = std::move(candidate);
      name = by;
    }
  }
};

/// The eviction scores misjudge a few values: the best schedule's most
/// expensive recomputations show which. Reruns the best variant with each
/// of them in turn weighted against eviction, most recompute cost first,
/// and keeps each weight that lowers the cost: a hill climb over the
/// weights, `runs` runs at most. `run` returns whether a run improved.
void guidedRuns(const Graph &graph, const std::vector<Event> &schedule,
                int runs,
                const std::function<bool(const std::vector<double> &)> &run) {
  std::vector<int> computes(graph.size(), 0);
  for (const Event &e : schedule)
    computes[e.node] += e.kind == Event::compute;
  std::vector<int> recomputed;
  for (int v = 0; v < graph.size(); ++v)
    if (computes[v] > 1)
      recomputed.push_back(v);
  auto waste = [&](int v) { return graph.nodes[v].cost * (computes[v] - 1); };
  std::stable_sort(recomputed.begin(), recomputed.end(),
                   [&](int a, int b) { return waste(a) > waste(b); });
  std::vector<double> weights(graph.size(), 1.0);
  for (int i = 0; i < runs && i < int(recomputed.size()); ++i) {
    weights[recomputed[i]] = kProtectWeight;
    if (!run(weights))
      weights[recomputed[i]] = 1.0;
  }
}

} // namespace

bool tad::remat::solveSchedule(const Graph &graph, int64_t budget,
                               std::vector<Event> &out, SolveInfo *info) {
  if (budget < lowerBound(graph))
    return false;
  Best best{graph, budget, {}, {}};
  std::vector<Event> schedule = storeAllSchedule(graph);
  if (simulate(graph, schedule).peak <= budget) {
    // Every node once: nothing is cheaper.
    best.offer(true, schedule, "store-all");
  } else if (ChainResult chain = chainSchedule(graph, budget, schedule);
             chain != ChainResult::notAChain) {
    // A gradient chain: the dynamic program is exact.
    best.offer(chain == ChainResult::optimal, schedule,
               "chain dynamic program");
  } else {
    const std::pair<const char *, EvictionScore> scores[] = {
        {"lookahead rc/(b*d)", EvictionScore::costPerByteDistance},
        {"lookahead rc/(b*d^2)", EvictionScore::costPerByteDistance2},
        {"lookahead rc/b", EvictionScore::costPerByte},
        {"lookahead 1/d", EvictionScore::farthestUse},
    };
    // The lookahead variant (score and keepAncestors) that found the best
    // schedule so far: guided runs below reuse it.
    int bestVariant = 0;
    auto lookahead = [&](int variant, uint64_t seed,
                         const std::vector<double> *weights,
                         const std::string &name) {
      double before = best.cost;
      bool keep = variant >= 4;
      best.offer(lookaheadSchedule(graph, budget, scores[variant % 4].second,
                                   keep, schedule, seed, 2 * best.cost,
                                   weights),
                 schedule, name + (keep ? ", keeping ancestors" : ""));
      if (best.cost < before)
        bestVariant = variant;
      return best.cost < before;
    };
    // A run whose cost passes twice the best so far will not win even
    // after tightening, and is stopped: that bounds the time spent on
    // runs that thrash.
    for (int variant = 0; variant < 8; ++variant)
      lookahead(variant, 0, nullptr, scores[variant % 4].first);
    // DTR is stopped once its own cost passes the best: the portfolio is
    // never worse than DTR's schedule either way.
    best.offer(dtrSchedule(graph, budget, schedule, best.cost), schedule,
               "dtr");
    // Perturbed scores, as many runs as keep the solver fast; the count
    // depends only on the graph, so that the answer is reproducible.
    int runs = std::min(kMaxRandomRuns,
                        int(kRandomRunNodes / std::max(1, graph.size())));
    for (int r = 0; r < runs; ++r)
      lookahead((r % 2) * 4 + (r / 2) % 4, uint64_t(r) + 1, nullptr,
                "lookahead, perturbed");
    guidedRuns(graph, best.schedule,
               std::min(kMaxGuidedRuns,
                        int(kRandomRunNodes / std::max(1, graph.size()))),
               [&](const std::vector<double> &weights) {
                 return lookahead(bestVariant, 0, &weights,
                                  "lookahead, guided");
               });
  }
  if (info) {
    info->attempts = best.attempts;
    info->feasible = best.feasible;
    info->winner = best.name;
  }
  if (best.feasible == 0)
    return false;
  out = std::move(best.schedule);
  return true;
}

int64_t
tad::remat::smallestFittingBudget(int64_t low, int64_t high,
                                  const std::function<bool(int64_t)> &fits) {
  int64_t l = low, h = high;
  while (l < h) {
    int64_t mid = l + (h - l) / 2;
    if (fits(mid))
      h = mid;
    else
      l = mid + 1;
  }
  return h == high || fits(h) ? h : high;
}

int64_t tad::remat::solverMinimumBudget(const Graph &graph) {
  int64_t low = lowerBound(graph);
  int64_t high = std::max(low, simulate(graph, storeAllSchedule(graph)).peak);
  std::vector<Event> schedule;
  return smallestFittingBudget(low, high, [&](int64_t budget) {
    return solveSchedule(graph, budget, schedule);
  });
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

std::string tad::remat::autoSchedule(const Graph &graph, int64_t budget,
                                     std::vector<Event> &out) {
  if (graph.size() <= kMaxExactNodes) {
    switch (exactSchedule(graph, budget, out, kAutoExactStates)) {
    case ExactResult::optimal:
      return "exact";
    case ExactResult::infeasible:
      return "";
    case ExactResult::tooLarge:
      break;
    }
  }
  return fastSchedule(graph, budget, out) ? "fast" : "";
}

bool tad::remat::fastSchedule(const Graph &graph, int64_t budget,
                              std::vector<Event> &out) {
  if (solveSchedule(graph, budget, out))
    return true;
  if (budget < lowerBound(graph))
    return false;
  // The heuristics may fail at one budget and succeed at a smaller one,
  // whose schedule fits here.
  int64_t minimum = solverMinimumBudget(graph);
  return minimum <= budget && solveSchedule(graph, minimum, out);
}

int64_t tad::remat::autoMinimumBudget(const Graph &graph) {
  int64_t exact = exactMinimumBudget(graph, kAutoExactStates);
  return exact >= 0 ? exact : solverMinimumBudget(graph);
}

std::vector<Event>
tad::remat::freeAfterLastUse(const Graph &graph,
                             const std::vector<Event> &schedule) {
  return scheduleOf(graph, computesOf(schedule));
}
