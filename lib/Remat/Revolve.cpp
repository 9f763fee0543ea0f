//===- Revolve.cpp - optimal checkpointing of loops -----------------------===//
//
// The closed form of Griewank and Walther (ACM TOMS 26(1), Algorithm 799),
// a dynamic program over the first split point that finds the same optimum
// independently, and the schedule that the dynamic program's choices give.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/Revolve.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>

using namespace tad::remat;

int64_t tad::remat::binomial(int64_t n, int64_t k) {
  if (k < 0 || n < 0 || k > n)
    return 0;
  k = std::min(k, n - k);
  __int128 result = 1;
  for (int64_t i = 1; i <= k; ++i) {
    result = result * (n - k + i) / i;
    if (result > std::numeric_limits<int64_t>::max())
      return std::numeric_limits<int64_t>::max();
  }
  return int64_t(result);
}

int64_t tad::remat::optimalForwardSteps(int64_t steps, int64_t snapshots) {
  assert(steps >= 0 && snapshots >= 1 && "invalid revolve problem");
  if (steps <= 1)
    return 0;
  int64_t r = 1;
  while (binomial(snapshots + r, snapshots) < steps)
    ++r;
  return r * steps - binomial(snapshots + r, snapshots + 1);
}

namespace {

/// F(l, c) and the first split point that achieves it, memoized.
class RevolveTable {
public:
  explicit RevolveTable(int64_t maxSteps, int64_t maxSnapshots)
      : steps(maxSteps), cost((maxSteps + 1) * (maxSnapshots + 1), -1),
        split((maxSteps + 1) * (maxSnapshots + 1), 0) {}

  int64_t get(int64_t l, int64_t c) {
    if (l <= 1)
      return 0;
    if (c == 1)
      return l * (l - 1) / 2;
    int64_t &slot = cost[index(l, c)];
    if (slot >= 0)
      return slot;
    int64_t best = std::numeric_limits<int64_t>::max(), bestSplit = 1;
    for (int64_t m = 1; m < l; ++m) {
      // Advance m steps and store x_m; reverse the last l - m steps with
      // one slot fewer; then the first m steps with all slots.
      int64_t total = m + get(l - m, c - 1) + get(m, c);
      if (total < best) {
        best = total;
        bestSplit = m;
      }
    }
    split[index(l, c)] = bestSplit;
    return slot = best;
  }

  int64_t getSplit(int64_t l, int64_t c) {
    get(l, c);
    return split[index(l, c)];
  }

private:
  size_t index(int64_t l, int64_t c) const { return size_t(c * (steps + 1) + l); }
  int64_t steps;
  std::vector<int64_t> cost, split;
};

struct ScheduleBuilder {
  RevolveTable &table;
  std::vector<RevolveAction> actions;
  std::vector<int64_t> freeSlots;

  /// Reverses steps a+l-1, ..., a, with x_a stored in `slot` and `c` slots
  /// (that one included) available.
  void solve(int64_t a, int64_t l, int64_t c, int64_t slot) {
    if (l == 0)
      return;
    if (l == 1) {
      actions.push_back({RevolveAction::restore, a, slot});
      actions.push_back({RevolveAction::reverse, a, -1});
      return;
    }
    if (c == 1) {
      for (int64_t i = l - 1; i >= 0; --i) {
        actions.push_back({RevolveAction::restore, a, slot});
        for (int64_t k = 0; k < i; ++k)
          actions.push_back({RevolveAction::advance, a + k, -1});
        actions.push_back({RevolveAction::reverse, a + i, -1});
      }
      return;
    }
    int64_t m = table.getSplit(l, c);
    actions.push_back({RevolveAction::restore, a, slot});
    for (int64_t k = 0; k < m; ++k)
      actions.push_back({RevolveAction::advance, a + k, -1});
    int64_t stored = freeSlots.back();
    freeSlots.pop_back();
    actions.push_back({RevolveAction::store, a + m, stored});
    solve(a + m, l - m, c - 1, stored);
    actions.push_back({RevolveAction::free, a + m, stored});
    freeSlots.push_back(stored);
    solve(a, m, c, slot);
  }
};

} // namespace

int64_t tad::remat::optimalForwardStepsByDP(int64_t steps, int64_t snapshots) {
  assert(steps >= 0 && snapshots >= 1 && "invalid revolve problem");
  RevolveTable table(steps, snapshots);
  return table.get(steps, snapshots);
}

std::vector<RevolveAction> tad::remat::makeRevolveSchedule(int64_t steps,
                                                           int64_t snapshots) {
  assert(steps >= 0 && snapshots >= 1 && "invalid revolve problem");
  RevolveTable table(steps, snapshots);
  ScheduleBuilder builder{table, {}, {}};
  for (int64_t s = snapshots - 1; s >= 1; --s)
    builder.freeSlots.push_back(s);
  builder.solve(0, steps, snapshots, /*slot=*/0);
  return builder.actions;
}

int64_t tad::remat::checkRevolveSchedule(
    const std::vector<RevolveAction> &schedule, int64_t steps,
    int64_t snapshots) {
  std::map<int64_t, int64_t> slots = {{0, 0}}; // slot -> state; x_0 in 0
  int64_t current = 0; // the current state's index, -1 when there is none
  int64_t nextReverse = steps - 1, forward = 0;
  for (const RevolveAction &action : schedule) {
    switch (action.kind) {
    case RevolveAction::store:
      if (current != action.step || slots.count(action.slot) ||
          action.slot < 0 || action.slot >= snapshots)
        return -1;
      slots[action.slot] = current;
      break;
    case RevolveAction::restore: {
      auto it = slots.find(action.slot);
      if (it == slots.end() || it->second != action.step)
        return -1;
      current = action.step;
      break;
    }
    case RevolveAction::advance:
      if (current != action.step || current + 1 >= steps)
        return -1;
      ++current;
      ++forward;
      break;
    case RevolveAction::reverse:
      if (current != action.step || action.step != nextReverse)
        return -1;
      --nextReverse;
      current = -1; // the adjoint step consumes the current state
      break;
    case RevolveAction::free:
      if (!slots.count(action.slot) || action.slot == 0)
        return -1;
      slots.erase(action.slot);
      break;
    }
    if (int64_t(slots.size()) > snapshots)
      return -1;
  }
  return nextReverse == -1 ? forward : -1;
}
