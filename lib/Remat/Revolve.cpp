//===- Revolve.cpp - optimal checkpointing of loops -----------------------===//
//
// The closed form of Griewank and Walther (ACM TOMS 26(1), Algorithm 799),
// a dynamic program over the first split point that finds the same optimum
// independently (tests only: it is quadratic in the steps), and the
// schedule as a machine that computes each action from O(c) state, with
// the split point in closed form.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/Revolve.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <optional>

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

/// F(l, c) by dynamic programming over the first split, memoized.
class RevolveTable {
public:
  explicit RevolveTable(int64_t maxSteps, int64_t maxSnapshots)
      : steps(maxSteps), cost((maxSteps + 1) * (maxSnapshots + 1), -1) {}

  int64_t get(int64_t l, int64_t c) {
    if (l <= 1)
      return 0;
    if (c == 1)
      return l * (l - 1) / 2;
    int64_t &slot = cost[index(l, c)];
    if (slot >= 0)
      return slot;
    int64_t best = std::numeric_limits<int64_t>::max();
    for (int64_t m = 1; m < l; ++m)
      // Advance m steps and store x_m; reverse the last l - m steps with
      // one slot fewer; then the first m steps with all slots.
      best = std::min(best, m + get(l - m, c - 1) + get(m, c));
    return slot = best;
  }

private:
  size_t index(int64_t l, int64_t c) const { return size_t(c * (steps + 1) + l); }
  int64_t steps;
  std::vector<int64_t> cost;
};

} // namespace

int64_t tad::remat::optimalForwardStepsByDP(int64_t steps, int64_t snapshots) {
  assert(steps >= 0 && snapshots >= 1 && "invalid revolve problem");
  RevolveTable table(steps, snapshots);
  return table.get(steps, snapshots);
}

int64_t tad::remat::revolveRepetitions(int64_t steps, int64_t snapshots) {
  assert(snapshots >= 1 && "invalid revolve problem");
  if (steps <= 1)
    return 0;
  // binom(c + r, c) grows with r: double an upper bound, then bisect. Each
  // binomial costs O(min(c, r)), so few slots and many steps (r near
  // sqrt(2 l) with two slots) stay cheap.
  auto enough = [&](int64_t r) {
    return binomial(snapshots + r, snapshots) >= steps;
  };
  int64_t high = 1;
  while (!enough(high))
    high *= 2;
  int64_t low = high / 2; // not enough (or 0)
  while (high - low > 1) {
    int64_t mid = low + (high - low) / 2;
    (enough(mid) ? high : low) = mid;
  }
  return high;
}

int64_t tad::remat::revolveSplit(int64_t steps, int64_t snapshots) {
  assert(steps >= 2 && snapshots >= 2 && "a split needs two steps and slots");
  int64_t c = snapshots, r = revolveRepetitions(steps, c);
  // binom(c + r - 1, c) and binom(c + r - 2, c) from binom(c + r, c), as
  // the compiled schedule computes them.
  __int128 full = binomial(c + r, c);
  __int128 below = full * r / (c + r);            // binom(c + r - 1, c)
  __int128 first = below * (r - 1) / (c + r - 1); // binom(c + r - 2, c)
  __int128 capacity = below - first;              // binom(c + r - 2, c - 1)
  __int128 remainder = steps - below;
  return int64_t(first + std::min(remainder, capacity));
}

RevolveMachine::RevolveMachine(int64_t steps, int64_t snapshots)
    : snapshots(snapshots), nextReverse(steps - 1) {
  assert(steps >= 0 && snapshots >= 1 && "invalid revolve problem");
  target = targetFrom(0, snapshots);
}

int64_t RevolveMachine::targetFrom(int64_t p, int64_t c) const {
  int64_t length = nextReverse - p + 1;
  if (length <= 1 || c <= 1)
    return nextReverse;
  return p + revolveSplit(length, c);
}

RevolveAction RevolveMachine::next() {
  assert(!done() && "the schedule is over");
  if (pendingFree) {
    pendingFree = false;
    // The slot and step of the snapshot that the last reverse popped.
    return {RevolveAction::free, nextReverse + 1, int64_t(stack.size())};
  }
  int64_t top = int64_t(stack.size()) - 1;
  if (current == nextReverse) {
    RevolveAction action{RevolveAction::reverse, nextReverse, -1};
    --nextReverse;
    current = -1;
    // Reversing the top snapshot's own step pops it (x_0 stays).
    if (top > 0 && stack.back() > nextReverse) {
      stack.pop_back();
      pendingFree = true;
    }
    return action;
  }
  if (current < 0) {
    current = stack.back();
    target = targetFrom(current, snapshots - top);
    return {RevolveAction::restore, current, top};
  }
  if (current == target) {
    stack.push_back(current);
    target = targetFrom(current, snapshots - top - 1);
    return {RevolveAction::store, current, top + 1};
  }
  return {RevolveAction::advance, current++, -1};
}

std::vector<RevolveAction> tad::remat::makeRevolveSchedule(int64_t steps,
                                                           int64_t snapshots) {
  RevolveMachine machine(steps, snapshots);
  std::vector<RevolveAction> actions;
  while (!machine.done() || machine.pendingFree)
    actions.push_back(machine.next());
  return actions;
}

std::vector<int64_t> tad::remat::revolveFirstSweepStores(int64_t steps,
                                                         int64_t snapshots) {
  std::vector<int64_t> stores;
  int64_t p = 0;
  for (int64_t k = 0;; ++k) {
    int64_t length = steps - p, c = snapshots - k;
    if (length <= 1 || c <= 1)
      return stores;
    p += revolveSplit(length, c);
    if (p == steps - 1)
      return stores; // reversed at once: the machine does not store it
    stores.push_back(p);
  }
}

static int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum)
             ? std::numeric_limits<int64_t>::max()
             : sum;
}

int64_t RevolveCounts::total() const {
  return saturatingAdd(saturatingAdd(stores, restores),
                       saturatingAdd(advances, reverses));
}

namespace {
/// The actions that reverse a segment of `length` steps whose first state
/// is current and stored on top of the stack, with `c` slots from that one
/// up, until the reverse of its first step (RevolveMachine's order). A
/// segment of two steps or more with two slots or more splits at m into
/// its last part (length - m steps, c - 1 slots) and its first (m, c).
/// Iterative, with an explicit stack: the subproblems nest r deep for each
/// slot (tens of thousands with two slots and 10^9 steps).
struct SegmentCounter {
  using Key = std::pair<int64_t, int64_t>;
  std::map<Key, RevolveCounts> memo;

  /// The counts of a segment that does not split, or nullopt.
  static std::optional<RevolveCounts> leaf(int64_t length, int64_t c) {
    RevolveCounts counts;
    if (length <= 0)
      return counts;
    if (length == 1) {
      counts.reverses = 1;
      return counts;
    }
    if (c > 1)
      return std::nullopt;
    // One slot: advance to each step from the first, in turn.
    __int128 advances = __int128(length) * (length - 1) / 2;
    counts.advances = advances > std::numeric_limits<int64_t>::max()
                          ? std::numeric_limits<int64_t>::max()
                          : int64_t(advances);
    counts.restores = length - 1;
    counts.reverses = length;
    return counts;
  }

  std::optional<RevolveCounts> known(Key key) const {
    if (std::optional<RevolveCounts> counts = leaf(key.first, key.second))
      return counts;
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
    return std::nullopt;
  }

  RevolveCounts count(int64_t length, int64_t c) {
    std::vector<Key> stack = {{length, c}};
    while (!stack.empty()) {
      auto [l, slots] = stack.back();
      if (known(stack.back())) {
        stack.pop_back();
        continue;
      }
      int64_t m = revolveSplit(l, slots);
      Key lastKey{l - m, slots - 1}, firstKey{m, slots};
      std::optional<RevolveCounts> last = known(lastKey),
                                   first = known(firstKey);
      if (!last || !first) {
        if (!last)
          stack.push_back(lastKey);
        if (!first)
          stack.push_back(firstKey);
        continue;
      }
      RevolveCounts counts;
      counts.advances =
          saturatingAdd(m, saturatingAdd(last->advances, first->advances));
      // A last part of one step is reversed at once, not stored.
      counts.stores = saturatingAdd(l - m > 1,
                                    saturatingAdd(last->stores, first->stores));
      counts.restores =
          saturatingAdd(1, saturatingAdd(last->restores, first->restores));
      counts.reverses = saturatingAdd(last->reverses, first->reverses);
      memo[stack.back()] = counts;
      stack.pop_back();
    }
    return *known({length, c});
  }
};
} // namespace

RevolveCounts tad::remat::countRevolveActions(int64_t steps,
                                              int64_t snapshots) {
  assert(steps >= 0 && snapshots >= 1 && "invalid revolve problem");
  SegmentCounter counter;
  RevolveCounts counts = counter.count(steps, snapshots);
  if (steps > 0) {
    // The forward loop's own sweep: l - 1 advances and its stores.
    counts.advances -= steps - 1;
    counts.stores -= int64_t(revolveFirstSweepStores(steps, snapshots).size());
  }
  return counts;
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
