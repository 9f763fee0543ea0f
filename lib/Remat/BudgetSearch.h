//===- BudgetSearch.h - searching the smallest budget that fits -*- C++ -*-===//
//
// On a large graph each budget that the search for the smallest one tries
// is a whole solve (a fraction of a second at 10,000 dense nodes), and
// each depends on the answer before it. With a second core the search asks
// ahead: beside each budget, the one it will try next if that one fits.
// It then tries the same budgets in the same order as alone, so the answer
// does not depend on the cores, only the time does.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_REMAT_BUDGETSEARCH_H
#define TAD_LIB_REMAT_BUDGETSEARCH_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

namespace tad::remat {

/// A search's question: whether `budget` fits, where `next` is the budget
/// the search tries next if it does (none when it stops there).
using AskFits =
    llvm::function_ref<bool(int64_t budget, std::optional<int64_t> next)>;

/// smallestFittingBudget's bisection, asking `fits`.
int64_t bisectBudgets(int64_t low, int64_t high, AskFits fits, int64_t slack);

/// smallestFittingBudgetFromAbove's search, asking `fits`.
int64_t descendBudgets(int64_t low, int64_t high, AskFits fits, int64_t slack);

/// Answers a search's questions (AskFits) with `fits`: on this thread, and
/// with `ahead`, the question's `next` at once on a second thread, kept
/// for when the search asks it. Where the budget asked fails, the search
/// will not ask `next`, and its answer is cut short: `fits(budget,
/// aside)` is asked with `aside` null for the budget asked, which stops
/// with the caller (`stop`), and with a flag for the one asked ahead, which
/// it gives up at once that flag is set (the answer is then not used).
class AskingAhead {
public:
  using Fits =
      std::function<bool(int64_t budget, const std::atomic<bool> *aside)>;
  AskingAhead(Fits fits, const std::atomic<bool> *stop, bool ahead)
      : fits(std::move(fits)), stop(stop), ahead(ahead) {}

  bool operator()(int64_t budget, std::optional<int64_t> next);

private:
  Fits fits;
  const std::atomic<bool> *stop;
  bool ahead;
  /// The answers that came from asking ahead, by budget.
  std::map<int64_t, bool> known;
};

} // namespace tad::remat

#endif // TAD_LIB_REMAT_BUDGETSEARCH_H
