//===- PrefixFunctionNames.cpp - the internal names of compiled code ------===//

#include "tad/Transforms/Passes.h"

#include "dialects/tad/TadOps.h"

namespace tad {
#define GEN_PASS_DEF_PREFIXFUNCTIONNAMES
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

static constexpr llvm::StringLiteral kSymbolPrefix = "__tad_";

std::string tad::getInternalName(llvm::StringRef function) {
  return (kSymbolPrefix + function).str();
}

namespace {

struct PrefixFunctionNames
    : tad::impl::PrefixFunctionNamesBase<PrefixFunctionNames> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable table(module);
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      // After AD, a declaration is a runtime function: its name is the
      // runtime's.
      if (fn.isDeclaration() &&
          !fn->hasAttr(tad::TadDialect::kDerivativeAttrName))
        continue;
      std::string name = tad::getInternalName(fn.getName());
      if (failed(table.rename(fn, StringAttr::get(&getContext(), name)))) {
        fn.emitError() << "cannot rename @" << fn.getName() << " to @" << name;
        return signalPassFailure();
      }
    }
  }
};

} // namespace
