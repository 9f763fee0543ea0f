//===- SplitLongReductions.cpp - long reductions on many GPU threads ------===//
//
// tad-loops-to-gpu runs a loop nest as one thread per iteration of its
// parallel loops: a reduction's sequential loop stays in one thread. A
// full sum of 2^24 floats, split into 8 lanes by tad-split-reductions for
// the CPU's vectors, then runs on 8 threads, each adding 2^21 elements one
// after another. Here such a loop is cut into chunks: each chunk of each
// iteration is a thread of its own, which combines its elements (every
// chunks-th, so that neighbouring threads load neighbouring elements) in
// order into a partial result; then a block of threads per iteration
// combines its partial results as a tree in shared memory, and its first
// thread combines the tree's result into the accumulator. So the order of
// the operations is fixed by the loop bounds alone, and every run gives
// the same bits; a float sum's differ from the CPU's, which adds every
// element into the accumulator in turn (a maximum's do not).
//
// The partial results live in a buffer that the buffer plan does not know
// (this runs after it): it is allocated as runtime scratch
// (tad_rt_mark_scratch, then the allocation), which the runtime counts
// apart from the plan's buffers, so the device peak stays the plan's.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"
#include "tad/Conversion/RuntimeFunctions.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tad {
#define GEN_PASS_DEF_SPLITLONGREDUCTIONS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// A loop shorter than this stays whole: a thread adds at least
/// kChunkTrips elements, and a loop is cut into two chunks at least.
constexpr int64_t kChunkTrips = 256;
constexpr int64_t kMinTrips = 4 * kChunkTrips;
/// The threads a cut loop aims at (its parallel iterations times its
/// chunks): enough to keep a GPU's memory busy.
constexpr int64_t kTargetThreads = 65536;
/// The elements a thread loads at once in its chunk before it combines
/// them (in order): one load at a time, each waiting for the memory, keeps
/// too few bytes in flight to stream the input.
constexpr int64_t kUnroll = 8;
/// The most threads of a block that combines partial results as a tree.
constexpr int64_t kTreeThreads = 256;

/// A reduction loop: `for j in [0, trips) { acc[idx] = op(value, acc[idx])
/// }` (or `op(acc[idx], value)`), where `op` is a commutative arith op with
/// a neutral element (a sum, a maximum, ...), `value` is computed from
/// loads of other buffers and arithmetic, and `idx` does not depend on `j`.
struct SumLoop {
  scf::ForOp loop;
  int64_t trips;
  memref::LoadOp accLoad;
  Operation *combine;
  TypedAttr neutral;
  memref::StoreOp accStore;
};

/// The operand of `sum.combine` that is not the accumulator.
Value valueOf(SumLoop sum) {
  Value lhs = sum.combine->getOperand(0);
  return lhs == sum.accLoad.getResult() ? sum.combine->getOperand(1) : lhs;
}

/// The trips of a loop from 0 by 1 to a constant, without results.
std::optional<int64_t> tripsOf(scf::ForOp loop) {
  auto lower = getConstantIntValue(loop.getLowerBound());
  auto upper = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *lower != 0 || *step != 1 ||
      loop.getNumResults() != 0)
    return std::nullopt;
  return *upper;
}

/// The body of a reduction loop (`body`, innermost in the nest of `outer`,
/// perhaps `outer` itself): its accumulator's element is the same in every
/// iteration of the nest.
std::optional<SumLoop> matchSumBody(scf::ForOp outer, Block *body,
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

std::optional<SumLoop> matchSumLoop(scf::ForOp loop, AliasAnalysis &alias) {
  std::optional<int64_t> trips = tripsOf(loop);
  if (!trips || *trips < kMinTrips)
    return std::nullopt;
  std::optional<SumLoop> sum = matchSumBody(loop, loop.getBody(), alias);
  if (sum)
    sum->trips = *trips;
  return sum;
}

/// A reduction over several dimensions is a perfect nest of loops (a bias's
/// gradient sums over [B, T]: 32 x 256 trips, each loop short). Where the
/// nest is long and its innermost body a reduction, it becomes one loop
/// over the nest's iterations in the same order (the indices recovered by
/// division), which the cut below then takes.
void coalesceSumNest(scf::ForOp outer, AliasAnalysis &alias) {
  SmallVector<scf::ForOp> nest = {outer};
  SmallVector<int64_t> trips;
  while (true) {
    std::optional<int64_t> t = tripsOf(nest.back());
    if (!t)
      return;
    trips.push_back(*t);
    Block *body = nest.back().getBody();
    auto inner = dyn_cast<scf::ForOp>(body->front());
    if (!inner || inner->getNextNode() != body->getTerminator())
      break;
    nest.push_back(inner);
  }
  int64_t total = 1;
  for (int64_t t : trips)
    total *= t;
  if (nest.size() < 2 || total < kMinTrips ||
      !matchSumBody(outer, nest.back().getBody(), alias))
    return;
  OpBuilder b(outer);
  Location loc = outer.getLoc();
  // Constants before the enclosing parallel loop, whose body stays the loop
  // alone (enclosingParallel).
  Operation *top = outer->getParentOp();
  OpBuilder constants(isa<scf::ParallelOp>(top) ? top : outer.getOperation());
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(constants, loc, v).getResult();
  };
  auto loop =
      scf::ForOp::create(b, loc, constant(0), constant(total), constant(1));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  IRMapping map;
  Value rest = loop.getInductionVar();
  for (int64_t d = nest.size() - 1; d > 0; --d) {
    Value size = constant(trips[d]);
    map.map(nest[d].getInductionVar(),
            arith::RemUIOp::create(b, loc, rest, size));
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  map.map(outer.getInductionVar(), rest);
  for (Operation &op : nest.back().getBody()->without_terminator())
    b.clone(op, map);
  outer.erase();
}

/// The loop's place in its nest: a top-level `scf.parallel` (constant
/// bounds from 0, step 1) that holds only this loop, or none where the
/// loop is a function's own statement; fails elsewhere.
FailureOr<scf::ParallelOp> enclosingParallel(scf::ForOp loop) {
  Operation *parent = loop->getParentOp();
  if (isa<func::FuncOp>(parent))
    return scf::ParallelOp();
  auto parallel = dyn_cast<scf::ParallelOp>(parent);
  if (!parallel || !isa<func::FuncOp>(parallel->getParentOp()) ||
      parallel.getNumResults() != 0 ||
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

/// The value that `sum` combines in the iteration that `map` maps its
/// induction variable to: its body cloned at `b`, but for the accumulator.
Value elementOf(OpBuilder &b, SumLoop sum, IRMapping &map) {
  for (Operation &op : sum.loop.getBody()->without_terminator())
    if (&op != sum.accLoad && &op != sum.combine && &op != sum.accStore)
      b.clone(op, map);
  return map.lookupOrDefault(valueOf(sum));
}

/// `sum`'s combining op cloned at `b` with `acc` as its accumulator and
/// `value` as the other operand, in their order in the loop.
Value combineInto(OpBuilder &b, SumLoop sum, Value acc, Value value) {
  IRMapping map;
  map.map(sum.accLoad.getResult(), acc);
  map.map(valueOf(sum), value);
  return b.clone(*sum.combine, map)->getResult(0);
}

/// Into how many chunks `sum` is cut, in `parallel` (or alone); fewer than
/// 2 where its parallel iterations are enough threads already.
int64_t chunksOf(const SumLoop &sum, scf::ParallelOp parallel) {
  int64_t iterations = 1;
  if (parallel)
    for (Value upper : parallel.getUpperBound())
      iterations *= *getConstantIntValue(upper);
  return std::min(sum.trips / kChunkTrips,
                  kTargetThreads / std::max<int64_t>(1, iterations));
}

/// Combines each parallel iteration's `chunks` partial results (`partials`,
/// the chunk first) into its accumulator, as a tree: a block of threads
/// per iteration (a GPU's grid numbers them along x, up to 2^31 - 1).
/// Thread t of a block of P combines the partial results t, t + P, ... in
/// order from the neutral element into shared memory; then, for s = P/2,
/// P/4, ..., 1, thread t < s combines its element with that of t + s, a
/// barrier between steps; thread 0 then combines the block's result into
/// the accumulator. One launch, where a loop over the partial results per
/// thread was one thread per iteration (and cut again while long); the
/// order of the operations depends on P and the chunks alone.
void combineByTree(OpBuilder &b, SumLoop sum, scf::ParallelOp parallel,
                   ArrayRef<int64_t> shape, Value partials, int64_t chunks) {
  Location loc = sum.loop.getLoc();
  int64_t threads = std::min<int64_t>(kTreeThreads, llvm::PowerOf2Ceil(chunks));
  int64_t blocks = 1;
  for (int64_t extent : shape)
    blocks *= extent;
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Type element = sum.combine->getResult(0).getType();
  auto workgroup = gpu::AddressSpaceAttr::get(
      b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  auto sharedType = MemRefType::get({threads}, element,
                                    MemRefLayoutAttrInterface(), workgroup);
  Value one = constant(1);
  auto launch = gpu::LaunchOp::create(
      b, loc, constant(blocks), one, one, constant(threads), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{},
      /*workgroupAttributions=*/TypeRange{sharedType});
  OpBuilder::InsertionGuard guard(b);
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  Value shared = launch.getWorkgroupAttributions()[0];
  Value thread = launch.getThreadIds().x;
  // The block's parallel iteration, the last index varying fastest.
  SmallVector<Value> ivs(shape.size());
  Value rest = launch.getBlockIds().x;
  for (int64_t d = shape.size() - 1; d > 0; --d) {
    Value extent = constant(shape[d]);
    ivs[d] = arith::RemUIOp::create(b, loc, rest, extent);
    rest = arith::DivUIOp::create(b, loc, rest, extent);
  }
  if (!shape.empty())
    ivs[0] = rest;
  Value identity = arith::ConstantOp::create(b, loc, sum.neutral);
  auto strided = scf::ForOp::create(b, loc, thread, constant(chunks),
                                    constant(threads), ValueRange{identity});
  {
    OpBuilder::InsertionGuard inside(b);
    b.setInsertionPointToStart(strided.getBody());
    SmallVector<Value> at{strided.getInductionVar()};
    at.append(ivs);
    Value partial = memref::LoadOp::create(b, loc, partials, at);
    scf::YieldOp::create(
        b, loc, combineInto(b, sum, strided.getRegionIterArgs()[0], partial));
  }
  memref::StoreOp::create(b, loc, strided.getResult(0), shared, thread);
  auto below = [&](int64_t bound) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, thread,
                                 constant(bound));
  };
  for (int64_t half = threads / 2; half >= 1; half /= 2) {
    // Every thread's element is in shared memory before any is read.
    gpu::BarrierOp::create(b, loc);
    Value partner = arith::AddIOp::create(b, loc, thread, constant(half));
    auto step =
        scf::IfOp::create(b, loc, below(half), /*withElseRegion=*/false);
    OpBuilder inner = step.getThenBodyBuilder();
    Value mine = memref::LoadOp::create(inner, loc, shared, thread);
    Value other = memref::LoadOp::create(inner, loc, shared, partner);
    memref::StoreOp::create(inner, loc, combineInto(inner, sum, mine, other),
                            shared, thread);
  }
  // Thread 0 wrote the block's result itself: no barrier before it reads it.
  Value first = constant(0);
  auto last = scf::IfOp::create(b, loc, below(1), /*withElseRegion=*/false);
  OpBuilder inner = last.getThenBodyBuilder();
  IRMapping map;
  if (parallel)
    map.map(parallel.getInductionVars(), ivs);
  map.map(valueOf(sum),
          memref::LoadOp::create(inner, loc, shared, first).getResult());
  inner.clone(*sum.accLoad, map);
  Value combined = inner.clone(*sum.combine, map)->getResult(0);
  memref::StoreOp::create(
      inner, loc, combined, sum.accStore.getMemRef(),
      llvm::map_to_vector(sum.accStore.getIndices(),
                          [&](Value v) { return map.lookupOrDefault(v); }));
}

/// Cuts `sum` (in `parallel`, or alone) into `chunks`: a loop nest with an
/// iteration per chunk of each parallel iteration, into partial results,
/// then their tree (combineByTree).
void cut(SumLoop sum, scf::ParallelOp parallel, int64_t chunks,
         func::FuncOp mark) {
  Operation *nest = parallel ? parallel.getOperation() : sum.loop;
  Location loc = sum.loop.getLoc();
  OpBuilder b(nest);
  SmallVector<int64_t> shape;
  if (parallel)
    for (Value upper : parallel.getUpperBound())
      shape.push_back(*getConstantIntValue(upper));
  Type element = sum.combine->getResult(0).getType();
  // The chunk is the outermost index: a warp's threads are neighbouring
  // iterations of the innermost, whose loads are neighbours too.
  SmallVector<int64_t> partialShape{chunks};
  partialShape.append(shape);
  auto partialType = MemRefType::get(partialShape, element);
  func::CallOp::create(b, loc, mark, ValueRange());
  Value partials = memref::AllocOp::create(b, loc, partialType);

  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = constant(0), one = constant(1);
  SmallVector<Value> lowers(partialShape.size(), zero);
  SmallVector<Value> steps(partialShape.size(), one);
  SmallVector<Value> uppers;
  for (int64_t extent : partialShape)
    uppers.push_back(constant(extent));

  // Each chunk of each iteration: its elements in order, from the op's
  // neutral element (-0.0 for a sum, which keeps a sum of negative zeros
  // negative). Chunk c takes the trips c, c + chunks, c + 2 chunks, ...:
  // at each step the threads of neighbouring chunks load neighbouring
  // elements (where the loop's trips are the outer index of what it reads,
  // as in a lane's sum), so that a warp's loads coalesce.
  Value identity = arith::ConstantOp::create(b, loc, sum.neutral);
  auto chunked = scf::ParallelOp::create(b, loc, lowers, uppers, steps);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(chunked.getBody());
    // (A copy: scf.parallel's induction variables come as a vector.)
    SmallVector<Value> ivs = chunked.getInductionVars();
    Value chunk = ivs[0];
    // The chunk's trips: ceil((trips - chunk) / chunks).
    Value count = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, constant(sum.trips + chunks - 1), chunk),
        constant(chunks));
    auto tripAt = [&](OpBuilder &nb, Value step) -> Value {
      return arith::AddIOp::create(
          nb, loc, chunk,
          arith::MulIOp::create(nb, loc, step, constant(chunks)));
    };
    IRMapping outer;
    if (parallel)
      outer.map(parallel.getInductionVars(), ArrayRef<Value>(ivs).drop_front());
    // The chunk's elements kUnroll at a time, then the rest one by one:
    // each combined in turn, as the loop combined them.
    Value unrolledEnd = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, count, constant(kUnroll)),
        constant(kUnroll));
    auto unrolled = scf::ForOp::create(b, loc, zero, unrolledEnd,
                                       constant(kUnroll), ValueRange{identity});
    {
      OpBuilder::InsertionGuard inside(b);
      b.setInsertionPointToStart(unrolled.getBody());
      SmallVector<Value> values;
      for (int64_t u = 0; u < kUnroll; ++u) {
        IRMapping map = outer;
        map.map(
            sum.loop.getInductionVar(),
            tripAt(b, arith::AddIOp::create(b, loc, unrolled.getInductionVar(),
                                            constant(u))));
        values.push_back(elementOf(b, sum, map));
      }
      Value acc = unrolled.getRegionIterArgs()[0];
      for (Value value : values)
        acc = combineInto(b, sum, acc, value);
      scf::YieldOp::create(b, loc, acc);
    }
    auto rest = scf::ForOp::create(b, loc, unrolledEnd, count, one,
                                   unrolled.getResults());
    {
      OpBuilder::InsertionGuard inside(b);
      b.setInsertionPointToStart(rest.getBody());
      IRMapping map = outer;
      map.map(sum.loop.getInductionVar(), tripAt(b, rest.getInductionVar()));
      Value value = elementOf(b, sum, map);
      scf::YieldOp::create(
          b, loc, combineInto(b, sum, rest.getRegionIterArgs()[0], value));
    }
    memref::StoreOp::create(b, loc, rest.getResult(0), partials, ivs);
  }
  combineByTree(b, sum, parallel, shape, partials, chunks);
  memref::DeallocOp::create(b, loc, partials);
  nest->erase();
}

struct SplitLongReductions
    : tad::impl::SplitLongReductionsBase<SplitLongReductions> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    AliasAnalysis &alias = getAnalysis<AliasAnalysis>();
    auto collect = [&] {
      SmallVector<scf::ForOp> loops;
      module.walk([&](func::FuncOp func) {
        if (!func.isDeclaration())
          func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      });
      return loops;
    };
    // Nests first: their loops become one, which is then cut as a loop.
    for (scf::ForOp loop : collect())
      if (succeeded(enclosingParallel(loop)))
        coalesceSumNest(loop, alias);
    SmallVector<scf::ForOp> loops = collect();
    func::FuncOp mark;
    for (scf::ForOp loop : loops) {
      std::optional<SumLoop> sum = matchSumLoop(loop, alias);
      if (!sum)
        continue;
      FailureOr<scf::ParallelOp> parallel = enclosingParallel(loop);
      if (failed(parallel))
        continue;
      int64_t chunks = chunksOf(*sum, *parallel);
      if (chunks < 2)
        continue;
      if (!mark)
        mark = tad::getOrDeclareRuntimeFunction(
            module, "tad_rt_mark_scratch",
            FunctionType::get(&getContext(), {}, {}));
      cut(*sum, *parallel, chunks, mark);
    }
  }
};

} // namespace
