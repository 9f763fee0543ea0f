//===- Loops.cpp - tapes and reverse loops --------------------------------===//
//
// scf.for: the forward loop stores its carried values (a full tape, with
// the residuals of ResidualTapes.cpp, or revolve's snapshots), and the
// reverse loop recomputes each iteration from them (what the residual
// tapes do not hold) and runs its adjoint; with binomial checkpointing it
// runs the rest of the revolve schedule, computing each action as it goes.
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tad;
using namespace tad::autodiff;

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

/// Sets the snapshots of `info` (0: a full tape; the loop's own count,
/// which tadc chooses per loop under a budget, else the pass option),
/// revolve's schedule with binomial checkpointing, and the residual
/// settings of the loop; `residuals` says whether a full tape keeps them.
LogicalResult Differentiator::configureLoop(scf::ForOp op, int64_t trips,
                                            LoopInfo &info, bool &residuals) {
  int64_t snapshots = loopSnapshots;
  if (auto count = op->getAttrOfType<IntegerAttr>(
          TadDialect::kLoopSnapshotsAttrName)) // verified: 0 or more
    snapshots = count.getInt();
  bool binomial = snapshots > 0 && snapshots < trips;
  if (auto flag =
          op->getAttrOfType<BoolAttr>(TadDialect::kLoopResidualsAttrName))
    residuals = flag.getValue();
  if (auto share = op->getAttrOfType<IntegerAttr>(
          TadDialect::kLoopResidualRecomputeAttrName)) // verified: 0 to 100
    info.residualRecompute = share.getInt();
  // The reverse loop carries one index per snapshot and picks the top one
  // by comparing each (reverseRevolve): a documented limit keeps that
  // small. (tad-choose-loop-snapshots picks at most 64.)
  constexpr int64_t kMaxSnapshots = 4096;
  if (binomial && snapshots > kMaxSnapshots)
    return op.emitError() << "binomial checkpointing keeps at most "
                          << kMaxSnapshots << " snapshots of a loop, got "
                          << snapshots << " for " << trips
                          << " iterations (0 keeps every iteration's)";
  if (binomial) {
    // Nothing here grows with the trip count: the schedule is computed as
    // it runs (reverseRevolve), from O(snapshots) state.
    info.snapshots = snapshots;
    info.sweepStores = remat::revolveFirstSweepStores(trips, snapshots);
    info.counts = remat::countRevolveActions(trips, snapshots);
    if (info.counts.total() == std::numeric_limits<int64_t>::max())
      return op.emitError()
             << "a loop of " << trips << " iterations with " << snapshots
             << " snapshots needs more than 2^63 forward steps to reverse; "
                "give it more snapshots";
  }
  return success();
}

/// Appends to `inits` the initial value of each carried value's tape of
/// `rows` rows (its host's, where it has one).
LogicalResult
Differentiator::appendTapeInits(scf::ForOp op, const LoopInfo &info,
                                int64_t rows, SmallVectorImpl<Value> &inits) {
  bool binomial = info.snapshots > 0;
  Location loc = op.getLoc();
  // A full tape needs no zeros: the forward loop writes each of its rows
  // before the reverse loop reads it, and the reverse loop writes each row
  // of a host whole. Revolve's slots start as zeros.
  for (auto [init, host] : llvm::zip(op.getInitArgs(), info.hosts)) {
    auto type = cast<RankedTensorType>(init.getType());
    // A tensor of the language holds at most 2^40 elements, so that its
    // bytes fit in 64 bits; a tape of many iterations could hold more.
    constexpr int64_t kMaxTapeElements = int64_t(1) << 40;
    if (!host && type.getNumElements() > kMaxTapeElements / rows)
      return op.emitError()
             << "the tape of this loop would hold " << rows << " rows of "
             << type.getNumElements() << " elements, more than a tensor "
             << "holds (2^40 elements); give the loop snapshots "
                "(option 'loop-snapshots', or option 'remat-budget')";
    SmallVector<int64_t> shape = {rows};
    llvm::append_range(shape, type.getShape());
    Type tapeType = host ? host.getType()
                         : RankedTensorType::get(shape, type.getElementType());
    inits.push_back(binomial ? zerosOf(b, loc, tapeType)
                             : emptyOf(b, loc, tapeType));
  }
  return success();
}

/// In the forward loop's body (revolve's first sweep): tape[slot] =
/// carried where this iteration's input is a snapshot (x_0 in slot 0, the
/// sweep's stores in slots 1, 2, ...); the tapes after it.
SmallVector<Value> Differentiator::storeSnapshot(Location l, Value row,
                                                 ValueRange carried,
                                                 ValueRange tapeArgs,
                                                 const LoopInfo &info) {
  SmallVector<Value> tapes;
  Value slot = arith::ConstantIndexOp::create(b, l, -1);
  SmallVector<int64_t> stored = {0};
  llvm::append_range(stored, info.sweepStores);
  for (auto [k, step] : llvm::enumerate(stored)) {
    Value here =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, row,
                              arith::ConstantIndexOp::create(b, l, step));
    slot = arith::SelectOp::create(
        b, l, here, arith::ConstantIndexOp::create(b, l, int64_t(k)), slot);
  }
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
  store->setAttr(TadDialect::kTapeAttrName, b.getUnitAttr());
  llvm::append_range(tapes, store.getResults());
  return tapes;
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
  int64_t trips;
  if (llvm::SubOverflow(*upper, *lower, trips))
    return op.emitError() << "a loop from " << *lower << " to " << *upper
                          << " runs 2^63 or more times, more than its 64-bit "
                             "trip count holds";
  trips = std::max<int64_t>(trips, 0);
  Location loc = op.getLoc();

  LoopInfo info{op, {}, 0};
  bool residuals = loopResiduals;
  if (failed(configureLoop(op, trips, info, residuals)))
    return failure();
  bool binomial = info.snapshots > 0;
  int64_t rows = binomial ? info.snapshots : std::max<int64_t>(trips, 1);

  SmallVector<Value> inits;
  for (Value init : op.getInitArgs())
    inits.push_back(map.lookupOrDefault(init));
  unsigned numCarried = inits.size();
  info.numCarried = numCarried;
  info.hosts.assign(numCarried, Value());
  if (!binomial)
    for (unsigned k = 0; k < numCarried; ++k)
      info.hosts[k] = findTapeHost(op, k, map, info.hosts);
  for (Value w : getCaptures(op.getRegion()))
    if (readsOneRowPerStep(op, w))
      info.rowWise.insert(map.lookupOrDefault(w));
  // Residuals can live in the rows of the same hosts as carried values.
  if (!binomial && residuals && *lower == 0)
    for (Value w : getCaptures(op.getRegion())) {
      Value forward = map.lookupOrDefault(w);
      auto type = dyn_cast<RankedTensorType>(w.getType());
      if (wrtArgs.contains(forward) && type && type.getRank() >= 2 &&
          type.hasStaticShape() && type.getDimSize(0) == *upper &&
          readsOneRowPerStep(op, w) &&
          !llvm::is_contained(info.hostCandidates, forward))
        info.hostCandidates.push_back(forward);
    }
  if (failed(appendTapeInits(op, info, rows, inits)))
    return failure();
  if (binomial)
    for (unsigned i = 0; i < numCarried; ++i)
      inits.push_back(inits[i]);
  LogicalResult status = success();
  auto loop = createEmptyLoop(b, loc, map.lookupOrDefault(op.getLowerBound()),
                              map.lookupOrDefault(op.getUpperBound()),
                              map.lookupOrDefault(op.getStep()), inits);
  Value row;
  Operation *mark = nullptr; // the last op before the body's copy
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
    row = arith::SubIOp::create(b, l, iv,
                                map.lookupOrDefault(op.getLowerBound()));
    SmallVector<Value> tapes;
    if (!binomial) {
      for (auto [v, tape] : llvm::zip(carried, tapeArgs)) {
        tapes.push_back(storeInTape(b, l, v, tape, row));
        tapes.back().getDefiningOp()->setAttr(TadDialect::kTapeAttrName,
                                              b.getUnitAttr());
      }
    } else {
      llvm::append_range(tapes, storeSnapshot(l, row, carried, tapeArgs, info));
    }
    SmallVector<Value> results;
    mark = &loop.getBody()->back();
    if (failed(cloneForward(*op.getBody(), inner, results, callStack)))
      status = failure();
    llvm::append_range(results, tapes);
    if (binomial)
      llvm::append_range(results, carried); // this iteration's inputs
    scf::YieldOp::create(b, l, results);
  }
  if (failed(status))
    return failure();
  if (!binomial && residuals)
    loop = addResidualTapes(loop, mark, row, info);
  // What the reverse sweep will run again: the body once per iteration
  // (reverseStep), and with binomial checkpointing revolve's advances
  // after its first sweep.
  // (Below the total of actions, which fits in 64 bits: checked above.)
  int64_t reruns = trips + (binomial ? info.counts.advances : 0);
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
/// Whether `c` is a row or a block written into zeros, or a sum of such
/// (an iteration that reads `ws[i]` twice, or `s[:, k]` and `s[:, k+1]`).
static bool isSparseCotangent(Value c) {
  if (auto row = c.getDefiningOp<UpdateOp>())
    return isPositiveZeros(row.getOperand());
  if (auto block = c.getDefiningOp<DynamicUpdateSliceOp>())
    return isPositiveZeros(block.getOperand());
  if (auto sum = c.getDefiningOp<AddOp>())
    return sum.getLhs().hasOneUse() && sum.getRhs().hasOneUse() &&
           isSparseCotangent(sum.getLhs()) && isSparseCotangent(sum.getRhs());
  return false;
}

Value Differentiator::addToAccumulator(Value acc, Value c) {
  Location loc = c.getLoc();
  // A sum of rows and blocks is added one term at a time, each into its
  // part of the accumulator.
  if (auto sum = c.getDefiningOp<AddOp>();
      sum && c.use_empty() && isSparseCotangent(c)) {
    Value lhs = sum.getLhs(), rhs = sum.getRhs();
    sum.erase();
    return addToAccumulator(addToAccumulator(acc, lhs), rhs);
  }
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
  // The same for a block of `s[:, k]`, `s[k:k+2, j]`: only the block is
  // read and written.
  auto block = c.getDefiningOp<DynamicUpdateSliceOp>();
  if (block && c.use_empty() && isPositiveZeros(block.getOperand())) {
    Value old = DynamicSliceOp::create(b, loc, block.getValue().getType(), acc,
                                       block.getOffsets());
    Value sum = AddOp::create(b, loc, old, block.getValue());
    Value updated = DynamicUpdateSliceOp::create(b, loc, acc.getType(), sum,
                                                 acc, block.getOffsets());
    block.erase();
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
                                          SmallVectorImpl<Value> &out,
                                          SmallVectorImpl<Operation *> *ops) {
  scf::ForOp primal = info.primal;
  Location l = primal.getLoc();
  IRMapping map = info.outer;
  map.map(primal.getInductionVar(), iv);
  for (auto [arg, v] : llvm::zip(primal.getRegionIterArgs(), carriedIn))
    map.map(arg, v);
  SmallVector<Operation *> recomputed;
  if (failed(recompute(*primal.getBody(), map, recomputed)))
    return failure();
  if (ops)
    ops->assign(recomputed.begin(), recomputed.end());
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
    if (!info.isHost(v)) {
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
    auto residualHost = info.residualHosts.find(v);
    if (host != info.hosts.end())
      accs.push_back(op.getResult(numCarried + (host - info.hosts.begin())));
    else if (residualHost != info.residualHosts.end())
      accs.push_back(op.getResult(residualHost->second));
    else
      accs.push_back(zerosOf(b, loc, v.getType()));
  }

  SmallVector<Value> results; // the carried cotangents, then the outer ones
  if (info.snapshots > 0) {
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
      for (auto [k, tape, r, host] : llvm::enumerate(
               op.getResults().slice(numCarried, numCarried),
               primal.getRegionIterArgs(), info.hosts)) {
        // A hosted tape is read from the accumulator the loop carries, a
        // longer one where the forward loop's last value went into it.
        Value from = info.longTapes.lookup(unsigned(k));
        if (!from)
          from = tape;
        if (host)
          from = args[numCarried + (llvm::find(outer, host) - outer.begin())];
        carriedIn.push_back(loadFromTape(b, l, r.getType(), from, row));
      }
      SmallVector<Value> out;
      SmallVector<Operation *> recomputed;
      if (failed(reverseStep(info, outer, iv, carriedIn,
                             args.take_front(numCarried),
                             args.drop_front(numCarried), out, &recomputed)))
        status = failure();
      else
        useResidualTapes(op, info, recomputed, row, [&](Value host) {
          return args[numCarried + (llvm::find(outer, host) - outer.begin())];
        });
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

namespace {
/// Index arithmetic for the revolve machine in IR.
struct IndexMath {
  OpBuilder &b;
  Location l;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, l, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, l, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, l, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, l, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, l, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, l, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, l, p, x, y);
  }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, l, x, y); }
  Value either(Value x, Value y) { return arith::OrIOp::create(b, l, x, y); }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, l, cond, x, y);
  }
};
} // namespace

/// RevolveMachine::targetFrom in IR: where the schedule stops advancing
/// from the top snapshot's step `p`, with `slots` slots from that one up
/// and `e` the step to reverse next. With two slots or more and two steps
/// or more, that is p + revolveSplit(e - p + 1, slots), whose search for r
/// runs over 1..`maxReps` (the whole loop's, which bounds every
/// subproblem's: RevolveTest); otherwise e.
static Value emitRevolveTarget(OpBuilder &b, Location l, Value p, Value e,
                               Value slots, int64_t maxReps) {
  IndexMath m{b, l};
  Value length = m.add(m.sub(e, p), m.c(1));
  Value trivial = m.either(m.cmp(arith::CmpIPredicate::sle, length, m.c(1)),
                           m.cmp(arith::CmpIPredicate::sle, slots, m.c(1)));
  auto branch = scf::IfOp::create(b, l, TypeRange{b.getIndexType()}, trivial,
                                  /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(branch.thenBlock());
  scf::YieldOp::create(b, l, e);
  b.setInsertionPointToEnd(branch.elseBlock());
  // range = binom(slots + r, slots) for the smallest r with range >= length.
  auto search = scf::ForOp::create(
      b, l, m.c(1), m.c(maxReps + 1), m.c(1), ValueRange{m.c(1), m.c(0)},
      [&](OpBuilder &nb, Location nl, Value rho, ValueRange args) {
        IndexMath n{nb, nl};
        Value range = args[0], r = args[1];
        Value notFound = n.eq(r, n.c(0));
        Value next = n.div(n.mul(range, n.add(slots, rho)), rho);
        Value reached = n.cmp(arith::CmpIPredicate::sge, next, length);
        scf::YieldOp::create(
            nb, nl,
            ValueRange{n.select(notFound, next, range),
                       n.select(n.both(notFound, reached), rho, r)});
      });
  Value range = search.getResult(0), r = search.getResult(1);
  Value below = m.div(m.mul(range, r), m.add(slots, r)); // binom(c+r-1, c)
  Value first = m.div(m.mul(below, m.sub(r, m.c(1))),
                      m.sub(m.add(slots, r), m.c(1))); // binom(c+r-2, c)
  Value capacity = m.sub(below, first);
  Value split = m.add(first, m.min(m.sub(length, below), capacity));
  scf::YieldOp::create(b, l, m.add(p, split));
  return branch.getResult(0);
}

/// The runtime's counter of revolve's actions (count-revolve-actions),
/// declared once per module: `tad_rt_count_revolve_action(kind)`.
func::FuncOp Differentiator::getRevolveCounter() {
  static constexpr llvm::StringLiteral name = "tad_rt_count_revolve_action";
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType({b.getIndexType()}, {}));
  fn.setPrivate();
  return fn;
}

/// Binomial checkpointing: a loop over revolve's actions after its first
/// sweep (which the forward loop ran), each computed as it runs by
/// RevolveMachine's rules from O(snapshots) index state, so that nothing
/// grows with the trip count. The loop carries the current state (the
/// carried values at the start of some iteration), the snapshot slots, the
/// carried cotangents and the accumulators, then the machine: the current
/// state's step (-1 for none), the step to reverse next, where advancing
/// stops, the stack depth (the top slot) and the step each slot 1..c-1
/// holds (slot 0 holds x_0). Its trip count is the number of actions,
/// countRevolveActions; it starts from the forward loop's last-iteration
/// inputs and slots.
LogicalResult Differentiator::reverseRevolve(scf::ForOp op,
                                             const LoopInfo &info,
                                             ArrayRef<Value> outer,
                                             ArrayRef<Value> carriedCots,
                                             ArrayRef<Value> accs,
                                             SmallVectorImpl<Value> &results) {
  scf::ForOp primal = info.primal;
  unsigned n = info.numCarried;
  int64_t snapshots = info.snapshots;
  int64_t trips = *getConstantIntValue(primal.getUpperBound()) -
                  *getConstantIntValue(primal.getLowerBound());
  int64_t maxReps = remat::revolveRepetitions(trips, snapshots);
  Location loc = op.getLoc();
  IndexMath m{b, loc};

  SmallVector<Value> inits;
  llvm::append_range(inits, op.getResults().drop_front(2 * n)); // current
  llvm::append_range(inits, op.getResults().slice(n, n));       // slots
  llvm::append_range(inits, carriedCots);
  llvm::append_range(inits, accs);
  unsigned numTensors = inits.size();
  int64_t depth = int64_t(info.sweepStores.size());
  for (int64_t v : {trips - 1, trips - 1, trips - 1, depth})
    inits.push_back(m.c(v)); // current step, next reverse, target, depth
  for (int64_t slot = 1; slot < snapshots; ++slot)
    inits.push_back(
        m.c(slot <= depth ? info.sweepStores[slot - 1] : int64_t(0)));
  auto dispatch =
      createEmptyLoop(b, loc, m.c(0), m.c(info.counts.total()), m.c(1), inits);
  LogicalResult status = success();
  {
    Location l = loc;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(dispatch.getBody());
    ValueRange args = dispatch.getRegionIterArgs();
    ValueRange current = args.take_front(n), tapes = args.slice(n, n),
               cots = args.slice(2 * n, n),
               accArgs = args.slice(3 * n, numTensors - 3 * n);
    ValueRange machine = args.drop_front(numTensors);
    Value cur = machine[0], next = machine[1], target = machine[2],
          top = machine[3];
    ValueRange stack = machine.drop_front(4); // slots 1..c-1
    // The step the top slot holds.
    Value topStep = m.c(0);
    for (auto [k, step] : llvm::enumerate(stack))
      topStep = m.select(m.eq(top, m.c(int64_t(k) + 1)), step, topStep);
    // RevolveMachine::next's order: reverse once at the step, restore when
    // there is no current state, store at the target, else advance.
    using Action = remat::RevolveAction;
    Value kind =
        m.select(m.eq(cur, next), m.c(Action::reverse),
                 m.select(m.cmp(arith::CmpIPredicate::slt, cur, m.c(0)),
                          m.c(Action::restore),
                          m.select(m.eq(cur, target), m.c(Action::store),
                                   m.c(Action::advance))));
    SmallVector<int64_t> cases = {Action::store, Action::restore,
                                  Action::advance, Action::reverse};
    auto sw = scf::IndexSwitchOp::create(b, l, TypeRange(args), kind, cases,
                                         cases.size());
    const remat::RevolveCounts &counts = info.counts;
    sw->setAttr(TadDialect::kCaseCountsAttrName,
                b.getDenseI64ArrayAttr({counts.stores, counts.restores,
                                        counts.advances, counts.reverses,
                                        /*default, never taken=*/0}));
    auto yieldWith = [&](ValueRange cur, ValueRange tp, ValueRange ct,
                         ValueRange ac, ValueRange state) {
      SmallVector<Value> all(cur);
      llvm::append_range(all, tp);
      llvm::append_range(all, ct);
      llvm::append_range(all, ac);
      llvm::append_range(all, state);
      scf::YieldOp::create(b, l, all);
    };
    for (auto [region, action] : llvm::zip(sw.getCaseRegions(), cases)) {
      OpBuilder::InsertionGuard g(b);
      b.createBlock(&region);
      if (countRevolveActions)
        func::CallOp::create(b, l, getRevolveCounter(),
                             ValueRange{m.c(action)});
      SmallVector<Value> state(machine);
      switch (action) {
      case Action::store: { // push the current state into slot top + 1
        Value slot = m.add(top, m.c(1));
        SmallVector<Value> stored;
        for (auto [v, tape] : llvm::zip(current, tapes))
          stored.push_back(
              UpdateOp::create(b, l, tape.getType(), v, tape, slot));
        state[2] = emitRevolveTarget(b, l, cur, next,
                                     m.sub(m.c(snapshots), slot), maxReps);
        state[3] = slot;
        for (auto [k, step] : llvm::enumerate(stack))
          state[4 + k] = m.select(m.eq(slot, m.c(int64_t(k) + 1)), cur, step);
        yieldWith(current, stored, cots, accArgs, state);
        break;
      }
      case Action::restore: { // from the top slot
        SmallVector<Value> restored;
        for (auto [v, tape] : llvm::zip(current, tapes))
          restored.push_back(TakeOp::create(b, l, v.getType(), tape, top));
        state[0] = topStep;
        state[2] = emitRevolveTarget(b, l, topStep, next,
                                     m.sub(m.c(snapshots), top), maxReps);
        yieldWith(restored, tapes, cots, accArgs, state);
        break;
      }
      case Action::advance: {
        IRMapping map = info.outer;
        Value iv = m.add(op.getLowerBound(), cur);
        map.map(primal.getInductionVar(), iv);
        for (auto [arg, v] : llvm::zip(primal.getRegionIterArgs(), current))
          map.map(arg, v);
        SmallVector<Operation *> created;
        if (failed(recompute(*primal.getBody(), map, created)))
          status = failure();
        SmallVector<Value> advanced;
        for (Value v : primal.getBody()->getTerminator()->getOperands())
          advanced.push_back(map.lookupOrDefault(v));
        state[0] = m.add(cur, m.c(1));
        yieldWith(advanced, tapes, cots, accArgs, state);
        break;
      }
      default: { // reverse the step; reversing the top slot's own pops it
        Value iv = m.add(op.getLowerBound(), next);
        SmallVector<Value> out;
        if (failed(reverseStep(info, outer, iv, current, cots, accArgs, out)))
          status = failure();
        Value pops = m.both(m.cmp(arith::CmpIPredicate::sgt, top, m.c(0)),
                            m.eq(topStep, next));
        state[0] = m.c(-1);
        state[1] = m.sub(next, m.c(1));
        state[3] = m.select(pops, m.sub(top, m.c(1)), top);
        ArrayRef<Value> all(out);
        yieldWith(current, tapes, all.take_front(n), all.drop_front(n), state);
        break;
      }
      }
    }
    {
      OpBuilder::InsertionGuard g(b);
      b.createBlock(&sw.getDefaultRegion()); // never taken
      scf::YieldOp::create(b, l, SmallVector<Value>(args));
    }
    scf::YieldOp::create(b, l, sw.getResults());
  }
  if (failed(status))
    return failure();
  llvm::append_range(results,
                     dispatch.getResults().slice(2 * n, numTensors - 2 * n));
  return success();
}

//===----------------------------------------------------------------------===//
// Derivative functions
//===----------------------------------------------------------------------===//
