//===- Remat.h - the remat pass and its report ------------------*- C++ -*-===//
//
// The remat pass schedules every derivative (joint) function within a byte
// budget: it decides which forward values the backward sweep reads are
// kept and which are recomputed, and rewrites the function accordingly. Its
// report says, for each such value, what was decided and why.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TRANSFORMS_REMAT_H
#define TAD_TRANSFORMS_REMAT_H

#include "tad/Transforms/Passes.h"

#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace tad::remat {
struct SearchMemos;
} // namespace tad::remat

namespace tad {

/// One forward value that the backward sweep reads.
struct RematValue {
  std::string op;       // the op that computes it, e.g. "tad.matmul"
  std::string location; // its .tad (or .mlir) source location, if any
  int64_t bytes = 0;    // its buffer
  double cost = 0;      // the estimated cost of computing it once
  int computes = 1;     // 1 when stored; more when recomputed
  /// What its instances cost in the rewritten function over its `cost`
  /// (0 when stored; below 0 where they fuse into their readers).
  double addedCost = 0;
  std::string reason;
};

/// The live bytes after one allocation or free of the compiled function,
/// as the buffer plan runs them (the runtime allocator measures the same).
struct RematTimelinePoint {
  std::string event; // "alloc N bytes at LOC" or "free N bytes at LOC"
  int64_t liveBytes = 0;
};

/// A loop of the forward sweep whose body the reverse sweep runs again
/// (`tad.reverse_reruns`): once per iteration with a full tape, and
/// revolve's advances with binomial checkpointing.
struct RematLoopRerun {
  std::string location;
  int64_t trips = 0;  // the iterations of one run of the loop
  int64_t reruns = 0; // body runs in the reverse sweep, per run of the loop
  double cost = 0;    // their estimated cost, every run of the loop counted
  /// Whether the forward loop tapes residuals: a reverse step then runs
  /// only what its tapes do not hold.
  bool residuals = false;
};

/// A reverse loop whose body the pass scheduled (recomputing inside it)
/// because no schedule of the function around it fit.
struct RematLoopBody {
  std::string location;
  int64_t trips = 0;
  int64_t bodyBudget = 0; // what the body's schedule met, by the model
  int64_t recomputes = 0; // computes beyond the first, per iteration
  double cost = 0;        // the extra estimated cost, all iterations
};

struct RematFunctionReport {
  std::string function;
  int64_t budget = 0;
  /// Under the overhead policy (Budget::overhead): its bound, in percent
  /// of the compute, and `budget` is the least that the search found
  /// within it. Negative otherwise.
  double overheadBound = -1;
  int64_t storeAllPeak = 0, predictedPeak = 0;
  /// On the GPU targets, where the kernels keep some buffers in their own
  /// memory (docs/gpu.md), `predictedPeak` is the device's plan and this
  /// the plan's peak before the kernels; negative where the two are one.
  int64_t hostPlannedPeak = -1;
  double storeAllCost = 0, cost = 0; // estimated compute, all nodes
  /// The estimated compute with nothing computed twice: the store-all cost
  /// without the loops' reruns and the regions computed again. The
  /// overhead is cost / baseCost - 1.
  double baseCost = 0;
  /// The estimated compute of the checkpoint regions and branches that the
  /// backward sweep computes again (AD's tad.recomputed ops).
  double regionRerunCost = 0;
  std::string solver;
  std::vector<RematValue> values;
  std::vector<RematLoopRerun> loopReruns;
  std::vector<RematLoopBody> loopBodies;
  std::vector<RematTimelinePoint> timeline;
  /// Whether the timeline stops before the call's end (it has a bounded
  /// number of events).
  bool timelineTruncated = false;
};

/// The estimated compute beyond computing everything once, as a fraction:
/// values the schedule recomputes, loop bodies the reverse sweep reruns,
/// and checkpoint regions and branches the backward sweep computes again.
double getRecomputeOverhead(const RematFunctionReport &f);

/// A loop whose snapshots tad-choose-loop-snapshots chose for the budget.
struct RematLoop {
  std::string location; // of the loop in the source
  int64_t trips = 0;
  int64_t snapshots = 0; // 0: a full tape
  /// With a full tape: whether it also keeps each iteration's residuals.
  bool residuals = false;
  /// With residuals: the share, in percent, of the bytes of those with
  /// tapes of their own that a reverse step computes again instead.
  int64_t residualRecompute = 0;
};

struct RematReport {
  std::vector<RematFunctionReport> functions;
  /// The loops, when tad-choose-loop-snapshots chose their snapshots (binomial checkpointing);
  /// empty otherwise.
  std::vector<RematLoop> loops;
  /// When the pass failed because a function does not fit the budget: the
  /// smallest budget it needs (0 otherwise).
  int64_t feasibleMinimum = 0;
};

/// What tad-remat decided for a module.
struct RematResult {
  /// Whether every derivative was scheduled within the budget (false after
  /// an error has been reported).
  bool scheduled = false;
  /// What was decided; when a derivative did not fit, the ones before it
  /// and, in feasibleMinimum, the least budget it needs (when searched).
  RematReport report;
};

/// Schedules every derivative of `module` (the entry's alone when
/// `options.entry` names one) within `options.budget` and rewrites them,
/// as the tad-remat pass does (Passes.td), and returns the report. For
/// callers that plan on a copy of their module (tad-choose-loop-snapshots's
/// probes). With `memo`, the solver's exact answers are shared with the
/// other schedules that use it (remat::SearchMemos). Once `cancel` is set,
/// no plan is checked any more: the result is to be dropped (a probe that
/// is no longer wanted).
RematResult scheduleDerivatives(mlir::ModuleOp module,
                                const RematOptions &options,
                                remat::SearchMemos *memo = nullptr,
                                const std::atomic<bool> *cancel = nullptr);

/// tad-choose-loop-snapshots and tad-remat sharing the solver's answers
/// (remat::SearchMemos) with the other passes made with `memo`: the
/// pipeline's loop choice and remat pass, whose questions overlap. Without
/// one (as from a textual pipeline), each run keeps its own.
std::unique_ptr<mlir::Pass>
createChooseLoopSnapshots(const ChooseLoopSnapshotsOptions &options,
                          std::shared_ptr<remat::SearchMemos> memo);
std::unique_ptr<mlir::Pass>
createRemat(const RematOptions &options,
            std::shared_ptr<remat::SearchMemos> memo);

/// "file:line:col", and for inlined ops "file:line:col called at
/// file:line:col", outermost call last; "" when `loc` has no file.
std::string describeLocation(mlir::Location loc);

/// The report as JSON (docs/remat.md describes the fields).
std::string rematReportToJson(const RematReport &report);

/// The report for people: a summary per function, then one line per value.
void printRematReport(const RematReport &report, llvm::raw_ostream &os);

} // namespace tad

#endif // TAD_TRANSFORMS_REMAT_H
