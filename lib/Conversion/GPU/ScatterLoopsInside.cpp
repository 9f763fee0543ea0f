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
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadDialect.h"

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
    for (scf::ForOp loop : loops)
      if (scf::ParallelOp slice = sliceLoop(loop))
        moveInside(loop, slice,
                   loop->hasAttr(tad::TadDialect::kScatterLoopUniqueAttrName));
  }
};

} // namespace
