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

/// An optimal schedule: the action list, whose forward steps number
/// optimalForwardSteps(steps, snapshots) and which never holds more than
/// `snapshots` snapshots. x_0 starts in slot 0.
std::vector<RevolveAction> makeRevolveSchedule(int64_t steps,
                                               int64_t snapshots);

/// Replays a schedule on a loop of `steps` steps and checks it: every
/// reverse(i) happens with x_i current, in the order l-1, ..., 0; at most
/// `snapshots` slots are used. Returns the number of forward steps, or -1
/// when the schedule is invalid.
int64_t checkRevolveSchedule(const std::vector<RevolveAction> &schedule,
                             int64_t steps, int64_t snapshots);

} // namespace tad::remat

#endif // TAD_REMAT_REVOLVE_H
