//===- RestrictToEntry.cpp - keep one entry and what it reaches -----------===//

#include "tad/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace tad {
#define GEN_PASS_DEF_RESTRICTTOENTRY
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

struct RestrictToEntry : tad::impl::RestrictToEntryBase<RestrictToEntry> {
  using RestrictToEntryBase::RestrictToEntryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fn = module.lookupSymbol<func::FuncOp>(entry);
    if (entry.empty() || !fn || fn.isDeclaration()) {
      std::string names;
      for (auto f : module.getOps<func::FuncOp>())
        if (f.isPublic() && !f.isDeclaration())
          names += (names.empty() ? "" : ", ") + f.getName().str();
      module.emitError() << "no function '" << entry
                         << "' to run; the functions are: " << names;
      return signalPassFailure();
    }
    // Custom rules only matter to AD, which ran before this: their forward
    // and pullback are dropped unless something calls them.
    for (auto f : module.getOps<func::FuncOp>()) {
      f->removeAttr(tad::TadDialect::kCustomRuleAttrName);
      if (f != fn && !f.isDeclaration())
        f.setPrivate();
    }
    OpPassManager dce(ModuleOp::getOperationName());
    dce.addPass(createSymbolDCEPass());
    if (failed(runPipeline(dce, module)))
      signalPassFailure();
  }
};

} // namespace
