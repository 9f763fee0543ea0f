//===- AutoDiff.cpp - reverse-mode AD of the tad dialect ------------------===//
//
// Gives every derivative declaration (`tad.derivative`) a body: the forward
// sweep of its primal followed by the backward sweep. Per-op rules come from
// DifferentiableOpInterface; this file handles what is not one op:
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
//   stacked tensors; the reverse loop reads the tape, recomputes the
//   iteration's body and runs its adjoint.
// - scf.if runs the adjoint of the taken branch, recomputing the branch.
//
// A value's cotangent is null until something contributes to it; fan-out
// adds the contributions. Activity analysis marks the values that depend on
// a wrt parameter; cotangents of other values are never accumulated, and
// the backward ops that computed them are erased as dead code, so that, for
// example, a matmul of data by weights computes no cotangent for the data.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/Revolve.h"
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

namespace {

using CotangentMap = llvm::DenseMap<Value, Value>;

bool isDifferentiable(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && isa<FloatType>(type.getElementType());
}

/// Creates an scf.for whose body the caller fills (and terminates) with
/// the builder inside it. Bodies are filled after the loop exists, so that
/// analyses of nested regions (which walk up to the parent op) work while
/// the body is built.
scf::ForOp createEmptyLoop(OpBuilder &b, Location loc, Value lower, Value upper,
                           Value step, ValueRange inits) {
  auto loop = scf::ForOp::create(b, loc, lower, upper, step, inits);
  Block *body = loop.getBody();
  if (!body->empty())
    body->back().erase(); // the implicit yield of a loop without inits
  return loop;
}

Value zerosOf(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  auto floatType = cast<FloatType>(tensor.getElementType());
  return ConstantOp::create(
      b, loc, DenseElementsAttr::get(tensor, FloatAttr::get(floatType, 0.0)));
}

/// A rule call in the forward sweep: `call @f.rule.forward` whose first
/// `numResults` results are f's, followed by the saved values.
struct RuleCall {
  FlatSymbolRefAttr pullback;
  unsigned numResults;
};

class Differentiator {
public:
  Differentiator(ModuleOp module, OpBuilder &builder, int64_t loopSnapshots)
      : module(module), b(builder), loopSnapshots(loopSnapshots) {}

  /// Generates the body of the declaration `fn`.
  LogicalResult generate(func::FuncOp fn, DerivativeAttr request);

private:
  // Forward sweep.
  LogicalResult cloneForward(Block &body, IRMapping &map,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<Operation *> &callStack);
  LogicalResult cloneOp(Operation &op, IRMapping &map,
                        SmallVectorImpl<Operation *> &callStack);
  LogicalResult cloneFor(scf::ForOp op, IRMapping &map,
                         SmallVectorImpl<Operation *> &callStack);

  // Backward sweep over the ops [first, end) of a block, in reverse.
  LogicalResult backward(ArrayRef<Operation *> ops, CotangentMap &cot);
  LogicalResult backwardOp(Operation *op, CotangentMap &cot);
  LogicalResult backwardCheckpoint(CheckpointOp op, CotangentMap &cot);
  LogicalResult backwardFor(scf::ForOp op, CotangentMap &cot);
  LogicalResult backwardIf(scf::IfOp op, CotangentMap &cot);
  LogicalResult backwardRule(func::CallOp op, const RuleCall &rule,
                             CotangentMap &cot);
  /// Recomputes `body` (a region's block) with its arguments mapped to
  /// `args`, then runs its adjoint given the cotangents of what it yields;
  /// leaves the cotangents of `args` and of outer values in `cot`.
  LogicalResult recomputeAndBackward(Block &body, ValueRange args,
                                     ArrayRef<Value> yieldCotangents,
                                     CotangentMap &cot);

  /// Clones the ops of `body` at the insertion point as the forward sweep
  /// does (calls inlined, rules and loops with tapes), and returns the ops
  /// created, in order.
  LogicalResult recompute(Block &body, IRMapping &map,
                          SmallVectorImpl<Operation *> &created);

  void accumulate(CotangentMap &cot, Value v, Value contribution);

  /// acc + c for the accumulator of a reverse loop (see its definition).
  Value addToAccumulator(Value acc, Value c);

  struct LoopInfo;
  LogicalResult reverseStep(const LoopInfo &info, ArrayRef<Value> outer,
                            Value iv, ValueRange carriedIn, ValueRange cotsIn,
                            ValueRange accs, SmallVectorImpl<Value> &out);
  LogicalResult reverseRevolve(scf::ForOp op, const LoopInfo &info,
                               ArrayRef<Value> outer,
                               ArrayRef<Value> carriedCots,
                               ArrayRef<Value> accs,
                               SmallVectorImpl<Value> &results);

  /// Whether `v` belongs to the backward sweep (a recomputed clone or a
  /// block argument of a backward region), where activity is not tracked.
  bool isRecomputed(Value v) const { return !forwardValues.contains(v); }

  /// Marks the results of forward ops that depend on an active value.
  void propagateActivity(ArrayRef<Operation *> ops);

  ModuleOp module;
  OpBuilder &b;
  llvm::DenseSet<Value> active;
  /// Every value of the forward sweep (results, arguments, region values).
  llvm::DenseSet<Value> forwardValues;
  llvm::DenseMap<Operation *, RuleCall> ruleCalls;
  /// For each forward loop: the primal loop and the tapes of its carried
  /// values (results of the forward loop, after the primal ones).
  struct LoopInfo {
    scf::ForOp primal;
    IRMapping outer; // maps the primal's outer values to forward values
    unsigned numCarried;
    /// Binomial checkpointing: the revolve schedule whose actions from
    /// `firstReverse` on the reverse sweep replays; empty for a full tape.
    std::vector<remat::RevolveAction> schedule;
    size_t firstReverse = 0;
  };
  /// Snapshot slots per loop (0: a full tape).
  int64_t loopSnapshots;
  llvm::DenseMap<Operation *, LoopInfo> loops;
};

void Differentiator::propagateActivity(ArrayRef<Operation *> ops) {
  for (Operation *op : ops) {
    bool any = llvm::any_of(op->getOperands(),
                            [&](Value v) { return active.contains(v); });
    // A region op is active if its body reads an active value.
    for (Region &region : op->getRegions()) {
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(region, captured);
      any |=
          llvm::any_of(captured, [&](Value v) { return active.contains(v); });
    }
    if (!any)
      continue;
    for (Value r : op->getResults())
      if (isDifferentiable(r))
        active.insert(r);
    // Values inside the regions (recomputed in the backward sweep) are
    // active when they depend on active values; mark them all, the inner
    // sweeps are local.
    op->walk([&](Operation *inner) {
      for (Value r : inner->getResults())
        if (isDifferentiable(r))
          active.insert(r);
      for (Region &region : inner->getRegions())
        for (Block &block : region)
          for (Value arg : block.getArguments())
            if (isDifferentiable(arg))
              active.insert(arg);
    });
  }
}

void Differentiator::accumulate(CotangentMap &cot, Value v,
                                Value contribution) {
  if (!contribution || !isDifferentiable(v))
    return;
  // Values defined by ops created after the forward sweep (recomputed
  // clones) are always tracked; forward values only when active.
  if (!active.empty() && !active.contains(v) && !isRecomputed(v))
    return;
  Value &slot = cot[v];
  slot = slot ? AddOp::create(b, contribution.getLoc(), slot, contribution)
                    .getResult()
              : contribution;
}

//===----------------------------------------------------------------------===//
// Forward sweep
//===----------------------------------------------------------------------===//

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
      ruleCalls[fwd] = {rule.getPullback(), call.getNumResults()};
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
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return cloneFor(loop, map, callStack);
  // Calls nested in regions (checkpoint, if) are inlined too: clone the op
  // and then inline the calls inside the clone.
  Operation *clone = b.clone(op, map);
  SmallVector<func::CallOp> nested;
  clone->walk([&](func::CallOp call) { nested.push_back(call); });
  for (func::CallOp call : nested) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr());
    if (callee && callee->hasAttr(TadDialect::kCustomRuleAttrName))
      return call.emitError("a call of @")
             << callee.getName()
             << ", which has a custom rule, inside a region is not "
                "supported yet";
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

/// An index constant tensor: the tables of a binomial schedule.
static Value indexTable(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, b.getIndexType());
  SmallVector<APInt> bits;
  for (int64_t v : values)
    bits.push_back(APInt(64, uint64_t(v), /*isSigned=*/true));
  return arith::ConstantOp::create(b, loc,
                                   DenseIntElementsAttr::get(type, bits));
}

/// The forward loop carries, after the primal's values, one tape per
/// carried value: a stacked tensor whose row i holds the value at the start
/// of iteration i. With binomial checkpointing (`snapshots` slots, fewer
/// than the iterations), the tape has one row per slot and holds what
/// revolve's first sweep stores, and the loop also carries the values at
/// the start of its last iteration, where the reverse sweep begins.
LogicalResult
Differentiator::cloneFor(scf::ForOp op, IRMapping &map,
                         SmallVectorImpl<Operation *> &callStack) {
  auto lower = getConstantIntValue(op.getLowerBound());
  auto upper = getConstantIntValue(op.getUpperBound());
  auto step = getConstantIntValue(op.getStep());
  if (!lower || !upper || !step || *step != 1)
    return op.emitError("AD needs loops with constant bounds and step 1");
  int64_t trips = std::max<int64_t>(*upper - *lower, 0);
  Location loc = op.getLoc();

  // The slot each iteration's input goes to in revolve's first sweep (the
  // actions before its first reverse), or -1.
  LoopInfo info{op, {}, 0, {}, 0};
  std::vector<int64_t> slotAt;
  // The loop's own count (tadc chooses one per loop under a budget), else
  // the pass option.
  int64_t snapshots = loopSnapshots;
  if (auto count = op->getAttrOfType<IntegerAttr>(
          TadDialect::kLoopSnapshotsAttrName)) // verified: 0 or more
    snapshots = count.getInt();
  bool binomial = snapshots > 0 && snapshots < trips;
  if (binomial) {
    info.schedule = remat::makeRevolveSchedule(trips, snapshots);
    slotAt.assign(trips, -1);
    slotAt[0] = 0; // x_0 starts in slot 0
    int64_t current = 0;
    size_t k = 0;
    for (; k < info.schedule.size(); ++k) {
      const remat::RevolveAction &a = info.schedule[k];
      if (a.kind == remat::RevolveAction::reverse)
        break;
      if (a.kind == remat::RevolveAction::advance && a.step == current)
        ++current;
      else if (a.kind == remat::RevolveAction::store && a.step == current)
        slotAt[current] = a.slot;
      else if (!(a.kind == remat::RevolveAction::restore && a.step == current))
        return op.emitError("internal error: revolve's first sweep is not "
                            "a plain forward sweep");
    }
    if (k == info.schedule.size() || current != trips - 1)
      return op.emitError("internal error: revolve's first sweep does not "
                          "end before the last step");
    info.firstReverse = k;
  }
  int64_t rows = binomial ? snapshots : std::max<int64_t>(trips, 1);

  SmallVector<Value> inits;
  for (Value init : op.getInitArgs())
    inits.push_back(map.lookupOrDefault(init));
  unsigned numCarried = inits.size();
  for (Value init : op.getInitArgs()) {
    auto type = cast<RankedTensorType>(init.getType());
    SmallVector<int64_t> shape = {rows};
    llvm::append_range(shape, type.getShape());
    inits.push_back(
        zerosOf(b, loc, RankedTensorType::get(shape, type.getElementType())));
  }
  if (binomial)
    for (unsigned i = 0; i < numCarried; ++i)
      inits.push_back(inits[i]);
  Value slots = binomial ? indexTable(b, loc, slotAt) : Value();
  LogicalResult status = success();
  auto loop = createEmptyLoop(b, loc, map.lookupOrDefault(op.getLowerBound()),
                              map.lookupOrDefault(op.getUpperBound()),
                              map.lookupOrDefault(op.getStep()), inits);
  {
    Location l = loc;
    Value iv = loop.getInductionVar();
    ValueRange args = loop.getRegionIterArgs();
    ValueRange carried = args.take_front(numCarried);
    ValueRange tapeArgs = args.slice(numCarried, numCarried);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(loop.getBody());
    IRMapping inner = map;
    inner.map(op.getInductionVar(), iv);
    for (auto [arg, v] : llvm::zip(op.getRegionIterArgs(), carried))
      inner.map(arg, v);
    Value row = arith::SubIOp::create(b, l, iv,
                                      map.lookupOrDefault(op.getLowerBound()));
    SmallVector<Value> tapes;
    if (!binomial) {
      for (auto [v, tape] : llvm::zip(carried, tapeArgs))
        tapes.push_back(UpdateOp::create(b, l, tape.getType(), v, tape, row));
    } else {
      // tape[slot] = carried, where this iteration's input is a snapshot.
      Value slot = tensor::ExtractOp::create(b, l, slots, row);
      Value stores =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, slot,
                                arith::ConstantIndexOp::create(b, l, 0));
      auto store = scf::IfOp::create(b, l, TypeRange(tapeArgs), stores,
                                     /*addThenBlock=*/true,
                                     /*addElseBlock=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToEnd(store.thenBlock());
        SmallVector<Value> updated;
        for (auto [v, tape] : llvm::zip(carried, tapeArgs))
          updated.push_back(
              UpdateOp::create(b, l, tape.getType(), v, tape, slot));
        scf::YieldOp::create(b, l, updated);
        b.setInsertionPointToEnd(store.elseBlock());
        scf::YieldOp::create(b, l, SmallVector<Value>(tapeArgs));
      }
      llvm::append_range(tapes, store.getResults());
    }
    SmallVector<Value> results;
    if (failed(cloneForward(*op.getBody(), inner, results, callStack)))
      status = failure();
    llvm::append_range(results, tapes);
    if (binomial)
      llvm::append_range(results, carried); // this iteration's inputs
    scf::YieldOp::create(b, l, results);
  }
  if (failed(status))
    return failure();
  for (auto [r, v] : llvm::zip(op.getResults(), loop.getResults()))
    map.map(r, v);
  info.outer = map;
  info.numCarried = numCarried;
  loops[loop] = std::move(info);
  return success();
}

//===----------------------------------------------------------------------===//
// Backward sweep
//===----------------------------------------------------------------------===//

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
  // Constants, comparisons, index arithmetic and tensor.extract carry no
  // derivative.
  if (isa<ConstantOp, CompareOp, tensor::ExtractOp>(op) ||
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
  for (Value r : op.getResults().take_front(rule.numResults)) {
    Value c = cot.lookup(r);
    args.push_back(c ? c : zerosOf(b, loc, r.getType()));
  }
  auto call = func::CallOp::create(b, loc, pullback, args);
  for (auto [operand, c] : llvm::zip(op.getOperands(), call.getResults()))
    accumulate(cot, operand, c);
  return success();
}

/// The values of enclosing scopes that `region` reads.
SmallVector<Value> getCaptures(Region &region) {
  llvm::SetVector<Value> captures;
  getUsedValuesDefinedAbove(region, captures);
  return SmallVector<Value>(captures.begin(), captures.end());
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

/// Whether `v` is a constant whose every element is +0.
static bool isPositiveZeros(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                        : DenseElementsAttr();
  if (!dense || !dense.isSplat())
    return false;
  auto value = dense.getSplatValue<APFloat>();
  return value.isZero() && !value.isNegative();
}

/// acc + c for a reverse loop's accumulator. The cotangent of `ws[i]` is
/// `update(g into zeros at i)`: adding it in full would copy the whole
/// accumulator every iteration, so only row i is read and written,
/// `update(take(acc, i) + g into acc at i)`, which bufferizes in place. The
/// two are equal bit for bit: an accumulator starts at +0 and adds, so no
/// element is ever -0, and acc + 0 is acc.
Value Differentiator::addToAccumulator(Value acc, Value c) {
  Location loc = c.getLoc();
  auto row = c.getDefiningOp<UpdateOp>();
  if (row && c.use_empty() && isPositiveZeros(row.getOperand())) {
    Value old =
        TakeOp::create(b, loc, row.getValue().getType(), acc, row.getIndex());
    Value sum = AddOp::create(b, loc, old, row.getValue());
    Value updated =
        UpdateOp::create(b, loc, acc.getType(), sum, acc, row.getIndex());
    row.erase();
    return updated;
  }
  return AddOp::create(b, loc, acc, c);
}

/// The adjoint of one iteration of `primal`, at the insertion point: the
/// iteration with induction value `iv` and carried inputs `carriedIn` is
/// recomputed, and its adjoint run from the cotangents `cotsIn` of its
/// carried outputs. `out` receives the cotangents of `carriedIn`, then the
/// accumulators `accs` of the outer values `outer` plus this iteration's
/// contributions.
LogicalResult Differentiator::reverseStep(const LoopInfo &info,
                                          ArrayRef<Value> outer, Value iv,
                                          ValueRange carriedIn,
                                          ValueRange cotsIn, ValueRange accs,
                                          SmallVectorImpl<Value> &out) {
  scf::ForOp primal = info.primal;
  Location l = primal.getLoc();
  IRMapping map = info.outer;
  map.map(primal.getInductionVar(), iv);
  for (auto [arg, v] : llvm::zip(primal.getRegionIterArgs(), carriedIn))
    map.map(arg, v);
  SmallVector<Operation *> recomputed;
  if (failed(recompute(*primal.getBody(), map, recomputed)))
    return failure();
  CotangentMap local;
  for (auto [v, c] :
       llvm::zip(primal.getBody()->getTerminator()->getOperands(), cotsIn))
    accumulate(local, map.lookupOrDefault(v), c);
  if (failed(backward(recomputed, local)))
    return failure();
  for (Value v : carriedIn) {
    Value c = local.lookup(v);
    out.push_back(c ? c : zerosOf(b, l, v.getType()));
  }
  for (auto [v, acc] : llvm::zip(outer, accs)) {
    Value c = local.lookup(v);
    out.push_back(c ? addToAccumulator(acc, c) : acc);
  }
  return success();
}

/// The reverse loop runs i = N-1, ..., 0. It carries the cotangents of the
/// loop-carried values and accumulators for the outer values the body
/// reads; each iteration reads its carried inputs from the tape, recomputes
/// the body and runs its adjoint. With binomial checkpointing it is instead
/// a loop over the rest of the revolve schedule (reverseRevolve).
LogicalResult Differentiator::backwardFor(scf::ForOp op, CotangentMap &cot) {
  auto it = loops.find(op);
  if (it == loops.end())
    return op.emitError("internal error: a loop without a tape");
  const LoopInfo &info = it->second;
  scf::ForOp primal = info.primal;
  unsigned numCarried = info.numCarried;
  Location loc = op.getLoc();

  SmallVector<Value> carriedCots;
  for (Value r : op.getResults().take_front(numCarried)) {
    Value c = cot.lookup(r);
    carriedCots.push_back(c ? c : zerosOf(b, loc, r.getType()));
  }
  // Outer values read by the body, as the forward sweep computed them.
  SmallVector<Value> outer;
  for (Value v : getCaptures(primal.getRegion())) {
    Value forward = info.outer.lookupOrDefault(v);
    if (isDifferentiable(forward) && !llvm::is_contained(outer, forward))
      outer.push_back(forward);
  }
  SmallVector<Value> accs;
  for (Value v : outer)
    accs.push_back(zerosOf(b, loc, v.getType()));

  SmallVector<Value> results; // the carried cotangents, then the outer ones
  if (!info.schedule.empty()) {
    if (failed(reverseRevolve(op, info, outer, carriedCots, accs, results)))
      return failure();
  } else {
    SmallVector<Value> inits = carriedCots;
    llvm::append_range(inits, accs);
    Value lower = op.getLowerBound(), upper = op.getUpperBound();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value trips = arith::SubIOp::create(b, loc, upper, lower);
    LogicalResult status = success();
    auto reverse = createEmptyLoop(b, loc, zero, trips, one, inits);
    {
      Location l = loc;
      Value j = reverse.getInductionVar();
      ValueRange args = reverse.getRegionIterArgs();
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(reverse.getBody());
      // Row r = trips - 1 - j of the tape; induction value lower + r.
      Value last = arith::SubIOp::create(b, l, trips, one);
      Value row = arith::SubIOp::create(b, l, last, j);
      Value iv = arith::AddIOp::create(b, l, lower, row);
      SmallVector<Value> carriedIn;
      for (auto [tape, r] : llvm::zip(op.getResults().drop_front(numCarried),
                                      primal.getRegionIterArgs()))
        carriedIn.push_back(TakeOp::create(b, l, r.getType(), tape, row));
      SmallVector<Value> out;
      if (failed(reverseStep(info, outer, iv, carriedIn,
                             args.take_front(numCarried),
                             args.drop_front(numCarried), out)))
        status = failure();
      scf::YieldOp::create(b, l, out);
    }
    if (failed(status))
      return failure();
    llvm::append_range(results, reverse.getResults());
  }
  for (auto [init, c] :
       llvm::zip(op.getInitArgs().take_front(numCarried),
                 ArrayRef<Value>(results).take_front(numCarried)))
    accumulate(cot, init, c);
  for (auto [v, c] :
       llvm::zip(outer, ArrayRef<Value>(results).drop_front(numCarried)))
    accumulate(cot, v, c);
  return success();
}

/// Binomial checkpointing: a loop over revolve's actions after its first
/// sweep (which the forward loop ran), dispatching on each action's kind
/// from constant tables. It carries the current state (the carried values
/// at the start of some iteration), the snapshot slots, the carried
/// cotangents and the accumulators; it starts from the forward loop's
/// last-iteration inputs and slots.
LogicalResult Differentiator::reverseRevolve(scf::ForOp op,
                                             const LoopInfo &info,
                                             ArrayRef<Value> outer,
                                             ArrayRef<Value> carriedCots,
                                             ArrayRef<Value> accs,
                                             SmallVectorImpl<Value> &results) {
  scf::ForOp primal = info.primal;
  unsigned n = info.numCarried;
  Location loc = op.getLoc();
  SmallVector<int64_t> kinds, steps, slots;
  for (size_t k = info.firstReverse; k < info.schedule.size(); ++k) {
    kinds.push_back(int64_t(info.schedule[k].kind));
    steps.push_back(info.schedule[k].step);
    slots.push_back(std::max<int64_t>(info.schedule[k].slot, 0));
  }
  Value kindTable = indexTable(b, loc, kinds);
  Value stepTable = indexTable(b, loc, steps);
  Value slotTable = indexTable(b, loc, slots);
  SmallVector<Value> inits;
  llvm::append_range(inits, op.getResults().drop_front(2 * n)); // current
  llvm::append_range(inits, op.getResults().slice(n, n));       // slots
  llvm::append_range(inits, carriedCots);
  llvm::append_range(inits, accs);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = arith::ConstantIndexOp::create(b, loc, int64_t(kinds.size()));
  auto dispatch = createEmptyLoop(b, loc, zero, count, one, inits);
  LogicalResult status = success();
  {
    Location l = loc;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(dispatch.getBody());
    Value k = dispatch.getInductionVar();
    ValueRange args = dispatch.getRegionIterArgs();
    ValueRange current = args.take_front(n), tapes = args.slice(n, n),
               cots = args.slice(2 * n, n), accArgs = args.drop_front(3 * n);
    Value kind = tensor::ExtractOp::create(b, l, kindTable, k);
    Value step = tensor::ExtractOp::create(b, l, stepTable, k);
    Value slot = tensor::ExtractOp::create(b, l, slotTable, k);
    Value iv = arith::AddIOp::create(b, l, op.getLowerBound(), step);
    using Action = remat::RevolveAction;
    SmallVector<int64_t> cases = {Action::store, Action::restore,
                                  Action::advance, Action::reverse};
    auto sw = scf::IndexSwitchOp::create(b, l, TypeRange(args), kind, cases,
                                         cases.size());
    auto yieldWith = [&](ValueRange cur, ValueRange tp, ValueRange ct,
                         ValueRange ac) {
      SmallVector<Value> all(cur);
      llvm::append_range(all, tp);
      llvm::append_range(all, ct);
      llvm::append_range(all, ac);
      scf::YieldOp::create(b, l, all);
    };
    for (auto [region, action] : llvm::zip(sw.getCaseRegions(), cases)) {
      OpBuilder::InsertionGuard g(b);
      b.createBlock(&region);
      switch (action) {
      case Action::store: {
        SmallVector<Value> stored;
        for (auto [v, tape] : llvm::zip(current, tapes))
          stored.push_back(
              UpdateOp::create(b, l, tape.getType(), v, tape, slot));
        yieldWith(current, stored, cots, accArgs);
        break;
      }
      case Action::restore: {
        SmallVector<Value> restored;
        for (auto [v, tape] : llvm::zip(current, tapes))
          restored.push_back(TakeOp::create(b, l, v.getType(), tape, slot));
        yieldWith(restored, tapes, cots, accArgs);
        break;
      }
      case Action::advance: {
        IRMapping map = info.outer;
        map.map(primal.getInductionVar(), iv);
        for (auto [arg, v] : llvm::zip(primal.getRegionIterArgs(), current))
          map.map(arg, v);
        SmallVector<Operation *> created;
        if (failed(recompute(*primal.getBody(), map, created)))
          status = failure();
        SmallVector<Value> next;
        for (Value v : primal.getBody()->getTerminator()->getOperands())
          next.push_back(map.lookupOrDefault(v));
        yieldWith(next, tapes, cots, accArgs);
        break;
      }
      default: { // reverse
        SmallVector<Value> out;
        if (failed(reverseStep(info, outer, iv, current, cots, accArgs, out)))
          status = failure();
        ArrayRef<Value> all(out);
        yieldWith(current, tapes, all.take_front(n), all.drop_front(n));
        break;
      }
      }
    }
    {
      OpBuilder::InsertionGuard g(b);
      b.createBlock(&sw.getDefaultRegion()); // free: nothing to do
      scf::YieldOp::create(b, l, SmallVector<Value>(args));
    }
    scf::YieldOp::create(b, l, sw.getResults());
  }
  if (failed(status))
    return failure();
  llvm::append_range(results, dispatch.getResults().drop_front(2 * n));
  return success();
}

//===----------------------------------------------------------------------===//
// Derivative functions
//===----------------------------------------------------------------------===//

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
  for (unsigned i = 0; i < numParams; ++i) {
    map.map(primal.getArgument(i), entry->getArgument(i));
    entry->getArgument(i).setLoc(primal.getArgument(i).getLoc());
  }
  // vjp: the cotangent of result i is named d_result<i>.
  for (unsigned i = numParams; i < entry->getNumArguments(); ++i)
    entry->getArgument(i).setLoc(NameLoc::get(
        b.getStringAttr("d_result" + std::to_string(i - numParams)), loc));
  SmallVector<Value> outputs;
  SmallVector<Operation *> callStack = {primal};
  if (failed(cloneForward(primal.getBody().front(), map, outputs, callStack)))
    return failure();
  SmallVector<Operation *> forwardOps;
  for (Operation &op : *entry)
    forwardOps.push_back(&op);
  llvm::DenseSet<Operation *> forwardSet(forwardOps.begin(), forwardOps.end());
  // (Constants hold no forward value worth reporting.)
  for (Operation *op : forwardOps)
    if (!op->hasTrait<OpTrait::ConstantLike>())
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
  // The cotangents of inactive values were never used: erase the ops that
  // computed them (and anything else dead), innermost first.
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> dead;
    fn.walk([&](Operation *op) {
      if (op != fn && isOpTriviallyDead(op))
        dead.push_back(op);
    });
    for (Operation *op : dead) {
      op->erase();
      changed = true;
    }
  }
  return success();
}

struct AutoDiffPass : tad::impl::AutoDiffBase<AutoDiffPass> {
  using AutoDiffBase::AutoDiffBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder builder(&getContext());
    Differentiator differentiator(module, builder, loopSnapshots);
    // A derivative may call (or differentiate through) another one: define
    // them in dependency order, as far as that goes.
    SmallVector<func::FuncOp> pending;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn.isDeclaration() && fn->hasAttr(TadDialect::kDerivativeAttrName))
        pending.push_back(fn);
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
          return signalPassFailure();
        ++numDerivatives;
      }
      if (next.size() == pending.size()) {
        next.front().emitError("derivatives that depend on each other");
        return signalPassFailure();
      }
      pending = std::move(next);
    }
    // The counts were for this pass; the primal loops need not carry them
    // on (the derivatives' loops are new ops without them).
    module.walk([](scf::ForOp loop) {
      loop->removeAttr(TadDialect::kLoopSnapshotsAttrName);
    });
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
        if (auto callee =
                module.lookupSymbol<func::FuncOp>(call.getCalleeAttr()))
          if (auto rule = callee->getAttrOfType<CustomRuleAttr>(
                  TadDialect::kCustomRuleAttrName)) {
            work.push_back(
                module.lookupSymbol<func::FuncOp>(rule.getForward().getAttr()));
            work.push_back(module.lookupSymbol<func::FuncOp>(
                rule.getPullback().getAttr()));
          }
      });
    }
    return false;
  }
};

} // namespace
