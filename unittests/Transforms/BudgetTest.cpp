//===- BudgetTest.cpp - budgets as the passes and tadc take them ----------===//

#include "tad/Transforms/Options.h"

#include <gtest/gtest.h>

using tad::Budget;

namespace {

Budget parse(llvm::StringRef text, std::string *error = nullptr) {
  Budget budget;
  std::string message;
  bool parsed = tad::parseBudget(text, budget, message);
  EXPECT_EQ(parsed, message.empty()) << text.str();
  if (error)
    *error = message;
  return budget;
}

TEST(BudgetTest, ParsesEachKindOnce) {
  EXPECT_EQ(parse("65536"), Budget::ofBytes(65536));
  EXPECT_EQ(parse("64KiB"), Budget::ofBytes(65536));
  EXPECT_EQ(parse("1.5 MiB"), Budget::ofBytes(1572864));
  EXPECT_EQ(parse("60%"), Budget::share(60));
  EXPECT_EQ(parse("12.5 %"), Budget::share(12.5));
  EXPECT_EQ(parse("store-all"), Budget::storeAll());
  EXPECT_EQ(parse("overhead:1%"), Budget::overhead(1));
  EXPECT_EQ(parse("overhead: 0 %"), Budget::overhead(0));
  EXPECT_FALSE(Budget().isSet());
}

TEST(BudgetTest, PrintsWhatParsesBack) {
  for (const char *text : {"65536", "60%", "12.5%", "100.5%", "store-all",
                           "overhead:0%", "overhead:2.5%"}) {
    Budget budget = parse(text);
    EXPECT_EQ(budget.str(), text);
    EXPECT_EQ(parse(budget.str()), budget);
  }
  EXPECT_EQ(Budget().str(), "");
}

TEST(BudgetTest, RejectsWithAReason) {
  struct Case {
    const char *text, *error;
  } cases[] = {
      {"", "expected a number of bytes"},
      {"0%", "expected a share of the store-all peak above 0"},
      {"lots%", "expected a share of the store-all peak above 0"},
      {"-5%", "expected a share of the store-all peak above 0"},
      {"lots", "expected a budget: bytes such as 65536 or 64KiB, a share of "
               "the store-all peak such as 60%, store-all, or overhead:1%; "
               "got 'lots'"},
      {"store", "or overhead:1%; got 'store'"},
      {"-5", "or overhead:1%; got '-5'"},
      {"overhead:", "expected a recompute overhead of 0% or more"},
      {"overhead:-1%", "expected a recompute overhead of 0% or more"},
      {"overhead:2", "expected a recompute overhead of 0% or more, such as "
                     "1%, got '2'"},
      {"5 parsecs", "unknown unit"},
  };
  for (const Case &c : cases) {
    std::string error;
    Budget budget = parse(c.text, &error);
    EXPECT_NE(error.find(c.error), std::string::npos)
        << c.text << ": " << error;
    EXPECT_FALSE(budget.isSet()) << c.text;
  }
}

} // namespace
