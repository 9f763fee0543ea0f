//===- PlanPeak.h - the planned peak of a function's buffers ----*- C++ -*-===//
//
// The remat graph (RematGraph.h) is a model; the peak that a budget bounds is
// the one tad-buffer-peak simulates on the lowered function. planBufferPeak
// lowers a copy to get it.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_TRANSFORMS_REMAT_PLANPEAK_H
#define TAD_LIB_TRANSFORMS_REMAT_PLANPEAK_H

#include "tad/Transforms/BufferPeak.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tad {

/// The peak of `func`'s buffers as the lowering plans them, with `body`
/// (`func` itself or a detached rewritten copy of it) as its body: a copy
/// of `module` holding that and what it calls goes through the
/// bufferization pipeline, which ends in tad-buffer-peak's simulation of
/// every allocation and free. Emits an error at `func` when the copy
/// cannot be lowered.
mlir::FailureOr<int64_t> planBufferPeak(mlir::ModuleOp module,
                                        mlir::func::FuncOp func,
                                        mlir::func::FuncOp body);

/// The allocations and frees of one call of the lowered copy, in order
/// (traceBuffers): the timeline that the runtime allocator will measure.
struct PlannedTimeline {
  std::vector<BufferEvent> events;
  bool truncated = false;
};
mlir::FailureOr<PlannedTimeline> planBufferTimeline(mlir::ModuleOp module,
                                                    mlir::func::FuncOp func,
                                                    mlir::func::FuncOp body,
                                                    size_t maxEvents);

} // namespace tad

#endif // TAD_LIB_TRANSFORMS_REMAT_PLANPEAK_H
