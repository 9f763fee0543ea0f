//===- LaunchParameters.cpp - kernel parameters off the loop's stack ------===//
//
// MLIR's translation of `gpu.launch_func` (the `#gpu.select_object`
// offloading handler) builds each launch's parameters where the launch
// is: an `alloca` of a struct holding the arguments and an `alloca` of the
// array of pointers into it that `mgpuLaunchKernel` takes. Outside the
// entry block an `alloca` is dynamic: every execution takes new stack,
// which is given back only when the function returns. A launch inside a
// loop then grows the stack by a few hundred bytes an iteration, and a
// loop of 125000 iterations (a sum of a million elements, split into
// lanes, launches one kernel per row) overflowed the 8 MB stack on a GPU.
//
// The launch copies its parameters when it is made (cuLaunchKernel), and
// nothing else reads those slots, so one slot per launch site, allocated
// once in the entry block, serves every iteration. A slot moves only when
// it has a constant size and every use of it is in its own block, the
// block of the launch.
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/LaunchParameters.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

/// Whether `block` launches a kernel.
static bool launchesKernel(BasicBlock &block) {
  return any_of(block, [](Instruction &inst) {
    auto *call = dyn_cast<CallInst>(&inst);
    Function *callee = call ? call->getCalledFunction() : nullptr;
    return callee && callee->getName() == "mgpuLaunchKernel";
  });
}

void tad::driver::hoistLaunchParameters(Module &module) {
  for (Function &function : module) {
    if (function.isDeclaration())
      continue;
    BasicBlock &entry = function.getEntryBlock();
    SmallVector<AllocaInst *> moves;
    for (BasicBlock &block : function) {
      if (&block == &entry || !launchesKernel(block))
        continue;
      for (Instruction &inst : block) {
        auto *slot = dyn_cast<AllocaInst>(&inst);
        if (!slot || !isa<ConstantInt>(slot->getArraySize()))
          continue;
        if (all_of(slot->users(), [&](User *user) {
              auto *use = dyn_cast<Instruction>(user);
              return use && use->getParent() == &block;
            }))
          moves.push_back(slot);
      }
    }
    for (AllocaInst *slot : moves)
      slot->moveBefore(entry.getFirstInsertionPt());
  }
}
