//===- PlanBuffers.cpp - free every buffer after its last use, statically -===//
//
// tad's buffers have static shapes and static owners, so which op frees a
// buffer is decided here, at compile time, instead of by run-time ownership
// flags: every buffer has exactly one owner block, which frees it right
// after the last op of that block that uses it or a view of it.
//
//  - A buffer is owned by the block that allocates it (`memref.alloc`, the
//    results of a call, of a loop or of a branch), by a loop's body for its
//    carried values, or by a branch's region for the buffers of the
//    enclosing block that the branch consumes.
//  - Ownership leaves a block only through its terminator: a yielded or
//    returned buffer belongs to the parent op's result (or the caller). A
//    yielded value that the block does not own outright (an argument, a
//    constant's global, a partial view, an outer buffer still read later,
//    another carried value, the same buffer twice) is copied first, so the
//    results of every loop, branch and function are buffers of their own.
//  - A loop takes its initial value's buffer when nothing reads that buffer
//    after the loop or inside it; otherwise it starts from a copy.
//  - A branch consumes an outer buffer that one of its sides yields when
//    nothing reads it after the branch: the side that yields it passes it
//    on, the other sides free it after their last use of it.
//
// docs/memory.md states the same rules as the user sees them.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/BufferPeak.h"
#include "tad/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tad {
#define GEN_PASS_DEF_PLANBUFFERS
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// The value that `v` views, or null when `v` is not a view.
Value viewSourceOf(Value v) {
  if (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    if (view.getViewSource() != v)
      return view.getViewSource();
  return {};
}

/// Whether `value` is the whole of `root`, the buffer it views (or is): a
/// partial view would hand on more bytes than it shows.
bool isWhole(Value value, Value root) {
  int64_t bytes = tad::getMemRefByteSize(root.getType());
  return bytes >= 0 && tad::getMemRefByteSize(value.getType()) == bytes;
}

/// Whether `op` allocates each of its memref results afresh, a buffer its
/// block then owns. Calls count: every function returns buffers of its
/// own (this pass copies what a function would return otherwise).
bool allocatesResults(Operation *op) {
  if (isa<func::CallOp, scf::ForOp, scf::IfOp, scf::IndexSwitchOp>(op))
    return true;
  if (isa<memref::AllocaOp>(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && llvm::any_of(op->getResults(), [&](Value result) {
           return effects.getEffectOnValue<MemoryEffects::Allocate>(result)
               .has_value();
         });
}

/// The buffer and every view derived from it, wherever they are defined.
llvm::SetVector<Value> aliasesOf(Value buffer) {
  return tad::getBufferAndViews(buffer);
}

/// The ops of `block` that use `buffer` or a view of it, directly or in
/// their regions.
llvm::SmallPtrSet<Operation *, 8> usersInBlock(Value buffer, Block &block) {
  llvm::SmallPtrSet<Operation *, 8> users;
  for (Value alias : aliasesOf(buffer)) {
    for (Operation *user : alias.getUsers())
      if (Operation *inBlock = block.findAncestorOpInBlock(*user))
        users.insert(inBlock);
    // A view defined in this block is a use too (of the buffer it views).
    if (Operation *def = alias.getDefiningOp())
      if (alias != buffer && def->getBlock() == &block)
        users.insert(def);
  }
  return users;
}

class Planner {
public:
  explicit Planner(func::FuncOp func) : func(func) {}

  LogicalResult run() {
    if (func.isDeclaration())
      return success();
    bool hasDeallocs = false;
    func.walk([&](memref::DeallocOp) { hasDeallocs = true; });
    if (hasDeallocs)
      return func.emitError("tad-plan-buffers expects a function without "
                            "deallocations (it places every one)");
    if (failed(planBlock(func.getBody().front(), {})))
      return failure();
    return failure(failedCopy);
  }

private:
  /// Copies `value` into a new buffer just before `before`, and returns the
  /// copy, cast to `type` (the type its user expects).
  Value copyBefore(Operation *before, Value value, Type type) {
    OpBuilder b(before);
    Location loc = before->getLoc();
    auto source = cast<MemRefType>(value.getType());
    auto identity = MemRefType::get(source.getShape(), source.getElementType(),
                                    nullptr, source.getMemorySpace());
    Value copy = memref::AllocOp::create(b, loc, identity);
    memref::CopyOp::create(b, loc, value, copy);
    ++numCopies;
    if (copy.getType() != type) {
      if (!memref::CastOp::areCastCompatible(copy.getType(), type)) {
        before->emitOpError("tad-plan-buffers cannot copy a buffer into ")
            << type << ", the type this op expects";
        failedCopy = true;
      }
      copy = memref::CastOp::create(b, loc, type, copy);
    }
    return copy;
  }

  /// Whether the terminator of `block` may hand on `value` (a yielded or
  /// returned memref) without a copy: the whole of a buffer that `block`
  /// owns, not already handed on.
  bool mayPassOn(Value value, const llvm::SetVector<Value> &owned,
                 llvm::SmallPtrSetImpl<Value> &passed) {
    Value root = tad::getViewedBuffer(value);
    if (!owned.contains(root) || passed.contains(root) || !isWhole(value, root))
      return false;
    passed.insert(root);
    return true;
  }

  /// Makes every memref that `block`'s terminator yields or returns a buffer
  /// the block owns outright, copying the others; returns the buffers it
  /// hands on. `owned` are the buffers owned at the block's entry and those
  /// it allocates.
  llvm::SmallPtrSet<Value, 4>
  ownTerminatorOperands(Block &block, const llvm::SetVector<Value> &owned) {
    llvm::SmallPtrSet<Value, 4> passed;
    Operation *terminator = block.getTerminator();
    for (OpOperand &operand : terminator->getOpOperands()) {
      Value value = operand.get();
      if (!isa<MemRefType>(value.getType()))
        continue;
      if (!mayPassOn(value, owned, passed))
        operand.set(copyBefore(terminator, value, value.getType()));
    }
    return passed;
  }

  /// Whether nothing uses `buffer` (or a view of it) in `block` after `op`,
  /// nor in `op`'s regions when `insideToo` is set.
  static bool isDeadAfter(Value buffer, Operation *op, bool insideToo) {
    Block &block = *op->getBlock();
    for (Value alias : aliasesOf(buffer))
      for (Operation *user : alias.getUsers()) {
        if (user == op)
          continue;
        if (op->isAncestor(user)) {
          if (insideToo)
            return false;
          continue;
        }
        Operation *inBlock = block.findAncestorOpInBlock(*user);
        if (!inBlock || op->isBeforeInBlock(inBlock))
          return false;
      }
    return true;
  }

  /// Gives each memref carried value of `loop` a buffer of its own to start
  /// from: the initial value's, when `loop` may take it from `owned`
  /// (marking it consumed), or a copy.
  void ownLoopInits(scf::ForOp loop, const llvm::SetVector<Value> &owned,
                    llvm::SmallPtrSetImpl<Value> &consumed) {
    llvm::SmallPtrSet<Value, 4> taken;
    for (OpOperand &init : loop.getInitArgsMutable()) {
      Value value = init.get();
      if (!isa<MemRefType>(value.getType()))
        continue;
      Value root = tad::getViewedBuffer(value);
      if (owned.contains(root) && !consumed.contains(root) &&
          !taken.contains(root) && isWhole(value, root) &&
          isDeadAfter(root, loop, /*insideToo=*/true) &&
          llvm::count(loop.getInitArgs(), value) == 1 &&
          llvm::all_of(aliasesOf(root), [&](Value alias) {
            return alias == value ||
                   !llvm::is_contained(loop.getInitArgs(), alias);
          })) {
        taken.insert(root);
        consumed.insert(root);
        continue;
      }
      init.set(copyBefore(loop, value, value.getType()));
    }
  }

  /// The buffers of `owned` that a branch consumes: those that one of its
  /// regions yields and that nothing reads after it.
  llvm::SetVector<Value>
  branchConsumes(Operation *branch, const llvm::SetVector<Value> &owned,
                 llvm::SmallPtrSetImpl<Value> &consumed) {
    llvm::SetVector<Value> taken;
    for (Region &region : branch->getRegions()) {
      if (region.empty())
        continue;
      for (Value v : region.front().getTerminator()->getOperands()) {
        if (!isa<MemRefType>(v.getType()))
          continue;
        Value root = tad::getViewedBuffer(v);
        if (owned.contains(root) && !consumed.contains(root) &&
            isDeadAfter(root, branch, /*insideToo=*/false))
          taken.insert(root);
      }
    }
    for (Value root : taken)
      consumed.insert(root);
    return taken;
  }

  /// Frees `buffer` right after the last op of `block` that uses it, or at
  /// the start of the block (after its definition, when it is defined here)
  /// when nothing does.
  void freeAfterLastUse(Value buffer, Block &block) {
    llvm::SmallPtrSet<Operation *, 8> users = usersInBlock(buffer, block);
    Operation *last = nullptr;
    for (Operation *user : users)
      if (!last || last->isBeforeInBlock(user))
        last = user;
    Operation *def = buffer.getDefiningOp();
    if (def && def->getBlock() == &block &&
        (!last || last->isBeforeInBlock(def)))
      last = def;
    OpBuilder b(buffer.getContext());
    if (!last) {
      b.setInsertionPointToStart(&block);
      while (isa<memref::DeallocOp>(*b.getInsertionPoint()))
        b.setInsertionPointAfter(&*b.getInsertionPoint());
    } else if (last == block.getTerminator())
      b.setInsertionPoint(last);
    else {
      // After the frees already placed there, so that frees keep the order
      // of their buffers.
      while (isa_and_nonnull<memref::DeallocOp>(last->getNextNode()))
        last = last->getNextNode();
      b.setInsertionPointAfter(last);
    }
    memref::DeallocOp::create(b, buffer.getLoc(), buffer);
    ++numFrees;
  }

  /// Plans `block`, which owns `entryOwned` when it starts.
  LogicalResult planBlock(Block &block, ArrayRef<Value> entryOwned) {
    llvm::SetVector<Value> owned(entryOwned.begin(), entryOwned.end());
    llvm::SmallPtrSet<Value, 8> consumed;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        ownLoopInits(loop, owned, consumed);
        SmallVector<Value> carried;
        for (Value arg : loop.getRegionIterArgs())
          if (isa<MemRefType>(arg.getType()))
            carried.push_back(arg);
        if (failed(planBlock(*loop.getBody(), carried)))
          return failure();
      } else if (isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
        llvm::SetVector<Value> taken = branchConsumes(&op, owned, consumed);
        for (Region &region : op.getRegions())
          if (!region.empty() &&
              failed(planBlock(region.front(), taken.getArrayRef())))
            return failure();
      } else if (op.getNumRegions() > 0) {
        if (llvm::any_of(op.getResultTypes(), llvm::IsaPred<MemRefType>))
          return op.emitOpError("tad-plan-buffers cannot plan the buffers "
                                "this op's regions yield");
        // A buffer allocated in another op's region (none is, after
        // tad's bufferization) is freed in that region.
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            if (failed(planBlock(inner, {})))
              return failure();
      }
      for (Value result : op.getResults()) {
        if (!isa<MemRefType>(result.getType()))
          continue;
        if (allocatesResults(&op)) {
          owned.insert(result);
          continue;
        }
        if (viewSourceOf(result) ||
            isa<memref::GetGlobalOp, memref::AllocaOp>(op))
          continue;
        return op.emitOpError("tad-plan-buffers cannot tell who owns this "
                              "op's result");
      }
    }
    llvm::SmallPtrSet<Value, 4> passed;
    if (block.mightHaveTerminator())
      passed = ownTerminatorOperands(block, owned);
    for (Value buffer : owned)
      if (!consumed.contains(buffer) && !passed.contains(buffer))
        freeAfterLastUse(buffer, block);
    return success();
  }

  func::FuncOp func;
  /// Set when a copy could not take the type its user expects.
  bool failedCopy = false;

public:
  int64_t numCopies = 0;
  int64_t numFrees = 0;
};

/// Canonicalization folds a branch that only yields buffers into
/// `arith.select`, whose result is one of two buffers, decided at run time.
/// The planner's rules for branches (a side consumes an outer buffer it
/// yields, or yields a copy) cover it, so the select becomes that branch
/// again.
void selectsToBranches(func::FuncOp func) {
  SmallVector<arith::SelectOp> selects;
  func.walk([&](arith::SelectOp select) {
    if (isa<MemRefType>(select.getType()))
      selects.push_back(select);
  });
  for (arith::SelectOp select : selects) {
    OpBuilder b(select);
    Location loc = select.getLoc();
    Value onTrue = select.getTrueValue(), onFalse = select.getFalseValue();
    auto branch = scf::IfOp::create(
        b, loc, select.getCondition(),
        [&](OpBuilder &nested, Location l) {
          scf::YieldOp::create(nested, l, onTrue);
        },
        [&](OpBuilder &nested, Location l) {
          scf::YieldOp::create(nested, l, onFalse);
        });
    select.replaceAllUsesWith(branch.getResult(0));
    select.erase();
  }
}

struct PlanBuffersPass : tad::impl::PlanBuffersBase<PlanBuffersPass> {
  void runOnOperation() override {
    FailureOr<tad::BufferPlanCounts> counts = tad::planBuffers(getOperation());
    if (failed(counts))
      return signalPassFailure();
    numCopies += counts->copies;
    numFrees += counts->frees;
  }
};

} // namespace

FailureOr<tad::BufferPlanCounts> tad::planBuffers(func::FuncOp func) {
  selectsToBranches(func);
  Planner planner(func);
  if (failed(planner.run()))
    return failure();
  return BufferPlanCounts{planner.numCopies, planner.numFrees};
}
