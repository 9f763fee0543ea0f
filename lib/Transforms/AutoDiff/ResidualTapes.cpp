//===- ResidualTapes.cpp - tapes of a loop body's residuals ---------------===//
//
// A full tape keeps a loop's carried values, and each reverse step runs the
// iteration's forward again from them before its adjoint: per iteration,
// every matmul and every tanh once more. The unrolled program instead keeps
// the values its adjoint reads (its residuals) and runs nothing twice. A
// residual tape does the same for a loop: the forward loop also stores each
// value of its body that an adjoint may read and that depends on the
// carried values (a view is recomputed from its source), and the reverse
// step reads the residuals its adjoint needs from those tapes. The
// recomputed ops whose results are then unread die. A residual goes into
// the rows of a gradient that the reverse step writes only after reading
// it (as a carried value's tape does, Loops.cpp findTapeHost), into the
// next row of a carried value's tape when the body yields it, or else into
// a stacked tensor of its own (docs/autodiff.md).
//
// Which values the adjoint reads is known only once the reverse step is
// built, and the forward loop is built before it: so the forward loop tapes
// every candidate, each reverse step replaces what it reads, and
// pruneResidualTapes drops the tapes that no step read.
//
// A reverse step recomputes the body with the same cloning as the forward
// loop (cloneOp, op by op), so the two sequences of ops correspond one to
// one; useResidualTapes checks that before it reads a tape (and recomputes
// where they would not correspond).
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"
#include "tad/Transforms/OpCosts.h"

#include "llvm/ADT/BitVector.h"

using namespace mlir;
using namespace tad;
using namespace tad::autodiff;

/// Whether a tape of `type` can hold a value: a float tensor of static
/// shape (a tad tensor, as the tape's tad.empty is).
static bool isTapeable(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         isa<FloatType>(tensor.getElementType());
}

/// Whether `op` only views an operand (a row, a slice, a reshape; the
/// remat graph's notion): it costs nothing to recompute from its source,
/// and a tape of it would copy bytes that the source already holds.
static bool isView(Operation *op) { return getViewedOperand(op).has_value(); }

/// The values that `op` reads: its operands and what its regions capture.
static SmallVector<Value> readValues(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  for (Region &region : op->getRegions())
    llvm::append_range(values, getCaptures(region));
  return values;
}

/// Moves the body of `loop` into a new loop whose iter args are those of
/// `loop` that `keep` marks, then `extraInits` (new block arguments at the
/// end, which the caller yields). The dropped ones' results and block
/// arguments must be unused but for their yield operands, which go. The
/// old loop is erased and its kept results replaced. An iter arg in
/// `replaced` starts from that value instead, whose type may differ: the
/// one op that reads it in the body (a tape's store) takes the new type.
static scf::ForOp
rebuildLoop(OpBuilder &b, scf::ForOp loop, const llvm::BitVector &keep,
            ValueRange extraInits,
            const llvm::DenseMap<unsigned, Value> &replaced =
                llvm::DenseMap<unsigned, Value>()) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop);
  SmallVector<Value> inits;
  for (auto [k, init] : llvm::enumerate(loop.getInitArgs()))
    if (keep[k])
      inits.push_back(replaced.lookup(k) ? replaced.lookup(k) : init);
  llvm::append_range(inits, extraInits);
  auto rebuilt =
      createEmptyLoop(b, loop.getLoc(), loop.getLowerBound(),
                      loop.getUpperBound(), loop.getStep(), inits);
  rebuilt->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  Block *from = loop.getBody(), *to = rebuilt.getBody();
  from->getArgument(0).replaceAllUsesWith(rebuilt.getInductionVar());
  auto yield = cast<scf::YieldOp>(from->getTerminator());
  llvm::BitVector dropped(keep);
  dropped.flip();
  yield->eraseOperands(dropped);
  unsigned next = 0;
  for (auto [k, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
    if (!keep[k])
      continue;
    Value to = rebuilt.getRegionIterArgs()[next++];
    if (replaced.count(k))
      for (Operation *user : arg.getUsers())
        user->getResult(0).setType(to.getType());
    arg.replaceAllUsesWith(to);
  }
  to->getOperations().splice(to->end(), from->getOperations());
  next = 0;
  for (auto [k, result] : llvm::enumerate(loop.getResults()))
    if (keep[k])
      result.replaceAllUsesWith(rebuilt.getResult(next++));
  loop.erase();
  return rebuilt;
}

/// Whether the adjoint of `result`'s op reads `result` (exp's does, a
/// matmul's does not).
static bool readsOwnResult(OpResult result) {
  auto rule = dyn_cast<DifferentiableOpInterface>(result.getOwner());
  if (!rule)
    return true;
  SmallVector<Value> residuals;
  rule.getResiduals(residuals);
  return llvm::is_contained(residuals, Value(result));
}

/// The values of `ops` that their adjoints may read: the residuals of
/// differentiable ops; a checkpoint's or a branch's inputs (its adjoint
/// computes it again from them); a call's results (a rule's forward: the
/// pullback reads what it saved); a nested loop's inputs and results (its
/// tapes); through a view, also its source.
static llvm::DenseSet<Value> likelyResiduals(ArrayRef<Operation *> ops) {
  llvm::DenseSet<Value> read;
  SmallVector<Value> work;
  auto add = [&](Value v) {
    if (read.insert(v).second)
      work.push_back(v);
  };
  for (Operation *op : ops) {
    if (auto rule = dyn_cast<DifferentiableOpInterface>(op)) {
      SmallVector<Value> residuals;
      rule.getResiduals(residuals);
      for (Value v : residuals)
        add(v);
    } else if (isa<CallOpInterface>(op)) {
      for (Value v : op->getResults())
        add(v);
    } else if (op->getNumRegions() > 0) {
      for (Value v : readValues(op))
        add(v);
      if (!isa<CheckpointOp, scf::IfOp>(op))
        for (Value v : op->getResults())
          add(v);
    }
  }
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (std::optional<unsigned> viewed = def ? getViewedOperand(def)
                                             : std::nullopt)
      add(def->getOperand(*viewed));
    else if (isa_and_nonnull<BroadcastOp>(def))
      add(def->getOperand(0));
  }
  return read;
}

namespace {
/// The residuals of a forward loop's body (op index, result) that get a
/// tape, and those that are the next iteration's carried value (`shifted`,
/// with that value's number in `shiftedCarried`).
struct Residuals {
  SmallVector<std::pair<unsigned, OpResult>> taped, shifted;
  SmallVector<unsigned> shiftedCarried;
};

/// A host of residuals: an outer value whose gradient's accumulator holds
/// them in its rows, after what the rows hold (`used` of them).
struct Host {
  Value value;
  RankedTensorType type;
  int64_t used;
  int tapeArg;         // the loop's iter arg holding its tape; -1: new
  int64_t reader = -1; // the last of forwardOps that reads its row
};

/// Where each taped residual goes: a host's index (or -1: a tape of its
/// own), whether the reverse step copies it out of the row, its offset in
/// the row, and its block (its shape as whole rows of the host's).
struct HostPlacement {
  SmallVector<Host> hosts;
  SmallVector<int> placement;
  llvm::BitVector copied;
  SmallVector<int64_t> offsets;
  SmallVector<RankedTensorType> blocks;
};
} // namespace

/// The residuals of `loop`'s body (`forwardOps`, after its `numPrimal`
/// carried values) that the reverse sweep may read.
static Residuals findResiduals(scf::ForOp loop,
                               ArrayRef<Operation *> forwardOps,
                               unsigned numPrimal,
                               ArrayRef<Value> carriedHosts) {
  Residuals residuals;
  auto &taped = residuals.taped;
  auto &shifted = residuals.shifted;
  auto &shiftedCarried = residuals.shiftedCarried;
  // The candidates: what the adjoint may read and depends on the carried
  // values, but views.
  llvm::DenseSet<Value> read = likelyResiduals(forwardOps);
  llvm::DenseSet<Value> dependent;
  for (Value arg : loop.getRegionIterArgs().take_front(numPrimal))
    dependent.insert(arg);
  for (auto [k, op] : llvm::enumerate(forwardOps)) {
    if (llvm::none_of(readValues(op),
                      [&](Value v) { return dependent.contains(v); }))
      continue;
    for (Value result : op->getResults())
      dependent.insert(result);
    // A broadcast is recomputed from its (smaller) source, whose tape the
    // reverse step reads: it fuses into the op that reads it, so it costs
    // neither a buffer nor a pass, where a tape of it would hold the
    // repeated elements (a layer norm's 1/sigma, 128 floats, as 128 x 256).
    if (isView(op) || isa<BroadcastOp>(op))
      continue;
    for (OpResult result : op->getResults())
      if (isTapeable(result.getType()) && read.contains(result))
        taped.push_back({unsigned(k), result});
  }
  // A value that the body yields as a carried value is the next
  // iteration's input, which the carried value's tape holds already: row
  // i + 1 of that tape, given one more row for the last iteration's.
  auto yield0 = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto it = taped.begin(); it != taped.end();) {
    int carried = -1;
    for (unsigned c = 0; c < numPrimal; ++c)
      if (yield0.getOperand(c) == it->second && !carriedHosts[c] &&
          !llvm::is_contained(shiftedCarried, c))
        carried = int(c);
    if (carried < 0) {
      ++it;
      continue;
    }
    shifted.push_back(*it);
    shiftedCarried.push_back(unsigned(carried));
    it = taped.erase(it);
  }
  return residuals;
}

/// Places the residuals `taped` of `loop` in the rows of the hosts that
/// `hostCandidates` name, while they fit.
static HostPlacement
placeInHosts(scf::ForOp loop, ArrayRef<Operation *> forwardOps,
             unsigned numPrimal, ArrayRef<Value> carriedHosts,
             ArrayRef<Value> hostCandidates,
             ArrayRef<std::pair<unsigned, OpResult>> taped) {
  HostPlacement result;
  auto &hosts = result.hosts;
  auto &placement = result.placement;
  auto &copied = result.copied;
  auto &offsets = result.offsets;
  auto &blocks = result.blocks;
  // Where each goes: into a host's rows, after what they hold, while they
  // fit; else a tape of its own.
  llvm::DenseMap<Operation *, int64_t> position;
  for (auto [k, op] : llvm::enumerate(forwardOps))
    position[op] = int64_t(k);
  for (Value candidate : hostCandidates) {
    auto type = cast<RankedTensorType>(candidate.getType());
    Host host{candidate, type, 0, -1};
    for (auto [k, carried] : llvm::enumerate(carriedHosts))
      if (carried == candidate) {
        host.used = cast<RankedTensorType>(
                        loop.getRegionIterArgs()[k].getType())
                        .getDimSize(0);
        host.tapeArg = int(numPrimal + k);
      }
    // The reverse step makes the row's gradient where it runs the adjoint
    // of the op that reads `ws[i]`.
    for (Operation *user : candidate.getUsers())
      if (auto take = dyn_cast<TakeOp>(user); take && position.count(take))
        for (Operation *reader : take->getUsers())
          if (position.count(reader))
            host.reader = std::max(host.reader, position[reader]);
    hosts.push_back(host);
  }
  // A residual goes into a host's row as a block of whole rows of it
  // (reshaped to [n, the row's other dimensions], a view of its bytes),
  // after what the row holds: first fit, the largest residuals first.
  placement.assign(taped.size(), -1);
  copied.resize(taped.size());
  offsets.assign(taped.size(), 0);
  blocks.assign(taped.size(), RankedTensorType());
  SmallVector<unsigned> order =
      llvm::to_vector(llvm::seq<unsigned>(0, taped.size()));
  auto elements = [&](unsigned i) {
    return cast<RankedTensorType>(taped[i].second.getType()).getNumElements();
  };
  llvm::stable_sort(order, [&](unsigned x, unsigned y) {
    return elements(x) > elements(y);
  });
  for (bool inOrder : {true, false})
    for (unsigned i : order) {
      if (placement[i] >= 0)
        continue;
      auto type = cast<RankedTensorType>(taped[i].second.getType());
      for (auto [h, host] : llvm::enumerate(hosts)) {
        // The reverse step reads a residual where it runs the adjoints of
        // the residual's op and of the ops after it, so before it makes
        // the gradient of a row read earlier in the body: such a row holds
        // it and still gets its gradient in place. Then the rows read
        // later take what those do not hold: their gradient is made in a
        // buffer of its own (bufferization sees the later read) and copied
        // into the row at the step's end. That buffer lives for part of
        // one step, where a tape of its own would live through the whole
        // reverse loop (the transformer loop's store-all peak: 20.2 MB
        // with in-order rows only, 17.0 MB with both, bench/step).
        // The row's reader itself may compute the residual (u = n @ w[i]):
        // its adjoint writes the row's gradient, and reads u only where u
        // is one of its own residuals.
        bool earlier =
            host.reader >= 0 && (host.reader < int64_t(taped[i].first) ||
                                 (host.reader == int64_t(taped[i].first) &&
                                  !readsOwnResult(taped[i].second)));
        if (host.reader < 0 || (inOrder && !earlier))
          continue;
        ArrayRef<int64_t> rest = host.type.getShape().drop_front(2);
        int64_t width = 1;
        for (int64_t size : rest)
          width *= size;
        if (host.type.getElementType() != type.getElementType() ||
            type.getNumElements() % width != 0 ||
            host.used + type.getNumElements() / width >
                host.type.getDimSize(1))
          continue;
        SmallVector<int64_t> shape = {type.getNumElements() / width};
        llvm::append_range(shape, rest);
        blocks[i] = RankedTensorType::get(shape, type.getElementType());
        placement[i] = int(h);
        copied[i] = !earlier;
        offsets[i] = host.used;
        host.used += shape.front();
        break;
      }
    }

  return result;
}

scf::ForOp Differentiator::addResidualTapes(scf::ForOp loop, Operation *mark,
                                            Value row, LoopInfo &info) {
  Block *body = loop.getBody();
  unsigned numPrimal = info.numCarried;
  info.forwardOps.clear();
  for (Operation *op = mark->getNextNode(); op != body->getTerminator();
       op = op->getNextNode())
    info.forwardOps.push_back(op);
  Residuals residuals =
      findResiduals(loop, info.forwardOps, numPrimal, info.hosts);
  auto &taped = residuals.taped;
  auto &shifted = residuals.shifted;
  auto &shiftedCarried = residuals.shiftedCarried;
  if (taped.empty() && shifted.empty())
    return loop;
  int64_t rows = cast<RankedTensorType>(
                     loop.getInitArgs()[numPrimal].getType())
                     .getDimSize(0);
  HostPlacement placed =
      placeInHosts(loop, info.forwardOps, numPrimal, info.hosts,
                   info.hostCandidates, taped);
  auto &hosts = placed.hosts;
  auto &placement = placed.placement;
  auto &copied = placed.copied;
  auto &offsets = placed.offsets;
  auto &blocks = placed.blocks;

  // The new iter args: the hosts that hold no carried value but now hold
  // residuals, then the tapes of their own.
  Location loc = loop.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop);
  llvm::DenseMap<unsigned, Value> longer;
  for (unsigned c : shiftedCarried) {
    auto type = cast<RankedTensorType>(loop.getInitArgs()[c].getType());
    SmallVector<int64_t> shape = {rows + 1};
    llvm::append_range(shape, type.getShape());
    longer[numPrimal + c] = emptyOf(
        b, loc, RankedTensorType::get(shape, type.getElementType()));
  }
  SmallVector<Value> inits;
  unsigned next = loop.getNumResults();
  for (auto [h, host] : llvm::enumerate(hosts))
    if (host.tapeArg < 0 && llvm::is_contained(placement, int(h))) {
      host.tapeArg = int(next++);
      info.residualHosts[host.value] = unsigned(host.tapeArg);
      inits.push_back(emptyOf(b, loc, host.type));
    }
  SmallVector<int> ownTape(taped.size(), -1);
  for (auto [i, entry] : llvm::enumerate(taped)) {
    if (placement[i] >= 0)
      continue;
    auto type = cast<RankedTensorType>(entry.second.getType());
    SmallVector<int64_t> shape = {rows};
    llvm::append_range(shape, type.getShape());
    ownTape[i] = int(next++);
    inits.push_back(emptyOf(
        b, loc, RankedTensorType::get(shape, type.getElementType())));
  }
  llvm::BitVector keep(loop.getNumResults(), true);
  scf::ForOp rebuilt = rebuildLoop(b, loop, keep, inits, longer);
  // The value after the last iteration goes in the longer tapes' last row.
  b.setInsertionPointAfter(rebuilt);
  for (auto [entry, c] : llvm::zip(shifted, shiftedCarried)) {
    Value tape = rebuilt.getResult(numPrimal + c);
    Value last = arith::ConstantIndexOp::create(b, loc, rows);
    auto store = UpdateOp::create(b, loc, tape.getType(),
                                  rebuilt.getResult(c), tape, last);
    store->setAttr(TadDialect::kTapeAttrName, b.getUnitAttr());
    info.longTapes[c] = store.getResult();
    LoopInfo::ResidualTape tapeInfo{entry.first, entry.second.getResultNumber(),
                                    numPrimal + c};
    tapeInfo.shifted = true;
    info.residualTapes.push_back(tapeInfo);
  }

  // The stores: each writes the tape that its iter arg's yielded value
  // holds so far (the stores of a tape chain in the order of their values).
  auto yield = cast<scf::YieldOp>(rebuilt.getBody()->getTerminator());
  b.setInsertionPoint(yield);
  ValueRange args = rebuilt.getRegionIterArgs();
  unsigned firstNew = rebuilt.getNumResults() - inits.size();
  for (unsigned a = firstNew; a < rebuilt.getNumResults(); ++a)
    yield->insertOperands(yield->getNumOperands(), args[a]);
  for (auto [i, entry] : llvm::enumerate(taped)) {
    auto [k, v] = entry;
    auto type = cast<RankedTensorType>(v.getType());
    // Right after its value: the producer can write into the tape, and
    // what it allocated otherwise goes at once, not at the body's end.
    b.setInsertionPointAfter(v.getDefiningOp());
    unsigned position =
        placement[i] >= 0 ? unsigned(hosts[placement[i]].tapeArg)
                          : unsigned(ownTape[i]);
    Value tape = yield.getOperand(position);
    Operation *store;
    if (placement[i] < 0) {
      store = UpdateOp::create(b, v.getLoc(), tape.getType(), v, tape, row);
    } else {
      Value block = v;
      if (blocks[i] != type) {
        block = ReshapeOp::create(b, v.getLoc(), blocks[i], v);
        block.getDefiningOp()->setAttr(TadDialect::kTapeAttrName,
                                       b.getUnitAttr());
      }
      SmallVector<OpFoldResult> offs, sizes, strides;
      tapeSlice(b, row, blocks[i], cast<RankedTensorType>(tape.getType()),
                offs, sizes, strides, offsets[i]);
      store = tensor::InsertSliceOp::create(b, v.getLoc(), block, tape, offs,
                                            sizes, strides);
    }
    store->setAttr(TadDialect::kTapeAttrName, b.getUnitAttr());
    yield->setOperand(position, store->getResult(0));
    info.residualTapes.push_back(
        {k, v.getResultNumber(), position,
         placement[i] >= 0 ? hosts[placement[i]].value : Value(), offsets[i],
         store, /*shifted=*/false, blocks[i], bool(copied[i])});
  }
  return rebuilt;
}

void Differentiator::useResidualTapes(
    scf::ForOp op, const LoopInfo &info, ArrayRef<Operation *> recomputed,
    Value row, function_ref<Value(Value)> hostAccumulator) {
  if (info.residualTapes.empty() || recomputed.empty())
    return;
  // The reverse step's ops must be the forward loop's, one for one.
  if (recomputed.size() != info.forwardOps.size())
    return;
  llvm::DenseMap<Operation *, unsigned> index;
  for (auto [k, pair] :
       llvm::enumerate(llvm::zip(recomputed, info.forwardOps))) {
    auto [r, f] = pair;
    if (r->getName() != f->getName() ||
        r->getNumResults() != f->getNumResults())
      return;
    index[r] = k;
  }
  llvm::DenseMap<std::pair<unsigned, unsigned>,
                 const LoopInfo::ResidualTape *>
      tapeOf;
  for (const LoopInfo::ResidualTape &tape : info.residualTapes)
    tapeOf[{tape.op, tape.result}] = &tape;

  // The recomputed values that the adjoint reads, and, through the ops
  // that stay (views, values without a tape or whose tape is `skipped`),
  // what those read: the tapes to read.
  using Load = std::pair<Value, const LoopInfo::ResidualTape *>;
  Block *body = recomputed.front()->getBlock();
  auto tapesToRead =
      [&](const llvm::DenseSet<const LoopInfo::ResidualTape *> &skipped) {
        llvm::SetVector<Value> needed;
        auto need = [&](Value v) {
          Operation *def = v.getDefiningOp();
          if (def && index.contains(def))
            needed.insert(v);
        };
        for (Operation &op : *body) {
          if (index.contains(&op))
            continue;
          op.walk([&](Operation *inner) {
            for (Value operand : inner->getOperands())
              need(operand);
          });
        }
        SmallVector<Load> loads;
        for (size_t i = 0; i < needed.size(); ++i) {
          Value v = needed[i];
          Operation *def = v.getDefiningOp();
          auto tape =
              tapeOf.find({index[def], cast<OpResult>(v).getResultNumber()});
          if (tape != tapeOf.end() && !skipped.contains(tape->second)) {
            loads.push_back({v, tape->second});
            continue;
          }
          for (Value read : readValues(def))
            need(read);
        }
        return loads;
      };
  SmallVector<Load> loads = tapesToRead({});
  if (info.residualRecompute > 0) {
    // A budget between a full tape with residuals and one without
    // (tad.loop_residual_recompute): the residuals that cost memory are
    // the memory to give back: those whose tapes are their own, and those
    // in a host's row that the step writes before it last reads them
    // (bufferization copies them out at the step's start, so each is a
    // buffer through most of the step); one in another host's row costs
    // none. Those that are cheapest to compute again per byte go first, as
    // the remat solver would choose in the unrolled program.
    struct Own {
      double costPerByte;
      int64_t bytes;
      const LoopInfo::ResidualTape *tape;
    };
    SmallVector<Own> own;
    int64_t total = 0;
    for (auto [v, tape] : loads) {
      if ((tape->host && !tape->copied) || tape->shifted)
        continue;
      int64_t bytes = std::max<int64_t>(getByteSize(v.getType()), 1);
      own.push_back({estimateCost(info.forwardOps[tape->op]) / double(bytes),
                     bytes, tape});
      total += bytes;
    }
    llvm::stable_sort(own, [](const Own &a, const Own &b) {
      return a.costPerByte < b.costPerByte;
    });
    llvm::DenseSet<const LoopInfo::ResidualTape *> skipped;
    int64_t freed = 0;
    for (const Own &o : own) {
      if (freed * 100 >= info.residualRecompute * total)
        break;
      skipped.insert(o.tape);
      freed += o.bytes;
    }
    loads = tapesToRead(skipped);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(recomputed.front());
  for (auto [v, tape] : loads) {
    Value read;
    if (tape->shifted) {
      Value next = arith::AddIOp::create(
          b, v.getLoc(), row, arith::ConstantIndexOp::create(b, v.getLoc(), 1));
      read = TakeOp::create(
          b, v.getLoc(), v.getType(),
          info.longTapes.lookup(tape->position - info.numCarried), next);
    } else if (!tape->host) {
      read = TakeOp::create(b, v.getLoc(), v.getType(),
                            op.getResult(tape->position), row);
    } else {
      // The host's accumulator still holds the row: this step writes it
      // last (findTapeHost).
      Value acc = hostAccumulator(tape->host);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      tapeSlice(b, row, tape->block, cast<RankedTensorType>(acc.getType()),
                offsets, sizes, strides, tape->offset);
      read = tensor::ExtractSliceOp::create(b, v.getLoc(), tape->block, acc,
                                            offsets, sizes, strides);
      if (read.getType() != v.getType())
        read = ReshapeOp::create(b, v.getLoc(), v.getType(), read);
    }
    v.replaceAllUsesWith(read);
    if (tape->store)
      readResidualStores.insert(tape->store);
    markNestedReads(recomputed[tape->op], info.forwardOps[tape->op]);
  }
}

/// The reverse sweep of a loop nested in a taped loop's body reads the
/// residual tapes of the nested loop that the reverse step recomputed; with
/// those results read from the outer tape instead, it reads what the
/// forward copy of that loop stored: those stores are read too.
void Differentiator::markNestedReads(Operation *recomputed,
                                     Operation *forward) {
  auto r = loops.find(recomputed), f = loops.find(forward);
  if (r == loops.end() || f == loops.end())
    return;
  const auto &rTapes = r->second.residualTapes;
  const auto &fTapes = f->second.residualTapes;
  if (rTapes.size() != fTapes.size())
    return;
  for (auto [rt, ft] : llvm::zip(rTapes, fTapes))
    if (rt.store && readResidualStores.contains(rt.store))
      readResidualStores.insert(ft.store);
  for (auto [rop, fop] :
       llvm::zip(r->second.forwardOps, f->second.forwardOps))
    markNestedReads(rop, fop);
}

void Differentiator::pruneResidualTapes(func::FuncOp fn) {
  // Outer loops first: dropping an outer tape can leave an inner loop's
  // tape unread.
  SmallVector<scf::ForOp> forward;
  fn.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
    auto it = loops.find(loop);
    if (it != loops.end() && !it->second.residualTapes.empty())
      forward.push_back(loop);
  });
  for (scf::ForOp loop : forward) {
    LoopInfo info = loops[loop];
    loops.erase(loop);
    // A store that no step read goes; then a tape with no reader.
    for (const LoopInfo::ResidualTape &tape : info.residualTapes) {
      if (tape.shifted || readResidualStores.contains(tape.store))
        continue;
      Value stored = tape.store->getResult(0);
      stored.replaceAllUsesWith(tape.store->getOperand(1));
      tape.store->erase();
    }
    llvm::BitVector keep(loop.getNumResults(), true);
    Block *body = loop.getBody();
    for (unsigned k = info.numCarried; k < loop.getNumResults(); ++k) {
      // What it yields is what it was given: a host that holds no residual
      // any more, or a tape that nothing reads.
      BlockArgument arg = loop.getRegionIterArgs()[k];
      if (body->getTerminator()->getOperand(k) != arg || !arg.hasOneUse())
        continue;
      loop.getResult(k).replaceAllUsesWith(loop.getInitArgs()[k]);
      keep.reset(k);
    }
    if (!keep.all())
      rebuildLoop(b, loop, keep, ValueRange());
  }
}
