//===- EmulatePhases.cpp - emulate kernels that wait at barriers ----------===//

#include "EmulatePhases.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

void tad::emitIdLoops(OpBuilder &b, Location loc, ArrayRef<Value> ids,
                      ArrayRef<Value> sizes, IRMapping &mapping, bool reverse) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [id, size] : llvm::zip(ids, sizes)) {
    auto loop = scf::ForOp::create(b, loc, zero, size, one);
    b.setInsertionPointToStart(loop.getBody());
    Value index = loop.getInductionVar();
    if (reverse)
      index = arith::SubIOp::create(
          b, loc, arith::SubIOp::create(b, loc, size, one), index);
    mapping.map(id, index);
  }
}

bool tad::synchronizesThreads(gpu::LaunchOp launch) {
  return !launch.getWorkgroupAttributions().empty() ||
         launch.getBody()
             .walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
             .wasInterrupted();
}

namespace {

/// One launch, analysed and then emitted in phases.
///
/// A "level" is the launch body's block or the body of a loop around a
/// barrier (a phase loop). Its operations are either uniform (pure, with
/// operands that every thread of a block shares: cloned once per block),
/// barriers, phase loops (one loop for the whole block), or the operations
/// of a segment between two of those (cloned into loops over the threads).
class PhasedLaunch {
public:
  PhasedLaunch(gpu::LaunchOp launch, bool reverse)
      : launch(launch), reverse(reverse) {}

  LogicalResult analyse() {
    for (gpu::BarrierOp barrier : barriers()) {
      for (Operation *p = barrier->getParentOp(); p != launch;
           p = p->getParentOp()) {
        auto loop = dyn_cast<scf::ForOp>(p);
        if (!loop)
          return launch.emitOpError(
              "waits at a barrier inside a branch, which emulation does not "
              "model");
        phaseLoops.insert(loop);
      }
    }
    if (failed(analyseLevel(launch.getBody().front())))
      return failure();
    return findSlots();
  }

  /// Emits the phases at `b`. The per-thread slots and the workgroup
  /// memory are stack buffers in an alloca scope: what a GPU keeps in
  /// registers and on chip is no allocation of the runtime's, so the
  /// emulator's peak stays the plan's, as the device's does.
  void emit(OpBuilder &b, IRMapping shared) {
    Location loc = launch.getLoc();
    auto scope = memref::AllocaScopeOp::create(b, loc, TypeRange());
    Block *inside = new Block();
    scope.getBodyRegion().push_back(inside);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(inside);
    memref::AllocaScopeReturnOp::create(b, loc);
    b.setInsertionPointToStart(inside);
    gpu::KernelDim3 block = launch.getBlockSize();
    sizes = {shared.lookup(block.x), shared.lookup(block.y),
             shared.lookup(block.z)};
    Value threads = arith::MulIOp::create(
        b, loc, arith::MulIOp::create(b, loc, sizes[0], sizes[1]), sizes[2]);
    // A phase loop's results are its carried values after the last
    // iteration: the same slots.
    for (Value v : slotted) {
      auto result = dyn_cast<OpResult>(v);
      auto loop = result ? dyn_cast<scf::ForOp>(result.getOwner()) : nullptr;
      if (loop && phaseLoops.contains(loop))
        continue;
      auto type = MemRefType::get({ShapedType::kDynamic}, v.getType());
      slots[v] = memref::AllocaOp::create(b, loc, type, ValueRange{threads});
    }
    for (scf::ForOp loop : phaseLoops)
      for (auto [arg, result] :
           llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
        slots[result] = slots[arg];
    for (BlockArgument memory : launch.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(memory.getType());
      shared.map(
          memory,
          memref::AllocaOp::create(
              b, loc, MemRefType::get(type.getShape(), type.getElementType())));
    }
    gpu::KernelDim3 grid = launch.getGridSize();
    gpu::KernelDim3 ids = launch.getBlockIds();
    idLoops(
        b, {ids.z, ids.y, ids.x},
        {shared.lookup(grid.z), shared.lookup(grid.y), shared.lookup(grid.x)},
        shared);
    emitLevel(b, launch.getBody().front(), shared);
  }

private:
  SmallVector<gpu::BarrierOp> barriers() {
    SmallVector<gpu::BarrierOp> found;
    launch.getBody().walk([&](gpu::BarrierOp op) { found.push_back(op); });
    return found;
  }

  /// Whether every thread of a block has the same `v`.
  bool isUniform(Value v) {
    if (!launch.getBody().isAncestor(v.getParentRegion()))
      return true;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &launch.getBody().front()) {
        gpu::KernelDim3 t = launch.getThreadIds();
        return v != t.x && v != t.y && v != t.z;
      }
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      return loop && phaseLoops.contains(loop) && v == loop.getInductionVar();
    }
    return uniformOps.contains(v.getDefiningOp());
  }

  /// Classifies the operations of a level and numbers its segments.
  LogicalResult analyseLevel(Block &level) {
    int segment = nextSegment++;
    for (Operation &op : level.without_terminator()) {
      if (op.getNumRegions() == 0 && isPure(&op) &&
          llvm::all_of(op.getOperands(),
                       [&](Value v) { return isUniform(v); })) {
        uniformOps.insert(&op);
        continue;
      }
      if (isa<gpu::BarrierOp>(op)) {
        segment = nextSegment++;
        continue;
      }
      auto loop = dyn_cast<scf::ForOp>(op);
      if (loop && phaseLoops.contains(loop)) {
        if (!isUniform(loop.getLowerBound()) ||
            !isUniform(loop.getUpperBound()) || !isUniform(loop.getStep()))
          return loop.emitOpError(
              "around a barrier has bounds that differ between threads, "
              "which emulation does not model");
        segmentOf[loop] = nextSegment++;
        if (failed(analyseLevel(*loop.getBody())))
          return failure();
        segmentOf[loop.getBody()->getTerminator()] = nextSegment++;
        for (auto [arg, result] :
             llvm::zip(loop.getRegionIterArgs(), loop.getResults())) {
          slotted.insert(arg);
          slotted.insert(result);
        }
        segment = nextSegment++;
        continue;
      }
      segmentOf[&op] = segment;
    }
    return success();
  }

  /// The values that a thread keeps from one segment to another (in the
  /// order of the body, so that the emitted code is the same every run).
  LogicalResult findSlots() {
    launch.getBody().walk([&](Operation *op) {
      auto segment = segmentOf.find(op);
      if (segment == segmentOf.end())
        return;
      for (Value v : op->getResults())
        for (Operation *user : v.getUsers()) {
          while (user && !segmentOf.count(user))
            user = user->getParentOp();
          if (user && segmentOf.lookup(user) != segment->second)
            slotted.insert(v);
        }
    });
    for (Value v : slotted)
      if (!v.getType().isIntOrIndexOrFloat())
        return launch.emitOpError("keeps a value of type ")
               << v.getType()
               << " across a barrier, which emulation does not model";
    return success();
  }

  void idLoops(OpBuilder &b, ArrayRef<Value> ids, ArrayRef<Value> bounds,
               IRMapping &mapping) {
    tad::emitIdLoops(b, launch.getLoc(), ids, bounds, mapping, reverse);
  }

  /// Runs `body(builder, mapping, thread)` inside loops over the block's
  /// threads, `thread` being the linear index of the thread.
  template <typename Body>
  void forEachThread(OpBuilder &b, const IRMapping &shared, Body body) {
    OpBuilder::InsertionGuard guard(b);
    IRMapping mapping = shared;
    gpu::KernelDim3 ids = launch.getThreadIds();
    idLoops(b, {ids.z, ids.y, ids.x}, {sizes[2], sizes[1], sizes[0]}, mapping);
    Location loc = launch.getLoc();
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, mapping.lookup(ids.z), sizes[1]),
        mapping.lookup(ids.y));
    Value thread = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, sizes[0]),
        mapping.lookup(ids.x));
    body(b, mapping, thread);
  }

  /// `v` in a thread's loop: mapped there, kept in its slot, or defined
  /// outside the launch.
  Value valueIn(OpBuilder &b, IRMapping &mapping, Value v, Value thread) {
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    auto slot = slots.find(v);
    if (slot == slots.end())
      return v;
    Value loaded = memref::LoadOp::create(b, launch.getLoc(), slot->second,
                                          ValueRange{thread});
    mapping.map(v, loaded);
    return loaded;
  }

  void store(OpBuilder &b, Value v, Value slotOf, Value thread) {
    memref::StoreOp::create(b, launch.getLoc(), v, slots.lookup(slotOf),
                            ValueRange{thread});
  }

  void emitLevel(OpBuilder &b, Block &level, IRMapping &shared) {
    for (Operation &op : level.without_terminator())
      if (uniformOps.contains(&op))
        b.clone(op, shared);
    SmallVector<Operation *> segment;
    auto flush = [&] {
      if (!segment.empty())
        emitSegment(b, segment, shared);
      segment.clear();
    };
    for (Operation &op : level.without_terminator()) {
      if (uniformOps.contains(&op))
        continue;
      if (isa<gpu::BarrierOp>(op)) {
        flush();
        continue;
      }
      auto loop = dyn_cast<scf::ForOp>(op);
      if (loop && phaseLoops.contains(loop)) {
        flush();
        emitPhaseLoop(b, loop, shared);
        continue;
      }
      segment.push_back(&op);
    }
    flush();
  }

  void emitSegment(OpBuilder &b, ArrayRef<Operation *> ops,
                   const IRMapping &shared) {
    forEachThread(b, shared, [&](OpBuilder &tb, IRMapping &m, Value thread) {
      for (Operation *op : ops) {
        op->walk([&](Operation *inner) {
          for (Value v : inner->getOperands())
            valueIn(tb, m, v, thread);
        });
        Operation *clone = tb.clone(*op, m);
        for (auto [v, c] : llvm::zip(op->getResults(), clone->getResults()))
          if (slots.count(v))
            store(tb, c, v, thread);
      }
    });
  }

  void emitPhaseLoop(OpBuilder &b, scf::ForOp loop, IRMapping &shared) {
    auto carry = [&](ValueRange from, const IRMapping &mapping) {
      if (loop.getRegionIterArgs().empty())
        return;
      forEachThread(b, mapping, [&](OpBuilder &tb, IRMapping &m, Value t) {
        for (auto [v, arg] : llvm::zip(from, loop.getRegionIterArgs()))
          store(tb, valueIn(tb, m, v, t), arg, t);
      });
    };
    carry(loop.getInitArgs(), shared);
    auto phases = scf::ForOp::create(
        b, loop.getLoc(), shared.lookupOrDefault(loop.getLowerBound()),
        shared.lookupOrDefault(loop.getUpperBound()),
        shared.lookupOrDefault(loop.getStep()));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(phases.getBody()->getTerminator());
    IRMapping inner = shared;
    inner.map(loop.getInductionVar(), phases.getInductionVar());
    emitLevel(b, *loop.getBody(), inner);
    carry(loop.getBody()->getTerminator()->getOperands(), inner);
  }

  gpu::LaunchOp launch;
  bool reverse;
  llvm::SetVector<scf::ForOp> phaseLoops;
  llvm::DenseSet<Operation *> uniformOps;
  llvm::DenseMap<Operation *, int> segmentOf;
  int nextSegment = 0;
  llvm::SetVector<Value> slotted;
  llvm::DenseMap<Value, Value> slots;
  SmallVector<Value, 3> sizes; // the block's x, y, z
};

} // namespace

LogicalResult tad::emulateInPhases(OpBuilder &b, gpu::LaunchOp launch,
                                   const IRMapping &sizes, bool reverse) {
  PhasedLaunch phased(launch, reverse);
  if (failed(phased.analyse()))
    return failure();
  phased.emit(b, sizes);
  return success();
}
