//===- FuseKernelLoops.cpp - fewer launches from the same loop nests ------===//
//
// Every top-level scf.parallel of a host function becomes a launch
// (tad-loops-to-gpu). Many come in pairs over the same iteration space
// where each thread touches only its own elements: the zero fill of a
// sum's accumulator and the sum, an elementwise op and the next one that
// bufferization kept apart. Such a pair is one loop, so one launch, when
// each iteration of the second reads or writes what the first wrote only
// at the same indices: each thread then runs the first loop's iteration and
// the second's, in that order, and reads what it wrote itself. The loops
// and their arithmetic are unchanged, so every result keeps its bits.
//
// The first loop moves down to the second: past ops that touch none of
// its buffers (allocations, views, the deallocation of other buffers,
// loops over other buffers). The frees of its own buffers on the way move
// after the joined loop, where that keeps the block's peak (HostPeak.h),
// counting none of the buffers that only the joined loop touches, each
// thread its own element: those become values that its loops carry
// (PrivateBuffers.h), and the device never allocates them. The peak kept
// is the plan's (HostPeak.h), not the lower one that such buffers or an
// earlier step's leave.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "HostPeak.h"
#include "LoopAccesses.h"
#include "PrivateBuffers.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tad {
#define GEN_PASS_DEF_FUSEKERNELLOOPS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;
using tad::Access;
using tad::accessesOf;
using tad::sameIndex;
using tad::sameIndices;

namespace {

/// Loops that reduce into results are not fused (linalg's loops have none).
bool withoutResults(scf::ParallelOp loop) { return loop.getInitVals().empty(); }

bool sameBounds(scf::ParallelOp a, scf::ParallelOp b) {
  return sameIndices(a.getLowerBound(), b.getLowerBound()) &&
         sameIndices(a.getUpperBound(), b.getUpperBound()) &&
         sameIndices(a.getStep(), b.getStep());
}

class Fuser {
public:
  explicit Fuser(AliasAnalysis &aliases) : aliases(aliases) {}

  /// Fuses `first` into a later loop of its block where that is legal
  /// (and, unless `moveFrees`, needs no free to move); returns that loop,
  /// or null.
  scf::ParallelOp fuseForward(scf::ParallelOp first, bool moveFrees) {
    std::optional<SmallVector<Access>> mine = accessesOf(first);
    if (!mine || !withoutResults(first))
      return nullptr;
    // The frees of `first`'s buffers on the way, which move after the
    // joined loop instead.
    SmallVector<memref::DeallocOp> frees;
    for (Operation *op = first->getNextNode(); op; op = op->getNextNode()) {
      if (auto second = dyn_cast<scf::ParallelOp>(op);
          second && sameBounds(first, second) && withoutResults(second)) {
        std::optional<SmallVector<Access>> theirs = accessesOf(second);
        if (theirs && ownElementsOnly(first, *mine, second, *theirs)) {
          SmallVector<Value> owned = tad::privateBuffers({first, second});
          if (freesKeepPeak(first, second, frees, owned)) {
            for (memref::DeallocOp free : llvm::reverse(frees))
              free->moveAfter(second);
            fuse(first, second);
            tad::privatize(second, owned);
            return second;
          }
        }
      }
      if (auto free = dyn_cast<memref::DeallocOp>(op);
          free && conflicts(*mine, op)) {
        if (!moveFrees)
          return nullptr;
        frees.push_back(free);
        continue;
      }
      // `first` moves down past `op` only if they share no buffer that
      // either writes.
      if (conflicts(*mine, op))
        return nullptr;
    }
    return nullptr;
  }

private:
  bool mayAlias(Value a, Value b) {
    return !tad::readOnlyGlobal(a) && !tad::readOnlyGlobal(b) &&
           !aliases.alias(a, b).isNo();
  }

  /// Whether `op` touches a buffer of `accesses` where one of the two
  /// writes it (or `op` touches memory in ways this pass cannot see).
  bool conflicts(ArrayRef<Access> accesses, Operation *op) {
    if (isMemoryEffectFree(op))
      return false;
    if (std::optional<SmallVector<Access>> theirs = accessesOf(op))
      return tad::shareWritten(accesses, *theirs, aliases);
    // An allocation touches no existing buffer; a free or another op with
    // effects on memrefs conflicts with any access to what it names.
    if (isa<memref::AllocOp>(op))
      return false;
    for (Value operand : op->getOperands())
      if (isa<BaseMemRefType>(operand.getType()))
        for (const Access &a : accesses)
          if (mayAlias(a.memref, operand))
            return true;
    return !isa<memref::DeallocOp>(op);
  }

  /// Whether every buffer that `first` or `second` writes is read and
  /// written by both, when both touch it, as one memref at the same
  /// indices: each iteration then touches only its own elements of it.
  bool ownElementsOnly(scf::ParallelOp first, ArrayRef<Access> mine,
                       scf::ParallelOp second, ArrayRef<Access> theirs) {
    IRMapping toSecond;
    toSecond.map(first.getInductionVars(), second.getInductionVars());
    for (const Access &a : mine)
      for (const Access &b : theirs) {
        if (!(a.write || b.write) || !mayAlias(a.memref, b.memref))
          continue;
        if (a.memref != b.memref || a.indices.size() != b.indices.size())
          return false;
        for (auto [x, y] : llvm::zip(a.indices, b.indices))
          if (!sameIndex(toSecond.lookupOrDefault(x), y))
            return false;
      }
    // So all the accesses of both to such a buffer are at one index list:
    // each iteration has one element of it to itself.
    return true;
  }

  /// Whether the frees of `first`'s buffers before `second` can move
  /// after it, as a joined loop needs them, keeping the peak (HostPeak),
  /// where the joined loop's threads keep `owned` as values.
  bool freesKeepPeak(scf::ParallelOp first, scf::ParallelOp second,
                     ArrayRef<memref::DeallocOp> frees, ArrayRef<Value> owned) {
    if (frees.empty())
      return true;
    SmallVector<Operation *> order = tad::orderOf(second->getBlock());
    tad::moveBefore(order, first, second);
    for (memref::DeallocOp free : llvm::reverse(frees))
      tad::moveAfter(order, free, second);
    SmallPtrSet<Operation *, 8> vanish;
    for (Operation *op : tad::allocationsAndFrees(owned))
      vanish.insert(op);
    return tad::keepsPeak(second->getBlock(), order, &vanish);
  }

  /// Puts `first`'s body at the start of `second`'s and erases `first`.
  void fuse(scf::ParallelOp first, scf::ParallelOp second) {
    IRMapping mapping;
    mapping.map(first.getInductionVars(), second.getInductionVars());
    OpBuilder b = OpBuilder::atBlockBegin(second.getBody());
    for (Operation &op : first.getBody()->without_terminator())
      b.clone(op, mapping);
    first.erase();
  }

  AliasAnalysis &aliases;
};

struct FuseKernelLoops : tad::impl::FuseKernelLoopsBase<FuseKernelLoops> {
  void runOnOperation() override {
    Fuser fuser(getAnalysis<AliasAnalysis>());
    // Host blocks only (the kernels are their top-level parallel loops);
    // inner blocks first, so that erasing a loop erases no block to visit.
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      if (!block->getParentOp()->getParentOfType<scf::ParallelOp>() &&
          !isa<scf::ParallelOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks) {
      if (block->getOps<scf::ParallelOp>().empty())
        continue;
      // The block's planned peak, before joins change its order and erase
      // the buffers that joined loops keep.
      (void)tad::planPeakOf(block);
      // First the joins that move no free, which cannot raise the peak: a
      // sum with its fill and its rounding, whose accumulator is then the
      // threads' own. Then those that move frees, which the buffers gone
      // in the first round may let through (two such sums).
      for (bool moveFrees : {false, true}) {
        SmallVector<scf::ParallelOp> loops(block->getOps<scf::ParallelOp>());
        for (scf::ParallelOp loop : loops)
          fuser.fuseForward(loop, moveFrees);
      }
    }
  }
};

} // namespace
