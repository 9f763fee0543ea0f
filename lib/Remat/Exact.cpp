//===- Exact.cpp - optimal schedules of small graphs ----------------------===//
//
// A* over states (resident, computed): computing a node costs its compute
// cost and needs its inputs resident and room in the budget; freeing costs
// nothing, and happens right after a compute, of what it read or wrote.
// The goal is any state in which every node has been computed.
// Peaks are checked on every transition, so every path found is a valid
// schedule. The heuristic is the cost of the nodes not yet computed and of
// the computed ones that are not resident and that a node not yet computed
// reads, which every schedule from the state pays at least once: it is
// consistent, so the first goal reached is optimal. Most optimal schedules
// recompute little, so the search stays near the path of least
// recomputation instead of exploring every cheaper prefix as Dijkstra does.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/Exact.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <queue>

using namespace tad::remat;

namespace {

struct State {
  uint32_t resident, computed;
  uint64_t key() const { return (uint64_t(computed) << 32) | resident; }
};

/// A step: a compute, then the frees of some of what it read or wrote.
struct Visit {
  double cost;
  uint64_t parent; // the previous state's key
  int computed;    // the node the step computed
  uint32_t freed;  // the nodes it freed after
};

/// The most values one step may free (a compute's inputs and itself): a
/// step has 2^k successors.
constexpr int kMaxStepFrees = 16;

} // namespace

ExactResult tad::remat::exactSchedule(const Graph &graph, int64_t budget,
                                      std::vector<Event> &schedule,
                                      int64_t maxStates, double maxCost) {
  int n = graph.size();
  if (n > kMaxExactNodes)
    return ExactResult::tooLarge;
  std::vector<uint32_t> inputMask(n, 0), userMask(n, 0);
  // The nodes computed exactly once: freed before their last reader is
  // computed, they leave a state from which no schedule finishes.
  uint32_t once = 0;
  for (int v = 0; v < n; ++v) {
    for (int i : graph.nodes[v].inputs) {
      inputMask[v] |= 1u << i;
      userMask[i] |= 1u << v;
    }
    if (!graph.nodes[v].recomputable)
      once |= 1u << v;
  }
  uint32_t all = n == 32 ? ~0u : (1u << n) - 1;
  auto bytesOf = [&](uint32_t resident) {
    int64_t bytes = 0;
    for (int v = 0; v < n; ++v)
      if (resident & (1u << v))
        bytes += graph.nodes[v].bytes;
    return bytes;
  };

  // What every schedule from (resident, computed) still pays: each node
  // not computed yet, and each computed one that is not resident but has a
  // user not computed yet (that user needs it resident: it is computed
  // again). A recomputation moves its cost from here to the path, a free
  // only adds here: the heuristic stays consistent.
  auto remaining = [&](uint32_t resident, uint32_t computed) {
    double cost = 0;
    for (int v = 0; v < n; ++v) {
      uint32_t bit = 1u << v;
      if (!(computed & bit) ||
          (!(resident & bit) && (userMask[v] & ~computed)))
        cost += graph.nodes[v].cost;
    }
    return cost;
  };

  // (path cost + heuristic, state)
  using Item = std::pair<double, uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  // Keys are below 2^(2 kMaxExactNodes), never DenseMap's reserved ones.
  // The map holds its visits inline: no allocation per state.
  llvm::DenseMap<uint64_t, Visit> best;
  State start{0, 0};
  best[start.key()] = {0, start.key(), -1, 0};
  queue.push({remaining(0, 0), start.key()});
  while (!queue.empty()) {
    auto [priority, key] = queue.top();
    queue.pop();
    State state{uint32_t(key), uint32_t(key >> 32)};
    double cost = best.find(key)->second.cost;
    double rest = remaining(state.resident, state.computed);
    if (priority > cost + rest)
      continue; // a cheaper path to this state was found after this push
    // The queue's least priority bounds every goal still to be reached
    // from below (the heuristic is admissible): none costs maxCost or less.
    if (priority > maxCost + 1e-9 * std::max(1.0, maxCost))
      return ExactResult::infeasible;
    if (state.computed == all) {
      schedule.clear();
      for (uint64_t k = key; k != start.key();) {
        const Visit &visit = best.find(k)->second;
        for (int v = n - 1; v >= 0; --v)
          if (visit.freed & (1u << v))
            schedule.push_back({Event::free, v});
        schedule.push_back({Event::compute, visit.computed});
        k = visit.parent;
      }
      std::reverse(schedule.begin(), schedule.end());
      return ExactResult::optimal;
    }
    if (int64_t(best.size()) > maxStates)
      return ExactResult::tooLarge;
    int64_t bytes = bytesOf(state.resident);
    auto relax = [&](State next, double nextCost, int v, uint32_t freed) {
      Visit visit{nextCost, key, v, freed};
      auto [it, fresh] = best.try_emplace(next.key(), visit);
      if (!fresh && it->second.cost <= nextCost)
        return;
      it->second = visit;
      queue.push({nextCost + remaining(next.resident, next.computed),
                  next.key()});
    };
    // A step computes a node and frees some of its inputs and itself. No
    // other frees are needed: moved back to just after the last compute
    // that read it, a free lowers the residency in between and changes
    // nothing else, so some optimal schedule frees only so. (Frees
    // anywhere, free of cost, made every subset of the resident values a
    // state of the same cost.)
    for (int v = 0; v < n; ++v) {
      uint32_t bit = 1u << v;
      if ((state.resident & bit) ||
          (state.resident & inputMask[v]) != inputMask[v] ||
          !(graph.nodes[v].recomputable || !(state.computed & bit)) ||
          bytes + graph.nodes[v].bytes + graph.nodes[v].transient > budget)
        continue;
      uint32_t resident = state.resident | bit;
      // The last compute (the results' sink) needs no frees after it.
      uint32_t freeable =
          (state.computed | bit) == all ? 0 : inputMask[v] | bit;
      // A step of a node with very many inputs has too many ways to free:
      // the search leaves such a graph to the others.
      if (llvm::popcount(freeable) > kMaxStepFrees)
        return ExactResult::tooLarge;
      double nextCost = cost + graph.nodes[v].cost;
      uint32_t computed = state.computed | bit;
      // What may not be freed yet: the nodes computed once that a node not
      // computed yet reads.
      uint32_t kept = 0;
      for (uint32_t f = freeable & once; f; f &= f - 1) {
        int u = llvm::countr_zero(f);
        if (userMask[u] & ~computed)
          kept |= 1u << u;
      }
      freeable &= ~kept;
      for (uint32_t freed = freeable;; freed = (freed - 1) & freeable) {
        relax({resident & ~freed, computed}, nextCost, v, freed);
        if (freed == 0)
          break;
      }
    }
  }
  return ExactResult::infeasible;
}

int64_t tad::remat::exactMinimumBudget(const Graph &graph,
                                       int64_t maxStates) {
  if (graph.size() > kMaxExactNodes)
    return -1;
  // Below the largest compute footprint nothing works; the store-all peak
  // always does.
  int64_t low = 0;
  for (int v = 0; v < graph.size(); ++v)
    low = std::max(low, graph.getComputeFootprint(v));
  int64_t high = simulate(graph, storeAllSchedule(graph)).peak;
  std::vector<Event> schedule;
  while (low < high) {
    int64_t mid = low + (high - low) / 2;
    ExactResult r = exactSchedule(graph, mid, schedule, maxStates);
    if (r == ExactResult::tooLarge)
      return -1;
    if (r == ExactResult::optimal)
      high = mid;
    else
      low = mid + 1;
  }
  return high;
}
