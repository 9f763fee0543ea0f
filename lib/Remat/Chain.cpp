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
// Graph.h (ChainTest checks it against the exhaustive search); its state
// space grows as n^3 times the distinct held byte counts, hence
// kMaxChainSteps.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/Chain.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

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
  ChainSolver(const Graph &graph, int n, int64_t budget)
      : graph(graph), n(n), budget(budget) {}

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

  struct Choice {
    double cost = kInfeasible;
    int k = -1;
    int rest = -1;     // m': the sub-problem's lower end; -1: compute b_k
    bool holdS = true; // whether f_s stays resident meanwhile
  };

  double cost(int s, int m, int t, int64_t held, bool keep) {
    if (t == m)
      return 0;
    auto key = std::make_tuple(s, m, t, held, keep);
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second.cost;
    Choice best;
    double advance = 0;
    for (int k = s + 1; k <= t; ++k) {
      advance += cf(k);
      // The ways to go on from f_k: -1 computes b_k next, m' >= max(k, m)
      // hands b_t..b_{m'+1} to a sub-problem from f_k.
      for (int rest = -1; rest < t; ++rest) {
        if (rest == -1 ? k <= m : rest < std::max(k, m))
          continue;
        int after = rest == -1 ? k - 1 : rest; // what is left to do
        bool holdS = keep || after > m;
        bool fits = true;
        for (int j = s + 1; j <= k && fits; ++j)
          fits = held + B(t + 1) + (j == s + 1 || holdS ? F(s) : 0) +
                     (j - 1 > s ? F(j - 1) : 0) + F(j) <=
                 budget;
        if (!fits)
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
    Choice c = memo.at(std::make_tuple(s, m, t, held, keep));
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
  std::map<std::tuple<int, int, int, int64_t, bool>, Choice> memo;
};

} // namespace

ChainResult tad::remat::chainSchedule(const Graph &graph, int64_t budget,
                                      std::vector<Event> &schedule) {
  int n = 0;
  if (!isGradientChain(graph, n) || n > kMaxChainSteps)
    return ChainResult::notAChain;
  ChainSolver solver(graph, n, budget);
  if (solver.cost(0, 0, n, 0, false) == ChainSolver::kInfeasible)
    return ChainResult::infeasible;
  schedule.clear();
  solver.emit(0, 0, n, 0, false, schedule);
  return ChainResult::optimal;
}
