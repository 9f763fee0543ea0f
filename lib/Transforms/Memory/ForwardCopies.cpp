//===- ForwardCopies.cpp - write a copied buffer where it is copied to ----===//
//
// One-shot bufferization writes a value straight into the row of a tape
// that stores it only when no other write to that tape comes between the
// value's definition and its last read: its analysis does not know that
// two slices of one buffer at different static offsets are disjoint. A
// loop whose residuals share a gradient row (AutoDiff/ResidualTapes.cpp)
// then computes each into a buffer of its own and copies it into the row.
//
// This pass undoes that copy where it is safe: a buffer `A` of its block
// that is copied once into a slice `R` of another buffer `T`, and that is
// not written after that copy, becomes a view of `R` from its allocation
// on, when nothing else touches `R` (or `T` as a whole) while `A` lives.
// Slices of `T` are compared by their offsets: at a static offset in some
// dimension they are disjoint when their ranges there are.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/BufferPeak.h"
#include "tad/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace tad {
#define GEN_PASS_DEF_FORWARDCOPIES
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

bool isReshape(Operation *op) {
  return isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(op);
}

/// The buffer that `v` views (through any view ops), or `v` itself.
Value rootOf(Value v) { return tad::getViewedBuffer(v); }

/// The box of `root` that `v` views: the offsets and sizes of the subview
/// taken directly of `root` on the way from `v`, or none when the way has
/// none (all of `root`) or takes another kind of view.
struct Box {
  SmallVector<OpFoldResult> offsets;
  SmallVector<int64_t> sizes;
};
std::optional<Box> boxOf(Value v, Value root) {
  std::optional<Box> box;
  while (v != root) {
    Operation *op = v.getDefiningOp();
    if (auto subview = dyn_cast_or_null<memref::SubViewOp>(op)) {
      if (!llvm::all_of(subview.getStaticStrides(),
                        [](int64_t s) { return s == 1; }) ||
          ShapedType::isDynamicShape(subview.getStaticSizes()))
        return std::nullopt;
      box = Box{subview.getMixedOffsets(),
                llvm::to_vector(subview.getStaticSizes())};
      v = subview.getSource();
    } else if (isReshape(op)) {
      box.reset(); // only the subview on `root` itself says where
      v = op->getOperand(0);
    } else {
      return std::nullopt;
    }
  }
  return box;
}

/// Whether `root` is a buffer that no other root aliases: an allocation
/// (a call returns buffers of its own), a global, a function's argument or
/// a loop's carried value (bufferization gives each its own buffer when the
/// loop writes it). A loop's or a branch's result may be the buffer of a
/// value it was given, so it is not one.
bool isDistinctRoot(Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    Operation *parent = arg.getOwner()->getParentOp();
    return isa<func::FuncOp, scf::ForOp>(parent) &&
           arg.getOwner()->isEntryBlock();
  }
  return isa_and_nonnull<memref::AllocOp, memref::GetGlobalOp, func::CallOp>(
      root.getDefiningOp());
}

/// Whether two boxes of one buffer share no element: in some dimension
/// both offsets are static and their ranges do not meet.
bool disjoint(const Box &a, const Box &b) {
  if (a.offsets.size() != b.offsets.size())
    return false;
  for (size_t d = 0; d < a.offsets.size(); ++d) {
    std::optional<int64_t> x = getConstantIntValue(a.offsets[d]);
    std::optional<int64_t> y = getConstantIntValue(b.offsets[d]);
    if (x && y && (*x + a.sizes[d] <= *y || *y + b.sizes[d] <= *x))
      return true;
  }
  return false;
}

/// The type that `op` (a reshape) gives a source of type `source`, or
/// null when it cannot reshape that layout.
MemRefType reshapedType(Operation *op, MemRefType source) {
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
    FailureOr<MemRefType> type = memref::ExpandShapeOp::computeExpandedType(
        source, expand.getResultType().getShape(),
        expand.getReassociationIndices());
    return succeeded(type) ? *type : MemRefType();
  }
  auto collapse = cast<memref::CollapseShapeOp>(op);
  auto reassociation = collapse.getReassociationIndices();
  if (!memref::CollapseShapeOp::isGuaranteedCollapsible(source, reassociation))
    return {};
  return memref::CollapseShapeOp::computeCollapsedType(source, reassociation);
}

/// Whether every use of `v` (of the type `type` once rewritten) takes a
/// memref of any layout: a linalg op or a copy reads or writes it as it
/// is, and a reshape passes a reshaped layout on to uses that do.
bool takesAnyLayout(Value v, MemRefType type) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (isa<linalg::LinalgOp, memref::CopyOp>(user))
      continue;
    if (!isReshape(user))
      return false;
    MemRefType reshaped = reshapedType(user, type);
    if (!reshaped || !takesAnyLayout(user->getResult(0), reshaped))
      return false;
  }
  return true;
}

/// Replaces `v` by `with` (a value of another layout) in every use, making
/// the reshapes on the way anew.
void retype(OpBuilder &b, Value v, Value with) {
  for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
    Operation *user = use.getOwner();
    if (!isReshape(user)) {
      use.set(with);
      continue;
    }
    b.setInsertionPoint(user);
    auto type = reshapedType(user, cast<MemRefType>(with.getType()));
    Value reshaped;
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(user))
      reshaped = memref::ExpandShapeOp::create(b, user->getLoc(), type, with,
                                               expand.getReassociationIndices(),
                                               expand.getMixedOutputShape());
    else
      reshaped = memref::CollapseShapeOp::create(
          b, user->getLoc(), type, with,
          cast<memref::CollapseShapeOp>(user).getReassociationIndices());
    retype(b, user->getResult(0), reshaped);
    user->erase();
  }
}

/// The reshape that undoes `op` (an expand or a collapse of `source`'s
/// shape, whose reassociation is the same both ways).
Value undoReshape(OpBuilder &b, Operation *op, Value value) {
  auto type = cast<MemRefType>(value.getType());
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
    auto reassociation = expand.getReassociationIndices();
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(type, reassociation))
      return {};
    return memref::CollapseShapeOp::create(
        b, op->getLoc(),
        memref::CollapseShapeOp::computeCollapsedType(type, reassociation),
        value, reassociation);
  }
  auto collapse = cast<memref::CollapseShapeOp>(op);
  auto shape = collapse.getSrcType().getShape();
  FailureOr<MemRefType> expanded = memref::ExpandShapeOp::computeExpandedType(
      type, shape, collapse.getReassociationIndices());
  if (failed(expanded))
    return {};
  return memref::ExpandShapeOp::create(b, op->getLoc(), *expanded, value,
                                       collapse.getReassociationIndices());
}

class Forwarder {
public:
  explicit Forwarder(func::FuncOp func) : func(func), dominance(func) {}

  void run() {
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies)
      (void)forward(copy);
  }

private:
  /// Makes the buffer that `copy` copies from a view of where it copies
  /// to, and erases the copy; fails (changing nothing) where that could
  /// change what the program computes.
  LogicalResult forward(memref::CopyOp copy) {
    // The source: a buffer of the copy's block, or reshapes of one.
    SmallVector<Operation *> sourceReshapes; // from the copy's source up
    Value a = copy.getSource();
    while (isReshape(a.getDefiningOp())) {
      sourceReshapes.push_back(a.getDefiningOp());
      a = a.getDefiningOp()->getOperand(0);
    }
    auto alloc = a.getDefiningOp<memref::AllocOp>();
    Block *block = copy->getBlock();
    if (!alloc || alloc->getBlock() != block ||
        !alloc.getType().getLayout().isIdentity() ||
        !alloc.getType().hasStaticShape())
      return failure();
    // The target: a slice of another buffer, through views made of values
    // that are there where the buffer is allocated.
    Value target = copy.getTarget();
    Value root = rootOf(target);
    if (root == a || !isDistinctRoot(root))
      return failure();
    std::optional<Box> region = boxOf(target, root);
    if (!region)
      return failure();
    SmallVector<Operation *> targetViews; // from the root down
    for (Value v = target; v != root;
         v = cast<ViewLikeOpInterface>(v.getDefiningOp()).getViewSource())
      targetViews.insert(targetViews.begin(), v.getDefiningOp());
    if (!dominance.properlyDominates(root, alloc))
      return failure();
    for (Operation *view : targetViews)
      for (Value operand : view->getOperands())
        if (rootOf(operand) != root &&
            !dominance.properlyDominates(operand, alloc))
          return failure();

    // Every use of the buffer and its views is an op of this block; the
    // copy is the last write of it.
    llvm::SetVector<Value> aliases = tad::getBufferAndViews(a);
    Operation *last = copy;
    for (Value v : aliases)
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (user->getBlock() != block)
          return failure();
        if (isa<ViewLikeOpInterface>(user))
          continue;
        if (last->isBeforeInBlock(user))
          last = user;
        // No copy into it (from the start: kept simple), and no linalg op
        // writing it after the copy.
        if (user != copy && isa<memref::CopyOp>(user) &&
            use.getOperandNumber() == 1)
          return failure();
        auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
        if (linalgOp && linalgOp.isDpsInit(&use) && copy->isBeforeInBlock(user))
          return failure();
      }

    // Nothing but the buffer's own uses touches the slice, nor the whole
    // of its root, from the allocation to the buffer's last use.
    llvm::SmallPtrSet<Value, 16> own(aliases.begin(), aliases.end());
    for (Operation *op = alloc->getNextNode(); op != last->getNextNode();
         op = op->getNextNode()) {
      if (op == copy)
        continue;
      WalkResult touched = op->walk([&](Operation *inner) {
        if (isa<ViewLikeOpInterface>(inner))
          return WalkResult::advance();
        for (Value operand : inner->getOperands()) {
          if (!isa<BaseMemRefType>(operand.getType()) || own.contains(operand))
            continue;
          Value other = rootOf(operand);
          if (other != root) {
            if (!isDistinctRoot(other))
              return WalkResult::interrupt();
            continue;
          }
          // Only a linalg op or a copy, on a slice apart from the target.
          std::optional<Box> box = boxOf(operand, root);
          if (!isa<linalg::LinalgOp, memref::CopyOp>(inner) || !box ||
              !disjoint(*box, *region))
            return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (touched.wasInterrupted())
        return failure();
    }

    // The slice, viewed as the buffer: the target's views made anew after
    // the allocation, then the source's reshapes undone.
    OpBuilder b(alloc->getContext());
    b.setInsertionPointAfter(alloc);
    IRMapping mapping;
    SmallVector<Operation *> made;
    for (Operation *view : targetViews)
      made.push_back(b.clone(*view, mapping));
    Value slice = made.empty() ? root : made.back()->getResult(0);
    for (Operation *reshape : sourceReshapes) {
      slice = undoReshape(b, reshape, slice);
      if (!slice)
        break;
      made.push_back(slice.getDefiningOp());
    }
    if (!slice ||
        cast<MemRefType>(slice.getType()).getShape() !=
            alloc.getType().getShape() ||
        !takesAnyLayout(a, cast<MemRefType>(slice.getType()))) {
      for (Operation *op : llvm::reverse(made))
        op->erase();
      return failure();
    }
    copy->erase();
    for (Operation *reshape : sourceReshapes)
      if (reshape->use_empty())
        reshape->erase();
    for (Operation *view : llvm::reverse(targetViews))
      if (view->use_empty())
        view->erase();
    retype(b, a, slice);
    alloc->erase();
    return success();
  }

  func::FuncOp func;
  DominanceInfo dominance;
};

struct ForwardCopiesPass : tad::impl::ForwardCopiesBase<ForwardCopiesPass> {
  void runOnOperation() override { tad::forwardCopies(getOperation()); }
};

} // namespace

void tad::forwardCopies(func::FuncOp func) { Forwarder(func).run(); }
