//===- FuseElementwise.cpp - fusion under the remat memory model ----------===//
//
// Which values get a buffer decides the peak that the remat pass plans for,
// so the lowering fuses by the rule the remat model states (RematGraph.h):
// a producer fuses into its consumer when that consumer is its only use.
// Upstream's pass also moves reshapes across generics, which fuses through
// views and makes buffers appear or vanish where the model cannot see it.
//
// Fusing a producer into its consumer copies both bodies into a new op. A
// greedy driver fuses one producer at a time into a group that grows, so
// a chain of N elementwise ops (the sum of a record's N fields, `s = s +
// ...`) copies N^2/2 bodies: the gradient of that sum over 2,000 fields
// spent 5.0 of its 6.2 s in this pass. Fusing in rounds of disjoint pairs
// first halves the chain each round: each op's body is copied log N times.
// The greedy driver then finds what the rounds could not (a producer read
// twice by one consumer, which canonicalization first makes one use).
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

/// Fuses producers into their consumers in rounds: in each, every op takes
/// part in at most one fusion, so a chain halves per round.
static void fuseInRounds(Operation *root,
                         const linalg::ControlFusionFn &control) {
  IRRewriter rewriter(root->getContext());
  // What the canonicalization below would do to each op, done first: it
  // replaces an op, and the greedy driver then visits the op's users again.
  // A sum of N fields, each `p.a * p.a` (one operand read twice), made the
  // one consumer of all N be visited N times.
  auto deduplicate = [&](linalg::GenericOp op) {
    rewriter.setInsertionPoint(op);
    (void)linalg::deduplicateOperandsAndRemoveDeadResults(
        rewriter, op, /*removeOutputs=*/true);
  };
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp op) { generics.push_back(op); });
  for (linalg::GenericOp op : generics)
    deduplicate(op);
  while (true) {
    SmallVector<OpOperand *> pairs;
    llvm::DenseSet<Operation *> taken;
    root->walk([&](linalg::GenericOp consumer) {
      if (taken.contains(consumer))
        return;
      for (OpOperand &operand : consumer->getOpOperands()) {
        Operation *producer = operand.get().getDefiningOp();
        if (!producer || taken.contains(producer) ||
            !linalg::areElementwiseOpsFusable(&operand) || !control(&operand))
          continue;
        taken.insert(consumer);
        taken.insert(producer);
        pairs.push_back(&operand);
        return;
      }
    });
    // A round ends the rounds when no fusion in it succeeded: the same
    // pairs would fail again.
    bool progress = false;
    for (OpOperand *operand : pairs) {
      Operation *consumer = operand->getOwner();
      Operation *producer = operand->get().getDefiningOp();
      rewriter.setInsertionPoint(consumer);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, operand);
      if (failed(fused))
        continue;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.get().getDefiningOp() != producer;
        });
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      deduplicate(cast<linalg::GenericOp>(fused->fusedOp));
      progress = true;
    }
    if (!progress)
      return;
  }
}

/// A contraction stays one: fused into, it would become a loop nest
/// rather than a GEMM (tad-fold-transposes-into-matmuls makes contractions
/// generics, which linalg would fuse into).
static bool onlyUse(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  return producer && producer->hasOneUse() &&
         !(consumer && tad::matchContraction(consumer));
}

namespace {

struct FuseElementwisePass
    : tad::impl::FuseElementwiseBase<FuseElementwisePass> {
  // Frozen once per pass manager: freezing the set looks up the roots of
  // its interface patterns among all registered operations (most of this
  // pass's time on a small function).
  LogicalResult initialize(MLIRContext *context) override {
    patterns = tad::freezeFuseElementwisePatterns(context);
    return success();
  }

  void runOnOperation() override {
    if (failed(tad::fuseElementwise(getOperation(), patterns)))
      return signalPassFailure();
  }

  FrozenRewritePatternSet patterns;
};

} // namespace

FrozenRewritePatternSet
tad::freezeFuseElementwisePatterns(MLIRContext *context) {
  RewritePatternSet set(context);
  linalg::populateElementwiseOpsFusionPatterns(set, onlyUse);
  // Merges the duplicate operands that fusion leaves (a producer read twice
  // by one consumer), so that the producer has one use.
  linalg::GenericOp::getCanonicalizationPatterns(set, context);
  return FrozenRewritePatternSet(std::move(set));
}

LogicalResult tad::fuseElementwise(Operation *root,
                                   const FrozenRewritePatternSet &patterns) {
  fuseInRounds(root, onlyUse);
  return applyPatternsGreedily(root, patterns,
                               tad::withoutRegionSimplification());
}
