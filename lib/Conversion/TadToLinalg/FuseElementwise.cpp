//===- FuseElementwise.cpp - fusion under the remat memory model ----------===//
//
// Which values get a buffer decides the peak that the remat pass plans for,
// so the lowering fuses by the rule the remat model states (RematGraph.h):
// a producer fuses into its consumer when that consumer is its only use.
// Upstream's pass also moves reshapes across generics, which fuses through
// views and makes buffers appear or vanish where the model cannot see it.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/MatmulMaps.h"
#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tad {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

struct FuseElementwisePass
    : tad::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // A contraction stays one: fused into, it would become a loop nest
    // rather than a GEMM (tad-fold-transposes-into-matmuls makes
    // contractions generics, which linalg would fuse into).
    linalg::ControlFusionFn onlyUse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      return producer && producer->hasOneUse() &&
             !(consumer && tad::matchContraction(consumer));
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, onlyUse);
    // Merges the duplicate operands that fusion leaves (a producer read
    // twice by one consumer), so that the producer has one use.
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
