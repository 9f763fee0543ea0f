//===- PlanPeak.cpp - the planned peak of a function's buffers ------------===//

#include "PlanPeak.h"

#include "dialects/tad/TadOps.h"
#include "tad/Conversion/Passes.h"
#include "tad/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace tad;

/// A copy of `module` with `body` as `func`'s body, lowered through the
/// bufferization pipeline; null (with an error) when it cannot be.
static OwningOpRef<ModuleOp> lowerCopy(ModuleOp module, func::FuncOp func,
                                       func::FuncOp body) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->cloneWithoutRegions()));
  copy->getBodyRegion().emplaceBlock();
  OpBuilder b = OpBuilder::atBlockEnd(copy->getBody());
  for (Operation &op : *module.getBody()) {
    bool target = &op == func.getOperation();
    Operation *cloned = b.clone(target ? *body : op);
    auto fn = dyn_cast<func::FuncOp>(cloned);
    if (!fn)
      continue;
    // Only AD reads these; without them, what `func` does not call is
    // dropped.
    fn->removeAttr(TadDialect::kDerivativeAttrName);
    fn->removeAttr(TadDialect::kCustomRuleAttrName);
    if (target)
      fn.setPublic();
    else if (!fn.isDeclaration())
      fn.setPrivate();
  }
  copy->walk([](scf::ForOp loop) {
    loop->removeAttr(TadDialect::kLoopSnapshotsAttrName);
  });
  // The copy holds the remat pass's rewrite: verified once here, not after
  // every pass of the lowering, which measures it many times a compile.
  if (failed(verify(*copy)))
    return nullptr;
  PassManager pm(module.getContext());
  pm.enableVerifier(false);
  pm.addPass(createSymbolDCEPass());
  addBufferizationPasses(pm);
  pm.addPass(createBufferPeak());
  if (failed(pm.run(*copy))) {
    func.emitError("cannot lower @")
        << func.getName() << " to measure its buffers";
    return nullptr;
  }
  return copy;
}

FailureOr<int64_t> tad::planBufferPeak(ModuleOp module, func::FuncOp func,
                                       func::FuncOp body) {
  OwningOpRef<ModuleOp> copy = lowerCopy(module, func, body);
  if (!copy)
    return failure();
  auto lowered = copy->lookupSymbol<func::FuncOp>(func.getName());
  auto peak =
      lowered
          ? lowered->getAttrOfType<IntegerAttr>(TadDialect::kBufferPeakAttrName)
          : IntegerAttr();
  if (!peak)
    return func.emitError("no buffer peak for @") << func.getName();
  return peak.getInt();
}

FailureOr<PlannedTimeline> tad::planBufferTimeline(ModuleOp module,
                                                   func::FuncOp func,
                                                   func::FuncOp body,
                                                   size_t maxEvents) {
  OwningOpRef<ModuleOp> copy = lowerCopy(module, func, body);
  if (!copy)
    return failure();
  auto lowered = copy->lookupSymbol<func::FuncOp>(func.getName());
  if (!lowered)
    return func.emitError("no lowered @") << func.getName();
  PlannedTimeline timeline;
  FailureOr<std::vector<BufferEvent>> events =
      traceBuffers(lowered, maxEvents, timeline.truncated);
  if (failed(events))
    return failure();
  timeline.events = std::move(*events);
  return timeline;
}
