//===- Passes.h - tad transformation passes ---------------------*- C++ -*-===//

#ifndef TAD_TRANSFORMS_PASSES_H
#define TAD_TRANSFORMS_PASSES_H

#include "dialects/tad/TadDialect.h"
#include "tad/Transforms/Options.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace tad {

#define GEN_PASS_DECL
#include "tad/Transforms/Passes.h.inc"

/// Adds to `pm` (on a builtin.module) the passes from the tad dialect
/// (after AD) to memrefs whose every allocation and free is in the IR: the
/// part of the lowering that the CPU and the GPU share, and that the remat
/// pass runs on copies to check its schedules. tad-buffer-peak, which
/// measures (and bounds) the planned buffers, follows it in every
/// lowering (tad::addLoweringPipeline, Pipeline.h). Without `collectives`
/// (the GPU targets), a tad.all_reduce is an error.
void addBufferizationPasses(mlir::OpPassManager &pm, bool collectives = true);

// The bufferization pipeline's memory steps as calls, each the whole of its
// pass (see tad::BufferizationSteps).

/// tad-bufferize-wide-signatures with its `pairs` option.
void bufferizeWideSignatures(mlir::ModuleOp module, int64_t pairs);
/// tad-order-constant-globals.
void orderConstantGlobals(mlir::ModuleOp module);
/// tad-forward-copies.
void forwardCopies(mlir::func::FuncOp func);
/// What tad-plan-buffers placed in one function (its statistics).
struct BufferPlanCounts {
  int64_t copies = 0;
  int64_t frees = 0;
};
/// tad-plan-buffers.
mlir::FailureOr<BufferPlanCounts> planBuffers(mlir::func::FuncOp func);
/// tad-buffer-peak with its options: annotates every defined function with
/// its peak; fails on one over its budget.
mlir::LogicalResult annotateBufferPeaks(mlir::ModuleOp module, int64_t budget,
                                        llvm::ArrayRef<std::string> functions);

/// tad-duplicate-broadcasts on every function in `root`; returns the
/// number of broadcasts cloned.
unsigned duplicateBroadcasts(mlir::Operation *root);

/// The name that tad-prefix-function-names gives `function`, by which
/// compiled outputs call it (`__tad_f`).
std::string getInternalName(llvm::StringRef function);

#define GEN_PASS_REGISTRATION
#include "tad/Transforms/Passes.h.inc"

} // namespace tad

#endif // TAD_TRANSFORMS_PASSES_H
