//===- BufferPeakPass.cpp - annotate and check functions' buffer peaks ----===//

#include "tad/Transforms/BufferPeak.h"
#include "tad/Transforms/Passes.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/IR/Builders.h"

namespace tad {
#define GEN_PASS_DEF_BUFFERPEAK
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

struct BufferPeakPass : tad::impl::BufferPeakBase<BufferPeakPass> {
  using BufferPeakBase::BufferPeakBase;

  void runOnOperation() override {
    if (failed(tad::annotateBufferPeaks(getOperation(), budget, functions)))
      signalPassFailure();
  }
};

} // namespace

LogicalResult tad::annotateBufferPeaks(ModuleOp module, int64_t budget,
                                       ArrayRef<std::string> functions) {
  tad::BufferPeakAnalysis analysis;
  Builder b(module.getContext());
  bool ok = true;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration())
      continue;
    FailureOr<tad::BufferPeak> peak = analysis.getPeak(func);
    if (failed(peak)) {
      ok = false;
      continue;
    }
    func->setAttr(tad::TadDialect::kBufferPeakAttrName,
                  b.getI64IntegerAttr(peak->peak));
    if (peak->exact)
      func->removeAttr(tad::TadDialect::kBufferPeakBoundAttrName);
    else
      func->setAttr(tad::TadDialect::kBufferPeakBoundAttrName, b.getUnitAttr());
    bool budgeted = functions.empty()
                        ? func->hasAttr(tad::TadDialect::kDerivativeAttrName)
                        : llvm::is_contained(functions, func.getName().str());
    // A budget that tad-remat chose for the function (the overhead
    // policy) is checked as the option's is.
    int64_t limit = budgeted ? int64_t(budget) : -1;
    if (auto chosen =
            func->getAttrOfType<IntegerAttr>(tad::TadDialect::kBudgetAttrName))
      limit = limit < 0 ? chosen.getInt()
                        : std::min<int64_t>(limit, chosen.getInt());
    if (limit >= 0 && peak->peak > limit) {
      func.emitError() << "the buffers of @" << func.getName() << " peak at "
                       << peak->peak << " bytes, over the budget of " << limit
                       << " bytes";
      ok = false;
    }
  }
  return success(ok);
}
