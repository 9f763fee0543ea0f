//===- Exact.h - optimal schedules of small graphs --------------*- C++ -*-===//
//
// The exact mode of the remat solver: a shortest-path search over the
// states (resident set, computed-once set) of a small graph, which finds a
// schedule of least total compute cost whose peak stays within the budget.
// It is the oracle that the fast solver is measured against.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_REMAT_EXACT_H
#define TAD_REMAT_EXACT_H

#include "tad/Remat/Graph.h"

#include <limits>

namespace tad::remat {

/// The largest graph the exact search accepts.
constexpr int kMaxExactNodes = 20;

enum class ExactResult { optimal, infeasible, tooLarge };

/// Finds a least-cost schedule of `graph` whose peak is at most `budget`.
/// Gives up (tooLarge) when the graph has more than kMaxExactNodes nodes or
/// the search visits more than `maxStates` states. With `maxCost`, only
/// schedules that cost at most that are sought: the search never leaves
/// the states that can still reach one, and `infeasible` means that none
/// fits the budget within that cost.
ExactResult
exactSchedule(const Graph &graph, int64_t budget, std::vector<Event> &schedule,
              int64_t maxStates = 4'000'000,
              double maxCost = std::numeric_limits<double>::infinity());

/// The smallest budget with a schedule (by bisection over exactSchedule),
/// or -1 when the graph is too large for the exact search.
int64_t exactMinimumBudget(const Graph &graph,
                           int64_t maxStates = 4'000'000);

} // namespace tad::remat

#endif // TAD_REMAT_EXACT_H
