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
// combines its partial results as a tree, in shared memory and then by a
// warp's shuffles, and its first thread combines the tree's result into
// the accumulator (or into the value of its fill, which then launches
// nothing: ReductionLoops.h's findFill), and runs for its output the loop
// over the outputs after the reduction (its conversion to f32: findTail),
// which then launches nothing either. So the order of
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

#include "tad/Conversion/BufferBytes.h"
#include "tad/Conversion/Passes.h"
#include "tad/Conversion/RuntimeFunctions.h"

#include "ReductionLoops.h"

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
using namespace tad;

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
  // Every constant before the loop: made later, they would follow it (both
  // builders insert before `outer`), and the loop would use them before
  // their definitions.
  SmallVector<Value> sizes(nest.size());
  for (int64_t d = nest.size() - 1; d > 0; --d)
    sizes[d] = constant(trips[d]);
  auto loop =
      scf::ForOp::create(b, loc, constant(0), constant(total), constant(1));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  IRMapping map;
  Value rest = loop.getInductionVar();
  for (int64_t d = nest.size() - 1; d > 0; --d) {
    Value size = sizes[d];
    map.map(nest[d].getInductionVar(),
            arith::RemUIOp::create(b, loc, rest, size));
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  map.map(outer.getInductionVar(), rest);
  for (Operation &op : nest.back().getBody()->without_terminator())
    b.clone(op, map);
  outer.erase();
}

/// Into how many chunks `sum` is cut, in `parallel` (or alone); fewer than
/// 2 where its parallel iterations are enough threads already.
int64_t chunksOf(SumLoop sum, scf::ParallelOp parallel) {
  int64_t iterations = 1;
  for (int64_t extent : extentsOf(parallel))
    iterations *= extent;
  return std::min(sum.trips / kChunkTrips,
                  kTargetThreads / std::max<int64_t>(1, iterations));
}

/// The loop over the same outputs right after `sum`'s nest, past
/// allocations and constants: the conversion of an f64 sum to its f32
/// result, a mean's division. It reads the accumulator at its own indices
/// only, writes only buffers allocated on the way, at its own indices, and
/// has no other effect: the thread that finishes an output runs its
/// iteration for that output, in the tree's launch, and its own launch is
/// gone. The allocations move before the nest: nothing is freed on the way,
/// so the block's peak is the same.
struct AccumulatorTail {
  scf::ParallelOp loop;
  SmallVector<Operation *> hoisted;
};

AccumulatorTail findTail(SumLoop sum, scf::ParallelOp parallel) {
  // An allocation of the function: no other buffer it did not view may be
  // the same memory (an argument may).
  Value acc = sum.accStore.getMemRef();
  if (!parallel || !acc.getDefiningOp<memref::AllocOp>() ||
      !llvm::equal(sum.accStore.getIndices(), parallel.getInductionVars()))
    return {};
  SmallVector<Operation *> hoisted;
  llvm::SmallPtrSet<Value, 4> fresh;
  Operation *op = parallel->getNextNode();
  for (; op; op = op->getNextNode()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op);
        alloc && alloc.getType().hasStaticShape()) {
      fresh.insert(alloc);
    } else if (!op->hasTrait<OpTrait::ConstantLike>()) {
      break;
    }
    hoisted.push_back(op);
  }
  auto tail = dyn_cast_or_null<scf::ParallelOp>(op);
  if (!tail || !sameOutputs(tail, parallel))
    return {};
  ValueRange ivs = tail.getInductionVars();
  WalkResult walk = tail.getBody()->walk([&](Operation *inner) {
    if (auto load = dyn_cast<memref::LoadOp>(inner)) {
      // Other outputs' sums may not be finished: the accumulator is read
      // at the tail's own indices only, and not through a view.
      if (getViewedBuffer(load.getMemRef()) == acc &&
          (load.getMemRef() != acc || !llvm::equal(load.getIndices(), ivs)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (auto store = dyn_cast<memref::StoreOp>(inner))
      return fresh.contains(store.getMemRef()) &&
                     llvm::equal(store.getIndices(), ivs)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    return isMemoryEffectFree(inner) ? WalkResult::advance()
                                     : WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return {};
  return {tail, std::move(hoisted)};
}

/// Runs `tail`'s iteration at `ivs` at `b`.
void runTail(OpBuilder &b, scf::ParallelOp tail, ValueRange ivs) {
  IRMapping map;
  map.map(tail.getInductionVars(), ivs);
  for (Operation &op : tail.getBody()->without_terminator())
    b.clone(op, map);
}

/// Combines each parallel iteration's `chunks` partial results (`partials`,
/// the chunk first) into its accumulator, as a tree: a block of threads
/// per iteration (a GPU's grid numbers them along x, up to 2^31 - 1).
/// Thread t of a block of P combines the partial results t, t + P, ... in
/// order from the neutral element; then, for s = P/2, P/4, ..., 32, thread
/// t < s combines its value with that of t + s in shared memory, a barrier
/// between steps, and the first warp goes on from s = 16 with shuffles
/// (combineAcrossWarp: the same pairs, without barriers); thread 0 then
/// combines the block's result into the accumulator (or into the value of
/// the fill it took over). One launch, where a loop over the partial
/// results per thread was one thread per iteration (and cut again while
/// long); the order of the operations depends on P and the chunks alone.
void combineByTree(OpBuilder &b, SumLoop sum, scf::ParallelOp parallel,
                   const AccumulatorFill &fill, const AccumulatorTail &tail,
                   Value partials, int64_t chunks) {
  Location loc = sum.loop.getLoc();
  SmallVector<int64_t> shape = extentsOf(parallel);
  int64_t threads = std::min<int64_t>(kTreeThreads, llvm::PowerOf2Ceil(chunks));
  int64_t blocks = 1;
  for (int64_t extent : shape)
    blocks *= extent;
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Shared memory only for the steps above a warp.
  SmallVector<Type> workgroup;
  if (threads > kWarpSize)
    workgroup.push_back(MemRefType::get(
        {threads}, sum.combine->getResult(0).getType(),
        MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(
            b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace())));
  OpBuilder::InsertionGuard guard(b);
  gpu::LaunchOp launch = launchLinear(b, loc, blocks, threads, workgroup);
  Value thread = launch.getThreadIds().x;
  SmallVector<Value> ivs = delinearize(b, loc, launch.getBlockIds().x, shape);
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
  Value value = strided.getResult(0);
  auto below = [&](int64_t bound) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, thread,
                                 constant(bound));
  };
  if (threads > kWarpSize) {
    Value shared = launch.getWorkgroupAttributions()[0];
    memref::StoreOp::create(b, loc, value, shared, thread);
    for (int64_t half = threads / 2; half >= kWarpSize; half /= 2) {
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
    gpu::BarrierOp::create(b, loc);
    value = memref::LoadOp::create(b, loc, shared, thread);
  }
  // Every warp shuffles (uniformly, as the emulator requires); the first
  // one's lanes hold the first 32 values.
  value = combineAcrossWarp(b, loc, sum, value,
                            std::min<int64_t>(threads, kWarpSize));
  auto last = scf::IfOp::create(b, loc, below(1), /*withElseRegion=*/false);
  OpBuilder inner = last.getThenBodyBuilder();
  finishOutput(inner, sum, parallel, ivs, fill, value);
  if (tail.loop)
    runTail(inner, tail.loop, ivs);
}

/// Cuts `sum` (in `parallel`, or alone) into `chunks`: a loop nest with an
/// iteration per chunk of each parallel iteration, into partial results,
/// then their tree (combineByTree), which takes over the accumulator's
/// fill where there is one.
void cut(SumLoop sum, scf::ParallelOp parallel, int64_t chunks,
         func::FuncOp mark) {
  Operation *nest = parallel ? parallel.getOperation() : sum.loop;
  Location loc = sum.loop.getLoc();
  AccumulatorFill fill = findFill(sum, parallel);
  AccumulatorTail tail = findTail(sum, parallel);
  for (Operation *op : tail.hoisted)
    op->moveBefore(nest);
  OpBuilder b(nest);
  SmallVector<int64_t> shape = extentsOf(parallel);
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
  combineByTree(b, sum, parallel, fill, tail, partials, chunks);
  memref::DeallocOp::create(b, loc, partials);
  nest->erase();
  if (fill.op)
    fill.op->erase();
  if (tail.loop)
    tail.loop->erase();
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
      std::optional<SumLoop> sum = matchSumLoop(loop, kMinTrips, alias);
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
            module, tad::kMarkScratchFunction,
            FunctionType::get(&getContext(), {}, {}));
      cut(*sum, *parallel, chunks, mark);
    }
  }
};

} // namespace
