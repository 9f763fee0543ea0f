//===- BudgetSearchTest.cpp - the search asks ahead what it asks next -----===//

#include "BudgetSearch.h"

#include "gtest/gtest.h"

#include <mutex>
#include <vector>

using namespace tad::remat;

namespace {

struct Question {
  int64_t budget;
  std::optional<int64_t> next;
};

/// The budgets that `search` asks, alone, where budgets from `answer` up
/// fit.
template <typename Search>
std::vector<Question> asked(Search search, int64_t answer, int64_t &result) {
  std::vector<Question> questions;
  result = search([&](int64_t budget, std::optional<int64_t> next) {
    questions.push_back({budget, next});
    return budget >= answer;
  });
  return questions;
}

// Each question's `next` is the budget the search asks next where the
// budget fits, and nothing where it asks no more.
TEST(BudgetSearchTest, NextIsWhatTheSearchAsksNext) {
  for (int64_t slack : {0, 1, 10}) {
    for (int64_t answer : {0, 1, 7, 700, 4979, 4990, 4991, 4999, 5000}) {
      auto searches = {std::function<int64_t(AskFits)>([&](AskFits fits) {
                         return descendBudgets(0, 5000, fits, slack);
                       }),
                       std::function<int64_t(AskFits)>([&](AskFits fits) {
                         return bisectBudgets(0, 5000, fits, slack);
                       })};
      for (const auto &search : searches) {
        int64_t result = -1;
        std::vector<Question> questions = asked(search, answer, result);
        EXPECT_GE(result, answer);
        EXPECT_LE(result, answer + slack);
        for (size_t i = 0; i < questions.size(); ++i) {
          if (questions[i].budget < answer)
            continue;
          if (i + 1 < questions.size())
            EXPECT_EQ(questions[i].next, questions[i + 1].budget)
                << "slack " << slack << ", answer " << answer << ", at "
                << questions[i].budget;
          else
            EXPECT_FALSE(questions[i].next.has_value());
        }
      }
    }
  }
}

// Asking ahead, the search asks the same budgets in the same order, answers
// the same, and takes the budgets it asked ahead from memory.
TEST(BudgetSearchTest, AskingAheadAsksTheSame) {
  for (int64_t answer : {0, 7, 700, 4979, 4990, 5000}) {
    int64_t alone = -1;
    std::vector<Question> order =
        asked([&](AskFits fits) { return descendBudgets(0, 5000, fits, 10); },
              answer, alone);
    std::mutex mutex;
    std::vector<int64_t> onThisThread, aside, answered;
    AskingAhead ahead(
        [&](int64_t budget, const std::atomic<bool> *flag) {
          std::lock_guard<std::mutex> lock(mutex);
          (flag ? aside : onThisThread).push_back(budget);
          return budget >= answer;
        },
        nullptr, /*ahead=*/true);
    int64_t result = descendBudgets(
        0, 5000,
        [&](int64_t budget, std::optional<int64_t> next) {
          answered.push_back(budget);
          return ahead(budget, next);
        },
        10);
    EXPECT_EQ(result, alone);
    ASSERT_EQ(answered.size(), order.size());
    for (size_t i = 0; i < order.size(); ++i)
      EXPECT_EQ(answered[i], order[i].budget);
    // Every budget was asked once, on one thread or the other, except the
    // ones asked ahead of a budget that failed.
    EXPECT_LE(onThisThread.size() + aside.size(), order.size() + 1);
    if (answer > 4000) { // a few steps down from 5000: asked ahead
      EXPECT_FALSE(aside.empty());
    }
  }
}

} // namespace
