//===- AutoDiff.cpp - reverse-mode AD of the tad dialect ------------------===//
//
// Gives every derivative declaration (`tad.derivative`) a body: the forward
// sweep of its primal followed by the backward sweep. Per-op rules come from
// DifferentiableOpInterface; the Differentiator (Differentiator.h, its parts
// in Activity.cpp, Forward.cpp, Backward.cpp, Loops.cpp and
// ResidualTapes.cpp) handles what is not one op, and this file writes the
// function and runs the pass:
//
// - Calls are inlined into the derivative, so that one function's backward
//   sweep sees everything (and the remat pass can schedule across calls).
//   A call of a function with a custom rule is the exception: it runs the
//   rule's forward, and the backward sweep calls its pullback. A derivative
//   requested of the primal itself differentiates the primal's body, so a
//   pullback may ask for it: the rule is never applied inside its own
//   derivative.
// - tad.checkpoint regions run in the forward sweep and run again, from
//   their operands, just before their adjoint: their inner values are never
//   read by the backward sweep.
// - scf.for stores the loop-carried values of every iteration in a tape of
//   stacked tensors, and by default the residuals its adjoint reads
//   (ResidualTapes.cpp); the reverse loop reads the tapes, recomputes what
//   they do not hold of the iteration's body and runs its adjoint.
// - scf.if runs the adjoint of the taken branch, recomputing the branch.
//
// A value's cotangent is null until something contributes to it; fan-out
// adds the contributions. Activity analysis marks the values that depend on
// a wrt parameter; cotangents of other values are never accumulated, and
// the backward ops that computed them are erased as dead code, so that, for
// example, a matmul of data by weights computes no cotangent for the data.
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"

#include "tad/Transforms/AutoDiff.h"
#include "tad/Transforms/Passes.h"

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace tad {
#define GEN_PASS_DEF_AUTODIFF
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;
using namespace tad;
using namespace tad::autodiff;

LogicalResult Differentiator::generate(func::FuncOp fn,
                                       DerivativeAttr request) {
  auto primal =
      module.lookupSymbol<func::FuncOp>(request.getPrimal().getAttr());
  if (!primal || primal.isDeclaration())
    return fn.emitError("the primal @")
           << request.getPrimal().getValue() << " has no body";
  Location loc = fn.getLoc();
  Block *entry = fn.addEntryBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);

  unsigned numParams = primal.getNumArguments();
  IRMapping map;
  // The names are set at once: one setArgAttr per argument makes an array
  // of them all each time, quadratic in a wide record's leaves.
  SmallVector<NamedAttrList> attrs;
  for (unsigned i = 0; i < entry->getNumArguments(); ++i)
    attrs.emplace_back(fn.getArgAttrDict(i));
  for (unsigned i = 0; i < numParams; ++i) {
    map.map(primal.getArgument(i), entry->getArgument(i));
    entry->getArgument(i).setLoc(primal.getArgument(i).getLoc());
    if (Attribute name = primal.getArgAttr(i, TadDialect::kArgNameAttrName))
      attrs[i].set(TadDialect::kArgNameAttrName, name);
  }
  // vjp: the cotangent of result i is named d_result<i> (d_result0.l1.w
  // for a leaf of a record result).
  for (unsigned i = numParams; i < entry->getNumArguments(); ++i) {
    entry->getArgument(i).setLoc(loc);
    attrs[i].set(TadDialect::kArgNameAttrName,
                 b.getStringAttr("d_" + getResultName(primal, i - numParams)));
  }
  fn.setAllArgAttrs(llvm::to_vector(llvm::map_range(
      attrs, [&](NamedAttrList &list) {
        return list.getDictionary(b.getContext());
      })));
  SmallVector<Value> outputs;
  SmallVector<Operation *> callStack = {primal};
  wrtArgs.clear();
  for (int64_t position : request.getWrt())
    wrtArgs.insert(entry->getArgument(position));
  if (failed(cloneForward(primal.getBody().front(), map, outputs, callStack)))
    return failure();
  SmallVector<Operation *> forwardOps;
  for (Operation &op : *entry)
    forwardOps.push_back(&op);
  llvm::DenseSet<Operation *> forwardSet(forwardOps.begin(), forwardOps.end());
  // (Constants and the empty tensors that start tapes hold no forward
  // value worth reporting.)
  for (Operation *op : forwardOps)
    if (!op->hasTrait<OpTrait::ConstantLike>() && !isa<EmptyOp>(op))
      op->setAttr(TadDialect::kForwardAttrName, b.getUnitAttr());

  // Activity: the wrt parameters, and what depends on them.
  active.clear();
  forwardValues.clear();
  for (Value arg : entry->getArguments())
    forwardValues.insert(arg);
  fn.walk([&](Operation *op) {
    for (Value r : op->getResults())
      forwardValues.insert(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments())
          forwardValues.insert(arg);
  });
  for (int64_t position : request.getWrt())
    active.insert(entry->getArgument(position));
  propagateActivity(forwardOps);

  // Seeds: 1 for the differentiated scalar, or the given cotangents.
  CotangentMap cot;
  switch (request.getKind()) {
  case DerivativeKind::grad:
  case DerivativeKind::value_and_grad: {
    auto type = cast<RankedTensorType>(outputs[0].getType());
    auto floatType = cast<FloatType>(type.getElementType());
    accumulate(cot, outputs[0],
               ConstantOp::create(b, loc,
                                  DenseElementsAttr::get(
                                      type, FloatAttr::get(floatType, 1.0))));
    break;
  }
  case DerivativeKind::vjp:
    for (auto [i, out] : llvm::enumerate(outputs))
      accumulate(cot, out, entry->getArgument(numParams + i));
    break;
  }
  if (failed(backward(forwardOps, cot)))
    return failure();

  SmallVector<Value> results;
  if (request.getKind() == DerivativeKind::value_and_grad)
    llvm::append_range(results, outputs);
  for (int64_t position : request.getWrt()) {
    Value arg = entry->getArgument(position);
    Value c = cot.lookup(arg);
    results.push_back(c ? c : zerosOf(b, loc, arg.getType()));
  }
  func::ReturnOp::create(b, loc, results);
  fn.setPublic();
  // Clones of forward ops in the backward sweep (recomputed checkpoints)
  // are not forward ops.
  for (Operation &op : *entry)
    if (!forwardSet.contains(&op))
      op.removeAttr(TadDialect::kForwardAttrName);
  pruneResidualTapes(fn);
  // The cotangents of inactive values were never used: erase the ops that
  // computed them (and anything else dead). Region DCE computes liveness
  // once; sweeping until nothing changed took one sweep per link of a dead
  // chain (the cotangents of a 5,000-term sum: 1.0 s).
  IRRewriter rewriter(fn.getContext());
  (void)runRegionDCE(rewriter, fn->getRegions());
  return success();
}

/// Whether the primal of `request` reaches a pending derivative.
static bool dependsOnPending(ModuleOp module, DerivativeAttr request,
                             ArrayRef<func::FuncOp> pending) {
  llvm::SmallPtrSet<Operation *, 8> seen;
  SmallVector<func::FuncOp> work = {
      module.lookupSymbol<func::FuncOp>(request.getPrimal().getAttr())};
  while (!work.empty()) {
    func::FuncOp fn = work.pop_back_val();
    if (!fn || !seen.insert(fn).second)
      continue;
    if (llvm::is_contained(pending, fn) && fn.isDeclaration())
      return true;
    fn.walk([&](func::CallOp call) {
      work.push_back(module.lookupSymbol<func::FuncOp>(call.getCalleeAttr()));
      if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr()))
        if (auto rule = callee->getAttrOfType<CustomRuleAttr>(
                TadDialect::kCustomRuleAttrName)) {
          work.push_back(
              module.lookupSymbol<func::FuncOp>(rule.getForward().getAttr()));
          work.push_back(
              module.lookupSymbol<func::FuncOp>(rule.getPullback().getAttr()));
        }
    });
  }
  return false;
}

FailureOr<unsigned> tad::differentiateModule(ModuleOp module,
                                             const AutoDiffOptions &options) {
  OpBuilder builder(module.getContext());
  Differentiator differentiator(module, builder, options.loopSnapshots,
                                options.loopResiduals,
                                options.countRevolveActions);
  // A derivative may call (or differentiate through) another one: define
  // them in dependency order, as far as that goes.
  SmallVector<func::FuncOp> pending;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn.isDeclaration() && fn->hasAttr(TadDialect::kDerivativeAttrName))
      pending.push_back(fn);
  unsigned derivatives = 0;
  while (!pending.empty()) {
    SmallVector<func::FuncOp> next;
    for (func::FuncOp fn : pending) {
      auto request =
          fn->getAttrOfType<DerivativeAttr>(TadDialect::kDerivativeAttrName);
      if (dependsOnPending(module, request, pending)) {
        next.push_back(fn);
        continue;
      }
      if (failed(differentiator.generate(fn, request)))
        return failure();
      ++derivatives;
    }
    if (next.size() == pending.size())
      return next.front().emitError("derivatives that depend on each other");
    pending = std::move(next);
  }
  // The counts were for this pass; the primal loops need not carry them
  // on (the derivatives' loops are new ops without them).
  module.walk([](scf::ForOp loop) {
    loop->removeAttr(TadDialect::kLoopSnapshotsAttrName);
    loop->removeAttr(TadDialect::kLoopResidualsAttrName);
    loop->removeAttr(TadDialect::kLoopResidualRecomputeAttrName);
  });
  return derivatives;
}

namespace {

struct AutoDiffPass : tad::impl::AutoDiffBase<AutoDiffPass> {
  using AutoDiffBase::AutoDiffBase;
  void runOnOperation() override {
    AutoDiffOptions options;
    options.loopSnapshots = loopSnapshots;
    options.loopResiduals = loopResiduals;
    options.countRevolveActions = countRevolveActions;
    FailureOr<unsigned> derivatives =
        differentiateModule(getOperation(), options);
    if (failed(derivatives))
      return signalPassFailure();
    numDerivatives += *derivatives;
  }
};

} // namespace
