//===- Revolve.h - optimal checkpointing of loops ---------------*- C++ -*-===//
//
// Binomial checkpointing (Griewank's revolve) for the adjoint of a loop of
// l steps x_{i+1} = f(x_i) with c snapshot slots, one of which holds x_0.
// Reversing step i needs x_i; a snapshot is a stored state, anything else is
// recomputed by forward steps from the nearest snapshot before it. No MLIR:
// the remat pass maps a schedule onto a loop.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_REMAT_REVOLVE_H
#define TAD_REMAT_REVOLVE_H

#include <cstdint>
#include <vector>

namespace tad::remat {

/// binom(n, k), saturating at INT64_MAX.
int64_t binomial(int64_t n, int64_t k);

/// Griewank's optimum t(l, c): the fewest forward steps that reverse
/// l = `steps` steps with c = `snapshots` slots, the adjoint steps not
/// counted. With r the smallest integer such that binom(c + r, c) >= l,
/// t(l, c) = r l - binom(c + r, c + 1) (and 0 for l <= 1). Requires
/// steps >= 0 and snapshots >= 1.
int64_t optimalForwardSteps(int64_t steps, int64_t snapshots);

/// The same optimum by dynamic programming over split points, independent
/// of the closed form (the unit tests compare the two).
int64_t optimalForwardStepsByDP(int64_t steps, int64_t snapshots);

/// One action of a schedule.
struct RevolveAction {
  enum Kind {
    store,   // copy the current state x_i into snapshot slot `slot`
    restore, // make x_i the current state from snapshot slot `slot`
    advance, // compute x_{i+1} from the current state x_i (a forward step)
    reverse, // run the adjoint of step i (needs the current state x_i)
    free     // release snapshot slot `slot`
  } kind;
  int64_t step; // i: the state index the action concerns
  int64_t slot; // for store, restore and free
};

/// The smallest r with binom(c + r, c) >= l (0 for l <= 1): the number of
/// times revolve runs the most-repeated step of l steps with c slots, and
/// the bound of the loop that the compiled schedule (AutoDiff's
/// reverseRevolve) runs to find it again, since no subproblem of the
/// schedule needs a larger one.
int64_t revolveRepetitions(int64_t steps, int64_t snapshots);

/// An optimal first split of l >= 2 steps with c >= 2 slots: advance m
/// steps, store x_m, reverse the last l - m steps with c - 1 slots, then
/// the first m with c. t(l, c) is convex and piecewise linear in l with
/// slope r on (binom(c + r - 1, c), binom(c + r, c)], so the dynamic
/// program's minimum over m fills the two parts slope by slope; with
/// r = revolveRepetitions(l, c), the first part takes binom(c + r - 2, c)
/// and the largest share of the remainder l - binom(c + r - 1, c) that its
/// slope-r piece, binom(c + r - 2, c - 1) long, holds. O(min(c, r) log r)
/// time here; the compiled schedule searches r in O(r) index steps.
int64_t revolveSplit(int64_t steps, int64_t snapshots);

/// The state of an optimal schedule that is computed step by step in O(c)
/// memory, with no table (`free` actions are reported, for
/// checkRevolveSchedule, but the compiled code needs none): the compiled code runs the same machine
/// (AutoDiff's reverseRevolve), so this is its specification. Slot k holds
/// the k-th state of a stack of snapshots, x_0 at the bottom; each action
/// is one of store (push the current state), restore (from the top slot),
/// advance or reverse; a reverse of the top snapshot's own step pops it.
struct RevolveMachine {
  RevolveMachine(int64_t steps, int64_t snapshots);
  /// The next action and its effect on the state; `free` follows the
  /// reverse that pops a slot. Call only while !done().
  RevolveAction next();
  bool done() const { return nextReverse < 0; }

  int64_t snapshots;
  int64_t current = 0; // the current state's step, -1 when there is none
  int64_t nextReverse; // e: the step to reverse next
  int64_t target = 0;  // where the current run of advances stops
  std::vector<int64_t> stack = {0}; // the step each slot holds; x_0 in 0
  bool pendingFree = false;

private:
  /// Where to stop advancing from the top snapshot's step `p` with `c`
  /// slots left: the split point, or e when c == 1.
  int64_t targetFrom(int64_t p, int64_t c) const;
};

/// An optimal schedule: the action list, whose forward steps number
/// optimalForwardSteps(steps, snapshots) and which never holds more than
/// `snapshots` snapshots. x_0 starts in slot 0 and is the current state.
/// The actions of RevolveMachine; O(t(l, c)) time and memory.
std::vector<RevolveAction> makeRevolveSchedule(int64_t steps,
                                               int64_t snapshots);

/// The steps whose states revolve's first sweep (from x_0 to the first
/// reverse, which is of step l - 1) stores, in slots 1, 2, ... in order.
/// O(c) splits.
std::vector<int64_t> revolveFirstSweepStores(int64_t steps, int64_t snapshots);

/// How many actions of each kind RevolveMachine runs after its first sweep
/// (which the forward loop runs itself), frees not counted; saturating at
/// INT64_MAX. Computed by a recursion over (steps, slots) subproblems,
/// memoized, in time that grows with c and r, not with l.
struct RevolveCounts {
  int64_t stores = 0, restores = 0, advances = 0, reverses = 0;
  int64_t total() const;
};
RevolveCounts countRevolveActions(int64_t steps, int64_t snapshots);

/// Replays a schedule on a loop of `steps` steps and checks it: every
/// reverse(i) happens with x_i current, in the order l-1, ..., 0; at most
/// `snapshots` slots are used. Returns the number of forward steps, or -1
/// when the schedule is invalid.
int64_t checkRevolveSchedule(const std::vector<RevolveAction> &schedule,
                             int64_t steps, int64_t snapshots);

} // namespace tad::remat

#endif // TAD_REMAT_REVOLVE_H
