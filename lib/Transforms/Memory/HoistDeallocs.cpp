//===- HoistDeallocs.cpp - free buffers right after their last use --------===//
//
// A dealloc may move up to just after the last operation of its block that
// touches the buffer: through the buffer itself, a view of it (subview,
// collapse/expand_shape, cast, ...), or any operation nested in that op.
// A conditional free (an scf.if whose only work is deallocating one buffer,
// as dynamic ownership produces) moves the same way, never above the
// definition of its condition.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

namespace tad {
#define GEN_PASS_DEF_HOISTDEALLOCS
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// The buffer and every view derived from it.
llvm::SetVector<Value> getAliases(Value buffer) {
  llvm::SetVector<Value> aliases;
  aliases.insert(buffer);
  for (size_t i = 0; i < aliases.size(); ++i)
    for (Operation *user : aliases[i].getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == aliases[i])
          for (Value result : user->getResults())
            aliases.insert(result);
  return aliases;
}

/// Whether `op` has the shape of the conditional frees that dynamic
/// ownership produces: no results and no else. Such an op that frees more
/// than one buffer stays where it is. A branch of an scf.if that yields
/// results is an ordinary block, whose frees move within it.
bool isGuardShaped(scf::IfOp op) {
  return op.getNumResults() == 0 && op.getElseRegion().empty();
}

/// Whether `op` is a conditional free of one buffer, which moves as one.
bool isGuard(scf::IfOp op) {
  return isGuardShaped(op) && op.thenBlock()->getOperations().size() == 2;
}

struct HoistDeallocsPass
    : tad::impl::HoistDeallocsBase<HoistDeallocsPass> {
  void runOnOperation() override {
    // Each free: the op to move, and the buffer it frees.
    SmallVector<std::pair<Operation *, Value>> frees;
    getOperation().walk([&](memref::DeallocOp op) {
      auto parent = dyn_cast<scf::IfOp>(op->getParentOp());
      if (parent && isGuard(parent))
        frees.push_back({parent, op.getMemref()});
      else if (!parent || !isGuardShaped(parent))
        frees.push_back({op, op.getMemref()});
    });
    for (auto [dealloc, buffer] : frees) {
      Block *block = dealloc->getBlock();
      llvm::SetVector<Value> aliases = getAliases(buffer);
      if (auto guard = dyn_cast<scf::IfOp>(dealloc))
        aliases.insert(guard.getCondition());
      // The latest op of this block before the dealloc that uses an alias.
      Operation *last = nullptr;
      for (Value alias : aliases) {
        for (Operation *user : alias.getUsers()) {
          if (dealloc->isAncestor(user))
            continue;
          Operation *inBlock = block->findAncestorOpInBlock(*user);
          if (!inBlock || !inBlock->isBeforeInBlock(dealloc))
            continue;
          if (!last || last->isBeforeInBlock(inBlock))
            last = inBlock;
        }
        if (Operation *def = alias.getDefiningOp())
          if (def->getBlock() == block && def->isBeforeInBlock(dealloc) &&
              (!last || last->isBeforeInBlock(def)))
            last = def;
      }
      if (!last) {
        // Defined outside this block and unused in it: free at its start.
        if (&block->front() != dealloc) {
          dealloc->moveBefore(&block->front());
          ++numMoved;
        }
        continue;
      }
      if (last->getNextNode() != dealloc) {
        dealloc->moveAfter(last);
        ++numMoved;
      }
    }
  }
};

} // namespace
