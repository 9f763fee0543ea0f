//===- Exact.cpp - optimal schedules of small graphs ----------------------===//
//
// A* over states (resident, computed): computing a node costs its compute
// cost and needs its inputs resident and room in the budget; freeing costs
// nothing. The goal is any state in which every node has been computed.
// Peaks are checked on every transition, so every path found is a valid
// schedule. The heuristic is the cost of the nodes not yet computed, which
// every schedule from the state pays at least once: it is consistent (a
// first compute moves its cost from the heuristic to the path, a
// recomputation only adds to the path), so the first goal reached is
// optimal. Most optimal schedules recompute little, so the search stays
// near the path of least recomputation instead of exploring every cheaper
// prefix as Dijkstra does.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/Exact.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <queue>

using namespace tad::remat;

namespace {

struct State {
  uint32_t resident, computed;
  uint64_t key() const { return (uint64_t(computed) << 32) | resident; }
};

struct Visit {
  double cost;
  uint64_t parent; // the previous state's key
  Event event;     // the event that led here
};

} // namespace

ExactResult tad::remat::exactSchedule(const Graph &graph, int64_t budget,
                                      std::vector<Event> &schedule,
                                      int64_t maxStates) {
  int n = graph.size();
  if (n > kMaxExactNodes)
    return ExactResult::tooLarge;
  std::vector<uint32_t> inputMask(n, 0);
  for (int v = 0; v < n; ++v)
    for (int i : graph.nodes[v].inputs)
      inputMask[v] |= 1u << i;
  uint32_t all = n == 32 ? ~0u : (1u << n) - 1;
  auto bytesOf = [&](uint32_t resident) {
    int64_t bytes = 0;
    for (int v = 0; v < n; ++v)
      if (resident & (1u << v))
        bytes += graph.nodes[v].bytes;
    return bytes;
  };

  auto remaining = [&](uint32_t computed) {
    double cost = 0;
    for (int v = 0; v < n; ++v)
      if (!(computed & (1u << v)))
        cost += graph.nodes[v].cost;
    return cost;
  };

  // (path cost + heuristic, state)
  using Item = std::pair<double, uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  // Keys are below 2^(2 kMaxExactNodes), never DenseMap's reserved ones.
  // The map holds its visits inline: no allocation per state.
  llvm::DenseMap<uint64_t, Visit> best;
  State start{0, 0};
  best[start.key()] = {0, start.key(), {Event::free, -1}};
  queue.push({remaining(0), start.key()});
  while (!queue.empty()) {
    auto [priority, key] = queue.top();
    queue.pop();
    State state{uint32_t(key), uint32_t(key >> 32)};
    double cost = best.find(key)->second.cost;
    double rest = remaining(state.computed);
    if (priority > cost + rest)
      continue; // a cheaper path to this state was found after this push
    if (state.computed == all) {
      schedule.clear();
      for (uint64_t k = key; k != start.key();) {
        const Visit &visit = best.find(k)->second;
        schedule.push_back(visit.event);
        k = visit.parent;
      }
      std::reverse(schedule.begin(), schedule.end());
      return ExactResult::optimal;
    }
    if (int64_t(best.size()) > maxStates)
      return ExactResult::tooLarge;
    int64_t bytes = bytesOf(state.resident);
    auto relax = [&](State next, double nextCost, Event event) {
      auto [it, fresh] = best.try_emplace(next.key(),
                                          Visit{nextCost, key, event});
      if (!fresh && it->second.cost <= nextCost)
        return;
      it->second = {nextCost, key, event};
      // Freeing and computing again leave `computed` as it is: its
      // remaining cost is this state's (the same sum, bit for bit).
      double nextRest = next.computed == state.computed
                            ? rest
                            : remaining(next.computed);
      queue.push({nextCost + nextRest, next.key()});
    };
    for (int v = 0; v < n; ++v) {
      uint32_t bit = 1u << v;
      if (state.resident & bit) {
        relax({state.resident & ~bit, state.computed}, cost,
              {Event::free, v});
      } else if ((state.resident & inputMask[v]) == inputMask[v] &&
                 (graph.nodes[v].recomputable || !(state.computed & bit)) &&
                 bytes + graph.nodes[v].bytes + graph.nodes[v].transient <=
                     budget) {
        relax({state.resident | bit, state.computed | bit},
              cost + graph.nodes[v].cost, {Event::compute, v});
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
