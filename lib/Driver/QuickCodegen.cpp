//===- QuickCodegen.cpp - long entry functions through -O0 codegen --------===//
//
// After tad-outline-loop-nests, a program's function is its sequence of
// calls: to the outlined loop nests, to the runtime's GEMM and allocator,
// with the descriptors and frees between them. Unrolled deep, that is one
// block of thousands of instructions, and LLVM's instruction selection and
// greedy register allocation grow faster than linearly in it: for the
// gradient of a 200-layer MLP (11393 instructions in its entry) `llc -O2`
// took 2.1 to 2.4 s, against 0.5 to 0.7 s with the entry `optnone`, which
// generates its code as -O0 does (fast instruction selection and register
// allocation); the object is 2% larger. The step's time is in the calls,
// not between them, so the faster path costs none of it
// (docs/performance.md#compile-time has the measurement). The optimizer
// has run by then, so the IR is as optimized as before.
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/QuickCodegen.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

void tad::driver::generateLongEntriesQuickly(llvm::Module &module,
                                             unsigned minInstructions) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration() ||
        !function.getName().starts_with("_mlir_ciface_") ||
        function.getInstructionCount() < minInstructions)
      continue;
    // optnone requires noinline; inlining is over.
    function.removeFnAttr(llvm::Attribute::AlwaysInline);
    function.addFnAttr(llvm::Attribute::NoInline);
    function.addFnAttr(llvm::Attribute::OptimizeNone);
  }
}
