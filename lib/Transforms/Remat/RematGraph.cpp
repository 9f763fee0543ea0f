//===- RematGraph.cpp - the remat problem of a function -------------------===//

#include "RematGraph.h"

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
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

static bool isView(Operation *op) {
  return isa<ReshapeOp, TakeOp, SliceOp>(op);
}

/// The bytes of the wide accumulator a sum lowers to.
static int64_t transientBytes(Operation *op) {
  if (!isa<ReduceSumOp, ReduceMeanOp>(op))
    return 0;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = result.getElementType();
  if (element.isF32())
    return result.getNumElements() * 8;
  if (element.isF16() || element.isBF16())
    return result.getNumElements() * 4;
  return 0;
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

static std::string describe(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName();
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at " << loc.getFilename().getValue() << ":" << loc.getLine()
       << ":" << loc.getColumn();
  else if (auto fused = dyn_cast<FusedLoc>(op->getLoc()))
    for (Location inner : fused.getLocations())
      if (auto file = dyn_cast<FileLineColLoc>(inner)) {
        os << " at " << file.getFilename().getValue() << ":"
           << file.getLine() << ":" << file.getColumn();
        break;
      }
  return text;
}

RematProblem tad::buildRematProblem(func::FuncOp func,
                                    const RematGraphOptions &options) {
  RematProblem problem;
  Block &body = func.getBody().front();
  Operation *terminator = body.getTerminator();

  // Groups, from the last op up: a fused producer joins its user's group.
  DenseMap<Operation *, int> groupOf;
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  std::vector<SmallVector<Operation *>> reversedGroups;
  for (Operation *op : llvm::reverse(ops)) {
    if (op->hasTrait<OpTrait::ConstantLike>() && op->getNumOperands() == 0) {
      problem.constants.push_back(op);
      continue;
    }
    if (isFusableElementwise(op) && op->getNumResults() == 1 &&
        op->getResult(0).hasOneUse()) {
      Operation *user = *op->getResult(0).user_begin();
      auto it = groupOf.find(user);
      if (user->getBlock() == &body && it != groupOf.end() &&
          fusesProducers(user)) {
        groupOf[op] = it->second;
        reversedGroups[it->second].push_back(op);
        continue;
      }
    }
    groupOf[op] = int(reversedGroups.size());
    reversedGroups.push_back({op});
  }
  std::reverse(problem.constants.begin(), problem.constants.end());

  // Nodes in block order of their roots (a topological order: every input
  // of a group is defined before the group's root).
  int n = int(reversedGroups.size());
  std::vector<int> nodeOfGroup(n);
  for (int g = 0; g < n; ++g)
    nodeOfGroup[g] = n - 1 - g;
  problem.groups.resize(n);
  problem.viewOf.assign(n + 1, -1);
  problem.graph.nodes.resize(n);
  for (int g = 0; g < n; ++g) {
    int v = nodeOfGroup[g];
    auto &group = problem.groups[v];
    group.assign(reversedGroups[g].rbegin(), reversedGroups[g].rend());
    Operation *root = group.back();
    remat::Node &node = problem.graph.nodes[v];
    node.name = describe(root);
    for (Operation *op : group) {
      node.cost += estimateCost(op);
      node.transient += transientBytes(op);
      if (!isMemoryEffectFree(op))
        node.recomputable = false;
    }
    if (options.saveMatmuls && isa<MatmulOp>(root))
      node.recomputable = false;
    if (!isView(root))
      for (Type type : root->getResultTypes())
        node.bytes += getByteSize(type);
    for (Value result : root->getResults())
      problem.nodeOf[result] = v;
  }

  // Edges: the values a group reads from other nodes, including those that
  // its regions capture, and through views, the buffers they view.
  auto addInput = [&](int v, Value value) {
    auto it = problem.nodeOf.find(value);
    if (it == problem.nodeOf.end())
      return; // an argument or a constant
    for (int u = it->second; u >= 0; u = problem.viewOf[u]) {
      auto &inputs = problem.graph.nodes[v].inputs;
      if (u != v && std::find(inputs.begin(), inputs.end(), u) == inputs.end())
        problem.graph.addEdge(u, v);
    }
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
      auto it = problem.nodeOf.find(root->getOperand(0));
      if (it != problem.nodeOf.end())
        problem.viewOf[v] = it->second;
    }
    for (Value value : read)
      addInput(v, value);
  }

  // The sink reads the results.
  problem.sink = n;
  problem.graph.nodes.push_back({"return", 0, 0, {}, {}});
  problem.groups.push_back({terminator});
  for (Value value : terminator->getOperands())
    addInput(n, value);
  return problem;
}
