//===- BudgetSearch.cpp - searching the smallest budget that fits ---------===//

#include "BudgetSearch.h"

#include "tad/Remat/Solver.h"

#include <algorithm>
#include <thread>

using namespace tad::remat;

bool AskingAhead::operator()(int64_t budget, std::optional<int64_t> next) {
  if (auto it = known.find(budget); it != known.end())
    return it->second;
  if (!ahead || !next || known.count(*next))
    return fits(budget, nullptr);
  std::atomic<bool> cutShort{false};
  bool nextFits = false;
  std::thread side([&] { nextFits = fits(*next, &cutShort); });
  bool answer = fits(budget, nullptr);
  bool stopped = stop && stop->load(std::memory_order_relaxed);
  if (!answer || stopped)
    cutShort = true;
  side.join();
  if (!cutShort)
    known[*next] = nextFits;
  return answer;
}

/// The bisection's next budget in [l, h], if it tries one.
static std::optional<int64_t> bisectionNext(int64_t l, int64_t h,
                                            int64_t slack) {
  if (h - l > slack)
    return l + (h - l) / 2;
  return std::nullopt;
}

int64_t tad::remat::bisectBudgets(int64_t low, int64_t high, AskFits fits,
                                  int64_t slack) {
  int64_t l = low, h = high;
  // h is `high` or a budget that a probe found to fit, and l - 1 does not
  // fit (or is below `low`): with a slack, stopping early leaves h within
  // it of the bisection's answer. h is not tried again: on a large graph
  // each probe is a whole solve.
  while (h - l > slack) {
    int64_t mid = l + (h - l) / 2;
    if (fits(mid, bisectionNext(l, mid, slack)))
      h = mid;
    else
      l = mid + 1;
  }
  return h;
}

int64_t tad::remat::descendBudgets(int64_t low, int64_t high, AskFits fits,
                                   int64_t slack) {
  // Down from `high` in steps that double while budgets fit; the first
  // that fails bounds the bisection below.
  int64_t step = std::max<int64_t>(slack, 1);
  while (high - step >= low) {
    int64_t at = high - step;
    // If `at` fits: the next step down, twice as long, or else the
    // bisection below `at`.
    std::optional<int64_t> next = at - 2 * step >= low
                                      ? std::optional<int64_t>(at - 2 * step)
                                      : bisectionNext(low, at, slack);
    if (!fits(at, next)) {
      low = at + 1;
      break;
    }
    high = at;
    step *= 2;
  }
  return bisectBudgets(low, high, fits, slack);
}

/// `fits` as a search's question, asked alone.
static auto alone(const std::function<bool(int64_t)> &fits) {
  return
      [&fits](int64_t budget, std::optional<int64_t>) { return fits(budget); };
}

int64_t
tad::remat::smallestFittingBudget(int64_t low, int64_t high,
                                  const std::function<bool(int64_t)> &fits,
                                  int64_t slack) {
  return bisectBudgets(low, high, alone(fits), slack);
}

int64_t tad::remat::smallestFittingBudgetFromAbove(
    int64_t low, int64_t high, const std::function<bool(int64_t)> &fits,
    int64_t slack) {
  return descendBudgets(low, high, alone(fits), slack);
}

int64_t tad::remat::smallestFittingBudgetFromBelow(
    int64_t low, int64_t high, const std::function<bool(int64_t)> &fits,
    int64_t slack) {
  // Up from `low` in steps that double while budgets fail; the first that
  // fits bounds the bisection above.
  int64_t step = std::max<int64_t>(slack, 1);
  while (low + step < high) {
    if (fits(low + step)) {
      high = low + step;
      break;
    }
    low += step;
    step *= 2;
  }
  return smallestFittingBudget(std::min(low + 1, high), high, fits, slack);
}
