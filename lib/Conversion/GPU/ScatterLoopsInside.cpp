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

/// scf.for (index) { views; scf.parallel (element) { add } } becomes
/// scf.parallel (element) { scf.for (index) { views; add } }, or, where the
/// indices are unique, scf.parallel (index, element) { views; add }.
void moveInside(scf::ForOp loop, scf::ParallelOp slice, bool unique) {
  OpBuilder b(loop);
  SmallVector<Value> lower, upper, step;
  if (unique) {
    lower.push_back(loop.getLowerBound());
    upper.push_back(loop.getUpperBound());
    step.push_back(loop.getStep());
  }
  llvm::append_range(lower, slice.getLowerBound());
  llvm::append_range(upper, slice.getUpperBound());
  llvm::append_range(step, slice.getStep());
  auto outer = scf::ParallelOp::create(b, slice.getLoc(), lower, upper, step);
  b.setInsertionPoint(outer.getBody()->getTerminator());
  IRMapping map;
  SmallVector<Value> elements(outer.getInductionVars());
  if (unique) {
    map.map(loop.getInductionVar(), elements.front());
    elements.erase(elements.begin());
  } else {
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
    for (Operation &element : slice.getBody()->without_terminator())
      b.clone(element, map);
  }
  loop.erase();
}

struct ScatterLoopsInside
    : tad::impl::ScatterLoopsInsideBase<ScatterLoopsInside> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tad::TadDialect::kScatterLoopAttrName))
        loops.push_back(loop);
    });
    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    for (scf::ForOp loop : loops)
      if (scf::ParallelOp slice = sliceLoop(loop);
          slice && ownElementsOnly(loop, slice, aliases))
        moveInside(loop, slice,
                   loop->hasAttr(tad::TadDialect::kScatterLoopUniqueAttrName));
  }
};

} // namespace
