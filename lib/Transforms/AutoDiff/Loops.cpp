//===- Loops.cpp - tapes and reverse loops --------------------------------===//
//
// scf.for: the forward loop stores its carried values (a full tape, or
// revolve's snapshots), and the reverse loop recomputes each iteration
// from them and runs its adjoint; with binomial checkpointing it replays
// the rest of the revolve schedule from constant tables.
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"

using namespace mlir;
using namespace tad;
using namespace tad::autodiff;

/// An index constant tensor: the tables of a binomial schedule.
static Value indexTable(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, b.getIndexType());
  SmallVector<APInt> bits;
  for (int64_t v : values)
    bits.push_back(APInt(64, uint64_t(v), /*isSigned=*/true));
  return arith::ConstantOp::create(b, loc,
                                   DenseIntElementsAttr::get(type, bits));
}

/// The offsets, sizes and strides of `small` at the start of row `row` of
/// `stacked` (rank one more than `small`'s, each other dimension at least
/// as large).
static void tapeSlice(OpBuilder &b, Value row, RankedTensorType small,
                      RankedTensorType stacked,
                      SmallVectorImpl<OpFoldResult> &offsets,
                      SmallVectorImpl<OpFoldResult> &sizes,
                      SmallVectorImpl<OpFoldResult> &strides) {
  offsets.assign(stacked.getRank(), b.getIndexAttr(0));
  offsets[0] = row;
  sizes.assign({b.getIndexAttr(1)});
  for (int64_t size : small.getShape())
    sizes.push_back(b.getIndexAttr(size));
  strides.assign(stacked.getRank(), b.getIndexAttr(1));
}

/// Writes `v` into row `row` of the tape `tape`: the whole row, or where the
/// tape is a host's accumulator, the leading block of it.
static Value storeInTape(OpBuilder &b, Location loc, Value v, Value tape,
                         Value row) {
  auto small = cast<RankedTensorType>(v.getType());
  auto stacked = cast<RankedTensorType>(tape.getType());
  if (small.getShape() == stacked.getShape().drop_front())
    return UpdateOp::create(b, loc, stacked, v, tape, row);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  tapeSlice(b, row, small, stacked, offsets, sizes, strides);
  return tensor::InsertSliceOp::create(b, loc, v, tape, offsets, sizes,
                                       strides);
}

/// Reads back what storeInTape wrote, as a value of `type`.
static Value loadFromTape(OpBuilder &b, Location loc, Type type, Value tape,
                          Value row) {
  auto small = cast<RankedTensorType>(type);
  auto stacked = cast<RankedTensorType>(tape.getType());
  if (small.getShape() == stacked.getShape().drop_front())
    return TakeOp::create(b, loc, small, tape, row);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  tapeSlice(b, row, small, stacked, offsets, sizes, strides);
  // Rank-reducing: the leading unit dimension is dropped.
  return tensor::ExtractSliceOp::create(b, loc, small, tape, offsets, sizes,
                                        strides);
}

/// A loop over layers, `for i in 0..n { h = f(h, ws[i]) }`, keeps a tape of
/// `h` and builds the gradient of `ws` row by row in reverse: row i of the
/// gradient is written in the reverse step that last reads row i of the
/// tape. So the tape can live in the gradient's accumulator, row i of `h`
/// in the leading block of row i of `ws`'s gradient, and a loop then needs
/// no more memory than its unrolled form, whose per-layer activations are
/// freed as the per-layer gradients are made. The host is a wrt parameter
/// (so that it has an accumulator) that the body reads only as `ws[i]` at
/// the induction value of a loop from 0 over all its rows, of the carried
/// value's element type, whose row holds the carried value.
Value Differentiator::findTapeHost(scf::ForOp op, unsigned k, IRMapping &map,
                                   ArrayRef<Value> taken) const {
  auto carried = cast<RankedTensorType>(op.getInitArgs()[k].getType());
  auto lower = getConstantIntValue(op.getLowerBound());
  auto upper = getConstantIntValue(op.getUpperBound());
  if (!lower || !upper || *lower != 0)
    return {};
  for (Value w : getCaptures(op.getRegion())) {
    Value forward = map.lookupOrDefault(w);
    if (!wrtArgs.contains(forward) || llvm::is_contained(taken, forward))
      continue;
    auto type = dyn_cast<RankedTensorType>(w.getType());
    if (!type || type.getRank() != carried.getRank() + 1 ||
        type.getDimSize(0) != *upper ||
        type.getElementType() != carried.getElementType())
      continue;
    bool fits = true;
    for (auto [c, h] : llvm::zip(carried.getShape(),
                                 type.getShape().drop_front()))
      fits &= c <= h;
    if (fits && readsOneRowPerStep(op, w))
      return forward;
  }
  return {};
}

bool Differentiator::readsOneRowPerStep(scf::ForOp op, Value w) {
  SmallVector<Operation *> readers;
  for (Operation *user : w.getUsers())
    if (op->isProperAncestor(user))
      readers.push_back(user);
  auto take =
      readers.size() == 1 ? dyn_cast<TakeOp>(readers.front()) : TakeOp();
  return take && take->getBlock() == op.getBody() &&
         take.getIndex() == op.getInductionVar();
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
  info.hosts.assign(numCarried, Value());
  if (!binomial)
    for (unsigned k = 0; k < numCarried; ++k)
      info.hosts[k] = findTapeHost(op, k, map, info.hosts);
  for (Value w : getCaptures(op.getRegion()))
    if (readsOneRowPerStep(op, w))
      info.rowWise.insert(map.lookupOrDefault(w));
  for (auto [init, host] : llvm::zip(op.getInitArgs(), info.hosts)) {
    auto type = cast<RankedTensorType>(init.getType());
    SmallVector<int64_t> shape = {rows};
    llvm::append_range(shape, type.getShape());
    inits.push_back(zerosOf(
        b, loc,
        host ? host.getType()
             : RankedTensorType::get(shape, type.getElementType())));
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
        tapes.push_back(storeInTape(b, l, v, tape, row));
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
  // What the reverse sweep will run again: the body once per iteration
  // (reverseStep), and with binomial checkpointing revolve's advances
  // after its first sweep.
  int64_t reruns = trips;
  if (binomial)
    for (size_t k = info.firstReverse; k < info.schedule.size(); ++k)
      reruns += info.schedule[k].kind == remat::RevolveAction::advance;
  loop->setAttr(TadDialect::kReverseRerunsAttrName,
                b.getI64IntegerAttr(reruns));
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
    if (!llvm::is_contained(info.hosts, v)) {
      // A value read one row per step gets its row's gradient once, in
      // this step: written into the accumulator's row (which bufferizes as
      // the producer writing there), not added to its zeros.
      auto row = c ? c.getDefiningOp<UpdateOp>() : UpdateOp();
      if (row && info.rowWise.contains(v) && c.use_empty() &&
          row.getIndex() == iv && isPositiveZeros(row.getOperand())) {
        Value g = row.getValue();
        row.erase();
        out.push_back(UpdateOp::create(b, l, acc.getType(), g, acc, iv));
        continue;
      }
      out.push_back(c ? addToAccumulator(acc, c) : acc);
      continue;
    }
    // A tape host: its row `iv` holds this step's tape until now, and gets
    // this step's cotangent, which findTapeHost made the only one: written,
    // not added.
    auto row = c ? c.getDefiningOp<UpdateOp>() : UpdateOp();
    if (c && (!row || !c.use_empty() || !isPositiveZeros(row.getOperand()) ||
              row.getIndex() != iv))
      return primal.emitError("internal error: the cotangent of a loop's "
                              "tape host is not one row");
    auto rowType = RankedTensorType::get(
        cast<RankedTensorType>(acc.getType()).getShape().drop_front(),
        cast<RankedTensorType>(acc.getType()).getElementType());
    Value g = row ? row.getValue() : zerosOf(b, l, rowType);
    if (row)
      row.erase();
    out.push_back(UpdateOp::create(b, l, acc.getType(), g, acc, iv));
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
  // A tape host's accumulator starts as the tape (findTapeHost).
  SmallVector<Value> accs;
  for (Value v : outer) {
    const Value *host = llvm::find(info.hosts, v);
    accs.push_back(host != info.hosts.end()
                       ? op.getResult(numCarried + (host - info.hosts.begin()))
                       : zerosOf(b, loc, v.getType()));
  }

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
      for (auto [tape, r, host] :
           llvm::zip(op.getResults().drop_front(numCarried),
                     primal.getRegionIterArgs(), info.hosts)) {
        // A hosted tape is read from the accumulator the loop carries.
        Value from = tape;
        if (host)
          from = args[numCarried + (llvm::find(outer, host) - outer.begin())];
        carriedIn.push_back(loadFromTape(b, l, r.getType(), from, row));
      }
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
