//===- ParallelLoopsOutermost.cpp - one launch per reduction --------------===//
//
// convert-linalg-to-parallel-loops nests loops in the order of a generic's
// iteration space. A sum split into lanes (tad-split-reductions) iterates
// over rows (a reduction) outside the lanes (parallel), and became a host
// loop around a launch of one thread per lane: a launch per row. With the
// parallel loops outermost the nest is one launch whose threads each loop
// over the rows. Each output element adds its terms in the order it did:
// the reduction loops keep their relative order.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace tad {
#define GEN_PASS_DEF_PARALLELLOOPSOUTERMOST
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// The permutation that puts `op`'s parallel loops first (in their order)
/// and its reduction loops after them, or none when they are in that order
/// already or when an output is indexed by a reduction loop.
std::optional<SmallVector<unsigned>> parallelFirst(linalg::GenericOp op) {
  SmallVector<unsigned> parallel, reduction;
  for (auto [i, type] : llvm::enumerate(op.getIteratorTypesArray()))
    (linalg::isParallelIterator(type) ? parallel : reduction).push_back(i);
  SmallVector<unsigned> order = parallel;
  order.append(reduction);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return std::nullopt;
  for (OpOperand &init : op.getDpsInitsMutable())
    for (unsigned r : reduction)
      if (op.getMatchingIndexingMap(&init).isFunctionOfDim(r))
        return std::nullopt;
  return order;
}

struct ParallelLoopsOutermost
    : tad::impl::ParallelLoopsOutermostBase<ParallelLoopsOutermost> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      std::optional<SmallVector<unsigned>> order = parallelFirst(op);
      if (!order)
        continue;
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, *order))) {
        op.emitOpError("could not put its parallel loops outermost");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
