//===- Options.cpp - typed option values of tad's passes ------------------===//

#include "tad/Transforms/Options.h"

#include "tad/Remat/ByteSize.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

bool tad::parseOverhead(llvm::StringRef text, double &percent,
                        std::string &error) {
  llvm::StringRef trimmed = text.trim();
  // NaN fails the range test too.
  if (!trimmed.consume_back("%") || trimmed.trim().getAsDouble(percent) ||
      !(percent >= 0) || percent > 1e6) {
    error = "expected a recompute overhead of 0% or more, such as 1%, got '" +
            text.trim().str() + "'";
    return false;
  }
  return true;
}

bool tad::parseBudget(llvm::StringRef text, Budget &budget,
                      std::string &error) {
  llvm::StringRef trimmed = text.trim();
  if (trimmed == "store-all") {
    budget = Budget::storeAll();
    return true;
  }
  if (trimmed.consume_front("overhead:")) {
    double percent = 0;
    if (!parseOverhead(trimmed, percent, error))
      return false;
    budget = Budget::overhead(percent);
    return true;
  }
  if (trimmed.consume_back("%")) {
    double percent = 0;
    // NaN fails the range test too.
    if (trimmed.trim().getAsDouble(percent) || !(percent > 0) ||
        percent > 1e6) {
      error = "expected a share of the store-all peak above 0, such as 60%, "
              "got '" +
              text.trim().str() + "'";
      return false;
    }
    budget = Budget::share(percent);
    return true;
  }
  int64_t bytes = 0;
  if (!tad::remat::parseByteSize(std::string_view(text.data(), text.size()),
                                 bytes, error)) {
    // Not even a number: any of the kinds was meant.
    if (!trimmed.empty() && !llvm::isDigit(trimmed.front()) &&
        trimmed.front() != '.')
      error = "expected a budget: bytes such as 65536 or 64KiB, a share of "
              "the store-all peak such as 60%, store-all, or overhead:1%; "
              "got '" +
              text.str() + "'";
    return false;
  }
  budget = Budget::ofBytes(bytes);
  return true;
}

std::string tad::Budget::str() const {
  std::string text;
  llvm::raw_string_ostream(text) << *this;
  return text;
}

llvm::raw_ostream &tad::operator<<(llvm::raw_ostream &os,
                                   const Budget &budget) {
  switch (budget.kind) {
  case Budget::Kind::none:
    return os;
  case Budget::Kind::bytes:
    return os << budget.bytes;
  case Budget::Kind::share:
    return os << llvm::format("%.15g%%", budget.percent);
  case Budget::Kind::storeAll:
    return os << "store-all";
  case Budget::Kind::overhead:
    return os << llvm::format("overhead:%.15g%%", budget.percent);
  }
  llvm_unreachable("a budget of no kind");
}

llvm::cl::ValuesClass tad::getRematPolicyValues() {
  return llvm::cl::values(
      clEnumValN(RematPolicy::automatic, "auto", "the solver decides"),
      clEnumValN(RematPolicy::saveAll, "save-all",
                 "nothing; the budget must hold store-all"),
      clEnumValN(RematPolicy::saveMatmuls, "save-matmuls",
                 "anything but a matmul"));
}

llvm::cl::ValuesClass tad::getReportStreamValues() {
  return llvm::cl::values(
      clEnumValN(ReportStream::none, "none", "nowhere"),
      clEnumValN(ReportStream::standardOutput, "stdout", "on standard output"),
      clEnumValN(ReportStream::standardError, "stderr", "on standard error"));
}

bool llvm::cl::parser<tad::Budget>::parse(Option &option, StringRef,
                                          StringRef arg, tad::Budget &value) {
  std::string error;
  if (tad::parseBudget(arg, value, error))
    return false;
  return option.error(error);
}

void llvm::cl::parser<tad::Budget>::printOptionDiff(const Option &option,
                                                    const tad::Budget &value,
                                                    const OptVal &,
                                                    size_t globalWidth) const {
  printOptionName(option, globalWidth);
  outs() << "= " << value << "\n";
}
