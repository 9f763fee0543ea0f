//===- RematGraph.cpp - the remat problem of a function -------------------===//

#include "RematGraph.h"

#include "dialects/tad/TadOps.h"
#include "tad/Transforms/IndexArithmetic.h"

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

static double elementsOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? double(tensor.getNumElements())
                                           : 1;
}

/// What each tad op's lowering does with memory comes from the op
/// (MemoryModelOpInterface, dialects/tad/TadMemoryModel.cpp); the graph
/// names no tad op. Other ops (scf, func.call, tensor, arith) are handled
/// structurally below.
static MemoryModelOpInterface modelOf(Operation *op) {
  return dyn_cast<MemoryModelOpInterface>(op);
}

/// Ops that the CPU lowering turns into an all-parallel linalg.generic,
/// which tad-fuse-elementwise fuses into its only reader.
static bool isFusableElementwise(Operation *op) {
  MemoryModelOpInterface model = modelOf(op);
  return model && model.isFusableLoop();
}

/// Ops whose lowering reads their input in one linalg.generic, into which
/// a single-use elementwise producer fuses.
static bool fusesProducers(Operation *op) {
  MemoryModelOpInterface model = modelOf(op);
  return model && model.absorbsProducers();
}

/// The tensor an op writes into in place when nothing reads it after.
static Value destinationOf(Operation *op) {
  // A forward loop's tape stores are tensor.insert_slice (AD's Loops.cpp
  // and ResidualTapes.cpp), which bufferization performs in place as it
  // does tad.insert_slice.
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return insert.getDest();
  if (MemoryModelOpInterface model = modelOf(op))
    if (std::optional<unsigned> updated = model.getUpdatedOperand())
      return op->getOperand(*updated);
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

/// Whether `op`'s result views an operand's buffer (a reshape, a slice, a
/// row of a stacked tensor).
std::optional<unsigned> tad::getViewedOperand(Operation *op) {
  if (isa<tensor::ExtractSliceOp>(op)) // a tape row's read
    return 0;
  if (MemoryModelOpInterface model = modelOf(op))
    return model.getViewedOperand();
  return std::nullopt;
}

static bool isViewOp(Operation *op) { return getViewedOperand(op).has_value(); }

bool tad::isConstantOrTapeStart(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>())
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->getNumOperands() != 0 || op->getNumResults() != 1 ||
      op->getNumRegions() != 0)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::all_of(instances, [&](const auto &effect) {
    return isa<MemoryEffects::Allocate>(effect.getEffect()) &&
           effect.getValue() == op->getResult(0);
  });
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
    if (!isViewOp(user) || user->getBlock() != op->getBlock() ||
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
         !isConstantOrTapeStart(producer);
}

/// Ops whose result is a view of their first operand's buffer (or, for an
/// in-place update, of its destination's).
static bool isView(Operation *op) {
  return isViewOp(op) || isInPlaceUpdate(op);
}

static Value viewedValue(Operation *op) {
  if (isInPlaceUpdate(op))
    return destinationOf(op);
  return op->getOperand(*getViewedOperand(op));
}

/// An index value in the iteration where the induction variable `iv` is
/// `at`: constants, index arithmetic and reads of constant tables, or
/// nullopt.
static std::optional<int64_t> evaluateAt(Value v, Value iv, int64_t at,
                                         int depth = 0) {
  if (v == iv)
    return at;
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  Operation *op = v.getDefiningOp();
  if (!op || depth > 32)
    return std::nullopt;
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    DenseIntElementsAttr table;
    if (extract.getIndices().size() != 1 ||
        !matchPattern(extract.getTensor(), m_Constant(&table)))
      return std::nullopt;
    std::optional<int64_t> i =
        evaluateAt(extract.getIndices()[0], iv, at, depth + 1);
    if (!i || *i < 0 || *i >= table.getNumElements())
      return std::nullopt;
    return (*(table.getValues<APInt>().begin() + *i)).getSExtValue();
  }
  return evaluateIndexArithmetic(op, [&](Value operand) {
    return evaluateAt(operand, iv, at, depth + 1);
  });
}

/// The block of `op` (an scf.if or scf.index_switch directly in a loop's
/// body) that runs in the iteration where `iv` is `at`, or null when that
/// is not known at compile time.
static Block *takenBlock(Operation *op, Value iv, int64_t at) {
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    std::optional<int64_t> cond = evaluateAt(branch.getCondition(), iv, at);
    if (!cond)
      return nullptr;
    Region &taken = *cond ? branch.getThenRegion() : branch.getElseRegion();
    return taken.empty() ? nullptr : &taken.front();
  }
  if (auto sw = dyn_cast<scf::IndexSwitchOp>(op)) {
    std::optional<int64_t> arg = evaluateAt(sw.getArg(), iv, at);
    if (!arg)
      return nullptr;
    for (auto [value, region] : llvm::zip(sw.getCases(), sw.getCaseRegions()))
      if (value == *arg)
        return &region.front();
    return &sw.getDefaultBlock();
  }
  return nullptr;
}

/// The cost of the ops of `block`, without its terminator.
static double blockCost(Block &block) {
  double sum = 0;
  for (Operation &op : block.without_terminator())
    sum += estimateCost(&op);
  return sum;
}

scf::IndexSwitchOp tad::caseCountedSwitch(scf::ForOp loop,
                                          DenseI64ArrayAttr &counts) {
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto sw = dyn_cast<scf::IndexSwitchOp>(op))
      if ((counts = sw->getAttrOfType<DenseI64ArrayAttr>(
               TadDialect::kCaseCountsAttrName)) &&
          counts.size() == int64_t(sw.getNumCases()) + 1)
        return sw;
  return {};
}

/// The cost of `loop`, whose body costs `body` and which runs `trips`
/// iterations, when it holds a switch with
/// case counts: the rest of the body once per iteration, each case as
/// often as it runs.
static std::optional<double> caseCountedCost(scf::ForOp loop, double body,
                                             int64_t trips) {
  DenseI64ArrayAttr counts;
  scf::IndexSwitchOp sw = caseCountedSwitch(loop, counts);
  if (!sw)
    return std::nullopt;
  double total = double(trips) * (body - estimateCost(sw));
  for (auto [k, region] : llvm::enumerate(sw.getCaseRegions()))
    total += double(counts[k]) * blockCost(region.front());
  total += double(counts[sw.getNumCases()]) *
           blockCost(sw.getDefaultRegion().front());
  return total;
}

double tad::estimateCost(Operation *op) {
  // Reading or writing one row of a stacked tensor (a tape, a snapshot
  // slot) touches the row, not the whole stack, which is updated in place.
  if (isa<tensor::ExtractSliceOp>(op))
    return elementsOf(op->getResult(0).getType());
  // A tape store copies its row in (in place: a view to the memory model).
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return elementsOf(insert.getSource().getType());
  // A terminator moves values (a branch's yield of a whole stacked
  // tensor), it computes nothing.
  if (isView(op) || isConstantOrTapeStart(op) ||
      op->hasTrait<OpTrait::IsTerminator>())
    return 0;
  if (MemoryModelOpInterface model = modelOf(op))
    return model.getComputeCost();
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    double body = blockCost(*loop.getBody());
    APInt lb, ub, step;
    if (!matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) ||
        !matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) ||
        !matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
        step.getSExtValue() <= 0)
      return body;
    int64_t first = lb.getSExtValue(), last = ub.getSExtValue(),
            stride = step.getSExtValue();
    int64_t trips = std::max<int64_t>(0, (last - first + stride - 1) / stride);
    // A revolve dispatcher's switch records how often each case runs
    // (tad.case_counts): the cases cost that many times, not the dearest
    // one every iteration.
    if (std::optional<double> total = caseCountedCost(loop, body, trips))
      return *total;
    // A body that branches on what each iteration reads from a constant
    // table costs, per iteration, the branch it takes there, not the
    // dearest.
    Value iv = loop.getInductionVar();
    SmallVector<Operation *> branches;
    for (Operation &inner : loop.getBody()->without_terminator())
      if (isa<scf::IfOp, scf::IndexSwitchOp>(inner) &&
          takenBlock(&inner, iv, first))
        branches.push_back(&inner);
    constexpr int64_t kMaxEvaluatedTrips = 1 << 16;
    if (branches.empty() || trips > kMaxEvaluatedTrips)
      return double(trips) * body;
    double others = body;
    for (Operation *branch : branches)
      others -= estimateCost(branch);
    llvm::DenseMap<Block *, double> costs;
    double total = 0;
    for (int64_t i = 0; i < trips; ++i) {
      total += others;
      for (Operation *branch : branches) {
        Block *taken = takenBlock(branch, iv, first + i * stride);
        if (!taken) {
          total += estimateCost(branch);
          continue;
        }
        auto [it, inserted] = costs.try_emplace(taken, 0.0);
        if (inserted)
          it->second = blockCost(*taken);
        total += it->second;
      }
    }
    return total;
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

/// The nodes of `problem` that read `value` or a view of it (the sink
/// included).
static SmallVector<int> readersOf(const RematProblem &problem, Value value) {
  llvm::SetVector<Value> views;
  views.insert(value);
  for (size_t i = 0; i < views.size(); ++i)
    for (Operation *user : views[i].getUsers())
      if (isView(user) && viewedValue(user) == views[i])
        views.insert(user->getResult(0));
  DenseMap<Operation *, int> nodeOfOp;
  for (int v = 0; v < int(problem.groups.size()); ++v)
    for (Operation *op : problem.groups[v])
      nodeOfOp[op] = v;
  Block *block = problem.groups[problem.sink].back()->getBlock();
  llvm::SetVector<int> readers;
  for (Value view : views)
    for (Operation *user : view.getUsers())
      if (Operation *inBlock = block->findAncestorOpInBlock(*user))
        if (auto it = nodeOfOp.find(inBlock); it != nodeOfOp.end())
          readers.insert(it->second);
  return SmallVector<int>(readers.begin(), readers.end());
}

/// The store-all peak of a block (its values freed after their last use),
/// or 0 when it nests too deep to matter. `owned` are the values the block
/// owns when it starts (a loop's previous carried values, the outer buffers
/// a branch consumes): each is resident from the start until its last
/// reader in the block, as tad-plan-buffers frees it.
static int64_t peakOfBlock(Block &block, const RematGraphOptions &options,
                           int depth, ArrayRef<Value> owned = {}) {
  if (depth > 8 || !block.mightHaveTerminator())
    return 0;
  RematProblem inner = buildRematProblem(block, options, depth + 1);
  if (owned.empty())
    return remat::simulate(inner.graph, remat::storeAllSchedule(inner.graph))
        .peak;
  // The same graph behind one source node per owned value.
  int k = int(owned.size());
  remat::Graph graph;
  for (Value value : owned) {
    remat::Node node;
    node.name = "owned";
    node.bytes = getByteSize(value.getType());
    node.recomputable = false;
    graph.nodes.push_back(node);
  }
  for (const remat::Node &node : inner.graph.nodes) {
    remat::Node shifted = node;
    shifted.inputs.clear();
    shifted.users.clear();
    graph.nodes.push_back(shifted);
  }
  for (int v = 0; v < inner.graph.size(); ++v)
    for (int u : inner.graph.nodes[v].inputs)
      graph.addEdge(u + k, v + k);
  for (int i = 0; i < k; ++i)
    for (int reader : readersOf(inner, owned[i]))
      graph.addEdge(i, reader + k);
  return remat::simulate(graph, remat::storeAllSchedule(graph)).peak;
}

/// The bytes an op with regions or a call allocates while it runs, beyond
/// its results: the peak of its body (of the larger branch; of one loop
/// iteration, whose carried values are the op's results), or of the callee.
static bool isCarriedInPlace(scf::ForOp loop, unsigned i);

/// The carried values whose previous buffers an iteration of `loop` owns
/// and frees after their last use: those it does not update in place.
static SmallVector<Value> ownedCarriedValues(scf::ForOp loop) {
  SmallVector<Value> owned;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    if (getByteSize(loop.getRegionIterArg(i).getType()) > 0 &&
        !isCarriedInPlace(loop, i))
      owned.push_back(loop.getRegionIterArg(i));
  return owned;
}

static int64_t nestedBytes(Operation *op, const RematGraphOptions &options,
                           int depth) {
  int64_t peak = 0;
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return peakOfBlock(*loop.getBody(), options, depth,
                       ownedCarriedValues(loop));
  for (Region &region : op->getRegions())
    for (Block &block : region)
      peak = std::max(peak, peakOfBlock(block, options, depth));
  // A checkpoint's body yields its results: its peak holds them, and the
  // node counts them as its bytes. (A branch subtracts what it allocates
  // itself, in buildRematProblem.)
  if (op->getNumRegions() > 0 && !isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
    int64_t results = 0;
    for (Type type : op->getResultTypes())
      results += getByteSize(type);
    peak = std::max<int64_t>(0, peak - results);
  }
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, call.getCalleeAttr());
    if (!callee && options.symbolTable)
      callee = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(
          options.symbolTable, call.getCalleeAttr()));
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
  if (producer &&
      (isConstantOrTapeStart(producer) || isViewOp(producer)))
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
  return producer && isConstantOrTapeStart(producer) &&
         producer->getBlock() == loop->getBlock() && isCarriedInPlace(loop, i);
}

/// The last op of `value`'s block that reads it, or a loop result that
/// holds its buffer (updated in place); null when none does.
static Operation *lastReaderOfBuffer(Value value) {
  Operation *last = nullptr;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *reader =
          value.getParentBlock()->findAncestorOpInBlock(*use.getOwner());
      if (!reader)
        continue;
      if (!last || last->isBeforeInBlock(reader))
        last = reader;
      auto loop = dyn_cast<scf::ForOp>(use.getOwner());
      if (OpResult result = loop ? loop.getTiedLoopResult(&use) : OpResult();
          result && isCarriedInPlace(loop, result.getResultNumber()))
        worklist.push_back(result);
    }
  }
  return last;
}

/// The result of an earlier loop of `start`'s block that fills the tape
/// `start` (no constant: its value is undefined) in place, when `loop`
/// fills it too and nothing reads that loop's buffer from `loop` on:
/// One-Shot Bufferize then gives both the one buffer.
static Value sharesTapeWith(scf::ForOp loop, Operation *start) {
  if (start->hasTrait<OpTrait::ConstantLike>())
    return nullptr;
  for (OpOperand &use : start->getResult(0).getUses()) {
    auto other = dyn_cast<scf::ForOp>(use.getOwner());
    if (!other || other == loop || other->getBlock() != loop->getBlock() ||
        !other->isBeforeInBlock(loop))
      continue;
    OpResult filled = other.getTiedLoopResult(&use);
    if (!filled || !isCarriedInConstantCopy(other, filled.getResultNumber()))
      continue;
    Operation *last = lastReaderOfBuffer(filled);
    if (!last || last->isBeforeInBlock(loop))
      return filled;
  }
  return nullptr;
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

/// The bytes of loopResultBytes's results that nothing reads.
static int64_t deadLoopResultBytes(scf::ForOp loop) {
  int64_t bytes = 0;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    if (!isCarriedInBlockValue(loop, i) && !isCarriedInConstantCopy(loop, i) &&
        loop.getResult(i).use_empty())
      bytes += getByteSize(loop.getResult(i).getType());
  return bytes;
}

static bool isOwnedBy(Value value, Block &block);

/// The bytes of the carried values that `loop` replaces each iteration
/// (not updated in place): its body's peak holds the new ones.
static int64_t replacedBytes(scf::ForOp loop) {
  int64_t bytes = 0;
  for (Value carried : ownedCarriedValues(loop))
    bytes += getByteSize(carried.getType());
  return bytes;
}

/// The bytes of the initial values whose buffers `loop` takes as its first
/// previous carried values: the values of its block that it replaces, that
/// nothing reads inside the loop or after it (tad-plan-buffers copies the
/// others for the loop).
static int64_t takenInitBytes(scf::ForOp loop) {
  int64_t bytes = 0;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    Value init = loop.getInitArgs()[i];
    if (!isCarriedInPlace(loop, i) && isOwnedBy(init, *loop->getBlock()) &&
        !copiesLoopInit(loop, i))
      bytes += getByteSize(init.getType());
  }
  return bytes;
}

static bool isDeadAfter(Value value, Operation *op);

/// The peak of one iteration of a revolve dispatcher (AutoDiff.cpp's
/// reverseRevolve), case by case: a loop whose body is one scf.index_switch
/// on the action, which records how often each case runs
/// (tad.case_counts), and ops without bytes. The generic model counts the
/// peak of the whole body, the largest case; here each case counts only
/// what it frees and allocates itself, and only the cases that run count.
/// Returns the largest, over the actions run, of the previous buffers a case
/// holds plus its peak, or nothing when `loop` is not such a dispatcher.
static std::optional<int64_t> dispatcherPeak(scf::ForOp loop,
                                             const RematGraphOptions &options,
                                             int depth) {
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
  DenseI64ArrayAttr counts;
  if (caseCountedSwitch(loop, counts) != sw)
    return std::nullopt;
  // The carried values whose buffers the loop replaces (loopResultBytes):
  // each has a buffer of its own in every iteration, the initial value's
  // (a copy, or one the loop takes from its block, which the caller of
  // this function subtracts) or one that a case yielded.
  unsigned n = loop.getNumRegionIterArgs();
  SmallVector<int64_t> bytes(n, 0);
  for (unsigned j = 0; j < n; ++j)
    if (!isCarriedInBlockValue(loop, j) && !isCarriedInConstantCopy(loop, j))
      bytes[j] = getByteSize(loop.getResult(j).getType());
  SmallVector<Region *> regions;
  for (Region &region : sw.getCaseRegions())
    regions.push_back(&region);
  regions.push_back(&sw.getDefaultRegion());
  // The switch consumes a previous carried value that some case passes
  // through (tad-plan-buffers): a case that does not frees it after its
  // last use there. Any other stays resident through the switch.
  auto passes = [&](Region *region, unsigned j) {
    return !region->empty() &&
           bufferSourceWithin(region->front().getTerminator()->getOperand(j),
                              *region) == loop.getRegionIterArg(j);
  };
  SmallVector<char> consumed(n, 0);
  for (unsigned j = 0; j < n; ++j)
    consumed[j] = isDeadAfter(loop.getRegionIterArg(j), sw) &&
                  llvm::any_of(regions, [&](Region *r) { return passes(r, j); });
  // Per case (the default region last): the previous carried values it
  // holds throughout, plus its own peak with those it frees.
  SmallVector<int64_t> peaks;
  for (Region *region : regions) {
    int64_t held = 0;
    SmallVector<Value> freed;
    for (unsigned j = 0; j < n; ++j) {
      if (bytes[j] == 0)
        continue;
      if (consumed[j] && !passes(region, j))
        freed.push_back(loop.getRegionIterArg(j));
      else
        held += bytes[j];
    }
    peaks.push_back(held + (region->empty()
                                ? 0
                                : peakOfBlock(region->front(), options,
                                              depth + 1, freed)));
  }
  // The largest over the cases the loop runs.
  int64_t peak = 0;
  for (auto [count, casePeak] : llvm::zip(counts.asArrayRef(), peaks))
    if (count > 0)
      peak = std::max(peak, casePeak);
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

/// The value whose buffer `v` is, through views (not in-place updates).
static Value viewRoot(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    std::optional<unsigned> viewed = getViewedOperand(op);
    if (!viewed)
      break;
    v = op->getOperand(*viewed);
  }
  return v;
}

/// Whether the result of `group` (its last op) is written straight into
/// the row of a stacked tensor that an update in place writes it to (a
/// weight's gradient row into its accumulator): its only reader is that
/// update, its lowering writes a fresh buffer, which eliminate-empty-tensors
/// replaces by the destination's row, and the group reads nothing of the
/// destination's buffer (bufferization would then write elsewhere). It
/// then has no buffer of its own.
static bool writesIntoUpdatedRow(ArrayRef<Operation *> group) {
  Operation *op = group.back();
  MemoryModelOpInterface model = modelOf(op);
  if (!model || op->getNumResults() != 1 || !op->getResult(0).hasOneUse() ||
      !model.writesFreshBuffer())
    return false;
  Operation *user = *op->getResult(0).getUsers().begin();
  if (user->getBlock() != op->getBlock() || !isInPlaceUpdate(user) ||
      destinationOf(user) == op->getResult(0))
    return false;
  Value destination = viewRoot(destinationOf(user));
  for (Operation *member : group)
    for (Value operand : member->getOperands())
      if (viewRoot(operand) == destination)
        return false;
  return true;
}

/// The group whose result `op`'s result becomes, when that group's
/// generic writes into `op`'s buffer (tad-reuse-operand-buffers): `op`
/// writes a fresh buffer that dies in the group (all its readers belong to
/// it, and fusion merges their reads into one), the group is all-parallel
/// with a result of the same type, and every member that reads `op` does
/// so at the index it writes. Only one input is reused per group. -1
/// otherwise. The two then form one node: once the group has run, `op`'s
/// value is gone, and recomputing the group recomputes `op`.
static int reusingGroup(Operation *op, Block &body,
                        const DenseMap<Operation *, int> &groupOf,
                        ArrayRef<SmallVector<Operation *>> reversedGroups,
                        const llvm::DenseSet<int> &reused) {
  MemoryModelOpInterface model = modelOf(op);
  if (!model || op->getNumResults() != 1 || op->getResult(0).use_empty() ||
      !model.writesFreshBuffer())
    return -1;
  int group = -1;
  for (Operation *user : op->getResult(0).getUsers()) {
    auto it = groupOf.find(user);
    MemoryModelOpInterface reader = modelOf(user);
    if (user->getBlock() != &body || it == groupOf.end() || !reader ||
        !reader.isFusableLoop() || !reader.readsAtResultIndex() ||
        (group >= 0 && group != it->second))
      return -1;
    group = it->second;
  }
  if (reused.contains(group))
    return -1;
  Operation *root = reversedGroups[group].front();
  MemoryModelOpInterface rootModel = modelOf(root);
  if (!rootModel || !rootModel.isFusableLoop() ||
      !rootModel.readsAtResultIndex() || root->getNumResults() != 1 ||
      root->getResult(0).getType() != op->getResult(0).getType())
    return -1;
  return group;
}

/// Whether an op that allocates or holds memory (a tensor result, or
/// regions) lies between `op` and `later` in their block.
static bool opsBetween(Operation *op, Operation *later) {
  for (Operation *x = op->getNextNode(); x && x != later; x = x->getNextNode())
    if (!isConstantOrTapeStart(x) &&
        (x->getNumRegions() > 0 ||
         llvm::any_of(x->getResultTypes(), llvm::IsaPred<TensorType>)))
      return true;
  return false;
}

/// The bytes that `op` leaves resident instead of its result when the
/// last, elementwise step of its lowering fuses into its readers; none
/// when its lowering does not end in such a step.
static std::optional<int64_t> fusableTailBytes(Operation *op) {
  if (MemoryModelOpInterface model = modelOf(op))
    return model.getFusableTailBytes();
  return std::nullopt;
}

/// The buffers `op`'s lowering allocates besides its result (or besides
/// what its fused tail leaves, with `tailFused`).
static int64_t transientBytes(Operation *op, bool tailFused) {
  if (MemoryModelOpInterface model = modelOf(op))
    return model.getTransientBytes(tailFused);
  return 0;
}

/// Whether `value`, a value of `block`, is a buffer that `block` owns
/// (docs/memory.md): one that an op of the block allocates, or a loop's
/// carried value in the loop's body; not a constant, a view or a value of
/// an enclosing block.
static bool isOwnedBy(Value value, Block &block) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() == &block &&
           isa_and_nonnull<scf::ForOp>(block.getParentOp()) &&
           arg.getArgNumber() > 0;
  Operation *producer = value.getDefiningOp();
  return producer->getBlock() == &block &&
         !isConstantOrTapeStart(producer) && !isView(producer);
}

/// Whether nothing in `op`'s block reads `value` (or a view of it) after
/// `op`.
static bool isDeadAfter(Value value, Operation *op) {
  Block *block = op->getBlock();
  llvm::SetVector<Value> views;
  views.insert(value);
  for (size_t i = 0; i < views.size(); ++i)
    for (Operation *user : views[i].getUsers()) {
      if (isView(user) && viewedValue(user) == views[i])
        views.insert(user->getResult(0));
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (inBlock && inBlock != op && op->isBeforeInBlock(inBlock))
        return false;
    }
  return true;
}

/// The bytes of the copies that tad-plan-buffers makes at a yield, so that
/// the block hands on only buffers it owns outright: of an argument, a
/// constant, a partial view, an outer buffer that is read after a branch
/// (or any outer buffer, for a loop), and a buffer yielded twice.
static int64_t yieldCopyBytes(Operation *yield) {
  Block *block = yield->getBlock();
  Region &region = *block->getParent();
  Operation *parent = region.getParentOp();
  if (!isa<scf::ForOp, scf::IfOp, scf::IndexSwitchOp>(parent))
    return 0;
  int64_t bytes = 0;
  llvm::SmallPtrSet<Value, 4> passed;
  for (auto [index, v] : llvm::enumerate(yield->getOperands())) {
    int64_t size = getByteSize(v.getType());
    if (size == 0)
      continue;
    Value source = bufferSourceWithin(v, region);
    // Bufferization itself copies another carried value that a loop's
    // body yields, to keep each carried value in a buffer of its own.
    bool owned = isDefinedIn(source, region)
                     ? isOwnedBy(source, *block) &&
                           (!isa<BlockArgument>(source) ||
                            source == block->getArgument(index + 1))
                     : !isa<scf::ForOp>(parent) &&
                           isOwnedBy(source, *parent->getBlock()) &&
                           isDeadAfter(source, parent);
    // A value that a nested branch passes through is owned as its source
    // is; a view of part of a buffer is not the whole buffer.
    if (!owned || getByteSize(source.getType()) != size ||
        !passed.insert(source).second)
      bytes += size;
  }
  return bytes;
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
  if (isConstantOrTapeStart(producer))
    return true;
  return hasDynamicLayout(value);
}

namespace {
/// Builds the remat problem of one block, in the phases below, in order.
class ProblemBuilder {
public:
  ProblemBuilder(Block &body, const RematGraphOptions &options, int depth)
      : body(body), options(options), depth(depth),
        terminator(body.getTerminator()) {}

  RematProblem build() {
    formGroups();
    makeNodes();
    mapInPlaceResults();
    addEdges();
    orderInPlaceUpdates();
    addSink();
    priceRecomputes();
    return std::move(problem);
  }

private:
  void formGroups() {
  // Groups, from the last op up: a fused producer joins its user's group.
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) {
    if (isConstantOrTapeStart(op) && op->getNumOperands() == 0) {
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
      fusedProducers.insert(op);
      continue;
    }
    // Softmax, logsumexp and wide sums end in an elementwise op, which fuses
    // into the users the same way: their result then never has a buffer,
    // and what that op reads lives until the users run instead.
    if (group >= 0 && fusableTailBytes(op)) {
      fusedResult.insert(op);
    } else if (int into = reusingGroup(op, body, groupOf, reversedGroups,
                                       reusedGroups);
               into >= 0) {
      // A group that writes its result into this op's dying buffer.
      reusedGroups.insert(into);
      // In a block that no schedule reorders (a nested one, whose peak
      // alone is asked), with other ops between the two: the block runs
      // as written, `op` allocating where it is. It is a node of its own,
      // and the group a view of it, which keeps its buffer alive.
      if (depth > 0 && opsBetween(op, reversedGroups[into].back())) {
        writesInto[into] = int(reversedGroups.size());
      } else {
        groupOf[op] = into;
        reversedGroups[into].push_back(op);
        continue;
      }
    }
    groupOf[op] = int(reversedGroups.size());
    reversedGroups.push_back({op});
    // The copies of constants that a loop updates in place come just
    // before it, as the groups of those constants (the constants
    // themselves stay where they are). A tape filled by several loops in
    // turn is one buffer, from the first of them (sharesTapeWith): the
    // later loops' results wait for its group.
    if (auto loop = dyn_cast<scf::ForOp>(op))
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
        if (isCarriedInConstantCopy(loop, i)) {
          SmallVector<Value> filled{loop.getResult(i)};
          if (auto it = laterFills.find(loop.getResult(i));
              it != laterFills.end())
            filled.append(it->second.begin(), it->second.end());
          Operation *start = loop.getInitArgs()[i].getDefiningOp();
          if (Value earlier = sharesTapeWith(loop, start)) {
            laterFills[earlier].append(filled.begin(), filled.end());
            continue;
          }
          for (Value result : filled)
            constantCopies.push_back({result, int(reversedGroups.size())});
          reversedGroups.push_back({start});
        }
  }
  std::reverse(problem.constants.begin(), problem.constants.end());
  }

  void makeNodes() {
  // Nodes in block order of their roots (a topological order: every input
  // of a group is defined before the group's root).
  n = int(reversedGroups.size());
  nodeOfGroup.resize(n);
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
    if (isConstantOrTapeStart(root)) {
      // A constant's copy that a loop updates in place, or a tape.
      node.bytes = getByteSize(root->getResult(0).getType());
      node.recomputable = false;
      problem.pinnedBecause[v] =
          root->hasTrait<OpTrait::ConstantLike>()
              ? "a loop updates this copy of a constant in place"
              : "a tape, which its loop writes in place";
      continue;
    }
    for (Operation *op : group) {
      // A fused producer runs in its reader's loop, whose pass over
      // memory the reader pays.
      double cost = fusedProducers.contains(op)
                        ? modelOf(op).getFusedComputeCost()
                        : estimateCost(op);
      node.cost += cost;
      problem.opCosts[op] = cost;
      node.transient += transientBytes(op, fusedResult.contains(op)) +
                        nestedBytes(op, options, depth);
      if (!isMemoryEffectFree(op)) {
        node.recomputable = false;
        problem.pinnedBecause[v] =
            isa<func::CallOp>(op) ? "calls are not recomputed"
                                  : "it has effects and cannot be recomputed";
      }
    }
    // A group holds a matmul also when its result reuses the matmul's
    // buffer: recomputing the group would recompute the matmul.
    if (options.saveMatmuls && llvm::any_of(group, llvm::IsaPred<MatmulOp>)) {
      node.recomputable = false;
      problem.pinnedBecause[v] = "the policy saves matmuls";
    }
    if (fusedResult.contains(root)) {
      node.bytes = *fusableTailBytes(root);
    } else if (isa<scf::IfOp, scf::IndexSwitchOp>(root)) {
      // The larger branch's peak already holds the results it yields.
      node.bytes = freshBranchResultBytes(root);
      node.transient = std::max<int64_t>(0, node.transient - node.bytes);
    } else if (auto loop = dyn_cast<scf::ForOp>(root)) {
      // The body's peak (the node's transient bytes so far) holds the
      // previous carried values until their last use and the new ones,
      // which become the results. An initial value the loop takes is the
      // first previous value, and resident already as the loop's input.
      node.bytes = loopResultBytes(loop);
      if (std::optional<int64_t> peak = dispatcherPeak(loop, options, depth))
        node.transient =
            std::max<int64_t>(0, *peak - node.bytes - takenInitBytes(loop));
      else
        node.transient = std::max<int64_t>(
            0, node.transient - replacedBytes(loop) - takenInitBytes(loop));
      // A result that nothing reads is freed as the loop ends: it counts
      // while the loop runs only.
      int64_t dead = deadLoopResultBytes(loop);
      node.bytes -= dead;
      node.transient += dead;
    } else if (writesIntoUpdatedRow(group) || writesInto.count(n - 1 - v)) {
      // eliminate-empty-tensors places it in its destination's row; a
      // group of writesInto writes into its input's buffer.
    } else if (!isView(root)) {
      for (Type type : root->getResultTypes())
        node.bytes += getByteSize(type);
    }
    for (Value result : root->getResults())
      problem.nodeOf[result] = v;
  }
  }

  void mapInPlaceResults() {
  // A loop result updated in place in a constant's copy is that copy; its
  // readers read the loop too, which fills it.
  for (auto [result, group] : constantCopies) {
    filledBy[result] = problem.nodeOf.lookup(result);
    problem.nodeOf[result] = nodeOfGroup[group];
  }
  // So is a loop result updated in place in a value of the block that the
  // loop takes: that value lives until the result's last reader, and is
  // never recomputed (the loop overwrites it).
  for (int v = 0; v < n; ++v) {
    auto loop = dyn_cast<scf::ForOp>(problem.groups[v].back());
    if (!loop)
      continue;
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
      auto it = problem.nodeOf.find(loop.getInitArgs()[i]);
      if (!isCarriedInBlockValue(loop, i) || it == problem.nodeOf.end())
        continue;
      int init = it->second;
      filledBy[loop.getResult(i)] = v;
      problem.nodeOf[loop.getResult(i)] = init;
      problem.graph.nodes[init].recomputable = false;
      if (problem.pinnedBecause[init].empty())
        problem.pinnedBecause[init] = "a loop updates it in place";
    }
  }
  }

  void addEdge(int u, int v) {
    auto &inputs = problem.graph.nodes[v].inputs;
    if (u != v && std::find(inputs.begin(), inputs.end(), u) == inputs.end())
      problem.graph.addEdge(u, v);
  }

  /// Makes `v` read `value`: its node, the buffers it views, and the loop
  /// that fills it in place, which must run first. The sink runs last
  /// anyway: it reads no such loop, whose own results are then freed
  /// after their last reader, as the plan frees them (a reverse loop's
  /// gradient, beside a gradient it accumulates in place and returns).
  void addInput(int v, Value value) {
    auto it = problem.nodeOf.find(value);
    if (it == problem.nodeOf.end())
      return; // an argument or a constant
    for (int u = it->second; u >= 0; u = problem.viewOf[u])
      addEdge(u, v);
    if (auto loop = filledBy.find(value);
        loop != filledBy.end() && v != problem.sink)
      addEdge(loop->second, v);
  }

  void addEdges() {
  // Edges: the values a group reads from other nodes, including those that
  // its regions capture, and through views, the buffers they view.
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
    if (auto it = writesInto.find(n - 1 - v); it != writesInto.end())
      problem.viewOf[v] = nodeOfGroup[it->second];
    for (Value value : read)
      addInput(v, value);
    if (auto loop = dyn_cast<scf::ForOp>(root))
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
        if (isCarriedInConstantCopy(loop, i))
          addInput(v, loop.getResult(i));
  }
  }

  void orderInPlaceUpdates() {
  // An update in place overwrites its destination's buffer (a loop's
  // gradient accumulator, which may also hold the tape rows that the
  // reverse sweep reads): whatever reads that buffer's old contents, itself
  // or through views, must run before the update, every time. So such a
  // reader is computed once, never recomputed, and the update reads it,
  // which keeps it before the update in every schedule.
  DenseMap<Operation *, int> nodeOfOp;
  for (int v = 0; v < n; ++v)
    for (Operation *op : problem.groups[v])
      nodeOfOp[op] = v;
  for (int u = 0; u < n; ++u) {
    Operation *update = problem.groups[u].back();
    if (!isInPlaceUpdate(update))
      continue;
    // In a loop's body, an update whose result only the yield reads can
    // run last instead: then every instance of its readers, recomputed or
    // not, runs before it, and they need not be pinned.
    bool last =
        isa<scf::ForOp>(body.getParentOp()) &&
        llvm::all_of(update->getResult(0).getUsers(),
                     [&](Operation *user) { return user == terminator; });
    llvm::SetVector<Value> aliases;
    aliases.insert(destinationOf(update));
    for (size_t i = 0; i < aliases.size(); ++i)
      for (Operation *user : aliases[i].getUsers()) {
        Operation *reader = body.findAncestorOpInBlock(*user);
        if (!reader || reader == update || !reader->isBeforeInBlock(update))
          continue;
        if (isViewOp(user) && viewedValue(user) == aliases[i])
          aliases.insert(user->getResult(0));
        auto it = nodeOfOp.find(reader);
        if (it == nodeOfOp.end() || it->second == u)
          continue;
        int r = it->second;
        if (last) {
          if (!llvm::is_contained(problem.lastUpdates, u))
            problem.lastUpdates.push_back(u);
          continue;
        }
        problem.graph.nodes[r].recomputable = false;
        if (problem.pinnedBecause[r].empty())
          problem.pinnedBecause[r] = "it reads a buffer that an update in "
                                     "place overwrites later";
        // A reader fused into a group computed after the update reads a
        // copy that bufferization makes; only earlier groups are ordered.
        if (r < u)
          addEdge(r, u);
      }
  }
  }

  void priceRecomputes() {
  // A group of elementwise ops computed again for its one reader outside
  // the forward sweep is cloned before that reader, which is its clone's
  // only reader: where the reader's loop takes producers, the clone fuses
  // into it and writes no buffer.
  auto &nodes = problem.graph.nodes;
  problem.recomputeCost.resize(nodes.size());
  for (size_t v = 0; v < nodes.size(); ++v) {
    problem.recomputeCost[v] = nodes[v].cost;
    if (int(v) == problem.sink || problem.groups[v].empty() ||
        !llvm::all_of(problem.groups[v], isFusableElementwise))
      continue;
    SmallVector<int> readers;
    for (int u : nodes[v].users)
      if (u != problem.sink &&
          !problem.groups[u].back()->hasAttr(TadDialect::kForwardAttrName))
        readers.push_back(u);
    if (readers.size() != 1)
      continue;
    Operation *reader = problem.groups[readers.front()].back();
    if (!isFusableElementwise(reader) && !fusesProducers(reader))
      continue;
    double fused = 0;
    for (Operation *op : problem.groups[v])
      fused += modelOf(op).getFusedComputeCost();
    problem.recomputeCost[v] = std::min(nodes[v].cost, fused);
  }
  }

  void addSink() {
  // The sink reads the results. Returning an argument or a constant
  // returns a copy, and so does yielding a buffer the block does not own
  // (docs/memory.md): the sink allocates those.
  problem.sink = n;
  problem.graph.nodes.push_back({"return", 0, 0, {}, {}});
  problem.groups.push_back({terminator});
  llvm::SmallPtrSet<Value, 4> returned;
  for (Value value : terminator->getOperands()) {
    addInput(n, value);
    // A buffer returned twice is returned once and copied once.
    if (isa<func::ReturnOp>(terminator) &&
        (returnsCopy(value) || !returned.insert(value).second))
      problem.graph.nodes[n].bytes += getByteSize(value.getType());
  }
  if (isa<scf::YieldOp>(terminator))
    problem.graph.nodes[n].bytes += yieldCopyBytes(terminator);
  }

  Block &body;
  const RematGraphOptions &options;
  int depth;
  Operation *terminator;
  RematProblem problem;
  // Groups, from the last op up: a fused producer joins its user's group.
  DenseMap<Operation *, int> groupOf;
  llvm::SmallPtrSet<Operation *, 4> fusedResult;
  /// Elementwise ops fused into their reader's group (formGroups).
  llvm::SmallPtrSet<Operation *, 16> fusedProducers;
  // The groups that write their result into an input's buffer.
  llvm::DenseSet<int> reusedGroups;
  std::vector<SmallVector<Operation *>> reversedGroups;
  // Each loop result that is a constant's copy, and that copy's group.
  SmallVector<std::pair<Value, int>> constantCopies;
  // While forming groups: the results of later loops that fill the same
  // tape as a loop earlier in the block (sharesTapeWith), by that loop's
  // result.
  DenseMap<Value, SmallVector<Value>> laterFills;
  // The number of groups, and each group's node.
  int n = 0;
  std::vector<int> nodeOfGroup;
  // The loop that fills each loop result updated in place.
  DenseMap<Value, int> filledBy;
  // The groups that write into the buffer of an op apart from them (a
  // group of its own), in a nested block: by group.
  DenseMap<int, int> writesInto;
};
} // namespace

RematProblem tad::buildRematProblem(Block &body,
                                    const RematGraphOptions &options,
                                    int depth) {
  return ProblemBuilder(body, options, depth).build();
}

remat::Graph tad::getSolverGraph(const RematProblem &problem) {
  remat::Graph graph = problem.graph;
  for (size_t v = 0; v < problem.recomputeCost.size(); ++v)
    graph.nodes[v].cost = problem.recomputeCost[v];
  return graph;
}
