//===- RowChains.cpp - the loops over a row that one warp runs ------------===//
//
// A chain is exact where each warp touches only its own row of what the
// kernel writes and each stage's lanes only their own elements of what
// that stage writes: every access to a buffer that a stage writes (all of
// them allocations of the function) is at its stage's row indices, through
// views that keep the rows' dimensions; a loop over the elements reads and
// writes its own buffers at its own indices only; a reduction's lanes
// read nothing that its stage writes. A barrier between stages then
// orders everything a row's lanes share. Warps past the last row (which
// run the reductions of the last row again, for the shuffles) read only.
//
//===----------------------------------------------------------------------===//

#include "RowChains.h"

#include "HostPeak.h"
#include "LoopAccesses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tad;

using Kind = RowStage::Kind;

/// Shorter rows stay one thread's loop: a lane would combine one element.
static constexpr int64_t kMinTrips = 2 * kWarpSize;

Operation *RowStage::first() const { return fill.op ? fill.op : last(); }

Operation *RowStage::last() const {
  // Op classes' accessors are not const.
  if (Operation *op = scf::ParallelOp(loop))
    return op;
  return scf::ForOp(sum->loop);
}

/// Whether `sum` reduces one row, whose neighbouring trips read
/// neighbouring elements: one load of the body depends on the loop's index,
/// which is its last index, into a buffer whose last stride is 1 (other
/// loads are the same in every trip: a row's maximum that a softmax's sum
/// subtracts). A dot product of two rows is a matmul's loop, whose kernels
/// are tad-tile-gpu-matmuls' (or cuBLAS's): left one thread per output, it
/// keeps the CPU's order of additions.
static bool readsAlongRow(SumLoop sum) {
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
static bool shuffleable(SumLoop sum) {
  Type type = sum.combine->getResult(0).getType();
  return (type.isF32() || type.isF64() || type.isInteger(32) ||
          type.isInteger(64));
}

std::optional<RowStage> tad::warpReduction(scf::ForOp loop,
                                           AliasAnalysis &alias) {
  std::optional<SumLoop> sum = matchSumLoop(loop, kMinTrips, alias);
  if (!sum || !shuffleable(*sum) || !readsAlongRow(*sum))
    return std::nullopt;
  FailureOr<scf::ParallelOp> parallel = enclosingParallel(loop);
  if (failed(parallel))
    return std::nullopt;
  return RowStage{Kind::Reduce, *parallel, sum, findFill(*sum, *parallel)};
}

namespace {

/// Whether `op`'s regions hold only what a kernel's thread runs in order:
/// loads, stores, pure ops, and loops and branches of those.
bool runsInThread(Operation &op) {
  if (isa<memref::LoadOp, memref::StoreOp>(op))
    return true;
  if (isa<scf::ForOp, scf::IfOp, scf::YieldOp>(op))
    return llvm::all_of(op.getRegions(), [](Region &region) {
      return llvm::all_of(region.getOps(), runsInThread);
    });
  return op.getNumRegions() == 0 && isPure(&op);
}

/// Whether `loop` is a loop of host code from 0 by 1 over `rows` and then
/// `extra` more dimensions of constant extents, whose body runs in a
/// thread.
bool overRows(scf::ParallelOp loop, ArrayRef<int64_t> rows, size_t extra) {
  if (loop.getNumResults() != 0 || loop.getNumLoops() != rows.size() + extra ||
      !llvm::all_of(loop.getBody()->without_terminator(), runsInThread))
    return false;
  for (auto [lower, step] : llvm::zip(loop.getLowerBound(), loop.getStep()))
    if (getConstantIntValue(lower) != 0 || getConstantIntValue(step) != 1)
      return false;
  for (auto [d, upper] : llvm::enumerate(loop.getUpperBound())) {
    std::optional<int64_t> extent = getConstantIntValue(upper);
    if (!extent || (d < rows.size() && *extent != rows[d]))
      return false;
  }
  return true;
}

/// Whether `op` is a host operation that can move out of the way of a
/// kernel: an allocation of a static shape or a pure op without regions
/// (views, constants), before the launch, or a free, after it.
bool movable(Operation *op) {
  if (auto alloc = dyn_cast<memref::AllocOp>(op))
    return alloc->getNumOperands() == 0;
  return isa<memref::DeallocOp>(op) || (op->getNumRegions() == 0 && isPure(op));
}

/// The stage at `op`, over `rows`, if any (no reduction where `reduce` is
/// false).
std::optional<RowStage> stageAt(Operation *op, ArrayRef<int64_t> rows,
                                bool reduce, AliasAnalysis &alias) {
  auto loop = dyn_cast<scf::ParallelOp>(op);
  if (!loop)
    return std::nullopt;
  if (reduce && overRows(loop, rows, 0))
    if (auto inner = dyn_cast<scf::ForOp>(loop.getBody()->front()))
      if (std::optional<RowStage> stage = warpReduction(inner, alias);
          stage && stage->loop == loop)
        return stage;
  if (overRows(loop, rows, 0))
    return RowStage{Kind::Outputs, loop, std::nullopt, {}};
  if (overRows(loop, rows, 1))
    return RowStage{Kind::Elements, loop, std::nullopt, {}};
  return std::nullopt;
}

/// The buffer that `memref` views, and whether the views keep its first
/// `rows` dimensions as they are (reshapes of the others only, and unit
/// dimensions after the rows': a row's mean as `[rows, 1]`).
Value rootOf(Value memref, size_t rows, bool &rowsKept) {
  rowsKept = true;
  // Row d is the expanded shape's dimension d, perhaps with unit ones.
  auto keeps = [&](ArrayRef<ReassociationIndices> groups, MemRefType expanded) {
    for (size_t d = 0; d < rows; ++d) {
      if (d >= groups.size() || groups[d].front() != int64_t(d))
        return false;
      for (int64_t unit : ArrayRef<int64_t>(groups[d]).drop_front())
        if (expanded.getDimSize(unit) != 1)
          return false;
    }
    return true;
  };
  while (Operation *def = memref.getDefiningOp()) {
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(def)) {
      rowsKept &=
          keeps(expand.getReassociationIndices(), expand.getResultType());
      memref = expand.getSrc();
    } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
      rowsKept &=
          keeps(collapse.getReassociationIndices(), collapse.getSrcType());
      memref = collapse.getSrc();
    } else if (auto cast = dyn_cast<memref::CastOp>(def)) {
      memref = cast.getSource();
    } else if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      rowsKept = false;
      memref = view.getViewSource();
    } else {
      break;
    }
  }
  return memref;
}

/// A load or a store of a stage, with the stage's row and own indices.
struct StageAccess {
  Operation *op;
  Value memref;
  ValueRange indices;
  bool write;
  const RowStage *stage;
  ValueRange rowIvs, ownIvs;
};

void collectAccesses(const RowStage &stage,
                     SmallVector<StageAccess> &accesses) {
  auto walk = [&](Operation *root, ValueRange ivs, size_t rowCount) {
    root->walk([&](Operation *op) {
      ValueRange rowIvs = ivs.take_front(rowCount);
      if (auto load = dyn_cast<memref::LoadOp>(op))
        accesses.push_back({op, load.getMemRef(), load.getIndices(), false,
                            &stage, rowIvs, ivs});
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        accesses.push_back({op, store.getMemRef(), store.getIndices(), true,
                            &stage, rowIvs, ivs});
    });
  };
  scf::ParallelOp loop = stage.loop;
  size_t rows = loop.getNumLoops() - (stage.kind == Kind::Elements);
  // Block arguments: getInductionVars() is a temporary vector.
  walk(loop, loop.getBody()->getArguments(), rows);
  if (stage.fill.op) {
    auto fill = cast<scf::ParallelOp>(stage.fill.op);
    walk(fill, fill.getBody()->getArguments(), fill.getNumLoops());
  }
}

/// Whether the stages of `chain` run exactly as a warp per row (the rules
/// at the top of this file).
bool exact(const RowChain &chain, AliasAnalysis &alias) {
  SmallVector<StageAccess> accesses;
  for (const RowStage &stage : chain.stages)
    collectAccesses(stage, accesses);
  size_t rows = chain.rows.size();
  llvm::SetVector<Value> roots;
  SmallVector<Value> written;
  for (const StageAccess &a : accesses) {
    if (!a.write)
      continue;
    bool kept;
    Value root = rootOf(a.memref, rows, kept);
    if (!root.getDefiningOp<memref::AllocOp>())
      return false;
    roots.insert(root);
    written.push_back(a.memref);
  }
  for (const StageAccess &a : accesses) {
    bool kept;
    Value root = rootOf(a.memref, rows, kept);
    if (!roots.contains(root)) {
      if (!readOnlyGlobal(a.memref) && llvm::any_of(written, [&](Value w) {
            return !alias.alias(a.memref, w).isNo();
          }))
        return false;
      continue;
    }
    // Its row only; a loop over the elements writes its own.
    if (!kept || a.indices.size() < rows ||
        !llvm::equal(a.indices.take_front(rows), a.rowIvs))
      return false;
    if (a.write && a.stage->kind == Kind::Elements &&
        !llvm::equal(a.indices, a.ownIvs))
      return false;
    // A stage's own writes: a loop over the elements' at its own indices,
    // and none that a reduction's lanes read.
    for (const StageAccess &w : accesses) {
      bool unused;
      if (!w.write || w.stage != a.stage || &w == &a ||
          rootOf(w.memref, rows, unused) != root)
        continue;
      if (a.stage->kind == Kind::Elements &&
          (a.memref != w.memref || !llvm::equal(a.indices, a.ownIvs) ||
           !llvm::equal(w.indices, w.ownIvs)))
        return false;
      if (a.stage->kind == Kind::Reduce && !a.write &&
          a.op != a.stage->sum->accLoad && a.stage->sum->loop->isAncestor(a.op))
        return false;
    }
  }
  return true;
}

/// Whether `op` is one of the chain's loops, or inside one.
bool inStages(const RowChain &chain, Operation *op) {
  return llvm::any_of(chain.stages, [&](const RowStage &stage) {
    return stage.last()->isAncestor(op) ||
           (stage.fill.op && stage.fill.op->isAncestor(op));
  });
}

/// The views of `root` and its frees, users after what they use.
SmallVector<Operation *> hostUsesOf(Value root) {
  SmallVector<Operation *> host;
  SmallVector<Value> worklist{root};
  while (!worklist.empty())
    for (Operation *user : worklist.pop_back_val().getUsers())
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
              memref::DeallocOp>(user)) {
        host.push_back(user);
        if (user->getNumResults() == 1)
          worklist.push_back(user->getResult(0));
      }
  return host;
}

/// Whether only views, frees and the chain's loads and stores use `root`.
bool onlyChainUses(const RowChain &chain, Value root) {
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    for (OpOperand &use : worklist.pop_back_val().getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
              user))
        worklist.push_back(user->getResult(0));
      else if (!isa<memref::DeallocOp>(user) &&
               !(isa<memref::LoadOp>(user) && inStages(chain, user)) &&
               !(isa<memref::StoreOp>(user) && use.getOperandNumber() == 1 &&
                 inStages(chain, user)))
        return false;
    }
  }
  return true;
}

/// The buffers that a stage of `chain` writes and only its stages touch,
/// while their rows fit in a block's shared memory.
SmallVector<Value> localBuffers(const RowChain &chain) {
  SmallVector<StageAccess> accesses;
  for (const RowStage &stage : chain.stages)
    collectAccesses(stage, accesses);
  llvm::SetVector<Value> written;
  for (const StageAccess &a : accesses) {
    bool kept;
    if (a.write)
      written.insert(rootOf(a.memref, chain.rows.size(), kept));
  }
  SmallVector<Value> local;
  int64_t bytes = 0;
  for (Value root : written) {
    auto alloc = root.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getNumOperands() != 0 || alloc.getAlignment() ||
        alloc->getBlock() != chain.stages.front().last()->getBlock())
      continue;
    Type element = alloc.getType().getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0 ||
        !onlyChainUses(chain, root))
      continue;
    int64_t more = sharedTypeOf(chain, root).getNumElements() *
                   (element.getIntOrFloatBitWidth() / 8);
    if (bytes + more > kChainSharedBytes)
      continue;
    bytes += more;
    local.push_back(root);
  }
  return local;
}

/// Whether moving the chain's host operations out of its way (`before`
/// ahead of its first stage, `after` behind its last) keeps the peak of
/// their block, its own buffers in shared memory.
bool keepsBlockPeak(const RowChain &chain) {
  Operation *first = chain.stages.front().first();
  Operation *last = chain.stages.back().last();
  SmallVector<Operation *> order = orderOf(first->getBlock());
  for (Operation *op : chain.before)
    moveBefore(order, op, first);
  // The deferred loops after the last stage, in their order, then the
  // frees.
  for (auto [loop, stagesBefore] : llvm::reverse(chain.later))
    moveAfter(order, loop, last);
  if (!chain.later.empty())
    last = chain.later.back().first;
  for (Operation *op : llvm::reverse(chain.after))
    moveAfter(order, op, last);
  SmallPtrSet<Operation *, 8> vanish;
  for (Value root : chain.local) {
    vanish.insert(root.getDefiningOp());
    for (Operation *op : hostUsesOf(root))
      if (isa<memref::DeallocOp>(op))
        vanish.insert(op);
  }
  return keepsPeak(first->getBlock(), order, &vanish);
}

/// The host operations from `from` on (forwards, or backwards) up to the
/// next stage, appended to `before` and `after`; returns that stage's
/// operation, or null.
Operation *skipHost(Operation *from, bool forwards,
                    SmallVector<Operation *> &before,
                    SmallVector<Operation *> &after) {
  Operation *op = from;
  for (; op && movable(op);
       op = forwards ? op->getNextNode() : op->getPrevNode())
    (isa<memref::DeallocOp>(op) ? after : before).push_back(op);
  return op;
}

/// Whether `a` and `b` (loop nests) touch a buffer that one of them writes,
/// or touch memory in ways that cannot be seen.
bool interferes(Operation *a, Operation *b, AliasAnalysis &alias) {
  std::optional<SmallVector<Access>> mine = accessesOf(a),
                                     theirs = accessesOf(b);
  return !mine || !theirs || shareWritten(*mine, *theirs, alias);
}

/// Whether `op`, a kernel's loop between the chain's stages that is not a
/// stage (a column sum between a layer norm's row sums), can run after the
/// chain's launch: a loop of host code without results whose body runs in
/// a thread.
bool deferrable(Operation *op) {
  auto loop = dyn_cast<scf::ParallelOp>(op);
  return loop && onHost(loop) && loop.getNumResults() == 0 &&
         llvm::all_of(loop.getBody()->without_terminator(), runsInThread);
}

/// Whether the loops that `chain` defers touch nothing that a later stage
/// writes, and write nothing that a later stage touches: they can run
/// after all of them.
bool deferredApart(const RowChain &chain, AliasAnalysis &alias) {
  for (auto [loop, stagesBefore] : chain.later)
    for (const RowStage &stage :
         ArrayRef<RowStage>(chain.stages).drop_front(stagesBefore))
      if (interferes(loop, stage.last(), alias) ||
          (stage.fill.op && interferes(loop, stage.fill.op, alias)))
        return true;
  return false;
}

/// Tries to add the stage at the chain's end (or start), with the host
/// operations between; going forwards, kernels' loops between that are
/// not stages are deferred past the launch where they can be. Returns
/// whether it did.
bool extend(RowChain &chain, bool forwards, AliasAnalysis &alias) {
  RowChain longer = chain;
  SmallVector<Operation *> before, after;
  std::optional<RowStage> stage;
  if (forwards) {
    Operation *from = chain.stages.back().last()->getNextNode();
    while (true) {
      Operation *op = skipHost(from, true, before, after);
      if (!op)
        return false;
      stage = stageAt(op, chain.rows, true, alias);
      if (stage)
        break;
      if (!deferrable(op))
        return false;
      longer.later.push_back({op, longer.stages.size()});
      from = op->getNextNode();
    }
    // A fill right before the reduction is the chain's last stage already.
    if (stage->fill.op) {
      if (stage->fill.op != chain.stages.back().last())
        return false;
      stage->fill = {};
    }
    longer.stages.push_back(*stage);
    longer.before.append(before);
    longer.after.append(after);
  } else {
    Operation *op = skipHost(chain.stages.front().first()->getPrevNode(), false,
                             before, after);
    if (!op)
      return false;
    stage = stageAt(op, chain.rows, false, alias);
    if (!stage || stage->kind == Kind::Reduce)
      return false;
    longer.stages.insert(longer.stages.begin(), *stage);
    longer.before.insert(longer.before.begin(), before.rbegin(), before.rend());
    longer.after.insert(longer.after.begin(), after.rbegin(), after.rend());
    for (auto &deferred : longer.later)
      ++deferred.second;
  }
  if (!exact(longer, alias) || deferredApart(longer, alias))
    return false;
  longer.local = localBuffers(longer);
  if (!keepsBlockPeak(longer))
    return false;
  chain = std::move(longer);
  return true;
}

} // namespace

/// Whether the loop over the rows' elements `loop` holds loops: the lanes
/// of a sum (each lane's share of its row), not an elementwise op.
static bool holdsLoops(scf::ParallelOp loop) {
  return !loop.getBody()->getOps<scf::ForOp>().empty();
}

std::optional<RowStage> tad::rowLanes(scf::ParallelOp loop) {
  if (!onHost(loop) || !llvm::all_of(loop.getUpperBound(), [](Value upper) {
        return getConstantIntValue(upper).has_value();
      }))
    return std::nullopt;
  SmallVector<int64_t> extents = extentsOf(loop);
  if (extents.size() < 2 || extents.back() > kWarpSize ||
      !overRows(loop, ArrayRef<int64_t>(extents).drop_back(), 1) ||
      !holdsLoops(loop))
    return std::nullopt;
  return RowStage{Kind::Elements, loop, std::nullopt, {}};
}

int64_t tad::reductionsOf(const RowChain &chain) {
  return llvm::count_if(chain.stages, [](const RowStage &stage) {
    return stage.kind == Kind::Reduce ||
           (stage.kind == Kind::Elements && holdsLoops(stage.loop));
  });
}

RowChain tad::chainAround(const RowStage &seed, AliasAnalysis &alias) {
  RowChain chain;
  chain.stages.push_back(seed);
  if (!seed.loop)
    return chain;
  chain.rows = extentsOf(seed.loop);
  if (seed.kind == Kind::Elements)
    chain.rows.pop_back();
  while (extend(chain, /*forwards=*/false, alias)) {
  }
  while (extend(chain, /*forwards=*/true, alias)) {
  }
  chain.local = localBuffers(chain);
  return chain;
}

int64_t tad::rowsPerBlock(const RowChain &chain) {
  int64_t rows = 1;
  for (int64_t extent : chain.rows)
    rows *= extent;
  return std::min(rows, kRowsPerBlock);
}

MemRefType tad::sharedTypeOf(const RowChain &chain, Value local) {
  auto type = cast<MemRefType>(local.getType());
  int64_t elements = 1;
  for (int64_t extent : type.getShape().drop_front(chain.rows.size()))
    elements *= extent;
  return MemRefType::get(
      {rowsPerBlock(chain), elements}, type.getElementType(),
      MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(type.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
}

/// The position of the element at `indices` of `memref` (a view that
/// keeps the first `rows` dimensions of its buffer) in its row: the views
/// are reshapes of contiguous buffers, which keep the elements' order.
static Value offsetInRow(OpBuilder &b, Location loc, Value memref,
                         ValueRange indices, size_t rows) {
  ArrayRef<int64_t> shape = cast<MemRefType>(memref.getType()).getShape();
  Value offset = arith::ConstantIndexOp::create(b, loc, 0);
  for (size_t d = rows; d < shape.size(); ++d) {
    Value extent = arith::ConstantIndexOp::create(b, loc, shape[d]);
    offset = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, offset, extent), indices[d]);
  }
  return offset;
}

void tad::useSharedMemory(const RowChain &chain, Operation *launch,
                          ValueRange shared, Value slot) {
  size_t rows = chain.rows.size();
  SmallVector<Operation *> accesses;
  launch->walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp>(op))
      accesses.push_back(op);
  });
  for (Operation *op : accesses) {
    bool load = isa<memref::LoadOp>(op);
    Value memref = load ? cast<memref::LoadOp>(op).getMemRef()
                        : cast<memref::StoreOp>(op).getMemRef();
    bool kept;
    const Value *local = llvm::find(chain.local, rootOf(memref, rows, kept));
    if (local == chain.local.end())
      continue;
    Value buffer = shared[local - chain.local.begin()];
    OpBuilder b(op);
    ValueRange indices = load ? cast<memref::LoadOp>(op).getIndices()
                              : cast<memref::StoreOp>(op).getIndices();
    Value offset = offsetInRow(b, op->getLoc(), memref, indices, rows);
    if (load) {
      op->getResult(0).replaceAllUsesWith(memref::LoadOp::create(
          b, op->getLoc(), buffer, ValueRange{slot, offset}));
    } else {
      memref::StoreOp::create(b, op->getLoc(),
                              cast<memref::StoreOp>(op).getValueToStore(),
                              buffer, ValueRange{slot, offset});
    }
    op->erase();
  }
}

void tad::eraseLocalBuffers(const RowChain &chain) {
  for (Value root : chain.local) {
    // Users before the views they use.
    for (Operation *op : llvm::reverse(hostUsesOf(root)))
      op->erase();
    root.getDefiningOp()->erase();
  }
}
