//===- LoopCosts.cpp - what the reverse sweep computes again --------------===//
//
// The remat report's costs of recomputation that AD put in the derivative
// (loops' reruns, checkpoint regions and branches computed again), which
// tad-choose-loop-snapshots also prices its candidates by.
//
//===----------------------------------------------------------------------===//

#include "LoopCosts.h"

#include "RematGraph.h"
#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace tad;

/// The trip count of a loop with constant bounds, else 1.
int64_t tad::constantTrips(scf::ForOp loop) {
  auto lower = getConstantIntValue(loop.getLowerBound());
  auto upper = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *step <= 0)
    return 1;
  return std::max<int64_t>(0, (*upper - *lower + *step - 1) / *step);
}

/// The cost of what a reverse step runs of `body` (a forward loop's body)
/// again: the ops that the residuals of the body's differentiable ops are
/// computed from. A value that only the next iteration reads (the body's
/// last matmul into the carried state) is not among them. A call or a
/// nested loop counts whole, and so does what it reads. A checkpoint
/// region or a branch counts only when a residual needs its results: its
/// own adjoint computes it again (tad.recomputed, recomputedCost).
static double reverseStepCost(Block &body) {
  llvm::SmallPtrSet<Operation *, 32> needed;
  SmallVector<Operation *> work;
  auto need = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return;
    // A residual that the forward loop stores in a tape is read, not
    // recomputed (AutoDiff/ResidualTapes.cpp).
    if (llvm::any_of(value.getUsers(), [](Operation *user) {
          return user->hasAttr(TadDialect::kTapeAttrName);
        }))
      return;
    def = body.findAncestorOpInBlock(*def);
    if (def && needed.insert(def).second)
      work.push_back(def);
  };
  for (Operation &op : body.without_terminator()) {
    if (op.hasAttr(TadDialect::kTapeAttrName))
      continue;
    if (auto rule = dyn_cast<DifferentiableOpInterface>(op)) {
      SmallVector<Value> residuals;
      rule.getResiduals(residuals);
      for (Value residual : residuals)
        need(residual);
    } else if ((op.getNumRegions() > 0 || isa<CallOpInterface>(op)) &&
               !isa<CheckpointOp, scf::IfOp>(op) && needed.insert(&op).second) {
      work.push_back(&op);
    }
  }
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        need(operand);
    });
  }
  double cost = 0;
  for (Operation *op : needed)
    if (!op->hasAttr(TadDialect::kTapeAttrName))
      cost += estimateCost(op);
  return cost;
}

/// A forward loop's reruns (`loop` has tad.reverse_reruns), every run of
/// the loop in `func` counted: the loops around it run it once per
/// iteration, and its reverse sweep with it. Of a loop's reruns, one per
/// iteration is a reverse step, which recomputes what the step's
/// derivative reads (reverseStepCost); the others (binomial
/// checkpointing's advances) run the whole body.
RematLoopRerun tad::describeLoopRerun(scf::ForOp loop, Operation *func) {
  int64_t reruns =
      loop->getAttrOfType<IntegerAttr>(TadDialect::kReverseRerunsAttrName)
          .getInt();
  double body = 0;
  for (Operation &op : loop.getBody()->without_terminator())
    if (!op.hasAttr(TadDialect::kTapeAttrName)) // not run again
      body += estimateCost(&op);
  int64_t trips = constantTrips(loop);
  int64_t steps = std::min<int64_t>(reruns, trips);
  double cost = double(steps) * reverseStepCost(*loop.getBody()) +
                double(reruns - steps) * body;
  double runs = 1;
  for (Operation *parent = loop->getParentOp(); parent && parent != func;
       parent = parent->getParentOp())
    if (auto outer = dyn_cast<scf::ForOp>(parent))
      runs *= double(constantTrips(outer));
  // A tape store of a value of the body (not a carried block argument)
  // is a residual's (AutoDiff/ResidualTapes.cpp); binomial
  // checkpointing's store is a branch.
  bool residuals = false;
  for (Operation &op : loop.getBody()->without_terminator())
    if (op.hasAttr(TadDialect::kTapeAttrName) &&
        isa<UpdateOp, tensor::InsertSliceOp>(op) &&
        op.getOperand(0).getDefiningOp())
      residuals = true;
  return {describeLocation(loop.getLoc()), trips, reruns, cost * runs,
          residuals};
}

std::vector<RematLoopRerun> tad::findLoopReruns(func::FuncOp func) {
  std::vector<RematLoopRerun> loops;
  func.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(TadDialect::kReverseRerunsAttrName))
      loops.push_back(describeLoopRerun(loop, func));
  });
  return loops;
}

double tad::recomputedCost(Block &block) {
  double cost = 0;
  for (Operation &op : block.without_terminator())
    cost += recomputedCost(&op);
  return cost;
}

double tad::recomputedCost(Operation *op) {
  if (op->hasAttr(TadDialect::kRecomputedAttrName))
    return estimateCost(op);
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    double trips = double(constantTrips(loop)), cost = 0;
    DenseI64ArrayAttr counts;
    scf::IndexSwitchOp sw = caseCountedSwitch(loop, counts);
    for (Operation &inner : loop.getBody()->without_terminator()) {
      if (&inner != sw.getOperation()) {
        cost += trips * recomputedCost(&inner);
        continue;
      }
      for (unsigned k = 0; k < sw.getNumCases(); ++k)
        cost += double(counts[k]) * recomputedCost(sw.getCaseBlock(k));
      cost += double(counts[sw.getNumCases()]) *
              recomputedCost(sw.getDefaultBlock());
    }
    return cost;
  }
  double most = 0;
  for (Region &region : op->getRegions()) {
    double sum = 0;
    for (Block &block : region)
      sum += recomputedCost(block);
    most = std::max(most, sum);
  }
  return most;
}
