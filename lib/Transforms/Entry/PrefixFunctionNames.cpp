//===- PrefixFunctionNames.cpp - the internal names of compiled code ------===//

#include "tad/Transforms/Passes.h"

#include "dialects/tad/TadOps.h"

#include "mlir/IR/AttrTypeSubElements.h"

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
    // Every definition is renamed first, then every use in one walk:
    // SymbolTable::rename walks the whole module for each function, which
    // issue 46 measured at 93 s for 2,000 instances of a generic function.
    DenseMap<StringAttr, StringAttr> renamed;
    for (auto fn : module.getOps<func::FuncOp>()) {
      // After AD, a declaration is a runtime function: its name is the
      // runtime's.
      if (fn.isDeclaration() &&
          !fn->hasAttr(tad::TadDialect::kDerivativeAttrName))
        continue;
      auto name = StringAttr::get(&getContext(),
                                  tad::getInternalName(fn.getName()));
      renamed[fn.getNameAttr()] = name;
    }
    if (renamed.empty())
      return;
    for (auto fn : module.getOps<func::FuncOp>())
      if (auto it = renamed.find(fn.getNameAttr()); it != renamed.end())
        SymbolTable::setSymbolName(fn, it->second);
    AttrTypeReplacer replacer;
    // A reference names a function by its root (the module holds no
    // nested symbol table here); the new reference is not walked again.
    replacer.addReplacement(
        [&](SymbolRefAttr ref)
            -> std::optional<std::pair<Attribute, WalkResult>> {
          auto it = renamed.find(ref.getRootReference());
          if (it == renamed.end())
            return std::nullopt;
          Attribute renamedRef =
              ref.getNestedReferences().empty()
                  ? Attribute(FlatSymbolRefAttr::get(it->second))
                  : Attribute(SymbolRefAttr::get(it->second,
                                                 ref.getNestedReferences()));
          return std::make_pair(renamedRef, WalkResult::skip());
        });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/false);
  }
};

} // namespace
