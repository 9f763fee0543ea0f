//===- BufferizationPipeline.cpp - tensors to planned buffers -------------===//
//
// The part of the lowering that the CPU and the GPU share, and that the
// remat scheduler runs on copies to check its schedules: from the tad
// dialect to memrefs whose every allocation and free is in the IR. It has
// two forms, kept side by side here: passes for the compile's pipeline,
// and the same steps as calls for the scheduler (BufferizationSteps.h).
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/BufferizationSteps.h"

#include "tad/Conversion/Passes.h"
#include "tad/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// One-Shot Bufferize's options, as the pass takes them.
static bufferization::OneShotBufferizePassOptions oneShotPassOptions() {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.bufferAlignment = 0;
  return bufferize;
}

/// The canonicalizer's configuration in this pipeline: the pass's defaults
/// but for region simplification, as the pipeline's other greedy rewrites
/// (tad::withoutRegionSimplification): the IR holds structured control
/// flow only until the lowering to LLVM.
static GreedyRewriteConfig structuredCanonicalizerConfig() {
  CanonicalizerOptions defaults;
  GreedyRewriteConfig config = tad::withoutRegionSimplification();
  config.setUseTopDownTraversal(defaults.topDownProcessingEnabled)
      .setMaxIterations(defaults.maxIterations)
      .setMaxNumRewrites(defaults.maxNumRewrites);
  return config;
}

/// tad-forward-copies writes values straight into the tape rows that
/// store them where one-shot bufferization made a copy, and
/// tad-plan-buffers places every free (docs/memory.md). A step added here
/// is added to BufferizationSteps::run too.
void tad::addBufferizationPasses(OpPassManager &pm, bool collectives) {
  ConvertTadToLinalgOptions toLinalg;
  toLinalg.collectives = collectives;
  pm.addPass(createConvertTadToLinalg(toLinalg));
  pm.addPass(createCanonicalizerPass(structuredCanonicalizerConfig()));
  pm.addPass(createFoldTransposesIntoMatmuls());
  pm.addPass(createFuseElementwise());
  pm.addPass(createSplitReductions());
  pm.addPass(createReuseOperandBuffers());
  pm.addPass(createBufferizeWideSignatures());
  // No CSE between conversion and bufferization: it would merge the
  // zero-filled outputs of matmuls and force copies of the shared zeros.
  // Empty-tensor elimination costs a One-Shot analysis of its own, but it
  // makes a value that a loop stores in its tape be computed in the tape's
  // row: without it, the derivative of test/Remat/Inputs/loops.tad
  // computes such values in buffers of their own and copies them.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass(oneShotPassOptions()));
  pm.addPass(createOrderConstantGlobals());
  pm.addPass(createCanonicalizerPass(structuredCanonicalizerConfig()));
  OpPassManager &functions = pm.nest<func::FuncOp>();
  functions.addPass(createForwardCopies());
  functions.addPass(createPlanBuffers());
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass(structuredCanonicalizerConfig()));
}

/// The options that OneShotBufferizePass derives from `pass` (MLIR 22's
/// Bufferize.cpp), for the options that oneShotPassOptions sets and the
/// defaults of the others.
static bufferization::OneShotBufferizationOptions
oneShotOptions(const bufferization::OneShotBufferizePassOptions &pass) {
  using bufferization::LayoutMapOption;
  bufferization::OneShotBufferizationOptions options;
  options.allowReturnAllocsFromLoops = pass.allowReturnAllocsFromLoops;
  options.allowUnknownOps = pass.allowUnknownOps;
  options.analysisFuzzerSeed = pass.analysisFuzzerSeed;
  options.analysisHeuristic =
      bufferization::OneShotBufferizationOptions::AnalysisHeuristic::BottomUp;
  options.copyBeforeWrite = pass.copyBeforeWrite;
  options.dumpAliasSets = pass.dumpAliasSets;
  options.setFunctionBoundaryTypeConversion(
      pass.functionBoundaryTypeConversion);
  options.printConflicts = pass.printConflicts;
  options.bufferAlignment = pass.bufferAlignment;
  options.testAnalysisOnly = pass.testAnalysisOnly;
  options.bufferizeFunctionBoundaries = pass.bufferizeFunctionBoundaries;
  options.checkParallelRegions = pass.checkParallelRegions;
  LayoutMapOption unknown = pass.unknownTypeConversion;
  options.unknownTypeConverterFn =
      [unknown](TensorType type, Attribute memorySpace,
                const bufferization::BufferizationOptions &) {
        if (unknown == LayoutMapOption::IdentityLayoutMap)
          return bufferization::getMemRefTypeWithStaticIdentityLayout(
              type, memorySpace);
        return bufferization::getMemRefTypeWithFullyDynamicLayout(type,
                                                                  memorySpace);
      };
  options.opFilter.allowOperation([](Operation *) { return true; });
  return options;
}

/// The canonicalizer's patterns, as the pass collects them.
static FrozenRewritePatternSet canonicalizationPatterns(MLIRContext *context) {
  RewritePatternSet patterns(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  return FrozenRewritePatternSet(std::move(patterns));
}

tad::BufferizationSteps::BufferizationSteps(MLIRContext *context,
                                            bool collectives)
    : collectives(collectives), tadToLinalg(freezeTadToLinalgPatterns(context)),
      canonicalization(canonicalizationPatterns(context)),
      foldTransposes(freezeFoldTransposesPatterns(context)),
      fuseElementwise(freezeFuseElementwisePatterns(context)),
      canonicalizerConfig(structuredCanonicalizerConfig()),
      bufferize(oneShotOptions(oneShotPassOptions())) {}

void tad::BufferizationSteps::canonicalize(ModuleOp module) const {
  // Best effort, as the pass: not converging is no failure.
  (void)applyPatternsGreedily(module, canonicalization, canonicalizerConfig);
}

LogicalResult tad::BufferizationSteps::run(ModuleOp module) const {
  MLIRContext *context = module.getContext();
  if (failed(convertTadToLinalg(module, tadToLinalg, collectives)))
    return failure();
  canonicalize(module);
  if (failed(tad::foldTransposesIntoMatmuls(module, foldTransposes)) ||
      failed(tad::fuseElementwise(module, fuseElementwise)))
    return failure();
  splitReductions(module);
  reuseOperandBuffers(module);
  bufferizeWideSignatures(module, BufferizeWideSignaturesOptions().pairs);
  IRRewriter rewriter(context);
  bufferization::BufferizationState state;
  if (failed(bufferization::eliminateEmptyTensors(rewriter, module)) ||
      failed(
          bufferization::runOneShotModuleBufferize(module, bufferize, state)))
    return failure();
  orderConstantGlobals(module);
  canonicalize(module);
  for (auto func : module.getOps<func::FuncOp>()) {
    forwardCopies(func);
    if (failed(planBuffers(func)))
      return failure();
  }
  // convert-bufferization-to-memref lowers clones and deallocations, which
  // neither One-Shot Bufferize (without its deallocation pipeline) nor
  // tad-plan-buffers creates, and fails on any other bufferization op.
  WalkResult left = module.walk([](Operation *op) {
    if (!isa_and_nonnull<bufferization::BufferizationDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitError("no lowering of '") << op->getName() << "' to memref";
    return WalkResult::interrupt();
  });
  if (left.wasInterrupted())
    return failure();
  DominanceInfo dominance(module);
  eliminateCommonSubExpressions(rewriter, dominance, module);
  canonicalize(module);
  return success();
}

void tad::BufferizationSteps::getDependentDialects(DialectRegistry &registry) {
  // Those of the pipeline's passes: the list is the pipeline's.
  OpPassManager pipeline(ModuleOp::getOperationName());
  addBufferizationPasses(pipeline);
  pipeline.getDependentDialects(registry);
}
