//===- WarpRowReductions.cpp - a warp per row of a row reduction ----------===//
//
// tad-loops-to-gpu runs a reduction as one thread per output, which loops
// over the output's row alone: a softmax's row maximum over 256 scores is
// 65,536 threads (a GPT's attention at batch 32) each reading a row of its
// own, so that the 32 loads of a warp fall in 32 rows, 32 memory
// transactions where one would do, and short rows over few outputs leave
// most of a GPU idle. Here a reduction along rows is a warp per row
// instead (as PyTorch's softmax kernels do for rows of up to 1024): lane l
// combines the row's elements l, l + 32, ... in order from the neutral
// element, so that a warp's loads are 32 neighbours, and the lanes combine
// their values with shuffles (combineAcrossWarp); the first lane combines
// the result into the accumulator. A row of 256 is then 8 loads a lane.
// The loops that follow and use the rows' results run in the same kernel:
// those over the outputs in the first lane, and the one over the rows'
// elements (a softmax's exponentials) in every lane after a barrier.
//
// Long reductions over few outputs are tad-split-long-reductions', which
// runs first. Reductions whose neighbouring trips do not read neighbouring
// elements (a column's sum, or a lane of tad-split-reductions' sums) stay
// as they are: there neighbouring outputs, neighbouring threads, read
// neighbours already.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "ReductionLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tad {
#define GEN_PASS_DEF_WARPROWREDUCTIONS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;
using namespace tad;

namespace {

/// A block's warps, each a row.
constexpr int64_t kRowsPerBlock = 8;
/// Shorter rows stay one thread's loop: a lane would combine one element.
constexpr int64_t kMinTrips = 2 * kWarpSize;

/// Whether `sum` reduces one row, whose neighbouring trips read
/// neighbouring elements: one load of the body depends on the loop's index,
/// which is its last index, into a buffer whose last stride is 1 (other
/// loads are the same in every trip: a row's maximum that a softmax's sum
/// subtracts). A dot product of two rows is a matmul's loop, whose kernels
/// are tad-tile-gpu-matmuls' (or cuBLAS's): left one thread per output, it
/// keeps the CPU's order of additions.
bool readsAlongRow(SumLoop sum) {
  Value iv = sum.loop.getInductionVar();
  Block *body = sum.loop.getBody();
  auto dependsOnTrip = [&](Value v) {
    return v == iv || (v.getParentBlock() == body && !isa<BlockArgument>(v));
  };
  bool along = false;
  for (Operation &op : body->without_terminator()) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load || load == sum.accLoad)
      continue;
    ValueRange indices = load.getIndices();
    if (indices.empty())
      continue;
    if (!llvm::any_of(indices, dependsOnTrip))
      continue;
    if (along || indices.back() != iv ||
        llvm::any_of(indices.drop_back(), dependsOnTrip))
      return false;
    auto type = cast<MemRefType>(load.getMemRef().getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return false;
    along = true;
  }
  return along;
}

/// Whether the shuffles take `sum`'s values: 32 or 64 bits, an integer or
/// a float (bf16 and f16 are computed in f32 later).
bool shuffleable(SumLoop sum) {
  Type type = sum.combine->getResult(0).getType();
  return (type.isF32() || type.isF64() || type.isInteger(32) ||
          type.isInteger(64));
}

/// The first operation from `op` on that is not an allocation of a static
/// shape; those before it are appended to `allocations`.
Operation *pastAllocations(Operation *op,
                           SmallVector<memref::AllocOp> &allocations) {
  for (; op && isa<memref::AllocOp>(op) && op->getNumOperands() == 0;
       op = op->getNextNode())
    allocations.push_back(cast<memref::AllocOp>(op));
  return op;
}

/// What a warp kernel runs after its rows' results: the loops over the
/// same outputs (its first lanes), then the loop over the rows' elements
/// (every lane, rowLoopOf) with the allocations before it, which move
/// before the launch.
struct Tails {
  SmallVector<scf::ParallelOp> outputs;
  SmallVector<memref::AllocOp> allocations;
  scf::ParallelOp row;
};

/// Whether `loop`'s body is loads, stores and pure ops without regions.
bool isSimple(scf::ParallelOp loop) {
  return llvm::all_of(loop.getBody()->without_terminator(), [](Operation &op) {
    return isa<memref::LoadOp, memref::StoreOp>(op) ||
           (op.getNumRegions() == 0 && isPure(&op));
  });
}

/// The loop over the elements of the rows of `parallel`'s outputs at
/// `next`, past allocations (collected in `allocations`), that every lane
/// of a row's warp can run after the row's result and a barrier (a
/// softmax's exponentials: `exp(x - max)`): its loops are `parallel`'s and
/// one more, of a constant extent, from 0 by 1; its body is simple; it
/// stores at its own indices only, into buffers apart from what the
/// reduction reads and the kernel writes (`written`) or reads (`reads`);
/// it reads what the loop writes at its own indices, and what the kernel
/// writes at its own indices or its row's. Each lane then reads what it
/// wrote, or what the first lane wrote before the barrier. Moving the
/// allocations before the launch changes no allocation's order against
/// another's or a free's, so the peak stays the plan's.
scf::ParallelOp rowLoopOf(Operation *next, SumLoop sum,
                          scf::ParallelOp parallel, ArrayRef<Value> written,
                          ArrayRef<Value> reads, AliasAnalysis &alias,
                          SmallVector<memref::AllocOp> &allocations) {
  auto loop =
      dyn_cast_or_null<scf::ParallelOp>(pastAllocations(next, allocations));
  int64_t n = parallel.getNumLoops();
  if (!loop || loop.getNumResults() != 0 || loop.getNumLoops() != n + 1 ||
      !isSimple(loop))
    return {};
  for (auto [lower, step] : llvm::zip(loop.getLowerBound(), loop.getStep()))
    if (getConstantIntValue(lower) != 0 || getConstantIntValue(step) != 1)
      return {};
  for (int64_t d = 0; d <= n; ++d) {
    std::optional<int64_t> extent =
        getConstantIntValue(loop.getUpperBound()[d]);
    if (!extent ||
        (d < n && extent != getConstantIntValue(parallel.getUpperBound()[d])))
      return {};
  }
  SmallVector<Value> all = loop.getInductionVars();
  ArrayRef<Value> row = ArrayRef<Value>(all).drop_back();
  auto mayAlias = [&](Value buffer, ArrayRef<Value> others) {
    return llvm::any_of(
        others, [&](Value o) { return !alias.alias(buffer, o).isNo(); });
  };
  SmallVector<Value> stores, kernelReads(reads);
  for (auto load : sum.loop.getBody()->getOps<memref::LoadOp>())
    kernelReads.push_back(load.getMemRef());
  for (auto store : loop.getBody()->getOps<memref::StoreOp>()) {
    if (!llvm::equal(store.getIndices(), all) ||
        mayAlias(store.getMemRef(), written) ||
        mayAlias(store.getMemRef(), kernelReads))
      return {};
    stores.push_back(store.getMemRef());
  }
  for (auto load : loop.getBody()->getOps<memref::LoadOp>()) {
    ValueRange indices = load.getIndices();
    bool own = llvm::equal(indices, all);
    if ((mayAlias(load.getMemRef(), stores) && !own) ||
        (mayAlias(load.getMemRef(), written) && !own &&
         !llvm::equal(indices, row)))
      return {};
  }
  return loop;
}

/// The loops over the same outputs right after `parallel` that the first
/// lane of each row's warp can run after the row's result, in order (a
/// log-sum-exp's logarithm, a maximum's fix of empty rows, the fill of the
/// next reduction): loads, stores and pure ops without regions, each
/// access to a buffer that the reduction or these loops write (as far as
/// `alias` can tell) at the loop's own indices, also where an earlier loop
/// reads a buffer that a later one writes, and no buffer they write read
/// by the reduction. Each output's iteration then reads only what the same
/// thread wrote, or what no thread writes, as `tad-fuse-kernel-loops`
/// requires of the loops it joins. Then the loop over the rows' elements
/// after them (rowLoopOf), if any.
Tails tailsOf(SumLoop sum, scf::ParallelOp parallel, AliasAnalysis &alias) {
  Tails tails;
  SmallVector<scf::ParallelOp> &epilogues = tails.outputs;
  if (!parallel)
    return tails;
  SmallVector<Value> written = {sum.accStore.getMemRef()};
  // The loads of the loops taken, and whether each is at its loop's own
  // indices.
  SmallVector<std::pair<Value, bool>> reads;
  auto mayBeWritten = [&](Value buffer) {
    return llvm::any_of(
        written, [&](Value w) { return !alias.alias(buffer, w).isNo(); });
  };
  // Where the next loop is taken, the allocations before it move before
  // the launch (as rowLoopOf's do); the search resumes after it.
  Operation *next = parallel->getNextNode();
  for (Operation *at = next; at; at = at->getNextNode()) {
    SmallVector<memref::AllocOp> allocations;
    at = pastAllocations(at, allocations);
    auto loop = dyn_cast_or_null<scf::ParallelOp>(at);
    if (!loop || !sameOutputs(loop, parallel) || !isSimple(loop))
      break;
    SmallVector<Value> stores;
    for (auto store : loop.getBody()->getOps<memref::StoreOp>())
      stores.push_back(store.getMemRef());
    SmallVector<Value> before = written;
    written.append(stores);
    auto atOwnIndices = [&](ValueRange indices) {
      return llvm::equal(indices, loop.getInductionVars());
    };
    bool own =
        llvm::all_of(loop.getBody()->without_terminator(), [&](Operation &op) {
          if (auto store = dyn_cast<memref::StoreOp>(op))
            return atOwnIndices(store.getIndices());
          auto load = dyn_cast<memref::LoadOp>(op);
          return !load || !mayBeWritten(load.getMemRef()) ||
                 atOwnIndices(load.getIndices());
        });
    bool unread = llvm::all_of(stores, [&](Value buffer) {
      auto apart = [&](Value other) {
        return alias.alias(other, buffer).isNo();
      };
      return llvm::all_of(sum.loop.getBody()->getOps<memref::LoadOp>(),
                          [&](memref::LoadOp load) {
                            return load == sum.accLoad ||
                                   apart(load.getMemRef());
                          }) &&
             llvm::all_of(reads, [&](std::pair<Value, bool> read) {
               return read.second || apart(read.first);
             });
    });
    if (!own || !unread) {
      written = before;
      break;
    }
    for (auto load : loop.getBody()->getOps<memref::LoadOp>())
      reads.push_back({load.getMemRef(), atOwnIndices(load.getIndices())});
    epilogues.push_back(loop);
    tails.allocations.append(allocations);
    next = loop->getNextNode();
  }
  SmallVector<Value> readBuffers;
  for (auto [buffer, own] : reads)
    readBuffers.push_back(buffer);
  SmallVector<memref::AllocOp> rowAllocations;
  tails.row = rowLoopOf(next, sum, parallel, written, readBuffers, alias,
                        rowAllocations);
  if (tails.row)
    tails.allocations.append(rowAllocations);
  return tails;
}

/// Emits at `b` (in a warp kernel, after its rows' results) `loop`, the
/// loop over the rows' elements (rowLoopOf), for the row at `ivs`: all
/// threads wait at a barrier (the first lanes wrote the results), then,
/// where `valid`, lane l runs the elements l, l + 32, ... of the row.
void emitRowLoop(OpBuilder &b, Location loc, scf::ParallelOp loop,
                 ValueRange ivs, Value lane, Value valid) {
  gpu::BarrierOp::create(b, loc);
  OpBuilder::InsertionGuard guard(b);
  if (valid) {
    auto ifValid = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifValid.thenBlock());
  }
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t extent = *getConstantIntValue(loop.getUpperBound().back());
  auto strided = scf::ForOp::create(
      b, loc, constant(0), constant(llvm::divideCeil(extent, kWarpSize)),
      constant(1));
  b.setInsertionPointToStart(strided.getBody());
  Value column = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, strided.getInductionVar(),
                            constant(kWarpSize)),
      lane);
  if (extent % kWarpSize != 0) {
    auto inRow = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, column,
                              constant(extent)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(inRow.thenBlock());
  }
  SmallVector<Value> indices = loop.getInductionVars();
  IRMapping map;
  map.map(ArrayRef<Value>(indices).drop_back(), ivs);
  map.map(indices.back(), column);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
}

/// Replaces `sum` (in `parallel`, or alone) by a launch of a warp per
/// output, kRowsPerBlock outputs to a block. Warps past the last output
/// compute the last one's row again (every lane of a warp takes part in
/// its shuffles) and store nothing. The first lane of each row runs the
/// loops over the outputs after the row's result, and then every lane the
/// loop over the rows' elements (tailsOf).
void launchWarpPerRow(SumLoop sum, scf::ParallelOp parallel,
                      AliasAnalysis &alias) {
  Operation *nest = parallel ? parallel.getOperation() : sum.loop;
  Location loc = sum.loop.getLoc();
  SmallVector<int64_t> extents = extentsOf(parallel);
  int64_t rows = 1;
  for (int64_t extent : extents)
    rows *= extent;
  if (rows == 0)
    return; // launches nothing either way
  int64_t rowsPerBlock = std::min(rows, kRowsPerBlock);
  int64_t blocks = llvm::divideCeil(rows, rowsPerBlock);
  AccumulatorFill fill = findFill(sum, parallel);
  Tails tails = tailsOf(sum, parallel, alias);
  OpBuilder b(nest);
  for (memref::AllocOp allocation : tails.allocations)
    allocation->moveBefore(nest);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  OpBuilder::InsertionGuard guard(b);
  gpu::LaunchOp launch = launchLinear(b, loc, blocks, rowsPerBlock * kWarpSize);
  Value one = constant(1);
  Value thread = launch.getThreadIds().x;
  Value warpSize = constant(kWarpSize);
  Value lane = arith::RemUIOp::create(b, loc, thread, warpSize);
  Value row = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                            constant(rowsPerBlock)),
      arith::DivUIOp::create(b, loc, thread, warpSize));
  Value lastRow = constant(rows - 1);
  SmallVector<Value> ivs = delinearize(
      b, loc, arith::MinUIOp::create(b, loc, row, lastRow), extents);
  IRMapping outer;
  if (parallel)
    outer.map(parallel.getInductionVars(), ivs);

  // Lane l's trips l, l + 32, ...: a loop of a constant count, the last
  // step guarded where the row is not a multiple of 32 long.
  Value identity = arith::ConstantOp::create(b, loc, sum.neutral);
  int64_t steps = llvm::divideCeil(sum.trips, kWarpSize);
  auto strided = scf::ForOp::create(b, loc, constant(0), constant(steps), one,
                                    ValueRange{identity});
  {
    OpBuilder::InsertionGuard inside(b);
    b.setInsertionPointToStart(strided.getBody());
    Value acc = strided.getRegionIterArgs()[0];
    Value trip = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, strided.getInductionVar(), warpSize),
        lane);
    IRMapping map = outer;
    map.map(sum.loop.getInductionVar(), trip);
    if (sum.trips % kWarpSize == 0) {
      scf::YieldOp::create(b, loc,
                           combineInto(b, sum, acc, elementOf(b, sum, map)));
    } else {
      Value inRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          trip, constant(sum.trips));
      auto guarded = scf::IfOp::create(b, loc, acc.getType(), inRow,
                                       /*withElseRegion=*/true);
      OpBuilder then = guarded.getThenBodyBuilder();
      scf::YieldOp::create(
          then, loc, combineInto(then, sum, acc, elementOf(then, sum, map)));
      OpBuilder otherwise = guarded.getElseBodyBuilder();
      scf::YieldOp::create(otherwise, loc, acc);
      scf::YieldOp::create(b, loc, guarded.getResult(0));
    }
  }
  Value value = combineAcrossWarp(b, loc, sum, strided.getResult(0), kWarpSize);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      constant(0));
  Value valid;
  if (rows % rowsPerBlock != 0) {
    valid =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, row, lastRow);
    first = arith::AndIOp::create(b, loc, first, valid);
  }
  auto store = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder then = store.getThenBodyBuilder();
  finishOutput(then, sum, parallel, ivs, fill, value);
  for (scf::ParallelOp epilogue : tails.outputs) {
    IRMapping map;
    map.map(epilogue.getInductionVars(), ivs);
    for (Operation &op : epilogue.getBody()->without_terminator())
      then.clone(op, map);
    epilogue.erase();
  }
  if (tails.row) {
    emitRowLoop(b, loc, tails.row, ivs, lane, valid);
    tails.row.erase();
  }
  nest->erase();
  if (fill.op)
    fill.op->erase();
}

struct WarpRowReductions : tad::impl::WarpRowReductionsBase<WarpRowReductions> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    AliasAnalysis &alias = getAnalysis<AliasAnalysis>();
    SmallVector<scf::ForOp> loops;
    module.walk([&](func::FuncOp func) {
      if (!func.isDeclaration())
        func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    });
    for (scf::ForOp loop : loops) {
      std::optional<SumLoop> sum = matchSumLoop(loop, kMinTrips, alias);
      if (!sum || !shuffleable(*sum) || !readsAlongRow(*sum))
        continue;
      FailureOr<scf::ParallelOp> parallel = enclosingParallel(loop);
      if (succeeded(parallel))
        launchWarpPerRow(*sum, *parallel, alias);
    }
  }
};

} // namespace
