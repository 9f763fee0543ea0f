//===- Forward.cpp - the forward sweep ------------------------------------===//
//
// Clones a primal's body into its derivative: calls inlined (a call of a
// function with a custom rule runs the rule's forward instead), loops with
// tapes (Loops.cpp).
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"

using namespace mlir;
using namespace tad;
using namespace tad::autodiff;

LogicalResult
Differentiator::cloneForward(Block &body, IRMapping &map,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<Operation *> &callStack) {
  for (Operation &op : body.without_terminator())
    if (failed(cloneOp(op, map, callStack)))
      return failure();
  for (Value v : body.getTerminator()->getOperands())
    results.push_back(map.lookupOrDefault(v));
  return success();
}

LogicalResult Differentiator::cloneOp(Operation &op, IRMapping &map,
                                      SmallVectorImpl<Operation *> &callStack) {
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr());
    if (!callee)
      return call.emitError("call of an unknown function");
    if (auto rule = callee->getAttrOfType<CustomRuleAttr>(
            TadDialect::kCustomRuleAttrName)) {
      auto forward =
          module.lookupSymbol<func::FuncOp>(rule.getForward().getAttr());
      SmallVector<Value> args;
      for (Value a : call.getOperands())
        args.push_back(map.lookupOrDefault(a));
      auto fwd = func::CallOp::create(b, call.getLoc(), forward, args);
      for (auto [r, v] : llvm::zip(call.getResults(), fwd.getResults()))
        map.map(r, v);
      ruleCalls[fwd] = {rule.getPullback(), call.getNumResults(),
                        llvm::to_vector(rule.getSavedParams())};
      return success();
    }
    if (callee.isDeclaration())
      return call.emitError("cannot differentiate through @")
             << callee.getName()
             << ", which has no body (a derivative it depends on must be "
                "generated first)";
    if (llvm::is_contained(callStack, callee.getOperation()))
      return call.emitError("recursion is not supported: @")
             << callee.getName() << " calls itself";
    // Inline: clone the callee's body with its parameters mapped to the
    // arguments.
    IRMapping inner;
    for (auto [param, arg] :
         llvm::zip(callee.getArguments(), call.getOperands()))
      inner.map(param, map.lookupOrDefault(arg));
    SmallVector<Value> results;
    callStack.push_back(callee);
    Block *block = b.getInsertionBlock();
    Block::iterator point = b.getInsertionPoint();
    Operation *before = point == block->begin() ? nullptr : &*std::prev(point);
    if (failed(
            cloneForward(callee.getBody().front(), inner, results, callStack)))
      return failure();
    callStack.pop_back();
    // The inlined ops say where they were called from, so that diagnostics
    // and the remat report can name the call site.
    for (Operation &cloned : llvm::make_range(
             before ? std::next(before->getIterator()) : block->begin(),
             b.getInsertionPoint()))
      cloned.walk([&](Operation *inlined) {
        inlined->setLoc(CallSiteLoc::get(inlined->getLoc(), call.getLoc()));
      });
    for (auto [r, v] : llvm::zip(call.getResults(), results))
      map.map(r, v);
    return success();
  }
  // A loop that a cloned region holds (through an inlined call) is copied
  // as it is: the backward sweep computes the region again, loops with
  // tapes then, and nothing reads tapes kept here.
  if (auto loop = dyn_cast<scf::ForOp>(op); loop && !inRegionCopy)
    return cloneFor(loop, map, callStack);
  // Calls nested in regions (checkpoint, if) are inlined too: clone the op
  // and then inline the calls inside the clone. A call of a function with a
  // custom rule becomes a call of the rule's forward, as at the top level;
  // its saved values go unused there, since the backward sweep recomputes
  // the region (the branch, the checkpoint) and calls the rule's forward
  // again before the pullback.
  Operation *clone = b.clone(op, map);
  if (op.getNumRegions() == 0)
    return success();
  llvm::SaveAndRestore inRegion(inRegionCopy, true);
  SmallVector<func::CallOp> nested;
  clone->walk([&](func::CallOp call) { nested.push_back(call); });
  for (func::CallOp call : nested) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(call);
    IRMapping local;
    if (failed(cloneOp(*call, local, callStack)))
      return failure();
    for (Value r : call.getResults())
      r.replaceAllUsesWith(local.lookup(r));
    call.erase();
  }
  return success();
}
