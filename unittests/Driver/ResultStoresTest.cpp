//===- ResultStoresTest.cpp - results stored where they are made ---------===//

#include "tad/Driver/ResultStores.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

namespace {

std::string transform(const char *text) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  if (!module)
    return "";
  tad::driver::storeResultsEarly(*module);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  EXPECT_FALSE(llvm::verifyModule(*module, &os)) << errors;
  std::string printed;
  llvm::raw_string_ostream out(printed);
  module->getFunction("_mlir_ciface_f")->print(out);
  return printed;
}

/// The instructions of `printed` in order, without their names' noise.
std::vector<std::string> lines(const std::string &printed) {
  std::vector<std::string> result;
  std::string line;
  for (char c : printed) {
    if (c != '\n') {
      line += c;
      continue;
    }
    if (line.rfind("  ", 0) == 0)
      result.push_back(line.substr(2));
    line.clear();
  }
  return result;
}

size_t position(const std::vector<std::string> &body, const std::string &s) {
  for (size_t i = 0; i < body.size(); ++i)
    if (body[i].find(s) != std::string::npos)
      return i;
  ADD_FAILURE() << "no line with " << s;
  return body.size();
}

// Two results: each one's stores move up to just after its allocation, the
// constant store with the pointer store before it; the calls stay in order.
const char *kTwoResults = R"(
declare ptr @alloc(i64)
declare void @work(ptr)
define void @_mlir_ciface_f(ptr noalias %out) {
  %a = call ptr @alloc(i64 16)
  call void @work(ptr %a)
  %b = call ptr @alloc(i64 16)
  call void @work(ptr %b)
  call void @work(ptr %a)
  store ptr %a, ptr %out
  %a.size = getelementptr inbounds i8, ptr %out, i64 8
  store i64 4, ptr %a.size
  %b.ptr = getelementptr inbounds i8, ptr %out, i64 16
  store ptr %b, ptr %b.ptr
  %b.size = getelementptr inbounds i8, ptr %out, i64 24
  store i64 4, ptr %b.size
  ret void
}
)";

TEST(ResultStores, MovesEachStoreAfterWhatItStores) {
  std::vector<std::string> body = lines(transform(kTwoResults));
  size_t allocA = position(body, "%a = call"), allocB = position(body, "%b = call");
  size_t storeA = position(body, "store ptr %a"),
         sizeA = position(body, "store i64 4, ptr %a.size"),
         storeB = position(body, "store ptr %b"),
         sizeB = position(body, "store i64 4, ptr %b.size");
  EXPECT_EQ(storeA, allocA + 1);
  EXPECT_LT(sizeA, position(body, "call void @work(ptr %a)"));
  EXPECT_LT(storeA, sizeA);
  EXPECT_GT(storeB, allocB);
  EXPECT_LT(storeB, position(body, "call void @work(ptr %b)"));
  EXPECT_LT(storeB, sizeB);
  EXPECT_LT(sizeB, position(body, "call void @work(ptr %b)"));
}

// Without noalias on the result pointer, nothing moves.
TEST(ResultStores, NeedsNoalias) {
  std::string text = kTwoResults;
  text.replace(text.find("ptr noalias %out"), 16, "ptr %out");
  std::vector<std::string> body = lines(transform(text.c_str()));
  EXPECT_GT(position(body, "store ptr %a"), position(body, "%b = call"));
}

// A load of the result memory, or two stores to the same bytes: nothing
// moves.
TEST(ResultStores, LeavesOtherUsesAlone) {
  std::string text = kTwoResults;
  text.replace(text.find("  ret void"), 0, "  %r = load i64, ptr %out\n");
  std::vector<std::string> body = lines(transform(text.c_str()));
  EXPECT_GT(position(body, "store ptr %a"), position(body, "%b = call"));

  text = kTwoResults;
  text.replace(text.find("i64 24"), 6, "i64 16");
  body = lines(transform(text.c_str()));
  EXPECT_GT(position(body, "store ptr %a"), position(body, "%b = call"));
}

} // namespace
