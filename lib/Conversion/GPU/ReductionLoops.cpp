//===- ReductionLoops.cpp - reduction loops that GPU threads share --------===//

#include "ReductionLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

Value tad::valueOf(SumLoop sum) {
  Value lhs = sum.combine->getOperand(0);
  return lhs == sum.accLoad.getResult() ? sum.combine->getOperand(1) : lhs;
}

std::optional<int64_t> tad::tripsOf(scf::ForOp loop) {
  auto lower = getConstantIntValue(loop.getLowerBound());
  auto upper = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *lower != 0 || *step != 1 ||
      loop.getNumResults() != 0)
    return std::nullopt;
  return *upper;
}

std::optional<tad::SumLoop> tad::matchSumBody(scf::ForOp outer, Block *body,
                                              AliasAnalysis &alias) {
  auto store = dyn_cast<memref::StoreOp>(body->getTerminator()->getPrevNode());
  if (!store)
    return std::nullopt;
  Operation *combine = store.getValueToStore().getDefiningOp();
  if (!combine || combine->getBlock() != body ||
      !isa<arith::ArithDialect>(combine->getDialect()) ||
      combine->getNumOperands() != 2 || !combine->hasOneUse() ||
      !combine->hasTrait<OpTrait::IsCommutative>())
    return std::nullopt;
  // A float sum's neutral element is -0.0 (x + -0.0 == x, also for
  // x = -0.0), where arith::getNeutralElement may give 0.0.
  std::optional<TypedAttr> neutral =
      isa<arith::AddFOp>(combine)
          ? FloatAttr::get(combine->getResult(0).getType(), -0.0)
          : arith::getNeutralElement(combine);
  if (!neutral)
    return std::nullopt;
  SumLoop sum{outer, 0, nullptr, combine, *neutral, store};
  for (Value operand : combine->getOperands()) {
    auto load = operand.getDefiningOp<memref::LoadOp>();
    if (load && load.getMemRef() == store.getMemRef() &&
        load.getIndices() == store.getIndices() && load->hasOneUse()) {
      sum.accLoad = load;
      break;
    }
  }
  if (!sum.accLoad || valueOf(sum) == sum.accLoad.getResult())
    return std::nullopt;
  // The accumulator's element is the same in every iteration.
  for (Value index : store.getIndices())
    if (!index.getParentRegion()->isProperAncestor(&outer.getRegion()))
      return std::nullopt;
  // Nothing else in the body writes memory or reads the accumulator's
  // buffer (through a view, say).
  Value acc = store.getMemRef();
  for (Operation &op : body->without_terminator()) {
    if (&op == store || &op == sum.accLoad)
      continue;
    auto load = dyn_cast<memref::LoadOp>(op);
    if (load ? !alias.alias(load.getMemRef(), acc).isNo() : !isPure(&op))
      return std::nullopt;
  }
  return sum;
}

std::optional<tad::SumLoop> tad::matchSumLoop(scf::ForOp loop, int64_t minTrips,
                                              AliasAnalysis &alias) {
  std::optional<int64_t> trips = tripsOf(loop);
  if (!trips || *trips < minTrips)
    return std::nullopt;
  std::optional<SumLoop> sum = matchSumBody(loop, loop.getBody(), alias);
  if (sum)
    sum->trips = *trips;
  return sum;
}

bool tad::onHost(Operation *op) {
  for (Operation *parent = op->getParentOp(); !isa<func::FuncOp>(parent);
       parent = parent->getParentOp()) {
    if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp>(parent))
      return false;
    bool host = parent
                    ->walk([](Operation *inner) {
                      return isa<memref::AllocOp, memref::DeallocOp,
                                 memref::CopyOp, func::CallOp>(inner)
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    })
                    .wasInterrupted();
    if (!host)
      return false;
  }
  return true;
}

FailureOr<scf::ParallelOp> tad::enclosingParallel(scf::ForOp loop) {
  Operation *parent = loop->getParentOp();
  if (!isa<scf::ParallelOp>(parent)) {
    if (!onHost(loop))
      return failure();
    return scf::ParallelOp();
  }
  auto parallel = cast<scf::ParallelOp>(parent);
  if (!onHost(parallel) || parallel.getNumResults() != 0 ||
      &parallel.getBody()->front() != loop.getOperation() ||
      loop->getNextNode() != parallel.getBody()->getTerminator())
    return failure();
  for (auto [lower, step] :
       llvm::zip(parallel.getLowerBound(), parallel.getStep()))
    if (getConstantIntValue(lower) != 0 || getConstantIntValue(step) != 1)
      return failure();
  for (Value upper : parallel.getUpperBound())
    if (!getConstantIntValue(upper))
      return failure();
  return parallel;
}

SmallVector<int64_t> tad::extentsOf(scf::ParallelOp parallel) {
  SmallVector<int64_t> extents;
  if (parallel)
    for (Value upper : parallel.getUpperBound())
      extents.push_back(*getConstantIntValue(upper));
  return extents;
}

bool tad::sameOutputs(scf::ParallelOp loop, scf::ParallelOp parallel) {
  if (loop.getNumResults() != 0 || loop.getNumLoops() != parallel.getNumLoops())
    return false;
  for (auto [lower, step] : llvm::zip(loop.getLowerBound(), loop.getStep()))
    if (getConstantIntValue(lower) != 0 || getConstantIntValue(step) != 1)
      return false;
  for (auto [a, b] : llvm::zip(loop.getUpperBound(), parallel.getUpperBound()))
    if (getConstantIntValue(a) != getConstantIntValue(b))
      return false;
  return true;
}

Value tad::elementOf(OpBuilder &b, SumLoop sum, IRMapping &map) {
  for (Operation &op : sum.loop.getBody()->without_terminator())
    if (&op != sum.accLoad && &op != sum.combine && &op != sum.accStore)
      b.clone(op, map);
  return map.lookupOrDefault(valueOf(sum));
}

Value tad::combineInto(OpBuilder &b, SumLoop sum, Value acc, Value value) {
  IRMapping map;
  map.map(sum.accLoad.getResult(), acc);
  map.map(valueOf(sum), value);
  return b.clone(*sum.combine, map)->getResult(0);
}

/// Whether `value` is defined outside `op` (so before it, where `op` is
/// right before the reduction: it is available there too).
static bool definedOutside(Value value, Operation *op) {
  return !op->isAncestor(value.getParentBlock()->getParentOp()) &&
         value.getParentRegion()->isAncestor(op->getParentRegion());
}

tad::AccumulatorFill tad::findFill(SumLoop sum, scf::ParallelOp parallel) {
  Value acc = sum.accStore.getMemRef();
  Operation *nest = parallel ? parallel.getOperation() : sum.loop;
  Operation *before = nest->getPrevNode();
  if (!before)
    return {};
  if (!parallel) {
    auto store = dyn_cast<memref::StoreOp>(before);
    if (store && store.getMemRef() == acc &&
        store.getIndices() == sum.accStore.getIndices())
      return {store, store.getValueToStore()};
    return {};
  }
  // Every output's element, and only those: the reduction stores at the
  // parallel indices in their order, and so does the fill.
  auto fill = dyn_cast<scf::ParallelOp>(before);
  if (!fill || !sameOutputs(fill, parallel) ||
      !llvm::equal(sum.accStore.getIndices(), parallel.getInductionVars()))
    return {};
  Block *body = fill.getBody();
  auto store = dyn_cast<memref::StoreOp>(body->front());
  if (!store || store->getNextNode() != body->getTerminator() ||
      store.getMemRef() != acc ||
      !llvm::equal(store.getIndices(), fill.getInductionVars()) ||
      !definedOutside(store.getValueToStore(), fill))
    return {};
  return {fill, store.getValueToStore()};
}

void tad::finishOutput(OpBuilder &b, SumLoop sum, scf::ParallelOp parallel,
                       ValueRange ivs, const AccumulatorFill &fill,
                       Value result) {
  IRMapping map;
  if (parallel)
    map.map(parallel.getInductionVars(), ivs);
  map.map(valueOf(sum), result);
  if (fill.op)
    map.map(sum.accLoad.getResult(), fill.value);
  else
    b.clone(*sum.accLoad, map);
  Value combined = b.clone(*sum.combine, map)->getResult(0);
  memref::StoreOp::create(
      b, sum.accStore.getLoc(), combined, sum.accStore.getMemRef(),
      llvm::map_to_vector(sum.accStore.getIndices(),
                          [&](Value v) { return map.lookupOrDefault(v); }));
}

SmallVector<Value> tad::delinearize(OpBuilder &b, Location loc, Value linear,
                                    ArrayRef<int64_t> extents) {
  SmallVector<Value> ivs(extents.size());
  Value rest = linear;
  for (int64_t d = extents.size() - 1; d > 0; --d) {
    Value extent = arith::ConstantIndexOp::create(b, loc, extents[d]);
    ivs[d] = arith::RemUIOp::create(b, loc, rest, extent);
    rest = arith::DivUIOp::create(b, loc, rest, extent);
  }
  if (!extents.empty())
    ivs[0] = rest;
  return ivs;
}

gpu::LaunchOp tad::launchLinear(OpBuilder &b, Location loc, int64_t blocks,
                                int64_t threads, TypeRange workgroup) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value one = constant(1);
  auto launch = gpu::LaunchOp::create(
      b, loc, constant(blocks), one, one, constant(threads), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, workgroup);
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  return launch;
}

Value tad::combineAcrossWarp(OpBuilder &b, Location loc, SumLoop sum,
                             Value value, int64_t width) {
  for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
    auto other = gpu::ShuffleOp::create(b, loc, value, int32_t(offset),
                                        int32_t(width), gpu::ShuffleMode::XOR);
    value = combineInto(b, sum, value, other.getShuffleResult());
  }
  return value;
}
