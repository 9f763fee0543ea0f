//===- PlanPeak.cpp - the planned peak of a function's buffers ------------===//

#include "PlanPeak.h"

#include "dialects/tad/TadOps.h"
#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace tad;

FailureOr<int64_t> tad::planBufferPeak(ModuleOp module, func::FuncOp func,
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
  PassManager pm(module.getContext());
  pm.addPass(createSymbolDCEPass());
  if (failed(parsePassPipeline(StringRef(getBufferizationPipeline()).rtrim(','),
                               pm)))
    return func.emitError("the bufferization pipeline is not registered");
  if (failed(pm.run(*copy)))
    return func.emitError("cannot lower @")
           << func.getName() << " to measure its buffers";
  auto lowered = copy->lookupSymbol<func::FuncOp>(func.getName());
  auto peak =
      lowered
          ? lowered->getAttrOfType<IntegerAttr>(TadDialect::kBufferPeakAttrName)
          : IntegerAttr();
  if (!peak)
    return func.emitError("no buffer peak for @") << func.getName();
  return peak.getInt();
}
