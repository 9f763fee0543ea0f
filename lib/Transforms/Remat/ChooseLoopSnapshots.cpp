//===- ChooseLoopSnapshots.cpp - loop snapshot counts for a budget --------===//
//
// Binomial checkpointing trades a loop's tape for recomputation; how many
// snapshots a loop can keep depends on everything else the derivative holds,
// which only tad-autodiff and tad-remat know. So each candidate choice is
// tried by running them on a copy of the module (Passes.td describes the
// search), and the cheapest one that fits is set on the loops.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"
#include "tad/Transforms/Remat.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <limits>

namespace tad {
#define GEN_PASS_DEF_CHOOSELOOPSNAPSHOTS
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;
using namespace tad;

namespace {

/// The loops whose snapshots are chosen, with their trip counts: those
/// with constant bounds and at least two trips, in walk order (the same in
/// a copy of the module).
std::vector<std::pair<scf::ForOp, int64_t>> choosableLoops(ModuleOp module) {
  std::vector<std::pair<scf::ForOp, int64_t>> loops;
  module.walk([&](scf::ForOp loop) {
    auto lower = getConstantIntValue(loop.getLowerBound());
    auto upper = getConstantIntValue(loop.getUpperBound());
    if (lower && upper && *upper - *lower >= 2)
      loops.push_back({loop, *upper - *lower});
  });
  return loops;
}

/// A loop's choice, as one number: the snapshots of binomial
/// checkpointing, or a full tape of the carried values (0), or of the
/// carried values and the residuals (kResiduals), of which a reverse step
/// computes a share again (kResiduals - 1 down to kFewestResiduals:
/// residualRecompute's percentages).
constexpr int64_t kResiduals = -1;
constexpr int64_t kResidualSteps = 4;
constexpr int64_t kFewestResiduals = kResiduals - kResidualSteps;

bool keepsResiduals(int64_t count) { return count <= kResiduals; }

/// The share, in percent, of the bytes of a residual tape's own tapes
/// that a reverse step computes again under `count`
/// (tad.loop_residual_recompute): 25, 50, 75 and 100 below kResiduals.
int64_t residualRecompute(int64_t count) {
  return keepsResiduals(count) ? (kResiduals - count) * 100 / kResidualSteps
                               : 0;
}

/// Sets each of choosableLoops(module)'s choice (`counts` in the same
/// order).
void markLoops(ModuleOp module, ArrayRef<int64_t> counts) {
  auto loops = choosableLoops(module);
  Builder builder(module.getContext());
  for (auto [loop, count] : llvm::zip(loops, counts)) {
    loop.first->setAttr(TadDialect::kLoopSnapshotsAttrName,
                        builder.getI64IntegerAttr(std::max<int64_t>(count, 0)));
    loop.first->setAttr(TadDialect::kLoopResidualsAttrName,
                        builder.getBoolAttr(keepsResiduals(count)));
    if (residualRecompute(count) > 0)
      loop.first->setAttr(TadDialect::kLoopResidualRecomputeAttrName,
                          builder.getI64IntegerAttr(residualRecompute(count)));
    else
      loop.first->removeAttr(TadDialect::kLoopResidualRecomputeAttrName);
  }
}

/// What tad-autodiff and tad-remat make of a choice.
struct Trial {
  bool fits = false;
  int64_t minimum = std::numeric_limits<int64_t>::max(); // when it does not
  double cost = 0; // the predicted compute of the derivatives, when it does
  /// Whether it fit only by scheduling inside a reverse loop's body.
  bool bodyScheduled = false;
};

struct ChooseLoopSnapshots
    : tad::impl::ChooseLoopSnapshotsBase<ChooseLoopSnapshots> {
  using ChooseLoopSnapshotsBase::ChooseLoopSnapshotsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!budget.getValue().isSet())
      return;
    auto loops = choosableLoops(module);
    if (loops.empty())
      return;
    std::vector<int64_t> counts = choose(module, loops);
    markLoops(module, counts);
    Builder builder(module.getContext());
    SmallVector<Attribute> choice;
    for (auto [loop, count] : llvm::zip(loops, counts))
      choice.push_back(builder.getDictionaryAttr(
          {builder.getNamedAttr(
               "location",
               builder.getStringAttr(describeLocation(loop.first.getLoc()))),
           builder.getNamedAttr("trips",
                                builder.getI64IntegerAttr(loop.second)),
           builder.getNamedAttr("snapshots", builder.getI64IntegerAttr(
                                                 std::max<int64_t>(count, 0))),
           builder.getNamedAttr("residuals",
                                builder.getBoolAttr(keepsResiduals(count))),
           builder.getNamedAttr(
               "residual_recompute",
               builder.getI64IntegerAttr(residualRecompute(count)))}));
    module->setAttr(TadDialect::kLoopSnapshotChoiceAttrName,
                    builder.getArrayAttr(choice));
  }

  /// Runs tad-autodiff, canonicalize, cse and tad-remat on a copy of
  /// `module` with these counts, silently.
  Trial tryCounts(ModuleOp module, ArrayRef<int64_t> counts,
                  bool searchMinimum = false, int64_t minimumBelow = 0) {
    OwningOpRef<ModuleOp> copy(module.clone());
    ScopedDiagnosticHandler quiet(&getContext(),
                                  [](Diagnostic &) { return success(); });
    markLoops(*copy, counts);
    PassManager pm(&getContext());
    pm.addPass(createAutoDiff());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    RematOptions options;
    options.budget = budget;
    options.policy = policy;
    options.entry = entry;
    options.searchMinimum = searchMinimum;
    options.minimumBelow = minimumBelow;
    RematReport report;
    pm.addPass(createRematPass(options, &report));
    Trial trial;
    trial.fits = succeeded(pm.run(*copy));
    if (trial.fits)
      for (const RematFunctionReport &f : report.functions) {
        trial.cost += f.cost;
        trial.bodyScheduled |= !f.loopBodies.empty();
      }
    else if (report.feasibleMinimum > 0)
      // A failure other than the budget (none is known) has no minimum; it
      // ranks last, and the real compile reports it.
      trial.minimum = report.feasibleMinimum;
    return trial;
  }

  /// The counts per loop, as Passes.td describes.
  std::vector<int64_t>
  choose(ModuleOp module,
         const std::vector<std::pair<scf::ForOp, int64_t>> &loops) {
    int64_t longest = 0;
    for (auto &loop : loops)
      longest = std::max(longest, loop.second);
    // Candidates from the most memory (a full tape with the residuals) to
    // the least.
    std::vector<int64_t> candidates;
    if (loopResiduals)
      for (int64_t count = kResiduals; count >= kFewestResiduals; --count)
        candidates.push_back(count);
    candidates.push_back(0);
    for (int64_t n = 64; n >= 1; n /= 2)
      if (n < longest)
        candidates.push_back(n);
    // A count of at least a loop's trips is a full tape.
    auto normalize = [&](std::vector<int64_t> counts) {
      for (size_t i = 0; i < loops.size(); ++i)
        if (counts[i] > 0 && counts[i] >= loops[i].second)
          counts[i] = 0;
      return counts;
    };
    std::vector<int64_t> best;
    double cost = 0;
    for (int64_t snapshots : candidates) {
      std::vector<int64_t> counts =
          normalize(std::vector<int64_t>(loops.size(), snapshots));
      // After a fit with residuals that needed the pass to schedule inside
      // the reverse loop's body, a larger share computed again can cost
      // less, needing none: the next shares while the cost falls.
      if (!best.empty() && !keepsResiduals(snapshots))
        break;
      Trial trial = tryCounts(module, counts);
      if (!best.empty() && (!trial.fits || trial.cost >= cost))
        break;
      if (trial.fits) {
        best = counts;
        cost = trial.cost;
        if (!keepsResiduals(snapshots) || !trial.bodyScheduled)
          break;
      }
    }
    if (best.empty()) {
      // None fits: the choice whose feasible minimum is least, so that
      // tad-remat's error names the true minimum. That search costs a
      // compile many times over, so it runs only now, and of the tapes
      // that keep residuals only for the one that computes all the
      // residuals that cost memory again: it holds the least of them, and
      // can hold less than a tape of the carried values, whose reverse
      // step holds a whole block computed again.
      int64_t bestMinimum = std::numeric_limits<int64_t>::max();
      for (int64_t snapshots : candidates) {
        if (keepsResiduals(snapshots) && snapshots != kFewestResiduals)
          continue;
        std::vector<int64_t> counts =
            normalize(std::vector<int64_t>(loops.size(), snapshots));
        // Past the first, each search looks below the best so far only.
        Trial trial = tryCounts(module, counts, /*searchMinimum=*/true,
                                best.empty() ? 0 : bestMinimum);
        if (best.empty() || trial.minimum < bestMinimum) {
          bestMinimum = trial.minimum;
          best = counts;
        }
      }
      return best;
    }
    if (loops.size() == 1)
      return best;
    // More snapshots, loop by loop, where the budget leaves room; after a
    // full tape, its residuals, from the fewest to all.
    int64_t most = loopResiduals ? kResiduals : 0;
    while (true) {
      std::vector<int64_t> step;
      double stepCost = cost;
      for (size_t i = 0; i < loops.size(); ++i) {
        if (best[i] == most)
          continue;
        std::vector<int64_t> counts = best;
        if (best[i] == 0)
          counts[i] = kFewestResiduals;
        else if (keepsResiduals(best[i]))
          counts[i] = best[i] + 1;
        else
          counts[i] = best[i] * 2 >= loops[i].second || best[i] >= 64
                          ? 0
                          : best[i] * 2;
        Trial trial = tryCounts(module, counts);
        if (trial.fits && (step.empty() || trial.cost < stepCost)) {
          step = counts;
          stepCost = trial.cost;
        }
      }
      if (step.empty())
        return best;
      best = step;
      cost = stepCost;
    }
  }
};

} // namespace
