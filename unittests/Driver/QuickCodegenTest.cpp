//===- QuickCodegenTest.cpp - which functions go through -O0 codegen ------===//

#include "tad/Driver/QuickCodegen.h"
#include "tad/Driver/Optimize.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

/// A function `name` of `stores` stores to its pointer argument, inside a
/// loop when `loop` is set.
std::string function(const std::string &name, unsigned stores, bool loop,
                     const std::string &linkage = "internal ",
                     const std::string &attributes = "") {
  std::string text =
      "define " + linkage + "void @" + name + "(ptr %p) " + attributes + "{\n";
  text += loop ? "entry:\n  br label %body\nbody:\n" : "entry:\n";
  for (unsigned i = 0; i < stores; ++i) {
    std::string at = "%a" + std::to_string(i);
    text += "  " + at + " = getelementptr float, ptr %p, i64 " +
            std::to_string(i) + "\n  store float 1.0, ptr " + at + "\n";
  }
  text += loop ? "  br i1 true, label %body, label %exit\nexit:\n  ret void\n"
               : "  ret void\n";
  return text + "}\n";
}

bool quick(const llvm::Module &module, const char *name) {
  return module.getFunction(name)->hasFnAttribute(
      llvm::Attribute::OptimizeNone);
}

TEST(QuickCodegenTest, LongFunctionsWithoutLoops) {
  // Each store is two instructions.
  unsigned longStores = tad::driver::kLongFunctionInstructions / 2 + 1;
  std::string text =
      function("_mlir_ciface_long_entry", longStores, /*loop=*/true, "") +
      function("long_straight", longStores, /*loop=*/false) +
      function("long_loop", longStores, /*loop=*/true) +
      function("long_outlined", longStores, /*loop=*/false, "internal ",
               "noinline ") +
      function("short_straight", 10, /*loop=*/false) +
      function("_mlir_ciface_short_entry", 10, /*loop=*/false, "");
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, error, context);
  ASSERT_TRUE(module) << error.getMessage().str();
  tad::driver::generateLongEntriesQuickly(*module);
  // A long entry, with or without a loop, and any long function that runs
  // each instruction once.
  EXPECT_TRUE(quick(*module, "_mlir_ciface_long_entry"));
  EXPECT_TRUE(quick(*module, "long_straight"));
  // A loop's body may run many times: the optimizing code generator.
  EXPECT_FALSE(quick(*module, "long_loop"));
  // An outlined loop nest whose loops were unrolled: its caller may run it
  // many times.
  EXPECT_FALSE(quick(*module, "long_outlined"));
  EXPECT_FALSE(quick(*module, "short_straight"));
  EXPECT_FALSE(quick(*module, "_mlir_ciface_short_entry"));
  EXPECT_TRUE(module->getFunction("long_straight")
                  ->hasFnAttribute(llvm::Attribute::NoInline));
}

/// Which of `entries` short C interfaces without a loop are generated
/// quickly, in a module that also holds one with a loop (which must not
/// be) and a short function that is no interface (nor that one).
std::vector<bool> quickEntries(unsigned entries) {
  std::string text;
  for (unsigned i = 0; i < entries; ++i)
    text += function("_mlir_ciface_e" + std::to_string(i), 10,
                     /*loop=*/false, "");
  text += function("_mlir_ciface_looping", 10, /*loop=*/true, "") +
          function("short_straight", 10, /*loop=*/false);
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  if (!module)
    return {};
  tad::driver::markManyEntries(*module);
  tad::driver::generateLongEntriesQuickly(*module);
  // An entry's loop may run many times; a function that is no interface
  // is as it was.
  EXPECT_FALSE(quick(*module, "_mlir_ciface_looping"));
  EXPECT_FALSE(quick(*module, "short_straight"));
  std::vector<bool> quickly;
  for (unsigned i = 0; i < entries; ++i)
    quickly.push_back(
        quick(*module, ("_mlir_ciface_e" + std::to_string(i)).c_str()));
  return quickly;
}

TEST(QuickCodegenTest, ManyEntriesWithoutLoops) {
  // With the one that loops, kManyEntries interfaces.
  std::vector<bool> many = quickEntries(tad::driver::kManyEntries - 1);
  EXPECT_EQ(many, std::vector<bool>(tad::driver::kManyEntries - 1, true));
  // One fewer: none.
  std::vector<bool> few = quickEntries(tad::driver::kManyEntries - 2);
  EXPECT_EQ(few, std::vector<bool>(tad::driver::kManyEntries - 2, false));
}

} // namespace
