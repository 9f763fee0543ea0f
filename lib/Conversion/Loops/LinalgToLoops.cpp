//===- LinalgToLoops.cpp - linalg to loops that say which may run at once -===//
//
// Upstream's convert-linalg-to-loops makes every dimension an scf.for, and
// its parallel loops (convert-linalg-to-parallel-loops) make every
// parallel dimension one scf.parallel: either way what tad's CPU code
// needs later is lost or changed. tad keeps the loops sequential (its
// elementwise and reduction nests were tuned as such, docs/performance.md)
// and marks the outermost loop of a nest `tad.parallel` when the linalg op
// says its iterations are independent; tad-outline-loop-nests then lets
// such a nest run its outer iterations on the runtime's threads.
//
// An outer loop is independent when its dimension is parallel, every
// output's indexing map has it as a result of its own (so two iterations
// write different elements of every output), and every input that may be
// the same buffer as an output is read where that output is written (an
// elementwise op in place; so too another output). Two buffers may be the same
// unless they view different allocations, or an allocation and a function
// argument.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tad {
#define GEN_PASS_DEF_LINALGTOLOOPS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// The buffer that `memref` views, through view-like ops.
Value getRoot(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

bool isFunctionArgument(Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  return argument && argument.getOwner()->isEntryBlock() &&
         isa<FunctionOpInterface>(argument.getOwner()->getParentOp());
}

/// Whether `a` and `b` (roots) surely are different buffers.
bool distinct(Value a, Value b) {
  if (a == b)
    return false;
  bool allocA = static_cast<bool>(a.getDefiningOp<memref::AllocOp>());
  bool allocB = static_cast<bool>(b.getDefiningOp<memref::AllocOp>());
  return (allocA && (allocB || isFunctionArgument(b))) ||
         (allocB && isFunctionArgument(a));
}

/// Whether the iterations of `op`'s outermost loop may run at once.
bool isOuterLoopParallel(linalg::LinalgOp op) {
  if (op.getNumLoops() == 0 ||
      op.getIteratorTypesArray().front() != utils::IteratorType::parallel)
    return false;
  AffineExpr d0 = getAffineDimExpr(0, op.getContext());
  for (OpOperand &output : op.getDpsInitsMutable()) {
    if (!isa<MemRefType>(output.get().getType()) ||
        !llvm::is_contained(op.getMatchingIndexingMap(&output).getResults(),
                            d0))
      return false;
    // Every other operand (another output too) that may be this buffer
    // must be it, accessed where this output is.
    Value outputRoot = getRoot(output.get());
    for (OpOperand &other : op->getOpOperands()) {
      if (&other == &output || !isa<MemRefType>(other.get().getType()) ||
          distinct(getRoot(other.get()), outputRoot))
        continue;
      if (other.get() != output.get() || op.getMatchingIndexingMap(&other) !=
                                             op.getMatchingIndexingMap(&output))
        return false;
    }
  }
  return true;
}

struct LinalgToLoops : tad::impl::LinalgToLoopsBase<LinalgToLoops> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    function.walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      bool parallel = isOuterLoopParallel(op);
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops)) {
        op->emitOpError("could not be lowered to loops");
        return signalPassFailure();
      }
      if (parallel && !loops->empty())
        loops->front()->setAttr(tad::TadDialect::kParallelLoopAttrName,
                                rewriter.getUnitAttr());
      rewriter.eraseOp(op);
    }
    // What upstream's pass cleans up after itself: the index arithmetic of
    // the loads and stores, and the dims of static shapes.
    RewritePatternSet patterns(&getContext());
    memref::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(function, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
