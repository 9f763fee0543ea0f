//===- Activity.cpp - which values carry derivatives ----------------------===//
//
// Activity analysis: a forward value is active when it depends on a wrt
// parameter; only active values (and the backward sweep's own) accumulate
// cotangents.
//
//===----------------------------------------------------------------------===//

#include "Differentiator.h"

using namespace mlir;
using namespace tad;
using namespace tad::autodiff;

void Differentiator::propagateActivity(ArrayRef<Operation *> ops) {
  for (Operation *op : ops) {
    bool any = llvm::any_of(op->getOperands(),
                            [&](Value v) { return active.contains(v); });
    // A region op is active if its body reads an active value.
    for (Region &region : op->getRegions()) {
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(region, captured);
      any |=
          llvm::any_of(captured, [&](Value v) { return active.contains(v); });
    }
    if (!any)
      continue;
    for (Value r : op->getResults())
      if (isDifferentiable(r))
        active.insert(r);
    // Values inside the regions (recomputed in the backward sweep) are
    // active when they depend on active values; mark them all, the inner
    // sweeps are local.
    op->walk([&](Operation *inner) {
      for (Value r : inner->getResults())
        if (isDifferentiable(r))
          active.insert(r);
      for (Region &region : inner->getRegions())
        for (Block &block : region)
          for (Value arg : block.getArguments())
            if (isDifferentiable(arg))
              active.insert(arg);
    });
  }
}

void Differentiator::accumulate(CotangentMap &cot, Value v,
                                Value contribution) {
  if (!contribution || !isDifferentiable(v))
    return;
  // Values defined by ops created after the forward sweep (recomputed
  // clones) are always tracked; forward values only when active.
  if (!active.empty() && !active.contains(v) && !isRecomputed(v))
    return;
  Value &slot = cot[v];
  slot = slot ? AddOp::create(b, contribution.getLoc(), slot, contribution)
                    .getResult()
              : contribution;
}

//===----------------------------------------------------------------------===//
// Forward sweep
//===----------------------------------------------------------------------===//
