//===- Chain.cpp - optimal schedules of gradient chains -------------------===//
//
// P(s, m, t, H, keep): the least cost of computing b_t, ..., b_{m+1}
// (s <= m <= t) when f_s and b_{t+1} are resident, H other bytes stay held
// throughout, no f in (s, t] is resident, and f_s must still be resident at
// the end if `keep`. Only f_s can start a recomputation, so the first move
// advances from it to some f_k (k <= t), freeing each f once the next is
// computed, and then either
//
//  - (k > m) reverses (k, t] holding f_k, computes b_k from f_k and
//    b_{k+1}, frees both, and leaves b_{k-1}, ..., b_{m+1} to
//    P(s, m, k-1, H, keep);
//  - or lets P(k, m', t, ., false) compute b_t, ..., b_{m'+1} from f_k for
//    some m' >= max(k, m) and leaves b_{m'}, ..., b_{m+1} to
//    P(s, m, m', H, keep).
//
// f_s stays resident during the move only if something after it needs it
// (or `keep`): a large checkpoint that is cheap to recompute from an
// earlier one is better dropped than held, which is why the program
// carries m. P(s, m, m, ...) = 0. Indices are 1-based; f_0 is the chain's
// input, which is not a node. The program is exact for the memory model of
// Graph.h (ChainTest checks it against the exhaustive search).
//
// Its state space grows as n^3 times the distinct held byte counts. Two
// things keep it fast: the advance's steps are checked once per k, not per
// candidate, and branch and bound skips a candidate whose parts cannot
// beat the best so far, since every sub-problem P(s, m, t) costs at least
// f_{s+1} .. f_t (b_t needs f_t, which only f_s can lead to) plus
// b_{m+1} .. b_t. Pruning only drops candidates that cannot be strictly
// better, so each memoized cost stays exact. What remains is capped by a
// count of candidates (kChainWorkLimit): beyond it the caller uses the
// heuristics.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/Chain.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

using namespace tad::remat;

bool tad::remat::isGradientChain(const Graph &graph, int &steps) {
  int size = graph.size();
  if (size < 2 || size % 2)
    return false;
  int n = size / 2;
  auto same = [](const std::vector<int> &a, std::vector<int> b) {
    std::vector<int> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    std::sort(b.begin(), b.end());
    return sorted == b;
  };
  for (int v = 0; v < size; ++v) {
    const Node &node = graph.nodes[v];
    if (!node.recomputable || node.transient)
      return false;
    std::vector<int> expected;
    if (v < n) { // f_{v+1}
      if (v > 0)
        expected = {v - 1};
    } else { // b_i with i = 2n - v, reading f_i and b_{i+1}
      int i = 2 * n - v;
      expected = {i - 1};
      if (i < n)
        expected.push_back(v - 1);
    }
    if (!same(node.inputs, expected))
      return false;
  }
  steps = n;
  return true;
}

namespace {

class ChainSolver {
public:
  ChainSolver(const Graph &graph, int n, int64_t budget, int64_t workLimit)
      : graph(graph), n(n), budget(budget), workLimit(workLimit),
        prefixF(n + 1, 0), prefixB(n + 1, 0) {
    for (int j = 1; j <= n; ++j) {
      prefixF[j] = prefixF[j - 1] + cf(j);
      prefixB[j] = prefixB[j - 1] + cb(j);
    }
  }

  static constexpr double kInfeasible = std::numeric_limits<double>::infinity();

  // Sizes and costs, 1-based: F(j), B(j); B(n + 1) = 0 (no such node).
  int64_t F(int j) const { return j >= 1 ? graph.nodes[j - 1].bytes : 0; }
  int64_t B(int j) const {
    return j >= 1 && j <= n ? graph.nodes[2 * n - j].bytes : 0;
  }
  double cf(int j) const { return graph.nodes[j - 1].cost; }
  double cb(int j) const { return graph.nodes[2 * n - j].cost; }
  int fNode(int j) const { return j - 1; }
  int bNode(int j) const { return 2 * n - j; }

  /// A lower bound of cost(s, m, t, ...): f_{s+1} .. f_t must each be
  /// computed (b_t needs f_t, which needs the chain from f_s) and b_{m+1} ..
  /// b_t too.
  double bound(int s, int m, int t) const {
    if (t == m)
      return 0;
    return prefixF[t] - prefixF[s] + prefixB[t] - prefixB[m];
  }

  struct Choice {
    double cost = kInfeasible;
    int k = -1;
    int rest = -1;     // m': the sub-problem's lower end; -1: compute b_k
    bool holdS = true; // whether f_s stays resident meanwhile
  };

  double cost(int s, int m, int t, int64_t held, bool keep) {
    if (t == m)
      return 0;
    Key key{s, m, t, held, keep};
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second.cost;
    Choice best;
    double advance = 0;
    // Advancing f_s to f_k fits when every step j <= k does; the steps do
    // not depend on `rest` except through whether f_s is held, so both
    // answers are carried along as k grows, and the loop stops once
    // neither holds (a longer advance only adds steps).
    bool fitsHold = true, fitsDrop = true;
    for (int k = s + 1; k <= t; ++k) {
      advance += cf(k);
      int64_t step = held + B(t + 1) + (k - 1 > s ? F(k - 1) : 0) + F(k);
      fitsHold = fitsHold && step + F(s) <= budget;
      fitsDrop = fitsDrop && step + (k == s + 1 ? F(s) : 0) <= budget;
      if (!fitsHold && !fitsDrop)
        break;
      // The ways to go on from f_k: -1 computes b_k next, m' >= max(k, m)
      // hands b_t..b_{m'+1} to a sub-problem from f_k.
      for (int rest = -1; rest < t; ++rest) {
        if (rest == -1 ? k <= m : rest < std::max(k, m))
          continue;
        if (++work > workLimit)
          return kInfeasible; // the caller checks `work` and gives up
        int after = rest == -1 ? k - 1 : rest; // what is left to do
        bool holdS = keep || after > m;
        if (!(holdS ? fitsHold : fitsDrop))
          continue;
        // Branch and bound: every sub-problem costs at least its bound.
        if (advance +
                (rest == -1 ? bound(k, k, t) + cb(k) : bound(k, rest, t)) +
                bound(s, m, after) >=
            best.cost)
          continue;
        int64_t inner = held + (holdS ? F(s) : 0);
        double total = advance;
        if (rest == -1) {
          if (inner + F(k) + B(k + 1) + B(k) > budget)
            continue; // computing b_k does not fit
          total += (k < t ? cost(k, k, t, inner, true) : 0) + cb(k);
        } else {
          total += cost(k, rest, t, inner, false);
        }
        if (total == kInfeasible)
          continue;
        if (total + bound(s, m, after) >= best.cost)
          continue;
        total += cost(s, m, after, held, keep);
        if (total < best.cost)
          best = {total, k, rest, holdS};
      }
    }
    memo[key] = best;
    return best.cost;
  }

  void emit(int s, int m, int t, int64_t held, bool keep,
            std::vector<Event> &out) {
    if (t == m) {
      if (!keep && s > 0)
        out.push_back({Event::free, fNode(s)});
      return;
    }
    Choice c = memo.at(Key{s, m, t, held, keep});
    for (int j = s + 1; j <= c.k; ++j) {
      out.push_back({Event::compute, fNode(j)});
      if (j - 1 > s)
        out.push_back({Event::free, fNode(j - 1)});
      else if (!c.holdS && s > 0)
        out.push_back({Event::free, fNode(s)});
    }
    int64_t inner = held + (c.holdS ? F(s) : 0);
    int after = c.rest == -1 ? c.k - 1 : c.rest;
    if (c.rest == -1) {
      if (c.k < t)
        emit(c.k, c.k, t, inner, true, out);
      out.push_back({Event::compute, bNode(c.k)});
      out.push_back({Event::free, fNode(c.k)});
      if (c.k < n)
        out.push_back({Event::free, bNode(c.k + 1)});
    } else {
      emit(c.k, c.rest, t, inner, false, out);
    }
    if (c.holdS)
      emit(s, m, after, held, keep, out);
  }

private:
  const Graph &graph;
  int n;
  int64_t budget;

public:
  // Candidates tried so far, and the most the caller allows.
  int64_t work = 0, workLimit;

private:
  std::vector<double> prefixF, prefixB; // sums of cf and cb over 1..j
  struct Key {
    int s, m, t;
    int64_t held;
    bool keep;
    bool operator==(const Key &o) const {
      return s == o.s && m == o.m && t == o.t && held == o.held &&
             keep == o.keep;
    }
  };
  struct KeyHash {
    size_t operator()(const Key &k) const {
      uint64_t h = (uint64_t(k.s) << 42) ^ (uint64_t(k.m) << 21) ^
                   uint64_t(k.t) ^ (uint64_t(k.keep) << 63);
      h ^= uint64_t(k.held) * 0x9e3779b97f4a7c15ull;
      return size_t(h ^ (h >> 29));
    }
  };
  std::unordered_map<Key, Choice, KeyHash> memo;
};

} // namespace

ChainResult tad::remat::chainSchedule(const Graph &graph, int64_t budget,
                                      std::vector<Event> &schedule,
                                      int64_t workLimit) {
  int n = 0;
  if (!isGradientChain(graph, n))
    return ChainResult::notAChain;
  if (n > kMaxChainSteps)
    return ChainResult::tooLarge;
  ChainSolver solver(graph, n, budget, workLimit);
  double cost = solver.cost(0, 0, n, 0, false);
  if (solver.work > workLimit)
    return ChainResult::tooLarge;
  if (cost == ChainSolver::kInfeasible)
    return ChainResult::infeasible;
  schedule.clear();
  solver.emit(0, 0, n, 0, false, schedule);
  return ChainResult::optimal;
}
