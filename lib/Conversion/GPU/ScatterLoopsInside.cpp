//===- ScatterLoopsInside.cpp - one launch per scatter-add ----------------===//
//
// tad.scatter_add adds its updates one index after another, so that a
// repeated index accumulates in a fixed order. Its loop over the indices
// is on the host for the GPU, around a launch that adds one slice: an
// embedding's gradient over the B x T tokens of a batch was B x T launches.
// The slice's elements are independent, so the loop over the indices can
// run inside each element's thread instead: one launch, each thread adding
// its element's updates in the order of the indices, as before. Where the
// indices are unique (a cross-entropy's one label per row), every element
// gets one update at most, and the indices are threads too.
//
// That thread adds one update after another, each a read and a write that
// waits for the one before. Where the slice is a row of a table of R rows
// and R times the slice's elements is small enough (the pass's
// `owner-threads`), the rows are threads too: thread (row, element) runs
// the whole loop and adds the updates whose index picks its row, in the
// same order (the same bits); its iterations are a shared load and a
// comparison, mostly, but there are R times as many.
//
// The lowering of tad.scatter_add marks the loop (tad.scatter_loop); the
// pass still checks what makes the move exact: the slice reads what it
// writes only at the element it writes, and what the loop reads before the
// slice (the index, the updates' view) is not what the slice writes, so
// that no thread reads another's element.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "LoopAccesses.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tad {
#define GEN_PASS_DEF_SCATTERLOOPSINSIDE
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// The slice's scf.parallel of a scatter loop whose other operations only
/// compute and read (so that every thread may repeat them), or null.
scf::ParallelOp sliceLoop(scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return nullptr;
  scf::ParallelOp slice;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (slice)
      return nullptr; // Work after the slice's addition.
    if (auto parallel = dyn_cast<scf::ParallelOp>(op)) {
      slice = parallel;
      continue;
    }
    if (!isMemoryEffectFree(&op) && !isa<memref::LoadOp>(op))
      return nullptr;
  }
  if (!slice || slice.getNumResults() != 0 ||
      !llvm::all_of(slice->getOperands(),
                    [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }))
    return nullptr;
  return slice;
}

/// Whether the threads of the moved loop would each touch only their own
/// elements of what the slice writes: the slice touches memory by loads
/// and stores only, and nothing in `loop` may touch a memref that the
/// slice stores to but the slice's own accesses of the stored element
/// (the same memref at the same indices). (sliceLoop has checked that the
/// operations before the slice only compute and load.)
bool ownElementsOnly(scf::ForOp loop, scf::ParallelOp slice,
                     AliasAnalysis &aliases) {
  std::optional<SmallVector<tad::Access>> inSlice = tad::accessesOf(slice);
  if (!inSlice)
    return false;
  SmallVector<tad::Access> before;
  for (Operation &op : loop.getBody()->without_terminator())
    if (&op != slice.getOperation())
      if (std::optional<SmallVector<tad::Access>> loads = tad::accessesOf(&op))
        before.append(*loads);
  for (const tad::Access &store : *inSlice) {
    if (!store.write)
      continue;
    auto touches = [&](const tad::Access &a) {
      return !aliases.alias(a.memref, store.memref).isNo();
    };
    if (llvm::any_of(before, touches) ||
        llvm::any_of(*inSlice, [&](const tad::Access &a) {
          return touches(a) && (a.memref != store.memref ||
                                !tad::sameIndices(a.indices, store.indices));
        }))
      return false;
  }
  return true;
}

/// Whether each element of the slice writes the same place of what it
/// writes in every iteration but for the rows: every store goes to memory
/// defined outside the loop, or to a view of it made in the loop whose
/// offsets that the loop changes are those of dimensions of size 1 in the
/// view. (A view that moves along its other dimensions would have one
/// element's thread write another's place in another iteration.)
bool elementsStayInRows(scf::ForOp loop, scf::ParallelOp slice) {
  WalkResult walk = slice.walk([&](memref::StoreOp store) {
    Value memref = store.getMemRef();
    if (loop.isDefinedOutsideOfLoop(memref))
      return WalkResult::advance();
    auto view = memref.getDefiningOp<memref::SubViewOp>();
    if (!view || !loop.isDefinedOutsideOfLoop(view.getSource()))
      return WalkResult::interrupt();
    for (auto [offset, size] :
         llvm::zip(view.getMixedOffsets(), view.getMixedSizes())) {
      auto value = dyn_cast<Value>(offset);
      if (value && !loop.isDefinedOutsideOfLoop(value) &&
          getConstantIntValue(size) != 1)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// The row that a scatter loop's slice writes, in a view of a table
/// defined outside the loop: the view's one offset that the loop changes,
/// that of a dimension of size 1 in the view, and the table's extent there.
struct RowWrite {
  Value offset;
  int64_t rows;
};

/// Where every store of `slice` goes to one view, in `loop`'s body, of a
/// table defined outside it, with one offset computed in the loop (the
/// row) over a dimension of size 1 in the view and the others, and the
/// view's sizes and strides, fixed, its row. A thread that owns a row then
/// writes the same elements in every iteration that picks it.
std::optional<RowWrite> rowWritten(scf::ForOp loop, scf::ParallelOp slice) {
  memref::SubViewOp view;
  bool mismatch = false;
  slice.walk([&](memref::StoreOp store) {
    auto of = store.getMemRef().getDefiningOp<memref::SubViewOp>();
    mismatch |= !of || (view && of != view);
    view = of;
  });
  if (mismatch || !view || view->getBlock() != loop.getBody() ||
      !loop.isDefinedOutsideOfLoop(view.getSource()) || !view.hasUnitStride() ||
      !view.getSourceType().hasStaticShape() ||
      !llvm::all_of(view.getMixedSizes(), [](OpFoldResult size) {
        return getConstantIntValue(size).has_value();
      }))
    return std::nullopt;
  std::optional<RowWrite> row;
  for (auto [dim, offset] : llvm::enumerate(view.getMixedOffsets())) {
    auto value = dyn_cast<Value>(offset);
    if (!value || loop.isDefinedOutsideOfLoop(value))
      continue;
    if (row || getConstantIntValue(view.getMixedSizes()[dim]) != 1)
      return std::nullopt;
    row = RowWrite{value, view.getSourceType().getDimSize(dim)};
  }
  return row;
}

/// scf.for (index) { views; scf.parallel (element) { add } } becomes
/// scf.parallel (element) { scf.for (index) { views; add } }, or, where the
/// indices are unique, scf.parallel (index, element) { views; add }.
/// With `owner`, scf.parallel (row, element) { scf.for (index) { views;
/// if (the index's row is the thread's) { add } } }.
void moveInside(scf::ForOp loop, scf::ParallelOp slice, bool unique,
                std::optional<RowWrite> owner) {
  OpBuilder b(loop);
  SmallVector<Value> lower, upper, step;
  if (unique) {
    lower.push_back(loop.getLowerBound());
    upper.push_back(loop.getUpperBound());
    step.push_back(loop.getStep());
  } else if (owner) {
    lower.push_back(arith::ConstantIndexOp::create(b, loop.getLoc(), 0));
    upper.push_back(
        arith::ConstantIndexOp::create(b, loop.getLoc(), owner->rows));
    step.push_back(arith::ConstantIndexOp::create(b, loop.getLoc(), 1));
  }
  llvm::append_range(lower, slice.getLowerBound());
  llvm::append_range(upper, slice.getUpperBound());
  llvm::append_range(step, slice.getStep());
  auto outer = scf::ParallelOp::create(b, slice.getLoc(), lower, upper, step);
  b.setInsertionPoint(outer.getBody()->getTerminator());
  IRMapping map;
  SmallVector<Value> elements(outer.getInductionVars());
  Value ownRow;
  if (unique || owner) {
    if (unique)
      map.map(loop.getInductionVar(), elements.front());
    else
      ownRow = elements.front();
    elements.erase(elements.begin());
  }
  if (!unique) {
    auto inner = scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                    loop.getUpperBound(), loop.getStep());
    b.setInsertionPoint(inner.getBody()->getTerminator());
    map.map(loop.getInductionVar(), inner.getInductionVar());
  }
  map.map(slice.getInductionVars(), elements);
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (&op != slice.getOperation()) {
      b.clone(op, map);
      continue;
    }
    if (ownRow) {
      Value mine =
          arith::CmpIOp::create(b, op.getLoc(), arith::CmpIPredicate::eq,
                                map.lookup(owner->offset), ownRow);
      auto ifOwn = scf::IfOp::create(b, op.getLoc(), mine);
      b.setInsertionPoint(ifOwn.thenBlock()->getTerminator());
    }
    for (Operation &element : slice.getBody()->without_terminator())
      b.clone(element, map);
  }
  loop.erase();
}

/// The slice's iterations, where its bounds are constants.
std::optional<int64_t> elementCount(scf::ParallelOp slice) {
  int64_t count = 1;
  for (auto [lower, upper, step] : llvm::zip(
           slice.getLowerBound(), slice.getUpperBound(), slice.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lower),
                           u = getConstantIntValue(upper),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    count *= std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
  }
  return count;
}

struct ScatterLoopsInside
    : tad::impl::ScatterLoopsInsideBase<ScatterLoopsInside> {
  using ScatterLoopsInsideBase::ScatterLoopsInsideBase;

  /// The row that each thread owns, where the owner computes.
  std::optional<RowWrite> ownerRow(scf::ForOp loop, scf::ParallelOp slice) {
    std::optional<RowWrite> row = rowWritten(loop, slice);
    std::optional<int64_t> elements = elementCount(slice);
    if (!row || !elements || row->rows < 2 ||
        row->rows > ownerThreads / std::max<int64_t>(1, *elements))
      return std::nullopt;
    return row;
  }

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tad::TadDialect::kScatterLoopAttrName))
        loops.push_back(loop);
    });
    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    for (scf::ForOp loop : loops) {
      scf::ParallelOp slice = sliceLoop(loop);
      if (!slice || !ownElementsOnly(loop, slice, aliases))
        continue;
      bool unique = loop->hasAttr(tad::TadDialect::kScatterLoopUniqueAttrName);
      if (!unique && !elementsStayInRows(loop, slice))
        continue;
      moveInside(loop, slice, unique,
                 unique ? std::nullopt : ownerRow(loop, slice));
    }
  }
};

} // namespace
