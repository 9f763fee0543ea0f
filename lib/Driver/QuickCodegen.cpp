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
// results (docs/performance.md#llvm-on-long-entry-functions).
// The optimizer has run by then, so the IR is as optimized as before.
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/QuickCodegen.h"
#include "tad/Driver/Optimize.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

void tad::driver::generateLongEntriesQuickly(llvm::Module &module) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration() ||
        !function.getName().starts_with("_mlir_ciface_") ||
        function.getInstructionCount() < kLongFunctionInstructions)
      continue;
    // optnone requires noinline; inlining is over.
    function.removeFnAttr(llvm::Attribute::AlwaysInline);
    function.addFnAttr(llvm::Attribute::NoInline);
    function.addFnAttr(llvm::Attribute::OptimizeNone);
  }
}
