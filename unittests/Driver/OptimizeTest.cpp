//===- OptimizeTest.cpp - wide functions' read-only parameters ------------===//

#include "tad/Driver/Optimize.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <string>

namespace {

/// A function `name` of `width` pointer parameters: %p0 is stored through,
/// %p1 passed to a call, %p2 unused, %p3 read by a volatile load and each
/// other one read by a load.
std::string function(const std::string &name, unsigned width) {
  std::string text = "declare void @use(ptr)\ndefine void @" + name + "(";
  for (unsigned i = 0; i < width; ++i)
    text += (i ? ", ptr %p" : "ptr %p") + std::to_string(i);
  text += ") {\n  store float 1.0, ptr %p0\n  call void @use(ptr %p1)\n"
          "  %v3 = load volatile float, ptr %p3\n";
  for (unsigned i = 4; i < width; ++i)
    text += "  %v" + std::to_string(i) + " = load float, ptr %p" +
            std::to_string(i) + "\n";
  return text + "  ret void\n}\n";
}

bool marked(const llvm::Function &f, unsigned i) {
  const llvm::Argument *arg = f.getArg(i);
  return arg->onlyReadsMemory() && arg->hasNoCaptureAttr();
}

TEST(OptimizeTest, WideFunctionsGetTheirLoadedPointersMarked) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(
      function("wide", tad::driver::kWideParameters), error, context);
  ASSERT_TRUE(module) << error.getMessage().str();
  llvm::Function &wide = *module->getFunction("wide");
  tad::driver::markReadOnlyParameters(wide);
  EXPECT_FALSE(marked(wide, 0)); // written
  EXPECT_FALSE(marked(wide, 1)); // may be captured
  EXPECT_FALSE(marked(wide, 2)); // unused: FunctionAttrs' to say
  EXPECT_FALSE(marked(wide, 3)); // volatile
  for (unsigned i = 4; i < tad::driver::kWideParameters; ++i)
    EXPECT_TRUE(marked(wide, i)) << "parameter " << i;
}

TEST(OptimizeTest, NarrowFunctionsAreLeftToFunctionAttrs) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(
      function("narrow", tad::driver::kWideParameters - 1), error, context);
  ASSERT_TRUE(module) << error.getMessage().str();
  llvm::Function &narrow = *module->getFunction("narrow");
  tad::driver::markReadOnlyParameters(narrow);
  for (unsigned i = 0; i < narrow.arg_size(); ++i)
    EXPECT_FALSE(marked(narrow, i)) << "parameter " << i;
}

} // namespace
