//===- LoopsToGPU.cpp - run the loop nests of host code as GPU kernels ----===//
//
// After bufferization and convert-linalg-to-parallel-loops, every linalg op
// is a loop nest on memrefs: an scf.parallel over its parallel dimensions
// (with scf.for loops over its reduction dimensions inside), or an scf.for
// nest when it has no parallel dimension (a full reduction). This pass turns
// each such nest into a gpu.launch:
//
//   - an scf.parallel becomes a one-dimensional grid: thread `id` runs the
//     iteration whose row-major linear index is `id` (the innermost
//     dimension varies fastest across a warp, so contiguous accesses
//     coalesce), and threads past the end do nothing;
//   - an scf.for nest that touches only memory and scalars becomes a
//     single-thread kernel, so that its buffers never migrate to the host.
//
//   - a memref.copy becomes a loop of one thread per element, so that the
//     buffers it copies stay on the device.
//
// Everything that must stay on the host (allocation, deallocation, calls,
// and the loops and branches of the program that contain them) stays, and
// its regions are visited in turn. Buffers are in memory that
// both host and device address (docs/gpu.md), so host code between
// kernels stays correct.
//
// Constant globals that a kernel reads are cloned into the kernel (with the
// views taken of them); gpu-kernel-outlining then copies the global into the
// GPU module, where it lives in device memory.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace tad {
#define GEN_PASS_DEF_CONVERTLOOPSTOGPU
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// Whether `op` may run inside a kernel: pure arithmetic, loads, stores,
/// views and structured control flow. Allocation, deallocation, copies (a
/// runtime call) and calls stay on the host.
bool isDeviceOp(Operation *op) {
  if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
          memref::CopyOp, memref::ReallocOp>(op))
    return false;
  Dialect *dialect = op->getDialect();
  if (!dialect)
    return false;
  return isa<arith::ArithDialect, math::MathDialect, memref::MemRefDialect,
             scf::SCFDialect, affine::AffineDialect, index::IndexDialect>(
      dialect);
}

/// Whether `root` and everything nested in it may run inside a kernel.
bool isDeviceNest(Operation *root) {
  return !root
              ->walk([](Operation *op) {
                return isDeviceOp(op) ? WalkResult::advance()
                                      : WalkResult::interrupt();
              })
              .wasInterrupted();
}

constexpr int64_t kThreadsPerBlock = 256;

/// A launch of `grid` x `kThreadsPerBlock` threads (or 1 x 1 when `grid` is
/// null), with a terminator, the builder left at the start of its body.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, Value grid) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value threads =
      grid ? arith::ConstantIndexOp::create(b, loc, kThreadsPerBlock) : one;
  auto launch = gpu::LaunchOp::create(b, loc, grid ? grid : one, one, one,
                                      threads, one, one);
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  return launch;
}

/// Runs `loop` (without results) as a grid of one thread per iteration.
void launchParallelLoop(scf::ParallelOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  // Trip counts on the host: ceil((ub - lb) / step) per dimension.
  SmallVector<Value> trips;
  Value total = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep())) {
    Value span = arith::SubIOp::create(b, loc, ub, lb);
    Value trip = arith::CeilDivSIOp::create(b, loc, span, step);
    trips.push_back(trip);
    total = arith::MulIOp::create(b, loc, total, trip);
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value block = arith::ConstantIndexOp::create(b, loc, kThreadsPerBlock);
  Value grid = arith::CeilDivSIOp::create(b, loc, total, block);
  // An empty grid is not a valid launch.
  Value any =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, total, zero);
  auto ifAny = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifAny.thenBlock());
  gpu::LaunchOp launch = createLaunch(b, loc, grid);

  Value id = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                            launch.getBlockSize().x),
      launch.getThreadIds().x);
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, id, total);
  auto ifInRange = scf::IfOp::create(b, loc, inRange, false);
  b.setInsertionPointToStart(ifInRange.thenBlock());

  // Row-major delinearization: the last dimension varies fastest.
  IRMapping mapping;
  Value rest = id;
  SmallVector<Value> ivs(trips.size());
  for (int64_t d = int64_t(trips.size()) - 1; d >= 0; --d) {
    Value index = d == 0 ? rest : arith::RemSIOp::create(b, loc, rest, trips[d]);
    if (d > 0)
      rest = arith::DivSIOp::create(b, loc, rest, trips[d]);
    Value scaled = arith::MulIOp::create(b, loc, index, loop.getStep()[d]);
    ivs[d] = arith::AddIOp::create(b, loc, loop.getLowerBound()[d], scaled);
  }
  for (auto [iv, value] : llvm::zip(loop.getInductionVars(), ivs))
    mapping.map(iv, value);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, mapping);
  loop.erase();
}

/// The buffer that `v` views (through subviews, casts and reshapes).
Value getRootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewSource() == v)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// Rewrites `copy` as an scf.parallel of loads and stores, one iteration
/// per element, which then launches like any other loop. Copied by the
/// host, a buffer in managed memory moved to the host and back (a page
/// fault each way): a loop's tape rows and carried values went through
/// such copies every iteration, and the resnet loop's step took 3.3 times
/// its unrolled form's on an H200 (docs/gpu.md). Returns the loop, or null
/// where the copy stays on the host: a stack buffer (memref.alloca), which
/// the GPU cannot address.
scf::ParallelOp copyAsParallelLoop(memref::CopyOp copy) {
  for (Value v : {copy.getSource(), copy.getTarget()})
    if (getRootBuffer(v).getDefiningOp<memref::AllocaOp>())
      return nullptr;
  auto type = cast<MemRefType>(copy.getSource().getType());
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lower, upper, steps;
  // A rank-0 copy is one element: a loop of one iteration.
  if (type.getRank() == 0) {
    lower.push_back(zero);
    upper.push_back(one);
    steps.push_back(one);
  }
  for (int64_t d = 0; d < type.getRank(); ++d) {
    lower.push_back(zero);
    upper.push_back(
        type.isDynamicDim(d)
            ? Value(memref::DimOp::create(b, loc, copy.getSource(), d))
            : Value(arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))));
    steps.push_back(one);
  }
  auto loop = scf::ParallelOp::create(
      b, loc, lower, upper, steps,
      [&](OpBuilder &nested, Location l, ValueRange ivs) {
        ValueRange indices = type.getRank() == 0 ? ValueRange() : ivs;
        Value element =
            memref::LoadOp::create(nested, l, copy.getSource(), indices);
        memref::StoreOp::create(nested, l, element, copy.getTarget(),
                                indices);
      });
  copy.erase();
  return loop;
}

/// Runs `op` (a loop nest without results) on a single GPU thread.
void launchSingleThread(Operation *op) {
  OpBuilder b(op);
  gpu::LaunchOp launch = createLaunch(b, op->getLoc(), nullptr);
  op->moveBefore(&launch.getBody().front().back());
}

/// The views of constant globals (and the globals themselves) that `launch`
/// reads from outside: cloned in, so that kernels read device copies of the
/// globals rather than host memory.
void sinkGlobals(gpu::LaunchOp launch) {
  Region &body = launch.getBody();
  // Repeats until no use of a global's view from outside is left: each
  // clone may bring in the view's own source.
  bool changed = true;
  while (changed) {
    changed = false;
    SetVector<Value> outside;
    body.walk([&](Operation *op) {
      for (Value v : op->getOperands())
        if (!body.isAncestor(v.getParentRegion()))
          outside.insert(v);
    });
    for (Value v : outside) {
      Operation *def = v.getDefiningOp();
      if (!def || !(isa<memref::GetGlobalOp>(def) ||
                    (isa<ViewLikeOpInterface>(def) && isMemoryEffectFree(def))))
        continue;
      // Only views rooted at a global: a view of a host buffer is a kernel
      // argument like the buffer.
      if (!getRootBuffer(v).getDefiningOp<memref::GetGlobalOp>())
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(&body.front());
      Operation *clone = b.clone(*def);
      v.replaceUsesWithIf(clone->getResult(cast<OpResult>(v).getResultNumber()),
                          [&](OpOperand &use) {
                            return body.isAncestor(
                                use.getOwner()->getParentRegion());
                          });
      changed = true;
    }
  }
}

struct ConvertLoopsToGPU
    : public tad::impl::ConvertLoopsToGPUBase<ConvertLoopsToGPU> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    visitRegion(getOperation().getBody());
    getOperation().walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    for (gpu::LaunchOp launch : launches)
      sinkGlobals(launch);
  }

  /// Launches every loop nest of `region` that can run on the device, and
  /// visits the regions of the host ops that contain others.
  void visitRegion(Region &region) {
    for (Block &block : region)
      for (Operation &op : llvm::make_early_inc_range(block))
        visitOp(&op);
  }

  void visitOp(Operation *op) {
    // A kernel already (tad-tile-gpu-matmuls'): its loops are its threads'.
    if (isa<gpu::LaunchOp>(op))
      return;
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      if (scf::ParallelOp loop = copyAsParallelLoop(copy))
        launchParallelLoop(loop);
      return;
    }
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (loop.getNumResults() == 0 && isDeviceNest(op)) {
        launchParallelLoop(loop);
        return;
      }
    } else if (isa<scf::ForOp>(op) && op->getNumResults() == 0 &&
               isDeviceNest(op)) {
      // A loop nest around parallel loops (a linalg op whose outer
      // dimension is a reduction) stays a host loop of grid launches.
      bool hasParallel = false;
      op->walk([&](scf::ParallelOp) { hasParallel = true; });
      if (!hasParallel) {
        launchSingleThread(op);
        return;
      }
    }
    for (Region &r : op->getRegions())
      visitRegion(r);
  }
};

} // namespace
