//===- PlanPeak.h - the planned peak of a function's buffers ----*- C++ -*-===//
//
// The remat graph (RematGraph.h) is a model; the peak that a budget bounds is
// the one tad-buffer-peak simulates on the lowered function. planBufferPeak
// lowers a copy to get it.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_TRANSFORMS_REMAT_PLANPEAK_H
#define TAD_LIB_TRANSFORMS_REMAT_PLANPEAK_H

#include "tad/Remat/SearchMemo.h"
#include "tad/Transforms/BufferPeak.h"
#include "tad/Transforms/BufferizationSteps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace tad {

/// What lowers each plan's copy (the bufferization steps, then
/// tad-buffer-peak's annotation), built once per scheduler rather than per
/// copy: building the steps freezes their pattern sets, and the
/// canonicalizer's alone took a tenth of the compile of 1,000 gradient
/// instances, whose scheduler checks at least two plans each. Plans are
/// checked on several threads at once (store-all's beside a search's).
///
/// It also indexes the module's top-level operations once: by symbol name,
/// and by position. A copy holds what the plan's function reaches, in the
/// module's order; finding that by scanning the module per copy was
/// quadratic in its functions. Its user adds, removes and renames no
/// top-level operation of the module while it plans (the remat pass only
/// swaps functions' bodies).
///
/// With `peaks`, the planned peaks are kept by the copy's text: a search
/// for the least budget asks many budgets whose schedules are the same,
/// and the loop choice's trials ask the same schedules of the same
/// derivatives again, while a plan costs the bufferization of the copy.
/// The lowering is a fixed sequence of steps over the copy alone, so its
/// text decides the peak.
class PlanLowering {
public:
  explicit PlanLowering(mlir::MLIRContext *context,
                        remat::SearchMemo<int64_t> *peaks = nullptr)
      : context(context), keptPeaks(peaks) {}
  /// Lowers `copy`, which owns nothing another thread reads, and annotates
  /// its functions with their peaks.
  mlir::LogicalResult run(mlir::ModuleOp copy);

  /// The top-level operations of `module`.
  struct ModuleIndex {
    mlir::Operation *module = nullptr;
    llvm::DenseMap<mlir::StringAttr, mlir::Operation *> byName;
    llvm::DenseMap<mlir::Operation *, unsigned> position;
    /// The operations that are no symbols (a copy holds them all).
    llvm::SmallVector<mlir::Operation *> unnamed;
  };
  /// `module`'s index, built on the first call for it.
  const ModuleIndex &index(mlir::ModuleOp module);

  /// The kept peaks, if any (shared by the threads and trials that plan
  /// in one compile).
  remat::SearchMemo<int64_t> *peaks() const { return keptPeaks; }

private:
  mlir::MLIRContext *context;
  remat::SearchMemo<int64_t> *keptPeaks;
  std::mutex mutex;
  std::unique_ptr<BufferizationSteps> steps;
  ModuleIndex moduleIndex;
};

/// The peak of `func`'s buffers as the lowering plans them, with `body`
/// (`func` itself or a detached rewritten copy of it) as its body: a copy
/// of `module` holding that and what it calls goes through the
/// bufferization steps, then tad-buffer-peak's simulation of every
/// allocation and free. Emits an error at `func` when the copy
/// cannot be lowered.
mlir::FailureOr<int64_t> planBufferPeak(PlanLowering &lowering,
                                        mlir::ModuleOp module,
                                        mlir::func::FuncOp func,
                                        mlir::func::FuncOp body);

/// planBufferPeak in two parts, for a caller that lowers on a thread of its
/// own: the copy, made and verified on the caller's thread (null, with the
/// verifier's errors, where it does not verify), and its peak. Verifying
/// hands nested isolated operations (tad.checkpoint) to the context's
/// threads, and a thread that is not one of them waits for them: where
/// they are busy running the loop choice's probes, which wait for the
/// lowering thread, that never ends. Lowering uses no other thread.
mlir::OwningOpRef<mlir::ModuleOp> copyForPlan(PlanLowering &lowering,
                                              mlir::ModuleOp module,
                                              mlir::func::FuncOp func,
                                              mlir::func::FuncOp body);
mlir::FailureOr<int64_t> planCopyPeak(PlanLowering &lowering,
                                      mlir::OwningOpRef<mlir::ModuleOp> copy,
                                      mlir::func::FuncOp func);

/// The allocations and frees of one call of the lowered copy, in order
/// (traceBuffers): the timeline that the runtime allocator will measure.
/// With `gpu`, the copy's loops are then mapped as for a GPU target.
struct PlannedTimeline {
  std::vector<BufferEvent> events;
  bool truncated = false;
  /// The peak of the buffer plan after the GPU targets' loop mapping (the
  /// device's plan); negative without it.
  int64_t mappedPeak = -1;
};
/// The GPU targets' loop mapping (tad::runGpuLoopMapping's arguments),
/// which moves allocations and frees around the kernels it joins.
struct GpuLoops {
  bool cublasMatmul = false;
  bool kernelFallback = false;
};
mlir::FailureOr<PlannedTimeline>
planBufferTimeline(PlanLowering &lowering, mlir::ModuleOp module,
                   mlir::func::FuncOp func, mlir::func::FuncOp body,
                   size_t maxEvents, std::optional<GpuLoops> gpu);

} // namespace tad

#endif // TAD_LIB_TRANSFORMS_REMAT_PLANPEAK_H
