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
// The loops over the same rows before and after it run in the same kernel
// where each row's stay the row's (RowChains.h), stage by stage with a
// barrier between: those over the rows in the first lane, those over the
// rows' elements (a softmax's exponentials) in every lane, more
// reductions (a layer norm's mean and variance) as the first. A layer
// norm, or a softmax, is then one launch.
//
// Long reductions over few outputs are tad-split-long-reductions', which
// runs first. Reductions whose neighbouring trips do not read neighbouring
// elements (a column's sum, or a lane of tad-split-reductions' sums) stay
// as they are: there neighbouring outputs, neighbouring threads, read
// neighbours already.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "HostPeak.h"
#include "RowChains.h"

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

using Kind = RowStage::Kind;

/// The values of a warp's kernel that its stages use: the lane, the row's
/// indices (the last row's for warps past it), whether the row is one
/// (null where every warp's is) and whether the lane is the row's first.
struct WarpIds {
  Value lane, valid, first;
  SmallVector<Value> ivs;
};

/// Emits at `b` a reduction stage for the row at `ids`: lane l combines
/// trips l, l + 32, ... (a loop of a constant count, the last step guarded
/// where the row is not a multiple of 32 long), the lanes combine their
/// values with shuffles, and the first lane finishes the output.
void emitReduce(OpBuilder &b, Location loc, RowStage stage,
                const WarpIds &ids) {
  SumLoop sum = *stage.sum;
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value warpSize = constant(kWarpSize);
  IRMapping outer;
  if (stage.loop)
    outer.map(stage.loop.getInductionVars(), ids.ivs);
  Value identity = arith::ConstantOp::create(b, loc, sum.neutral);
  int64_t steps = llvm::divideCeil(sum.trips, kWarpSize);
  auto strided = scf::ForOp::create(b, loc, constant(0), constant(steps),
                                    constant(1), ValueRange{identity});
  {
    OpBuilder::InsertionGuard inside(b);
    b.setInsertionPointToStart(strided.getBody());
    Value acc = strided.getRegionIterArgs()[0];
    Value trip = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, strided.getInductionVar(), warpSize),
        ids.lane);
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
  auto store = scf::IfOp::create(b, loc, ids.first, /*withElseRegion=*/false);
  OpBuilder then = store.getThenBodyBuilder();
  finishOutput(then, sum, stage.loop, ids.ivs, stage.fill, value);
}

/// Emits at `b` a loop over the rows as the first lane of the row's warp
/// runs it.
void emitOutputs(OpBuilder &b, Location loc, scf::ParallelOp loop,
                 const WarpIds &ids) {
  auto first = scf::IfOp::create(b, loc, ids.first, /*withElseRegion=*/false);
  OpBuilder then = first.getThenBodyBuilder();
  IRMapping map;
  map.map(loop.getInductionVars(), ids.ivs);
  for (Operation &op : loop.getBody()->without_terminator())
    then.clone(op, map);
}

/// Emits at `b` a loop over the rows' elements: where the row is one, lane
/// l runs the elements l, l + 32, ... of the row.
void emitElements(OpBuilder &b, Location loc, scf::ParallelOp loop,
                  const WarpIds &ids) {
  OpBuilder::InsertionGuard guard(b);
  if (ids.valid) {
    auto ifValid =
        scf::IfOp::create(b, loc, ids.valid, /*withElseRegion=*/false);
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
      ids.lane);
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
  map.map(ArrayRef<Value>(indices).drop_back(), ids.ivs);
  map.map(indices.back(), column);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
}

/// Replaces `chain` by a launch of a warp per row, kRowsPerBlock rows to a
/// block, that runs its stages in order with a barrier between them. The
/// host operations between the stages move before the launch, the frees
/// after it. Warps past the last row compute the last one's reductions
/// again (every lane of a warp takes part in its shuffles) and store
/// nothing. The chain's own buffers are shared memory, a row per warp
/// (warps past the last row read the last row's).
void launchWarpPerRow(const RowChain &chain) {
  int64_t rows = 1;
  for (int64_t extent : chain.rows)
    rows *= extent;
  if (rows == 0)
    return; // launches nothing either way
  Operation *anchor = chain.stages.front().first();
  Location loc = chain.stages.front().last()->getLoc();
  // The block's planned peak, before this chain changes its order.
  (void)planPeakOf(anchor->getBlock());
  for (Operation *op : chain.before)
    op->moveBefore(anchor);
  int64_t rowsPerBlock = tad::rowsPerBlock(chain);
  int64_t blocks = llvm::divideCeil(rows, rowsPerBlock);
  SmallVector<Type> shared =
      llvm::map_to_vector(chain.local, [&](Value local) -> Type {
        return sharedTypeOf(chain, local);
      });
  OpBuilder b(anchor);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  gpu::LaunchOp launch;
  {
    OpBuilder::InsertionGuard guard(b);
    launch = launchLinear(b, loc, blocks, rowsPerBlock * kWarpSize, shared);
    Value thread = launch.getThreadIds().x;
    Value warpSize = constant(kWarpSize);
    WarpIds ids;
    ids.lane = arith::RemUIOp::create(b, loc, thread, warpSize);
    Value row = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                              constant(rowsPerBlock)),
        arith::DivUIOp::create(b, loc, thread, warpSize));
    Value lastRow = constant(rows - 1);
    Value clamped = arith::MinUIOp::create(b, loc, row, lastRow);
    ids.ivs = delinearize(b, loc, clamped, chain.rows);
    Value slot = arith::SubIOp::create(
        b, loc, clamped,
        arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                              constant(rowsPerBlock)));
    ids.first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      ids.lane, constant(0));
    if (rows % rowsPerBlock != 0) {
      ids.valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, row,
                                        lastRow);
      ids.first = arith::AndIOp::create(b, loc, ids.first, ids.valid);
    }
    for (auto [i, stage] : llvm::enumerate(chain.stages)) {
      if (i > 0)
        gpu::BarrierOp::create(b, loc);
      if (stage.kind == Kind::Reduce)
        emitReduce(b, loc, stage, ids);
      else if (stage.kind == Kind::Outputs)
        emitOutputs(b, loc, stage.loop, ids);
      else
        emitElements(b, loc, stage.loop, ids);
    }
    useSharedMemory(chain, launch, launch.getWorkgroupAttributions(), slot);
  }
  Operation *at = launch;
  for (auto [loop, stagesBefore] : chain.later) {
    loop->moveAfter(at);
    at = loop;
  }
  for (Operation *op : chain.after) {
    op->moveAfter(at);
    at = op;
  }
  for (const RowStage &stage : chain.stages) {
    stage.last()->erase();
    if (stage.fill.op)
      stage.fill.op->erase();
  }
  eraseLocalBuffers(chain);
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
    // A chain erases the loops it takes, reductions among them.
    llvm::DenseSet<Operation *> taken;
    auto launch = [&](const RowChain &chain) {
      for (const RowStage &stage : chain.stages) {
        stage.last()->walk([&](Operation *op) { taken.insert(op); });
        if (stage.fill.op)
          stage.fill.op->walk([&](Operation *op) { taken.insert(op); });
      }
      launchWarpPerRow(chain);
    };
    for (scf::ForOp loop : loops) {
      if (taken.contains(loop))
        continue;
      if (std::optional<RowStage> seed = warpReduction(loop, alias))
        launch(chainAround(*seed, alias));
    }
    // Then the chains around the sums in lanes that join two reductions or
    // more, or a sum with a loop before or after it: the lanes and their
    // sum alone are one kernel of tad-loops-to-gpu's already. (Joining two
    // reductions only was a stricter rule: a layer norm's gradient whose
    // column sums keep its row sums apart was 14 launches, not 7.)
    for (scf::ForOp loop : loops) {
      if (taken.contains(loop))
        continue;
      auto parallel = dyn_cast<scf::ParallelOp>(loop->getParentOp());
      if (!parallel)
        continue;
      if (std::optional<RowStage> seed = rowLanes(parallel)) {
        RowChain chain = chainAround(*seed, alias);
        if (reductionsOf(chain) >= 2 || chain.stages.size() >= 3)
          launch(chain);
      }
    }
  }
};

} // namespace
