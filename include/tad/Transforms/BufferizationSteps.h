//===- BufferizationSteps.h - the pipeline as calls -------------*- C++ -*-===//
//
// The remat scheduler checks each plan by lowering a copy of the function
// through the bufferization pipeline (addBufferizationPasses) and reading
// the peak of its planned buffers. It does so inside a pass (tad-remat,
// tad-choose-loop-snapshots), where a pass manager has no place: MLIR's
// dynamic pipelines run only on operations nested under the pass's, and
// the scheduler lowers detached copies, on two threads at once. So the
// pipeline is also a sequence of calls, each the whole of one pass's work,
// in the pipeline's order; test/Transforms/Memory/bufferization-steps.test
// checks that both give the same IR, byte for byte, on every program of
// the repository.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TRANSFORMS_BUFFERIZATIONSTEPS_H
#define TAD_TRANSFORMS_BUFFERIZATIONSTEPS_H

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tad {

/// addBufferizationPasses as calls. Building one freezes the pattern sets
/// that the pipeline's passes freeze when they are initialized, so a
/// caller builds it once and runs it on many modules; `run` may be called
/// from several threads at once, each on a module of its own.
class BufferizationSteps {
public:
  /// The dialects of `context` must include those that
  /// getDependentDialects names (the passes that run these steps load
  /// them): canonicalization takes the patterns of the loaded ones.
  explicit BufferizationSteps(mlir::MLIRContext *context,
                              bool collectives = true);

  /// Lowers `module` from the tad dialect to planned memrefs, as the
  /// pipeline does; emits the first failing step's errors.
  mlir::LogicalResult run(mlir::ModuleOp module) const;

  /// The dialects the steps create operations of: those that the
  /// pipeline's passes declare.
  static void getDependentDialects(mlir::DialectRegistry &registry);

private:
  void canonicalize(mlir::ModuleOp module) const;

  bool collectives;
  mlir::FrozenRewritePatternSet tadToLinalg;
  mlir::FrozenRewritePatternSet canonicalization;
  mlir::FrozenRewritePatternSet foldTransposes;
  mlir::FrozenRewritePatternSet fuseElementwise;
  mlir::GreedyRewriteConfig canonicalizerConfig;
  mlir::bufferization::OneShotBufferizationOptions bufferize;
};

} // namespace tad

#endif // TAD_TRANSFORMS_BUFFERIZATIONSTEPS_H
