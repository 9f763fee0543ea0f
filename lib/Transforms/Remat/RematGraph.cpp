//===- RematGraph.cpp - the remat problem of a function -------------------===//

#include "RematGraph.h"

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tad;

int64_t tad::getByteSize(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  Type element = tensor.getElementType();
  int64_t bits = element.isIntOrIndexOrFloat()
                     ? (element.isIndex() ? 64 : element.getIntOrFloatBitWidth())
                     : 64;
  // i1 is stored in a byte.
  return tensor.getNumElements() * std::max<int64_t>(1, bits / 8);
}

static double elementsOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? double(tensor.getNumElements())
                                           : 1;
}

/// Ops that the CPU lowering turns into an all-parallel linalg.generic,
/// which linalg-fuse-elementwise-ops fuses into a generic user.
static bool isFusableElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() ||
         isa<BroadcastOp, TransposeOp, CastOp, StopGradientOp>(op);
}

/// Ops whose lowering reads their input in one linalg.generic, into which
/// a single-use elementwise producer fuses.
static bool fusesProducers(Operation *op) {
  return isFusableElementwise(op) ||
         isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op);
}

/// The tensor an update or insert_slice writes into.
static Value destinationOf(Operation *op) {
  if (auto update = dyn_cast<UpdateOp>(op))
    return update.getOperand();
  if (auto insert = dyn_cast<InsertSliceOp>(op))
    return insert.getDest();
  return {};
}

/// Whether `a` and `b` lie in different regions of one scf.if or
/// scf.index_switch, so that at most one of them runs.
static bool inExclusiveBranches(Operation *a, Operation *b) {
  for (Region *ra = a->getParentRegion(); ra; ra = ra->getParentRegion()) {
    Operation *parent = ra->getParentOp();
    if (!isa<scf::IfOp, scf::IndexSwitchOp>(parent))
      continue;
    Region *rb = b->getParentRegion();
    while (rb && rb->getParentOp() != parent)
      rb = rb->getParentRegion();
    if (rb && rb != ra)
      return true;
  }
  return false;
}

/// An update or insert_slice that bufferization performs in place: its
/// destination is read by nothing after it, and is a loop's carried value
/// or a buffer of this block (not a constant, which is read-only, nor a
/// function argument, which belongs to the caller).
static bool isInPlaceUpdate(Operation *op) {
  Value dest = destinationOf(op);
  if (!dest)
    return false;
  // Other readers may only be slices read before the update (the read of
  // the old row in `update(take(acc, i) + g into acc at i)`), or readers in
  // another branch of a switch or an if, which never run with it.
  for (Operation *user : dest.getUsers()) {
    if (user == op || inExclusiveBranches(user, op))
      continue;
    if (!isa<TakeOp, SliceOp>(user) || user->getBlock() != op->getBlock() ||
        !user->isBeforeInBlock(op))
      return false;
    for (Operation *reader : user->getResult(0).getUsers())
      if (reader->getBlock() != op->getBlock() || !reader->isBeforeInBlock(op))
        return false;
  }
  if (auto arg = dyn_cast<BlockArgument>(dest))
    return isa<scf::ForOp>(arg.getOwner()->getParentOp());
  Operation *producer = dest.getDefiningOp();
  return producer && producer->getBlock() == op->getBlock() &&
         !producer->hasTrait<OpTrait::ConstantLike>();
}

/// Ops whose result is a view of their first operand's buffer (or, for an
/// in-place update, of its destination's).
static bool isView(Operation *op) {
  return isa<ReshapeOp, TakeOp, SliceOp>(op) || isInPlaceUpdate(op);
}

static Value viewedValue(Operation *op) {
  return isInPlaceUpdate(op) ? destinationOf(op) : op->getOperand(0);
}

/// The bytes of the element type a sum of `element` accumulates in, or 0
/// when it accumulates in place.
static int64_t wideBytes(Type element) {
  if (element.isF32())
    return 8;
  if (element.isF16() || element.isBF16())
    return 4;
  return 0;
}

/// The buffers an op's lowering allocates besides its result, as bounds of
/// what is live at once: a sum's wide accumulator; softmax's exponentials
/// (full size) and its max and sum along the axis; logsumexp's max and sum.
static int64_t transientBytes(Operation *op) {
  if (isa<ReduceSumOp, ReduceMeanOp>(op)) {
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    return result.getNumElements() * wideBytes(result.getElementType());
  }
  int64_t axis;
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    axis = static_cast<int64_t>(softmax.getAxis());
  else if (auto lse = dyn_cast<LogSumExpOp>(op))
    axis = static_cast<int64_t>(lse.getAxis());
  else
    return 0;
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  Type element = input.getElementType();
  int64_t elementBytes = getByteSize(RankedTensorType::get({}, element));
  int64_t reduced = input.getNumElements() / input.getDimSize(axis);
  int64_t alongAxis =
      reduced * (2 * elementBytes + wideBytes(element));
  return alongAxis + (isa<SoftmaxOp>(op) ? getByteSize(input) : 0);
}

double tad::estimateCost(Operation *op) {
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    return 2 * elementsOf(matmul.getType()) *
           double(lhs.getShape().back());
  }
  if (isView(op) || op->hasTrait<OpTrait::ConstantLike>())
    return 0;
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    double body = 0;
    for (Operation &inner : loop.getBody()->without_terminator())
      body += estimateCost(&inner);
    APInt lb, ub, step;
    double trips = 1;
    if (matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) &&
        matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) &&
        matchPattern(loop.getStep(), m_ConstantInt(&step)) &&
        step.getSExtValue() > 0)
      trips = double(std::max<int64_t>(
          0, (ub.getSExtValue() - lb.getSExtValue() + step.getSExtValue() -
              1) / step.getSExtValue()));
    return trips * body;
  }
  if (op->getNumRegions() > 0) {
    double most = 0;
    for (Region &region : op->getRegions()) {
      double sum = 0;
      region.walk([&](Operation *inner) {
        if (inner->getNumRegions() == 0)
          sum += estimateCost(inner);
      });
      most = std::max(most, sum);
    }
    return most;
  }
  double elements = 0;
  for (Value operand : op->getOperands())
    elements = std::max(elements, elementsOf(operand.getType()));
  for (Type type : op->getResultTypes())
    elements = std::max(elements, elementsOf(type));
  if (isa<SoftmaxOp, LogSumExpOp>(op))
    return 3 * elements;
  return elements;
}

std::string tad::describeLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return describeLocation(name.getChildLoc());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
            ":" + Twine(file.getColumn()))
        .str();
  if (auto site = dyn_cast<CallSiteLoc>(loc)) {
    std::string callee = describeLocation(site.getCallee());
    std::string caller = describeLocation(site.getCaller());
    return caller.empty() ? callee : callee + " called at " + caller;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string text = describeLocation(inner); !text.empty())
        return text;
  return "";
}

static std::string describe(Operation *op) {
  std::string where = describeLocation(op->getLoc());
  return op->getName().getStringRef().str() +
         (where.empty() ? "" : " at " + where);
}

RematProblem tad::buildRematProblem(func::FuncOp func,
                                    const RematGraphOptions &options) {
  return buildRematProblem(func.getBody().front(), options);
}

/// The store-all peak of a block (its values freed after their last use),
/// or 0 when it nests too deep to matter.
static int64_t peakOfBlock(Block &block, const RematGraphOptions &options,
                           int depth) {
  if (depth > 8 || !block.mightHaveTerminator())
    return 0;
  RematProblem inner = buildRematProblem(block, options, depth + 1);
  return remat::simulate(inner.graph, remat::storeAllSchedule(inner.graph))
      .peak;
}

/// The bytes an op with regions or a call allocates while it runs, beyond
/// its results: the peak of its body (of the larger branch; of one loop
/// iteration, whose carried values are the op's results), or of the callee.
static int64_t nestedBytes(Operation *op, const RematGraphOptions &options,
                           int depth) {
  int64_t peak = 0;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      peak = std::max(peak, peakOfBlock(block, options, depth));
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, call.getCalleeAttr());
    if (callee && !callee.isDeclaration()) {
      int64_t results = 0;
      for (Type type : call.getResultTypes())
        results += getByteSize(type);
      peak = std::max<int64_t>(
          0, peakOfBlock(callee.getBody().front(), options, depth) - results);
    }
  }
  return peak;
}


static Value bufferSourceWithin(Value v, Region &region);

/// Whether `v` is defined in `region` (by an op or as a block argument of
/// one of its blocks, nested or not).
static bool isDefinedIn(Value v, Region &region) {
  Operation *producer = v.getDefiningOp();
  return region.isAncestor(producer
                               ? producer->getParentRegion()
                               : cast<BlockArgument>(v).getOwner()->getParent());
}

/// The value defined outside an scf.if or scf.index_switch whose buffer
/// every branch yields as result `i` (directly, through views or in-place
/// updates); null when some branch yields a buffer of its own.
static Value passedThroughBranches(Operation *op, unsigned i) {
  Value common;
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    Value v = bufferSourceWithin(region.front().getTerminator()->getOperand(i),
                                 region);
    if (isDefinedIn(v, region) || (common && common != v))
      return {};
    common = v;
  }
  return common;
}

/// The value whose buffer `v` is, following views, in-place updates and
/// branches that pass a buffer through, defined inside `region`.
static Value bufferSourceWithin(Value v, Region &region) {
  while (Operation *producer = v.getDefiningOp()) {
    if (!region.isAncestor(producer->getParentRegion()))
      break;
    if (isView(producer)) {
      v = viewedValue(producer);
      continue;
    }
    Value through;
    if (isa<scf::IfOp, scf::IndexSwitchOp>(producer))
      through = passedThroughBranches(producer,
                                      cast<OpResult>(v).getResultNumber());
    if (!through)
      break;
    v = through;
  }
  return v;
}

/// Whether result `i` of an scf.if or scf.index_switch is a buffer that
/// some branch allocates: not one that every branch yields from outside
/// it, directly or through views and in-place updates.
static bool isFreshBranchResult(Operation *op, unsigned i) {
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    Value v = bufferSourceWithin(region.front().getTerminator()->getOperand(i),
                                 region);
    if (isDefinedIn(v, region))
      return true;
  }
  return false;
}

/// The bytes of the results of an scf.if or scf.index_switch that some
/// branch allocates.
static int64_t freshBranchResultBytes(Operation *op) {
  int64_t bytes = 0;
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    if (isFreshBranchResult(op, i))
      bytes += getByteSize(op->getResult(i).getType());
  return bytes;
}

/// Whether `loop` updates carried value `i` in place (the yielded value is
/// the iter_arg, through views, in-place updates and branches that pass it
/// through), so that the loop's result is the buffer of its initial value.
static bool isCarriedInPlace(scf::ForOp loop, unsigned i) {
  Value yielded = loop.getBody()->getTerminator()->getOperand(i);
  return bufferSourceWithin(yielded, loop.getRegion()) ==
         loop.getRegionIterArg(i);
}

/// Whether bufferization copies the initial value of carried value `i`
/// before `loop`. It does when the loop may write the buffer and the
/// original must survive: a constant (a read-only global), a view (whose
/// layout also differs from the buffers the body yields), or a value that
/// the loop's body or something after the loop still reads.
static bool copiesLoopInit(scf::ForOp loop, unsigned i) {
  Value init = loop.getInitArgs()[i];
  Operation *producer = init.getDefiningOp();
  if (producer && (producer->hasTrait<OpTrait::ConstantLike>() ||
                   isa<ReshapeOp, TakeOp, SliceOp>(producer)))
    return true;
  // A value passed as two initial values is copied for the second.
  if (llvm::is_contained(loop.getInitArgs().take_front(i), init))
    return true;
  Block *block = loop->getBlock();
  return llvm::any_of(init.getUsers(), [&](Operation *user) {
    if (user != loop && loop->isAncestor(user))
      return true;
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    return inBlock && loop->isBeforeInBlock(inBlock);
  });
}

/// Whether carried value `i` of `loop` is updated in place in the buffer of
/// an initial value that the block computed, which is then the loop's
/// result too.
static bool isCarriedInBlockValue(scf::ForOp loop, unsigned i) {
  Operation *producer = loop.getInitArgs()[i].getDefiningOp();
  return producer && isCarriedInPlace(loop, i) && !copiesLoopInit(loop, i);
}

/// Whether carried value `i` of `loop` is updated in place in the copy of
/// a constant of the loop's block (a tape, an accumulator). That buffer is
/// allocated before the loop, and freed after the last reader of the
/// loop's result like any buffer of the block: the graph gives it a node
/// of its own instead of counting it with the loop.
static bool isCarriedInConstantCopy(scf::ForOp loop, unsigned i) {
  Operation *producer = loop.getInitArgs()[i].getDefiningOp();
  return producer && producer->hasTrait<OpTrait::ConstantLike>() &&
         producer->getBlock() == loop->getBlock() && isCarriedInPlace(loop, i);
}

/// The bytes of a loop's results that are buffers of their own: not those
/// updated in place in a value the block computed or in a constant's copy.
static int64_t loopResultBytes(scf::ForOp loop) {
  int64_t bytes = 0;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    if (!isCarriedInBlockValue(loop, i) && !isCarriedInConstantCopy(loop, i))
      bytes += getByteSize(loop.getResult(i).getType());
  return bytes;
}

/// The bytes of the copies of a loop's initial values that are not the
/// loop's results: those of the carried values it replaces each iteration.
/// Ownership-based deallocation frees them only at the end of the block.
static int64_t loopInitCopyBytes(scf::ForOp loop) {
  int64_t bytes = 0;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    if (!isCarriedInPlace(loop, i) && copiesLoopInit(loop, i))
      bytes += getByteSize(loop.getInitArgs()[i].getType());
  return bytes;
}

/// The peak of one iteration of a revolve dispatcher (AutoDiff.cpp's
/// reverseRevolve), replayed action by action: a loop over a constant
/// table of actions whose body is one scf.index_switch on the action, and
/// ops without bytes. The generic model counts every carried value's
/// previous buffer in every iteration, with the largest case; here a
/// carried value has a buffer of its own only after a case that allocated
/// it, and keeps it while later cases pass it through (a restore yields a
/// view of the snapshot tape instead). Returns the largest, over the
/// iterations, of the previous buffers plus the case's peak, or nothing
/// when `loop` is not such a dispatcher or its body, whose peak is
/// `bodyPeak`, holds more than the switch's cases.
static std::optional<int64_t> dispatcherPeak(scf::ForOp loop,
                                             const RematGraphOptions &options,
                                             int depth, int64_t bodyPeak) {
  Block *body = loop.getBody();
  scf::IndexSwitchOp sw;
  for (Operation &op : body->without_terminator()) {
    if (auto candidate = dyn_cast<scf::IndexSwitchOp>(op)) {
      if (sw)
        return std::nullopt;
      sw = candidate;
      continue;
    }
    if (op.getNumRegions() != 0 ||
        llvm::any_of(op.getResultTypes(),
                     [](Type type) { return getByteSize(type) > 0; }))
      return std::nullopt;
  }
  if (!sw || body->getTerminator()->getOperands() != sw.getResults())
    return std::nullopt;
  auto extract = sw.getArg().getDefiningOp<tensor::ExtractOp>();
  DenseIntElementsAttr table;
  if (!extract || extract.getIndices().size() != 1 ||
      extract.getIndices()[0] != loop.getInductionVar() ||
      !matchPattern(extract.getTensor(), m_Constant(&table)))
    return std::nullopt;
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()),
                         upper = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *lower != 0 || *step != 1 ||
      *upper > table.getNumElements())
    return std::nullopt;

  // Per case (the default region last): its peak, and per carried value
  // whether it allocates it or passes the previous one through.
  unsigned n = loop.getNumRegionIterArgs();
  SmallVector<Region *> regions;
  for (Region &region : sw.getCaseRegions())
    regions.push_back(&region);
  regions.push_back(&sw.getDefaultRegion());
  SmallVector<int64_t> peaks;
  SmallVector<SmallVector<char>> fresh, through;
  int64_t largest = 0;
  for (Region *region : regions) {
    peaks.push_back(
        region->empty() ? 0 : peakOfBlock(region->front(), options, depth + 1));
    largest = std::max(largest, peaks.back());
    fresh.emplace_back(n, 0);
    through.emplace_back(n, 0);
    if (region->empty())
      continue;
    for (unsigned j = 0; j < n; ++j) {
      Value v = bufferSourceWithin(
          region->front().getTerminator()->getOperand(j), *region);
      fresh.back()[j] = isDefinedIn(v, *region);
      through.back()[j] = v == loop.getRegionIterArg(j);
    }
  }
  // The switch is all the body holds: otherwise the generic model stands.
  if (bodyPeak != largest)
    return std::nullopt;

  // An initial value that the loop's block computed is a node of that
  // block, counted there; any other (an argument of an enclosing body) is
  // counted as the loop's own, as the generic model does.
  // The carried values whose buffers the loop replaces (loopResultBytes)
  // are the ones counted.
  SmallVector<char> own(n, 0);
  SmallVector<int64_t> bytes(n, 0);
  for (unsigned j = 0; j < n; ++j) {
    Operation *producer = loop.getInitArgs()[j].getDefiningOp();
    own[j] = !producer || producer->getBlock() != loop->getBlock();
    if (!isCarriedInBlockValue(loop, j) && !isCarriedInConstantCopy(loop, j))
      bytes[j] = getByteSize(loop.getResult(j).getType());
  }
  int64_t peak = 0;
  ArrayRef<int64_t> cases = sw.getCases();
  auto values = table.getValues<APInt>();
  for (int64_t k = 0; k < *upper; ++k) {
    int64_t action = values[k].getSExtValue();
    size_t c = llvm::find(cases, action) - cases.begin(); // default: last
    int64_t previous = 0;
    for (unsigned j = 0; j < n; ++j)
      previous += own[j] ? bytes[j] : 0;
    peak = std::max(peak, previous + peaks[c]);
    for (unsigned j = 0; j < n; ++j)
      own[j] = fresh[c][j] || (through[c][j] && own[j]);
  }
  return peak;
}

/// The group into which `op`'s result fuses: the one group that all its
/// users belong to, when they all fuse producers; -1 otherwise.
static int fusingGroup(Operation *op, Block &body,
                       const DenseMap<Operation *, int> &groupOf) {
  if (op->getNumResults() != 1 || op->getResult(0).use_empty())
    return -1;
  int group = -1;
  for (Operation *user : op->getResult(0).getUsers()) {
    auto it = groupOf.find(user);
    if (user->getBlock() != &body || it == groupOf.end() ||
        !fusesProducers(user) || (group >= 0 && group != it->second))
      return -1;
    group = it->second;
  }
  return group;
}

/// Whether `op` is a sum that accumulates in a wider type: its result is
/// rounded from the wide buffer by an elementwise op, which can fuse.
static bool isWideSum(Operation *op) {
  return isa<ReduceSumOp, ReduceMeanOp>(op) &&
         wideBytes(cast<RankedTensorType>(op->getResult(0).getType())
                       .getElementType()) > 0;
}

/// What an op whose last elementwise step fused into its users leaves
/// resident instead of its result: a wide sum's accumulator; softmax's
/// exponentials and their sum; logsumexp's sum and max.
static int64_t fusedResultBytes(Operation *op) {
  if (isWideSum(op)) {
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    return result.getNumElements() * wideBytes(result.getElementType());
  }
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t axis = isa<SoftmaxOp>(op)
                     ? static_cast<int64_t>(cast<SoftmaxOp>(op).getAxis())
                     : static_cast<int64_t>(cast<LogSumExpOp>(op).getAxis());
  int64_t elementBytes =
      getByteSize(RankedTensorType::get({}, input.getElementType()));
  int64_t reduced = input.getNumElements() / input.getDimSize(axis);
  return isa<SoftmaxOp>(op) ? getByteSize(input) + reduced * elementBytes
                            : 2 * reduced * elementBytes;
}

/// Whether each iteration of `loop` copies the buffer it yields as carried
/// value `i`: one that is neither that carried value nor allocated by the
/// iteration (another carried value, a value from outside the loop), since
/// each carried value needs a buffer of its own.
static bool copiesYield(scf::ForOp loop, unsigned i) {
  Value yielded = bufferSourceWithin(
      loop.getBody()->getTerminator()->getOperand(i), loop.getRegion());
  if (yielded == loop.getRegionIterArg(i))
    return false;
  Operation *producer = yielded.getDefiningOp();
  return !producer || !loop.getRegion().isAncestor(producer->getParentRegion()) ||
         producer->hasTrait<OpTrait::ConstantLike>();
}

/// Whether bufferization gives `value`'s buffer a fully dynamic layout: a
/// result that a branch allocates (scf.if and scf.index_switch results get
/// one), and a loop's carried value that the loop replaces by such a
/// result.
static bool hasDynamicLayout(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return false;
  Operation *producer = result.getOwner();
  if (isa<scf::IfOp, scf::IndexSwitchOp>(producer))
    return isFreshBranchResult(producer, result.getResultNumber());
  auto loop = dyn_cast<scf::ForOp>(producer);
  unsigned i = result.getResultNumber();
  return loop && !isCarriedInPlace(loop, i) &&
         hasDynamicLayout(loop.getBody()->getTerminator()->getOperand(i));
}

/// Whether returning `value` from a function returns a copy: an argument
/// or a constant (docs/memory.md), or a buffer of dynamic layout, since a
/// function result has the identity layout.
static bool returnsCopy(Value value) {
  Operation *producer = value.getDefiningOp();
  if (!producer)
    return true;
  if (producer->hasTrait<OpTrait::ConstantLike>())
    return true;
  return hasDynamicLayout(value);
}

/// The bytes that the lowering of a block's final deallocation allocates
/// while everything resident at the block's end is: when some buffers are
/// owned by a runtime flag, it checks them against the retained ones
/// (the yielded or returned values) in `dealloc_helper`, through arrays of
/// an index and two i1 per checked buffer and an index and an i1 per
/// retained one.
static int64_t deallocHelperBytes(int64_t checked, int64_t retained) {
  if (checked == 0)
    return 0;
  return checked * (8 + 1 + 1) + retained * (8 + 1);
}

/// Whether a branch of `block` yields, as one result, a constant on one
/// side (a global buffer, which nothing frees) and a buffer it allocates
/// on another (a constant's zeros against a computed adjoint).
static bool hasMixedBranchResult(Block &block) {
  for (Operation &op : block.without_terminator()) {
    if (!isa<scf::IfOp, scf::IndexSwitchOp>(op))
      continue;
    for (unsigned i = 0; i < op.getNumResults(); ++i)
      if (isFreshBranchResult(&op, i) &&
          llvm::any_of(op.getRegions(), [&](Region &region) {
            if (region.empty())
              return false;
            Value v = bufferSourceWithin(
                region.front().getTerminator()->getOperand(i), region);
            Operation *producer = v.getDefiningOp();
            return producer && producer->hasTrait<OpTrait::ConstantLike>();
          }))
        return true;
  }
  return false;
}

/// The bytes that the end of a function with loops allocates beyond what
/// is resident there. Ownership-based deallocation first frees, each by its
/// own flag, the loop results whose initial value was an argument (so that
/// they cannot alias the function's buffers). The buffers that a loop may
/// have handed back (copies of initial values, values of the block passed
/// in, results that replaced them) it then checks against the returned
/// loop results in `dealloc_helper`.
static int64_t finalDeallocBytes(Block &body) {
  int64_t checked = 0, freedFirst = 0;
  for (Operation &op : body.without_terminator()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      continue;
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
      if (isCarriedInPlace(loop, i)) {
        checked += isCarriedInBlockValue(loop, i);
        continue;
      }
      Operation *producer = loop.getInitArgs()[i].getDefiningOp();
      bool copied = copiesLoopInit(loop, i);
      bool owned = copied || (producer && producer->getBlock() == &body);
      checked += copied + owned;
      if (!owned)
        freedFirst += getByteSize(loop.getResult(i).getType());
    }
  }
  int64_t retained = llvm::count_if(
      body.getTerminator()->getOperands(), [](Value v) {
        auto loop = v.getDefiningOp<scf::ForOp>();
        return loop && !returnsCopy(v) &&
               !isCarriedInPlace(loop, cast<OpResult>(v).getResultNumber());
      });
  return std::max<int64_t>(
      0, deallocHelperBytes(checked, retained) - freedFirst);
}

/// When a branch's result has mixed ownership, ownership-based
/// deallocation cannot separate the block's buffers from what the block
/// yields: it frees them all at the block's end, after checking them in
/// `dealloc_helper` against the yielded values (observed in loop bodies
/// whose branch yields a constant's zeros on one side). Every buffer of the
/// block stays resident to the sink, whose transient bytes are the
/// helper's arrays: one entry per buffer of the block that is not yielded
/// (and per previous carried value of a loop's body), one per yielded one.
template <typename KeepToEnd>
static void keepBlockBuffersToEnd(RematProblem &problem, KeepToEnd keepToEnd) {
  int sink = problem.sink;
  Operation *terminator = problem.groups[sink].back();
  llvm::SmallDenseSet<int, 8> yielded;
  for (Value v : terminator->getOperands())
    if (auto it = problem.nodeOf.find(v); it != problem.nodeOf.end())
      yielded.insert(it->second);
  int64_t checked = 0;
  for (int v = 0; v < sink; ++v) {
    if (problem.graph.nodes[v].bytes == 0 || problem.viewOf[v] >= 0)
      continue;
    keepToEnd(v, "a branch of its block has a result of mixed ownership, so "
                 "it lives to the end of the block");
    Operation *root = problem.groups[v].back();
    if (isa<scf::IfOp, scf::IndexSwitchOp>(root)) {
      for (unsigned i = 0; i < root->getNumResults(); ++i)
        checked += isFreshBranchResult(root, i) &&
                   !llvm::is_contained(terminator->getOperands(),
                                       root->getResult(i));
    } else if (!yielded.contains(v)) {
      ++checked;
    }
  }
  if (auto loop = dyn_cast<scf::ForOp>(terminator->getParentOp()))
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
      checked += !isCarriedInPlace(loop, i);
  int64_t retained = llvm::count_if(terminator->getOperands(), [](Value v) {
    return getByteSize(v.getType()) > 0;
  });
  problem.graph.nodes[sink].transient +=
      deallocHelperBytes(checked, retained);
}

RematProblem tad::buildRematProblem(Block &body,
                                    const RematGraphOptions &options,
                                    int depth) {
  RematProblem problem;
  Operation *terminator = body.getTerminator();

  // Groups, from the last op up: a fused producer joins its user's group.
  DenseMap<Operation *, int> groupOf;
  llvm::SmallPtrSet<Operation *, 4> fusedResult;
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  std::vector<SmallVector<Operation *>> reversedGroups;
  // Each loop result that is a constant's copy, and that copy's group.
  SmallVector<std::pair<Value, int>> constantCopies;
  for (Operation *op : llvm::reverse(ops)) {
    if (op->hasTrait<OpTrait::ConstantLike>() && op->getNumOperands() == 0) {
      problem.constants.push_back(op);
      continue;
    }
    // A producer whose users all fuse it and belong to one group is fused
    // into that group (fusion deduplicates the group's operands, so several
    // uses inside one group count as one).
    int group = fusingGroup(op, body, groupOf);
    if (group >= 0 && isFusableElementwise(op)) {
      groupOf[op] = group;
      reversedGroups[group].push_back(op);
      continue;
    }
    // Softmax, logsumexp and wide sums end in an elementwise op, which fuses
    // into the users the same way: their result then never has a buffer,
    // and what that op reads lives until the users run instead.
    if (group >= 0 && (isa<SoftmaxOp, LogSumExpOp>(op) || isWideSum(op)))
      fusedResult.insert(op);
    groupOf[op] = int(reversedGroups.size());
    reversedGroups.push_back({op});
    // The copies of constants that a loop updates in place come just
    // before it, as the groups of those constants (the constants
    // themselves stay where they are).
    if (auto loop = dyn_cast<scf::ForOp>(op))
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
        if (isCarriedInConstantCopy(loop, i)) {
          constantCopies.push_back(
              {loop.getResult(i), int(reversedGroups.size())});
          reversedGroups.push_back({loop.getInitArgs()[i].getDefiningOp()});
        }
  }
  std::reverse(problem.constants.begin(), problem.constants.end());

  // Nodes in block order of their roots (a topological order: every input
  // of a group is defined before the group's root).
  int n = int(reversedGroups.size());
  std::vector<int> nodeOfGroup(n);
  for (int g = 0; g < n; ++g)
    nodeOfGroup[g] = n - 1 - g;
  problem.groups.resize(n);
  problem.pinnedBecause.assign(n + 1, "");
  problem.viewOf.assign(n + 1, -1);
  problem.graph.nodes.resize(n);
  for (int g = 0; g < n; ++g) {
    int v = nodeOfGroup[g];
    auto &group = problem.groups[v];
    group.assign(reversedGroups[g].rbegin(), reversedGroups[g].rend());
    Operation *root = group.back();
    remat::Node &node = problem.graph.nodes[v];
    node.name = "v" + std::to_string(v) + " " + describe(root);
    if (root->hasTrait<OpTrait::ConstantLike>()) {
      // A constant's copy that a loop updates in place.
      node.bytes = getByteSize(root->getResult(0).getType());
      node.recomputable = false;
      problem.pinnedBecause[v] = "a loop updates this copy of a constant in "
                                 "place";
      continue;
    }
    for (Operation *op : group) {
      node.cost += estimateCost(op);
      // A wide sum whose rounding fused keeps its accumulator as its value.
      bool accumulatorIsValue = fusedResult.contains(op) && isWideSum(op);
      node.transient += (accumulatorIsValue ? 0 : transientBytes(op)) +
                        nestedBytes(op, options, depth);
      if (!isMemoryEffectFree(op)) {
        node.recomputable = false;
        problem.pinnedBecause[v] =
            isa<func::CallOp>(op)
                ? "calls are not recomputed, and their results live to the "
                  "end of the function"
                : "it has effects and cannot be recomputed";
      }
    }
    if (options.saveMatmuls && isa<MatmulOp>(root)) {
      node.recomputable = false;
      problem.pinnedBecause[v] = "the policy saves matmuls";
    }
    if (fusedResult.contains(root)) {
      node.bytes = fusedResultBytes(root);
    } else if (isa<scf::IfOp, scf::IndexSwitchOp>(root)) {
      // The larger branch's peak already holds the results it yields.
      node.bytes = freshBranchResultBytes(root);
      node.transient = std::max<int64_t>(0, node.transient - node.bytes);
    } else if (auto loop = dyn_cast<scf::ForOp>(root)) {
      // The body's peak holds an iteration's new carried values; the
      // node's bytes are the previous ones, freed only at the end of the
      // iteration, and the copies of the initial values.
      node.bytes = loopResultBytes(loop) + loopInitCopyBytes(loop);
      // A revolve dispatcher is replayed action by action instead.
      // (The node's transient bytes so far are its body's peak.)
      if (std::optional<int64_t> peak =
              dispatcherPeak(loop, options, depth, node.transient))
        node.transient =
            std::max<int64_t>(0, loopInitCopyBytes(loop) + *peak - node.bytes);
    } else if (!isView(root)) {
      for (Type type : root->getResultTypes())
        node.bytes += getByteSize(type);
    }
    for (Value result : root->getResults())
      problem.nodeOf[result] = v;
  }

  // A loop result updated in place in a constant's copy is that copy; its
  // readers read the loop too, which fills it.
  DenseMap<Value, int> filledBy;
  for (auto [result, group] : constantCopies) {
    filledBy[result] = problem.nodeOf.lookup(result);
    problem.nodeOf[result] = nodeOfGroup[group];
  }

  // Edges: the values a group reads from other nodes, including those that
  // its regions capture, and through views, the buffers they view.
  auto addEdge = [&](int u, int v) {
    auto &inputs = problem.graph.nodes[v].inputs;
    if (u != v && std::find(inputs.begin(), inputs.end(), u) == inputs.end())
      problem.graph.addEdge(u, v);
  };
  auto addInput = [&](int v, Value value) {
    auto it = problem.nodeOf.find(value);
    if (it == problem.nodeOf.end())
      return; // an argument or a constant
    for (int u = it->second; u >= 0; u = problem.viewOf[u])
      addEdge(u, v);
    if (auto loop = filledBy.find(value); loop != filledBy.end())
      addEdge(loop->second, v);
  };
  for (int v = 0; v < n; ++v) {
    llvm::SetVector<Value> read;
    for (Operation *op : problem.groups[v]) {
      for (Value operand : op->getOperands())
        read.insert(operand);
      getUsedValuesDefinedAbove(op->getRegions(), read);
    }
    Operation *root = problem.groups[v].back();
    if (isView(root)) {
      auto it = problem.nodeOf.find(viewedValue(root));
      if (it != problem.nodeOf.end())
        problem.viewOf[v] = it->second;
    }
    for (Value value : read)
      addInput(v, value);
    if (auto loop = dyn_cast<scf::ForOp>(root))
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
        if (isCarriedInConstantCopy(loop, i))
          addInput(v, loop.getResult(i));
  }

  // The sink reads the results. Returning an argument or a constant
  // returns a copy (docs/memory.md): the sink allocates those.
  problem.sink = n;
  problem.graph.nodes.push_back({"return", 0, 0, {}, {}});
  problem.groups.push_back({terminator});
  for (Value value : terminator->getOperands()) {
    addInput(n, value);
    if (isa<func::ReturnOp>(terminator) && returnsCopy(value))
      problem.graph.nodes[n].bytes += getByteSize(value.getType());
  }
  if (auto loop = dyn_cast<scf::ForOp>(body.getParentOp()))
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
      if (copiesYield(loop, i))
        problem.graph.nodes[n].bytes +=
            getByteSize(loop.getRegionIterArgs()[i].getType());
  // Ownership-based deallocation cannot tell whether a call's results alias
  // its operands or what the caller returns, and frees both only at the end
  // of the caller: they stay resident to the sink, and recomputing them
  // would only add a copy.
  static constexpr const char *kCallReason =
      "a call reads it, so it lives to the end of the function";
  static constexpr const char *kRegionReason =
      "a loop or branch allocates it or carries it, so it lives to the end "
      "of its block";
  auto keepToEnd = [&](int v, const char *reason) {
    problem.graph.nodes[v].recomputable = false;
    if (problem.pinnedBecause[v].empty())
      problem.pinnedBecause[v] = reason;
    if (!llvm::is_contained(problem.graph.nodes[n].inputs, v))
      problem.graph.addEdge(v, n);
  };
  if (isa<func::ReturnOp>(terminator))
    problem.graph.nodes[n].transient = finalDeallocBytes(body);

  for (int v = 0; v < n; ++v)
    if (isa<func::CallOp>(problem.groups[v].back())) {
      keepToEnd(v, kCallReason);
      for (int input : std::vector<int>(problem.graph.nodes[v].inputs))
        keepToEnd(input, kCallReason);
    }
  // The same holds for the buffers that a loop or a branch allocates for
  // its results, and for the initial values of a loop's carried values
  // that it replaces: ownership passes through the region's results as a
  // runtime flag, and the conditional frees sit at the end of the block.
  for (int v = 0; v < n; ++v) {
    Operation *root = problem.groups[v].back();
    if (isa<scf::IfOp, scf::IndexSwitchOp>(root) &&
        problem.graph.nodes[v].bytes > 0)
      keepToEnd(v, kRegionReason);
    auto loop = dyn_cast<scf::ForOp>(root);
    if (!loop || loop.getNumResults() == 0)
      continue;
    keepToEnd(v, kRegionReason);
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
      if (!copiesLoopInit(loop, i))
        if (auto it = problem.nodeOf.find(loop.getInitArgs()[i]);
            it != problem.nodeOf.end() && problem.viewOf[it->second] < 0)
          keepToEnd(it->second, kRegionReason);
  }
  if (hasMixedBranchResult(body))
    keepBlockBuffersToEnd(problem, keepToEnd);
  return problem;
}
