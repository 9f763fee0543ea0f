//===- InlineRules.cpp - custom rules' code where AD called it ------------===//
//
// AD calls a custom rule's forward and pullback (tad.custom_rule); after AD
// they are code like any other. Inlined, the remat pass sees their values
// one by one (a rule's output is no longer an opaque call result that can
// only be stored) and the lowering fuses their elementwise ops with their
// neighbours'. This runs after the CSE that follows AD: CSE would merge a
// pullback's recomputation (gelu's tanh, from the input its rule keeps)
// into the forward's value, which would then be kept, undoing the rule's
// choice of what to keep.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/AutoDiff.h"

#include "dialects/tad/TadDialect.h"
#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace tad {
#define GEN_PASS_DEF_INLINERULES
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

/// Whether a call of `callee` from a rule's inlined code is inlined too: a
/// function with a body that is no derivative (a derivative is an entry of
/// its own, which other code calls).
static bool isPlainFunction(func::FuncOp callee) {
  return callee && !callee.isDeclaration() &&
         !callee->hasAttr(tad::TadDialect::kDerivativeAttrName);
}

void tad::inlineRuleCalls(ModuleOp module) {
  SmallVector<CustomRuleAttr> attrs;
  for (auto fn : module.getOps<func::FuncOp>())
    if (auto rule =
            fn->getAttrOfType<CustomRuleAttr>(TadDialect::kCustomRuleAttrName))
      attrs.push_back(rule);
  // Most modules have no rule: no symbol table for them (the loop choice
  // calls this once per probe).
  if (attrs.empty())
    return;
  SymbolTable symbols(module);
  llvm::DenseSet<Operation *> rules;
  for (CustomRuleAttr rule : attrs) {
    rules.insert(symbols.lookup(rule.getForward().getValue()));
    rules.insert(symbols.lookup(rule.getPullback().getValue()));
  }
  rules.erase(nullptr);
  SmallVector<func::CallOp> worklist;
  for (auto fn : module.getOps<func::FuncOp>())
    if (!rules.contains(fn))
      fn.walk([&](func::CallOp call) {
        if (rules.contains(symbols.lookup(call.getCallee())))
          worklist.push_back(call);
      });
  // The rule's code may call functions (a forward its own primal): those
  // are inlined too, with no rule applied (a rule's code is not
  // differentiated). Sema rules out recursion, so this ends.
  while (!worklist.empty()) {
    func::CallOp call = worklist.pop_back_val();
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    OpBuilder b(call);
    IRMapping map;
    Block &body = callee.getBody().front();
    map.map(body.getArguments(), call.getOperands());
    // A forward's code is of the forward sweep, as AD marks its own
    // (constants and empty tensors hold no forward value).
    bool forward = call->hasAttr(TadDialect::kForwardAttrName);
    SmallVector<Operation *> clones;
    for (Operation &op : body.without_terminator()) {
      Operation *clone = b.clone(op, map);
      clones.push_back(clone);
      if (forward && !clone->hasTrait<OpTrait::ConstantLike>() &&
          !isa<EmptyOp>(clone))
        clone->setAttr(TadDialect::kForwardAttrName, b.getUnitAttr());
      // The remat report names where inlined code was called from.
      clone->walk([&](Operation *inner) {
        inner->setLoc(CallSiteLoc::get(inner->getLoc(), call.getLoc()));
        if (auto nested = dyn_cast<func::CallOp>(inner))
          if (isPlainFunction(symbols.lookup<func::FuncOp>(nested.getCallee())))
            worklist.push_back(nested);
      });
    }
    for (auto [result, value] :
         llvm::zip(call.getResults(), body.getTerminator()->getOperands()))
      result.replaceAllUsesWith(map.lookupOrDefault(value));
    call.erase();
    // What nothing reads (a forward's result that a grad discards), as AD
    // leaves none of its own. (A call is never trivially dead, so no op of
    // the worklist goes.)
    for (Operation *clone : llvm::reverse(clones))
      if (isOpTriviallyDead(clone))
        clone->erase();
  }
}

namespace {

struct InlineRules : tad::impl::InlineRulesBase<InlineRules> {
  void runOnOperation() override { tad::inlineRuleCalls(getOperation()); }
};

} // namespace
