//===- PrivateBuffers.cpp - buffers each thread of a kernel owns ----------===//

#include "PrivateBuffers.h"

#include "LoopAccesses.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tad;

/// The buffer and indices of `op`, a load or a store; null otherwise.
static Value accessed(Operation *op, ValueRange &indices) {
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    indices = load.getIndices();
    return load.getMemRef();
  }
  if (auto store = dyn_cast<memref::StoreOp>(op)) {
    indices = store.getIndices();
    return store.getMemRef();
  }
  return nullptr;
}

/// Whether `op` in `loop` has only scf.for loops around it inside the
/// loop's body.
static bool onlyForLoopsAround(Operation *op, scf::ParallelOp loop) {
  for (Operation *parent = op->getParentOp(); parent != loop;
       parent = parent->getParentOp())
    if (!isa<scf::ForOp>(parent))
      return false;
  return true;
}

SmallVector<Value> tad::privateBuffers(ArrayRef<scf::ParallelOp> loops) {
  scf::ParallelOp last = loops.back();
  // The first access of each buffer in the loops' order, and the buffers
  // some access rules out.
  llvm::SetVector<Value> seen;
  llvm::DenseSet<Value> ruledOut;
  for (scf::ParallelOp loop : loops) {
    loop.getBody()->walk([&](Operation *op) {
      ValueRange indices;
      Value buffer = accessed(op, indices);
      if (!buffer)
        return;
      bool own = indices.size() == loop.getNumLoops() &&
                 llvm::equal(indices, loop.getInductionVars());
      if (!own || !onlyForLoopsAround(op, loop) ||
          (!seen.contains(buffer) &&
           (!isa<memref::StoreOp>(op) || op->getParentOp() != loop)))
        ruledOut.insert(buffer);
      seen.insert(buffer);
    });
  }
  SmallVector<Value> buffers;
  for (Value buffer : seen) {
    auto alloc = buffer.getDefiningOp<memref::AllocOp>();
    if (ruledOut.contains(buffer) || !alloc ||
        alloc->getBlock() != last->getBlock() ||
        !alloc.getType().getElementType().isIntOrFloat())
      continue;
    bool onlyLoops = llvm::all_of(buffer.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp>(user))
        return true;
      ValueRange indices;
      return accessed(user, indices) == buffer &&
             (!isa<memref::StoreOp>(user) || use.getOperandNumber() == 1) &&
             llvm::any_of(loops, [&](scf::ParallelOp loop) {
               return loop->isProperAncestor(user);
             });
    });
    if (onlyLoops)
      buffers.push_back(buffer);
  }
  return buffers;
}

SmallVector<Operation *> tad::allocationsAndFrees(ArrayRef<Value> buffers) {
  SmallVector<Operation *> ops;
  for (Value buffer : buffers) {
    ops.push_back(buffer.getDefiningOp());
    for (Operation *user : buffer.getUsers())
      if (isa<memref::DeallocOp>(user))
        ops.push_back(user);
  }
  return ops;
}

namespace {

/// The scalar replacement of one buffer in one loop's body.
class Replacement {
public:
  Replacement(Value buffer, RewriterBase &rewriter)
      : buffer(buffer), rewriter(rewriter) {}

  /// Runs through `block` in order: a store sets the current value, a
  /// load reads it, an scf.for that touches the buffer carries it.
  void run(Block *block) {
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      ValueRange indices;
      if (accessed(&op, indices) == buffer) {
        if (auto store = dyn_cast<memref::StoreOp>(op))
          current = store.getValueToStore();
        else
          rewriter.replaceAllUsesWith(op.getResult(0), current);
        rewriter.eraseOp(&op);
        continue;
      }
      auto loop = dyn_cast<scf::ForOp>(op);
      if (loop && touches(loop))
        carry(loop);
    }
  }

private:
  bool touches(Operation *op) {
    return op
        ->walk([&](Operation *inner) {
          ValueRange indices;
          return accessed(inner, indices) == buffer ? WalkResult::interrupt()
                                                    : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// Makes `loop` carry the current value: it enters as an iteration
  /// argument and leaves as a result.
  void carry(scf::ForOp loop) {
    rewriter.setInsertionPoint(loop);
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, current, /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> carried) {
          return SmallVector<Value>{carried.front()};
        });
    auto carrying = cast<scf::ForOp>(replaced->getOperation());
    current = carrying.getRegionIterArgs().back();
    run(carrying.getBody());
    Operation *yield = carrying.getBody()->getTerminator();
    yield->setOperand(yield->getNumOperands() - 1, current);
    current = carrying.getResults().back();
  }

  Value buffer;
  RewriterBase &rewriter;
  Value current;
};

} // namespace

void tad::privatize(scf::ParallelOp loop, ArrayRef<Value> buffers) {
  IRRewriter rewriter(loop.getContext());
  for (Value buffer : buffers) {
    Replacement(buffer, rewriter).run(loop.getBody());
    for (Operation *op : llvm::reverse(allocationsAndFrees(buffer)))
      rewriter.eraseOp(op);
  }
}
