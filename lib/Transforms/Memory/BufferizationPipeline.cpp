//===- BufferizationPipeline.cpp - tensors to planned buffers -------------===//
//
// The part of the lowering that the CPU and the GPU share, and that the
// remat scheduler runs on copies to check its schedules: from the tad
// dialect to memrefs whose every allocation and free is in the IR.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"
#include "tad/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// tad-forward-copies writes values straight into the tape rows that
/// store them where one-shot bufferization made a copy, and
/// tad-plan-buffers places every free (docs/memory.md).
void tad::addBufferizationPasses(OpPassManager &pm, bool collectives) {
  ConvertTadToLinalgOptions toLinalg;
  toLinalg.collectives = collectives;
  pm.addPass(createConvertTadToLinalg(toLinalg));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFoldTransposesIntoMatmuls());
  pm.addPass(createFuseElementwise());
  pm.addPass(createSplitReductions());
  pm.addPass(createReuseOperandBuffers());
  pm.addPass(createBufferizeWideSignatures());
  // No CSE between conversion and bufferization: it would merge the
  // zero-filled outputs of matmuls and force copies of the shared zeros.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.bufferAlignment = 0;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createOrderConstantGlobals());
  pm.addPass(createCanonicalizerPass());
  OpPassManager &functions = pm.nest<func::FuncOp>();
  functions.addPass(createForwardCopies());
  functions.addPass(createPlanBuffers());
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}
