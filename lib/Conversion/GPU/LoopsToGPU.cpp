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
//   - an elementwise one whose rows are a multiple of 4 f32 (2 f64)
//     elements long runs 4 (2) neighbouring iterations a thread, op by op,
//     so that LLVM makes their accesses 16-byte ones where it knows the
//     alignment (vectorWidth);
//   - an scf.for nest that touches only memory and scalars becomes a
//     single-thread kernel, so that its buffers never migrate to the host;
//   - a loop over rows and lanes followed by a loop over the rows that adds
//     each row's lanes (tad-split-reductions' form of a sum) is one kernel
//     with a barrier between the two: a launch less for each such sum.
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

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

/// The trip counts of `loop`'s dimensions, computed before it on the host
/// (ceil((ub - lb) / step)), and their product.
std::pair<SmallVector<Value>, Value> tripCounts(OpBuilder &b,
                                                scf::ParallelOp loop) {
  Location loc = loop.getLoc();
  SmallVector<Value> trips;
  Value total = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep())) {
    Value span = arith::SubIOp::create(b, loc, ub, lb);
    Value trip = arith::CeilDivSIOp::create(b, loc, span, step);
    trips.push_back(trip);
    total = arith::MulIOp::create(b, loc, total, trip);
  }
  return {trips, total};
}

/// A launch of ceil(`total` / kThreadsPerBlock) blocks, inside a test that
/// `total` is not 0 (an empty grid is not a valid launch), and the global
/// id of its thread; the builder is left at the start of its body, after
/// the id.
std::pair<gpu::LaunchOp, Value> launchThreads(OpBuilder &b, Location loc,
                                              Value total) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value block = arith::ConstantIndexOp::create(b, loc, kThreadsPerBlock);
  Value grid = arith::CeilDivSIOp::create(b, loc, total, block);
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
  return {launch, id};
}

/// Maps at `b` the induction variables of `loop` to the iteration whose
/// row-major linear index is `index` (the last dimension varies fastest).
IRMapping iterationAt(OpBuilder &b, scf::ParallelOp loop, ArrayRef<Value> trips,
                      Value index) {
  Location loc = loop.getLoc();
  IRMapping mapping;
  Value rest = index;
  SmallVector<Value> ivs(trips.size());
  for (int64_t d = int64_t(trips.size()) - 1; d >= 0; --d) {
    Value at = d == 0 ? rest : arith::RemSIOp::create(b, loc, rest, trips[d]);
    if (d > 0)
      rest = arith::DivSIOp::create(b, loc, rest, trips[d]);
    Value scaled = arith::MulIOp::create(b, loc, at, loop.getStep()[d]);
    ivs[d] = arith::AddIOp::create(b, loc, loop.getLowerBound()[d], scaled);
  }
  for (auto [iv, value] : llvm::zip(loop.getInductionVars(), ivs))
    mapping.map(iv, value);
  return mapping;
}

/// Clones `loop`'s body for the iteration whose row-major linear index is
/// `index` at `b`.
void cloneIteration(OpBuilder &b, scf::ParallelOp loop, ArrayRef<Value> trips,
                    Value index) {
  IRMapping mapping = iterationAt(b, loop, trips, index);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, mapping);
}

/// A launch of `count` threads (launchThreads) whose ids are tested to be
/// below `count`; `b` is left inside the test, whose scf.if and the id it
/// returns.
std::pair<scf::IfOp, Value> launchGuarded(OpBuilder &b, Location loc,
                                          Value count) {
  Value id = launchThreads(b, loc, count).second;
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, id, count);
  auto ifInRange = scf::IfOp::create(b, loc, inRange, false);
  b.setInsertionPointToStart(ifInRange.thenBlock());
  return {ifInRange, id};
}

/// A launch of one thread per iteration of `loop` (without results), each
/// running its iteration inside a test that it has one; returns the test
/// (`inRange`'s scf.if) and the thread's id. `loop` stays.
std::pair<scf::IfOp, Value> launchIterations(OpBuilder &b,
                                             scf::ParallelOp loop) {
  auto [trips, total] = tripCounts(b, loop);
  auto [ifInRange, id] = launchGuarded(b, loop.getLoc(), total);
  cloneIteration(b, loop, trips, id);
  b.setInsertionPointAfter(ifInRange);
  return {ifInRange, id};
}

/// The bytes a thread of an elementwise loop reads or writes at once where
/// its neighbouring elements are its own: a GPU's widest load.
constexpr int64_t kVectorBytes = 16;

/// How many neighbouring iterations of `loop` one thread runs, so that its
/// loads and stores of them can be one vector access each (W elements of
/// kVectorBytes, 4 of f32 or 2 of f64): W where `loop` is elementwise (no
/// regions in its body), its innermost dimension runs from 0 by 1 to a
/// constant multiple of W, and every access that uses that dimension's
/// index uses it as its last index, into a buffer whose elements are
/// kVectorBytes / W bytes with a last stride of 1; else 1. A thread's W
/// iterations are then W neighbours in one row, each element of which the
/// iteration computes as before; whether the accesses become vector ones
/// is LLVM's to prove (their alignment).
int64_t vectorWidth(scf::ParallelOp loop) {
  Block *body = loop.getBody();
  Value inner = loop.getInductionVars().back();
  std::optional<int64_t> lower =
      getConstantIntValue(loop.getLowerBound().back());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep().back());
  std::optional<int64_t> upper =
      getConstantIntValue(loop.getUpperBound().back());
  if (lower != 0 || step != 1 || !upper)
    return 1;
  int64_t elementBytes = 0;
  for (Operation &op : body->without_terminator()) {
    if (op.getNumRegions() != 0)
      return 1;
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndices();
    }
    if (!memref || !llvm::is_contained(indices, inner))
      continue;
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (indices.back() != inner ||
        llvm::is_contained(indices.drop_back(), inner) ||
        !type.getElementType().isIntOrFloat() ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return 1;
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    if (bytes * 8 != int64_t(type.getElementTypeBitWidth()) ||
        (elementBytes && bytes != elementBytes))
      return 1;
    elementBytes = bytes;
  }
  if (elementBytes == 0 || kVectorBytes % elementBytes != 0)
    return 1;
  int64_t width = kVectorBytes / elementBytes;
  return *upper % width == 0 ? width : 1;
}

/// The extents of `loop`'s dimensions where each runs from 0 by 1 to a
/// constant; else none.
SmallVector<int64_t> constantExtents(scf::ParallelOp loop) {
  SmallVector<int64_t> extents;
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> extent = getConstantIntValue(upper);
    if (getConstantIntValue(lower) != 0 || getConstantIntValue(step) != 1 ||
        !extent)
      return {};
    extents.push_back(*extent);
  }
  return extents;
}

/// Runs `loop` (without results) as a grid of one thread per `width`
/// neighbouring iterations along its innermost dimension (vectorWidth):
/// thread g runs the iterations of linear index width * g + 0, ..., +
/// width - 1, op by op: neighbours in one row, the extent of the innermost
/// dimension being a multiple of `width`.
void launchVectorGroups(OpBuilder &b, scf::ParallelOp loop, int64_t width) {
  Location loc = loop.getLoc();
  auto [trips, total] = tripCounts(b, loop);
  Value widthValue = arith::ConstantIndexOp::create(b, loc, width);
  Value groups = arith::DivSIOp::create(b, loc, total, widthValue);
  Value id = launchGuarded(b, loc, groups).second;
  // Iteration k of the group is the one of linear index W id + k: the
  // group's row and first column (a multiple of W by construction: a
  // multiplication, not a remainder, so that LLVM knows an access's
  // offset is one too), then the column + k. The index's arithmetic does
  // not wrap, which the flags tell LLVM.
  auto exact = arith::IntegerOverflowFlagsAttr::get(
      b.getContext(),
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw);
  SmallVector<Value> groupTrips(trips);
  groupTrips.back() = arith::DivSIOp::create(b, loc, trips.back(), widthValue);
  IRMapping group = iterationAt(b, loop, groupTrips, id);
  Value inner = loop.getInductionVars().back();
  Value column =
      arith::MulIOp::create(b, loc, group.lookup(inner), widthValue, exact);
  Value first = arith::MulIOp::create(b, loc, id, widthValue, exact);
  SmallVector<IRMapping> mappings(width, group);
  SmallVector<Value> linearIndices;
  for (int64_t k = 0; k < width; ++k) {
    Value offset = arith::ConstantIndexOp::create(b, loc, k);
    mappings[k].map(
        inner,
        k == 0
            ? column
            : arith::AddIOp::create(b, loc, column, offset, exact).getResult());
    linearIndices.push_back(
        k == 0
            ? first
            : arith::AddIOp::create(b, loc, first, offset, exact).getResult());
  }
  // An access at the iteration's own indices to a buffer of the loop's
  // shape, laid out row-major, is to its element of linear index W id + k:
  // it reads and writes a 1-D view of the buffer there, whose addresses
  // LLVM sees as neighbours. (It folds row * E + column back into the
  // linear index for k = 0 only, and then cannot pair that access with
  // the others.)
  SmallVector<int64_t> extents = constantExtents(loop);
  DenseMap<Value, Value> flat;
  auto flatView = [&](Value memref, ValueRange indices) -> Value {
    auto type = cast<MemRefType>(memref.getType());
    if (extents.empty() || !type.getLayout().isIdentity() ||
        type.getShape() != ArrayRef<int64_t>(extents) ||
        !llvm::equal(indices, loop.getInductionVars()))
      return {};
    Value &view = flat[memref];
    if (!view) {
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      view = memref::CollapseShapeOp::create(
          b, loc, memref, ArrayRef<ReassociationIndices>{all});
    }
    return view;
  };
  // Op by op, each for the W iterations in turn: the W loads of a buffer
  // are next to each other, and so are the W stores, with nothing between
  // them that LLVM's load-store vectorizer would have to prove apart (a
  // call, a store to another buffer). The iterations of a parallel loop
  // may interleave in any way.
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto load = dyn_cast<memref::LoadOp>(op);
    auto store = dyn_cast<memref::StoreOp>(op);
    Value view = load    ? flatView(load.getMemRef(), load.getIndices())
                 : store ? flatView(store.getMemRef(), store.getIndices())
                         : Value();
    for (auto [k, mapping] : llvm::enumerate(mappings)) {
      if (!view) {
        b.clone(op, mapping);
        continue;
      }
      Value at = linearIndices[k];
      if (load)
        mapping.map(load.getResult(),
                    memref::LoadOp::create(b, loc, view, at).getResult());
      else
        memref::StoreOp::create(
            b, loc, mapping.lookupOrDefault(store.getValueToStore()), view, at);
    }
  }
}

/// Runs `loop` (without results) as a grid of one thread per iteration,
/// or per `vectorWidth` neighbouring iterations.
void launchParallelLoop(scf::ParallelOp loop) {
  OpBuilder b(loop);
  if (int64_t width = vectorWidth(loop); width > 1)
    launchVectorGroups(b, loop, width);
  else
    launchIterations(b, loop);
  loop.erase();
}

/// Runs `lanes` (over rows and L lanes, L dividing kThreadsPerBlock) and
/// `rows` (over the same rows; it combines each row's lanes, as
/// tad-split-reductions' sum of the lanes of a reduction does) as one
/// kernel: thread `id` runs `lanes`' iteration `id`, all wait at a barrier,
/// then the first thread of each row's L runs `rows`' iteration of that
/// row. A row's lanes are in one block, so the barrier orders every write
/// of the row's lanes before the read of them; each value is computed as
/// the two kernels computed it.
void launchLaneCombine(scf::ParallelOp lanes, scf::ParallelOp rows,
                       int64_t laneCount) {
  OpBuilder b(lanes);
  Location loc = lanes.getLoc();
  SmallVector<Value> rowTrips = tripCounts(b, rows).first;
  auto [ifInRange, id] = launchIterations(b, lanes);
  gpu::BarrierOp::create(b, loc);
  Value count = arith::ConstantIndexOp::create(b, loc, laneCount);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value lane = arith::RemSIOp::create(b, loc, id, count);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  auto ifFirst = scf::IfOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, ifInRange.getCondition(), first), false);
  b.setInsertionPointToStart(ifFirst.thenBlock());
  cloneIteration(b, rows, rowTrips, arith::DivSIOp::create(b, loc, id, count));
  rows.erase();
  lanes.erase();
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

/// The loads and stores of `loop`'s body, or nothing when it touches
/// memory in any other way.
std::optional<SmallVector<Operation *>> memoryAccesses(scf::ParallelOp loop) {
  SmallVector<Operation *> accesses;
  bool other = false;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp>(op))
      accesses.push_back(op);
    else if (!isPure(op) && !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      other = true;
  });
  if (other)
    return std::nullopt;
  return accesses;
}

/// Whether `access` (a load or store in `loop`) indexes its buffer's
/// leading dimensions with `loop`'s first `n` induction variables, in order.
bool indexesRow(Operation *access, scf::ParallelOp loop, size_t n) {
  OperandRange indices = isa<memref::LoadOp>(access)
                             ? cast<memref::LoadOp>(access).getIndices()
                             : cast<memref::StoreOp>(access).getIndices();
  if (indices.size() < n)
    return false;
  for (size_t d = 0; d < n; ++d)
    if (indices[d] != loop.getInductionVars()[d])
      return false;
  return true;
}

Value accessedBuffer(Operation *access) {
  return isa<memref::LoadOp>(access)
             ? cast<memref::LoadOp>(access).getMemRef()
             : cast<memref::StoreOp>(access).getMemRef();
}

/// L, where `rows` (right after `lanes`) combines the L lanes of each row
/// that `lanes` computes (tad-split-reductions' lanes, then their sum), so
/// that launchLaneCombine may run both as one kernel: `lanes` is over the
/// dimensions of `rows` and then L lanes (L a constant that divides
/// kThreadsPerBlock), from 0 in steps of 1; a buffer that `lanes` writes
/// and `rows` touches is the same value in both, indexed in its leading
/// dimensions by the row in both, and only read by `rows`; a buffer that
/// `rows` writes is not one that `lanes` touches (`aliases` decides).
std::optional<int64_t> laneCombine(scf::ParallelOp lanes, scf::ParallelOp rows,
                                   AliasAnalysis &aliases) {
  size_t n = rows.getNumLoops();
  if (lanes->getNextNode() != rows.getOperation() ||
      lanes.getNumLoops() != n + 1 || rows.getNumResults() != 0 ||
      !isDeviceNest(rows))
    return std::nullopt;
  for (scf::ParallelOp loop : {lanes, rows})
    for (auto [lb, step] : llvm::zip(loop.getLowerBound(), loop.getStep()))
      if (getConstantIntValue(lb) != 0 || getConstantIntValue(step) != 1)
        return std::nullopt;
  for (size_t d = 0; d < n; ++d)
    if (!isEqualConstantIntOrValue(lanes.getUpperBound()[d],
                                   rows.getUpperBound()[d]))
      return std::nullopt;
  std::optional<int64_t> count = getConstantIntValue(lanes.getUpperBound()[n]);
  if (!count || *count < 2 || kThreadsPerBlock % *count != 0)
    return std::nullopt;
  auto laneAccesses = memoryAccesses(lanes);
  auto rowAccesses = memoryAccesses(rows);
  if (!laneAccesses || !rowAccesses)
    return std::nullopt;
  for (Operation *rowAccess : *rowAccesses) {
    Value buffer = accessedBuffer(rowAccess);
    for (Operation *laneAccess : *laneAccesses) {
      Value other = accessedBuffer(laneAccess);
      if (aliases.alias(buffer, other).isNo())
        continue;
      bool laneWrites = isa<memref::StoreOp>(laneAccess);
      bool rowWrites = isa<memref::StoreOp>(rowAccess);
      if (!laneWrites && !rowWrites)
        continue; // both read
      if (rowWrites || buffer != other || !indexesRow(rowAccess, rows, n) ||
          !indexesRow(laneAccess, lanes, n))
        return std::nullopt;
    }
  }
  return count;
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
    aliases = &getAnalysis<AliasAnalysis>();
    visitRegion(getOperation().getBody());
    getOperation().walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    for (gpu::LaunchOp launch : launches)
      sinkGlobals(launch);
  }

  /// Launches every loop nest of `region` that can run on the device, and
  /// visits the regions of the host ops that contain others.
  void visitRegion(Region &region) {
    for (Block &block : region)
      for (Operation *op = block.empty() ? nullptr : &block.front(); op;)
        op = visitOp(op);
  }

  AliasAnalysis *aliases = nullptr;

  /// Launches `op` where it can run on the device, or visits its regions;
  /// returns the operation to visit next.
  Operation *visitOp(Operation *op) {
    Operation *next = op->getNextNode();
    // A kernel already (tad-tile-gpu-matmuls'): its loops are its threads'.
    if (isa<gpu::LaunchOp>(op))
      return next;
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      if (scf::ParallelOp loop = copyAsParallelLoop(copy))
        launchParallelLoop(loop);
      return next;
    }
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (loop.getNumResults() == 0 && isDeviceNest(op)) {
        auto rows = dyn_cast_or_null<scf::ParallelOp>(next);
        if (std::optional<int64_t> count =
                rows ? laneCombine(loop, rows, *aliases) : std::nullopt) {
          next = rows->getNextNode();
          launchLaneCombine(loop, rows, *count);
        } else {
          launchParallelLoop(loop);
        }
        return next;
      }
    } else if (isa<scf::ForOp>(op) && op->getNumResults() == 0 &&
               isDeviceNest(op)) {
      // A loop nest around parallel loops (a linalg op whose outer
      // dimension is a reduction) stays a host loop of grid launches.
      bool hasParallel = false;
      op->walk([&](scf::ParallelOp) { hasParallel = true; });
      if (!hasParallel) {
        launchSingleThread(op);
        return next;
      }
    }
    for (Region &r : op->getRegions())
      visitRegion(r);
    return next;
  }
};

} // namespace
