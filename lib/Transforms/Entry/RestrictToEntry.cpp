//===- RestrictToEntry.cpp - keep one entry and what it reaches -----------===//

#include "tad/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tad {
#define GEN_PASS_DEF_RESTRICTTOENTRY
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// What symbol-dce does at the top of `module`: erases the private symbols
/// that nothing reaches from the public ones or from the operations that
/// are no symbols. (A pass that ran symbol-dce itself would run a pipeline
/// inside a pass.)
void eraseUnreachedSymbols(ModuleOp module) {
  llvm::SmallPtrSet<Operation *, 16> live;
  SmallVector<Operation *> worklist;
  for (Operation &op : *module.getBody()) {
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    if (!symbol || !symbol.canDiscardOnUseEmpty()) {
      live.insert(&op);
      worklist.push_back(&op);
    }
  }
  SymbolTable symbols(module);
  while (!worklist.empty()) {
    worklist.pop_back_val()->walk([&](Operation *nested) {
      for (NamedAttribute attr : nested->getAttrs())
        attr.getValue().walk([&](SymbolRefAttr ref) {
          Operation *used = symbols.lookup(ref.getRootReference());
          if (used && live.insert(used).second)
            worklist.push_back(used);
        });
    });
  }
  for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
    if (!live.contains(&op))
      op.erase();
}

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
    // A written derivative names its primal in its `tad.derivative`
    // attribute, but does not call it: that reference must not keep the
    // primal alive. The attributes are set aside during the DCE and put
    // back on the derivatives that remain.
    SmallVector<std::pair<StringAttr, Attribute>> derivatives;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isDeclaration())
        if (Attribute request =
                f->removeAttr(tad::TadDialect::kDerivativeAttrName))
          derivatives.push_back({f.getSymNameAttr(), request});
    eraseUnreachedSymbols(module);
    for (auto [name, request] : derivatives)
      if (auto f = module.lookupSymbol<func::FuncOp>(name))
        f->setAttr(tad::TadDialect::kDerivativeAttrName, request);
  }
};

} // namespace
