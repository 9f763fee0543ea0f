//===- Backward.cpp - the backward sweep ----------------------------------===//
//
// The adjoint of each op in reverse: op rules from
// DifferentiableOpInterface, checkpoint regions and branches recomputed
// before their adjoint, custom rules' pullbacks called. Loops are in
// Loops.cpp.
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tad;
using namespace tad::autodiff;

LogicalResult Differentiator::backward(ArrayRef<Operation *> ops,
                                       CotangentMap &cot) {
  for (Operation *op : llvm::reverse(ops))
    if (failed(backwardOp(op, cot)))
      return failure();
  return success();
}

LogicalResult Differentiator::backwardOp(Operation *op, CotangentMap &cot) {
  SmallVector<Value> resultCots;
  bool any = false;
  for (Value r : op->getResults()) {
    resultCots.push_back(cot.lookup(r));
    any |= bool(resultCots.back());
  }
  if (!any)
    return success();
  if (auto checkpoint = dyn_cast<CheckpointOp>(op))
    return backwardCheckpoint(checkpoint, cot);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return backwardFor(loop, cot);
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return backwardIf(branch, cot);
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto it = ruleCalls.find(op);
    if (it != ruleCalls.end())
      return backwardRule(call, it->second, cot);
    return op->emitError("internal error: a call survived inlining");
  }
  if (auto diff = dyn_cast<DifferentiableOpInterface>(op)) {
    SmallVector<Value> operandCots;
    diff.buildVJP(b, resultCots, operandCots);
    for (auto [operand, c] : llvm::zip(op->getOperands(), operandCots))
      accumulate(cot, operand, c);
    return success();
  }
  // Constants, uninitialized tensors, comparisons, index arithmetic and
  // tensor.extract carry no derivative.
  if (isa<ConstantOp, EmptyOp, CompareOp, tensor::ExtractOp>(op) ||
      isa<arith::ArithDialect>(op->getDialect()))
    return success();
  return op->emitError("no derivative rule for ") << op->getName();
}

LogicalResult Differentiator::recompute(Block &body, IRMapping &map,
                                        SmallVectorImpl<Operation *> &created) {
  Block *block = b.getInsertionBlock();
  llvm::SmallPtrSet<Operation *, 32> before;
  for (Operation &op : *block)
    before.insert(&op);
  SmallVector<Operation *> callStack;
  for (Operation &op : body.without_terminator())
    if (failed(cloneOp(op, map, callStack)))
      return failure();
  for (Operation &op : *block)
    if (!before.contains(&op))
      created.push_back(&op);
  return success();
}

LogicalResult
Differentiator::recomputeAndBackward(Block &body, ValueRange args,
                                     ArrayRef<Value> yieldCotangents,
                                     CotangentMap &cot) {
  IRMapping map;
  for (auto [arg, v] : llvm::zip(body.getArguments(), args))
    map.map(arg, v);
  SmallVector<Operation *> recomputed;
  if (failed(recompute(body, map, recomputed)))
    return failure();
  for (Operation *op : recomputed)
    op->setAttr(TadDialect::kRecomputedAttrName, b.getUnitAttr());
  for (auto [v, c] :
       llvm::zip(body.getTerminator()->getOperands(), yieldCotangents))
    accumulate(cot, map.lookupOrDefault(v), c);
  return backward(recomputed, cot);
}

/// Recompute the region from the checkpoint's operands, then run its
/// adjoint: nothing computed inside the region in the forward sweep is read.
LogicalResult Differentiator::backwardCheckpoint(CheckpointOp op,
                                                 CotangentMap &cot) {
  SmallVector<Value> yieldCots;
  for (Value r : op.getResults())
    yieldCots.push_back(cot.lookup(r));
  CotangentMap local;
  if (failed(recomputeAndBackward(op.getBody().front(), op.getInputs(),
                                  yieldCots, local)))
    return failure();
  for (Value input : op.getInputs())
    accumulate(cot, input, local.lookup(input));
  return success();
}

LogicalResult Differentiator::backwardRule(func::CallOp op,
                                           const RuleCall &rule,
                                           CotangentMap &cot) {
  Location loc = op.getLoc();
  auto pullback = module.lookupSymbol<func::FuncOp>(rule.pullback.getAttr());
  SmallVector<Value> args(op.getResults().drop_front(rule.numResults));
  for (int64_t param : rule.savedParams)
    args.push_back(op.getOperand(param));
  for (Value r : op.getResults().take_front(rule.numResults)) {
    Value c = cot.lookup(r);
    args.push_back(c ? c : zerosOf(b, loc, r.getType()));
  }
  auto call = func::CallOp::create(b, loc, pullback, args);
  for (auto [operand, c] : llvm::zip(op.getOperands(), call.getResults()))
    accumulate(cot, operand, c);
  return success();
}

LogicalResult Differentiator::backwardIf(scf::IfOp op, CotangentMap &cot) {
  Location loc = op.getLoc();
  SmallVector<Value> yieldCots;
  for (Value r : op.getResults())
    yieldCots.push_back(cot.lookup(r));
  // Both branches send cotangents to the same outer values.
  llvm::SetVector<Value> outer;
  for (Region *region : {&op.getThenRegion(), &op.getElseRegion()})
    for (Value v : getCaptures(*region))
      if (isDifferentiable(v))
        outer.insert(v);
  SmallVector<Type> types;
  for (Value v : outer)
    types.push_back(v.getType());
  auto reverse =
      scf::IfOp::create(b, loc, types, op.getCondition(),
                        /*addThenBlock=*/true, /*addElseBlock=*/true);
  for (auto [region, block] :
       {std::pair{&op.getThenRegion(), reverse.thenBlock()},
        std::pair{&op.getElseRegion(), reverse.elseBlock()}}) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(block);
    CotangentMap local;
    if (failed(recomputeAndBackward(region->front(), {}, yieldCots, local)))
      return failure();
    SmallVector<Value> out;
    for (Value v : outer) {
      Value c = local.lookup(v);
      out.push_back(c ? c : zerosOf(b, loc, v.getType()));
    }
    scf::YieldOp::create(b, loc, out);
  }
  for (auto [v, c] : llvm::zip(outer, reverse.getResults()))
    accumulate(cot, v, c);
  return success();
}
