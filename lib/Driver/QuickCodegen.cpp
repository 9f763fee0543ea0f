//===- QuickCodegen.cpp - long entry functions through -O0 codegen --------===//
//
// After tad-outline-loop-nests, a program's function is its sequence of
// calls: to the outlined loop nests, to the runtime's GEMM and allocator,
// with the descriptors and frees between them. Unrolled deep, that is one
// block of thousands of instructions, and LLVM's instruction selection and
// greedy register allocation grow faster than linearly in it (`tadc
// --time-passes`, the gradient of a tanh MLP: 0.10 and 0.08 s at 100
// layers, 0.29 and 0.31 s at 200). With the entry `optnone`, its
// instructions are selected as at -O0, and a library's or executable's
// code generator gives it a part of its own generated at -O0, fast
// register allocation included (Aot.cpp). `--emit=obj` of the 200-layer
// gradient took 1.33 to 1.52 s so, against 1.99 to 2.61 s (three runs
// each). The step's time is in the calls, not between them: the
// transformer's step took the same time either way, with bit-identical
// results (docs/compile-time.md#llvm-on-long-entry-functions).
// The optimizer has run by then, so the IR is as optimized as before.
//
// So is any other long function without a loop: it runs each instruction
// once, as the entry does. Such a function is a record's copy that the
// optimizer kept apart: `same` returning a 513-field record through a
// pointer to the stack slot of a caller that reads two of its fields
// stores 1,539 descriptor fields, and the DAG combiner compares each store
// with those before it (test/Python/hardening_check.py's module: `llc
// -O3` 7.2 s, `llc -O0` 0.2 s, on its optimized IR). A loop's body is left
// to the optimizing code generator: it may run many times; so is an
// outlined loop nest (`noinline`) whose loops LLVM unrolled, which the
// entry may call in a loop of its own.
//
// In a module of many entries (a library of instances of generic
// functions), every entry without a loop is generated so, short ones too:
// their code is calls and the descriptors between them, and its selection
// at -O3 was most of the code generation of 2,000 gradient instances
// (1.3 s of each of its two parts' 2.3 s, 0.4 s at -O0).
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/QuickCodegen.h"
#include "tad/Driver/Optimize.h"

#include "llvm/Analysis/CFG.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

/// Whether each of `function`'s instructions runs once per call: its
/// blocks form no cycle, and it is no outlined loop nest (`noinline`).
static bool runsOncePerCall(const llvm::Function &function) {
  if (function.hasFnAttribute(llvm::Attribute::NoInline))
    return false;
  llvm::SmallVector<
      std::pair<const llvm::BasicBlock *, const llvm::BasicBlock *>>
      backEdges;
  llvm::FindFunctionBackedges(function, backEdges);
  return backEdges.empty();
}

/// The attribute that markManyEntries sets.
static constexpr const char *kManyEntriesAttr = "tad-many-entries";

/// Whether `function` is a C interface that its module defines.
static bool isInterface(const llvm::Function &function) {
  return !function.isDeclaration() &&
         function.getName().starts_with("_mlir_ciface_");
}

void tad::driver::markManyEntries(llvm::Module &module) {
  if (llvm::count_if(module, isInterface) < kManyEntries)
    return;
  for (llvm::Function &function : module)
    if (isInterface(function))
      function.addFnAttr(kManyEntriesAttr);
}

void tad::driver::generateLongEntriesQuickly(llvm::Module &module) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    if (function.getInstructionCount() < kLongFunctionInstructions) {
      if (!function.hasFnAttribute(kManyEntriesAttr) ||
          !runsOncePerCall(function))
        continue;
    } else if (!isInterface(function) && !runsOncePerCall(function)) {
      continue;
    }
    // optnone requires noinline; inlining is over.
    function.removeFnAttr(llvm::Attribute::AlwaysInline);
    function.addFnAttr(llvm::Attribute::NoInline);
    function.addFnAttr(llvm::Attribute::OptimizeNone);
  }
}
