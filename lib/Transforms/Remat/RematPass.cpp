//===- RematPass.cpp - schedule derivatives within a memory budget --------===//
//
// The search of the remat pass. For each joint function: build the graph
// (RematGraph.h), search a schedule within the budget (lib/Remat's solvers,
// and below, the budget, loop-body and minimum searches), rewrite the body
// to follow it (RematRewrite.h) and say why (RematExplain.h,
// RematReport.cpp). The graph is a model; what decides is the buffer plan
// of a copy lowered through the bufferization pipeline (planPeak), whose
// peak the report predicts.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"
#include "tad/Transforms/Remat.h"

#include "LoopCosts.h"
#include "PlanPeak.h"
#include "RematExplain.h"
#include "RematGraph.h"
#include "RematRewrite.h"
#include "dialects/tad/TadOps.h"
#include "tad/Remat/ByteSize.h"
#include "tad/Remat/Exact.h"
#include "tad/Remat/Solver.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <limits>
#include <thread>

namespace tad {
#define GEN_PASS_DEF_REMAT
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;
using namespace tad;
using remat::Event;

namespace {

/// What tad-choose-loop-snapshots decided, which it left on the module.
std::vector<RematLoop> takeLoopChoice(ModuleOp module) {
  std::vector<RematLoop> loops;
  auto choice =
      module->getAttrOfType<ArrayAttr>(TadDialect::kLoopSnapshotChoiceAttrName);
  if (!choice)
    return loops;
  for (auto loop : choice.getAsRange<DictionaryAttr>()) { // verified
    auto share = loop.getAs<IntegerAttr>("residual_recompute");
    loops.push_back({loop.getAs<StringAttr>("location").str(),
                     loop.getAs<IntegerAttr>("trips").getInt(),
                     loop.getAs<IntegerAttr>("snapshots").getInt(),
                     loop.getAs<BoolAttr>("residuals") &&
                         loop.getAs<BoolAttr>("residuals").getValue(),
                     share ? share.getInt() : 0});
  }
  module->removeAttr(TadDialect::kLoopSnapshotChoiceAttrName);
  return loops;
}

/// Schedules the derivatives of one module (scheduleDerivatives). Its
/// options are the pass's, by the same names.
class Scheduler : private RematOptions {
public:
  Scheduler(ModuleOp module, const RematOptions &options,
            remat::SearchMemos *memo, const std::atomic<bool> *cancel)
      : RematOptions(options), module(module), cancel(cancel),
        planLowering(module.getContext(),
                     memo ? &memo->plannedPeaks : nullptr) {
    solverLimits.stop = &storeAllFits;
    solverLimits.arena = &windowArena;
    solverLimits.memo = memo;
  }

  RematResult run() {
    RematResult result;
    if (!budget.isSet()) {
      result.scheduled = true;
      return result;
    }
    if (budget.isShare()) {
      module.emitError() << "option 'budget': a share of the store-all peak ("
                         << budget.str()
                         << ") is resolved to bytes before the passes "
                            "(tad::resolveBudget); give bytes or store-all";
      return result;
    }
    // A probe asks only whether a schedule is easily found: the searches
    // that prove one (or that none exists) get a small part of their work,
    // and the fast solver no last resort.
    if (anySchedule) {
      exactStates = kProbeExactStates;
      solverLimits = withProbeWholeGraphWork(solverLimits);
      solverLimits.scanLooksPerEdge = 0;
    }
    RematReport &report = result.report;
    report.loops = takeLoopChoice(module);
    loopSnapshotsChosen = !report.loops.empty();
    if (auto hint = module->getAttrOfType<IntegerAttr>(
            TadDialect::kLoopChoiceMinimumAttrName)) // verified
      minimumHint = hint.getInt();
    module->removeAttr(TadDialect::kLoopChoiceMinimumAttrName);
    // With an entry that is a derivative, the budget is the entry's; the
    // derivatives it calls (a custom rule's pullback may) count within it.
    auto entryFunc = module.lookupSymbol<func::FuncOp>(entry);
    bool onlyEntry = !entry.empty() && entryFunc &&
                     entryFunc->hasAttr(TadDialect::kDerivativeAttrName);
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isDeclaration() &&
          func->hasAttr(TadDialect::kDerivativeAttrName) &&
          (!onlyEntry || func == entryFunc))
        funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      if (!func.getBody().hasOneBlock()) {
        func.emitError("remat needs a single-block function body");
        return result;
      }
      RematGraphOptions graphOptions;
      graphOptions.saveMatmuls = policy == RematPolicy::saveMatmuls;
      graphOptions.symbolTable = module;
      RematProblem problem = buildRematProblem(func, graphOptions);
      if (!graphFile.empty() &&
          failed(writeGraph(func, problem, funcs.size() > 1)))
        return result;
      std::optional<RematFunctionReport> scheduled =
          scheduleFunction(func, problem, graphOptions);
      if (!scheduled) {
        report.feasibleMinimum = failedMinimum;
        // The JSON report says why the compile failed: the functions
        // scheduled before, and the least budget this one needs.
        if (failedMinimum > 0)
          (void)writeReportFile(report);
        return result;
      }
      report.functions.push_back(std::move(*scheduled));
    }
    if (summary == ReportStream::standardOutput)
      printRematReport(report, llvm::outs());
    else if (summary == ReportStream::standardError)
      printRematReport(report, llvm::errs());
    result.scheduled = succeeded(writeReportFile(report));
    return result;
  }

  /// The JSON report, to --remat-report's file if one was named.
  LogicalResult writeReportFile(const RematReport &report) {
    if (reportFile.empty())
      return success();
    std::error_code ec;
    llvm::ToolOutputFile out(reportFile, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return module.emitError()
             << "cannot write '" << reportFile << "': " << ec.message();
    out.os() << rematReportToJson(report) << "\n";
    out.keep();
    return success();
  }

  /// How many schedules the solvers have found for tryBudget: a probe
  /// tells by it whether a failed attempt found none at all.
  int64_t schedulesFound = 0;

  /// The budget in bytes: store-all's is the function's store-all peak.
  int64_t getBudget() const {
    return budget.isStoreAll() ? functionStoreAll : budget.bytes;
  }

  /// A rewritten copy of a function that meets a budget.
  struct Attempt {
    func::FuncOp work; // detached; the caller destroys or adopts it
    std::vector<Event> schedule;
    RematProblem after;
    std::string solver;
    int64_t plannedPeak; // planPeak's, or the model's when not checked
    /// The loop whose body was scheduled first (tryLoopBody), if any.
    std::optional<RematLoopBody> body;
  };

  /// Whether the caller stopped waiting for the answer (the loop choice's
  /// probes, once it has chosen).
  bool cancelled() const {
    return cancel && cancel->load(std::memory_order_relaxed);
  }

  /// The peak of `func`'s buffers as the lowering plans them, with `body`
  /// as its body (PlanPeak.h). This, not the solver's model, is the peak
  /// that a budget bounds.
  FailureOr<int64_t> planPeak(func::FuncOp func, func::FuncOp body) {
    if (cancelled())
      return failure();
    return planBufferPeak(planLowering, module, func, body);
  }

  /// The mark of a rewrite's ops: the node of the schedule's problem that
  /// each is (an instance of).
  static constexpr llvm::StringLiteral kInstanceOfAttr = "tad.remat_instance";

  /// A schedule's rewrite of a copy of `start`, measured.
  struct Rewrite {
    func::FuncOp work;           // detached; the caller destroys or adopts it
    std::vector<Event> schedule; // freed after last use
    RematProblem after;          // the rewrite's model
    int64_t peak; // the model's; the plan's where `planned` checked it
  };
  /// Applies `schedule` to a copy of `start` and measures the rewrite by
  /// the model, and with `planned`, where the model puts it within
  /// `planLimit`, by the plan. Fails (with an error) where the copy cannot
  /// be lowered.
  FailureOr<Rewrite> rewrite(func::FuncOp func, func::FuncOp start,
                             const RematProblem &problem,
                             const RematGraphOptions &graphOptions,
                             const std::vector<Event> &schedule,
                             int64_t planLimit, bool planned) {
    Rewrite r;
    r.schedule = remat::freeAfterLastUse(problem.graph, schedule);
    r.work = cast<func::FuncOp>(start->clone());
    RematProblem workProblem = buildRematProblem(r.work, graphOptions);
    // Each op of a node is marked with the node, and so is each of its
    // copies: what the rewrite computes of each node is then priced.
    Builder b(func.getContext());
    for (auto [v, group] : llvm::enumerate(workProblem.groups))
      for (Operation *op : group)
        op->setAttr(kInstanceOfAttr, b.getI64IntegerAttr(v));
    applySchedule(r.work.getBody().front(), workProblem, r.schedule);
    r.after = buildRematProblem(r.work, graphOptions);
    r.after.instanceCosts.assign(workProblem.graph.size(), 0.0);
    for (auto [op, cost] : r.after.opCosts)
      if (auto of = op->getAttrOfType<IntegerAttr>(kInstanceOfAttr))
        r.after.instanceCosts[of.getInt()] += cost;
    r.work.walk([](Operation *op) { op->removeAttr(kInstanceOfAttr); });
    r.peak =
        remat::simulate(r.after.graph, remat::storeAllSchedule(r.after.graph))
            .peak;
    // The model holds all results of a loop, branch or call until the
    // last reader of any, where the plan frees each after its own: a
    // rewrite the model puts a little over the budget may fit it.
    if (planned && r.peak <= planLimit) {
      FailureOr<int64_t> plan = planPeak(func, r.work);
      if (failed(plan)) {
        r.work->destroy();
        return failure();
      }
      r.peak = *plan;
    }
    return r;
  }

  /// `fits`, the rewrite of `schedule` (the fast solver's at `target`),
  /// which meets `budget`, or the rewrite of the schedule that the
  /// solver's windows make of it where that meets the budget too. The
  /// windows re-solve stretches of a schedule for a cheaper one; kept only
  /// where it fits, they never decide whether a budget fits, so the search
  /// for the least budget, which asks whether a compile fits at each
  /// budget it tries, need not run them (on a graph of 30 to 50 nodes, up
  /// to a second each). Fails where a copy cannot be lowered.
  FailureOr<Rewrite>
  withWindows(Rewrite fits, const std::vector<Event> &schedule,
              const remat::Graph &solverGraph, int64_t target,
              const remat::SolverLimits &limits, func::FuncOp func,
              func::FuncOp start, const RematProblem &problem,
              const RematGraphOptions &graphOptions, int64_t budget,
              int64_t slack, bool planned) {
    std::vector<Event> windowed;
    if (!remat::fastSchedule(solverGraph, target, windowed, nullptr,
                             /*improve=*/true, limits) ||
        windowed == schedule)
      return fits;
    FailureOr<Rewrite> cheaper = rewrite(func, start, problem, graphOptions,
                                         windowed, budget + slack, planned);
    if (failed(cheaper)) {
      fits.work->destroy();
      return failure();
    }
    if (cheaper->peak > budget) {
      cheaper->work->destroy();
      return fits;
    }
    fits.work->destroy();
    return cheaper;
  }

  /// Schedules a copy of `start` (`func`, or a copy of it whose loop
  /// bodies were scheduled already) within `budget` and rewrites it. The model
  /// of fusion depends on each value's users, which the rewrite changes (a
  /// value whose users were split between instances may fuse where it did
  /// not): the rewritten copy is measured by the same model, and when it
  /// exceeds the budget the solver runs again with a budget smaller by the
  /// excess. The solver counts the bytes of a recomputed value that fuses
  /// into its one reader, which the rewrite never writes: a rewrite may
  /// peak well under the budget. With `improve` (and raise-budgets), the
  /// solver then runs again with a budget larger by that gap, or halfway
  /// back toward the last fit where that overshoots, for a cheaper
  /// schedule that still fits, and the cheapest rewrite that fits is
  /// returned. (Not under the overhead policy: it looks for the least
  /// peak within its cost bound, and a raised budget trades peak for
  /// cost.)
  /// With `improve`, each schedule that fits is also re-solved by the fast
  /// solver's windows (remat::fastSchedule), whose schedule replaces it
  /// where its rewrite fits too: whether an attempt fits never depends on
  /// them, so the search for the least budget leaves them out and still
  /// names what a compile meets. `improve` false asks for any schedule
  /// within the budget, not its cheapest. With `planned`, a rewrite
  /// that the model accepts must also meet the budget as the lowering
  /// plans its buffers (planPeak); without, the model decides alone (the
  /// bisection for the feasible minimum, whose answer is then checked).
  std::optional<Attempt>
  tryBudget(func::FuncOp func, func::FuncOp start, const RematProblem &problem,
            const RematGraphOptions &graphOptions, int64_t budget,
            bool improve = true, bool planned = true, bool aroundBody = false) {
    // No schedule fits below the largest single compute (a loop's whole
    // run): the search need not prove it. Planned around a scheduled loop
    // body (tryLoopBody), a schedule the model puts up
    // to `slack` over the budget may still fit it (the model counts more than
    // the plan around loops, branches and calls): when none fits the budget,
    // the solver gets the slack once, and the plan decides.
    int64_t slack = planned && aroundBody ? budget / kModelSlackDivisor : 0;
    if (remat::lowerBound(problem.graph) > budget + slack)
      return std::nullopt;
    int64_t target = budget;
    bool slackUsed = false;
    // Once the exact search gave up on this graph (too many states; or it
    // is too large for it), the next attempts' budgets differ by little:
    // they go to the fast solver directly.
    bool exactGaveUp = false;
    // Recomputations priced as they will run (fused into their reader).
    remat::Graph solverGraph = getSolverGraph(problem);
    // Under the overhead policy, only schedules whose recomputation keeps
    // the rewrite within its cost bound are wanted: the solver looks for
    // none that recomputes more than kSolverCostMargin times what the
    // problem's store-all leaves of the bound, on top of the solver graph's
    // own store-all. The margin, because the solver graph and the
    // rewrite's model price a recomputation differently (the rewrite fuses
    // and shares what the solver counts one value at a time); the
    // rewrite's check below stays the judge.
    remat::SolverLimits limits = solverLimits;
    if (overheadCostBound != kNoCostBound) {
      std::vector<Event> once = remat::storeAllSchedule(problem.graph);
      double allowance =
          overheadCostBound - remat::simulate(problem.graph, once).cost;
      limits.maxCost = remat::simulate(solverGraph, once).cost +
                       kSolverCostMargin * std::max(0.0, allowance);
      // A probe of its bisection asks whether such a schedule is easily
      // found: where the heuristics find none, the search of the whole
      // graph gets a probe's work (a failing one spends all of it, at
      // each of a dozen budgets or more).
      if (overheadProbe)
        limits.wholeGraphWork = limits.wholeGraphProbeWork;
    }
    std::optional<Attempt> best;
    double bestCost = 0;
    // The raised budgets: the last one whose rewrite fitted, and the least
    // one whose rewrite did not (0: none yet).
    int64_t fitTarget = 0, overTarget = 0;
    int raises = 0;
    for (int attempt = 0; attempt < kMaxAttempts && !storeAllFits;
         ++attempt) {
      std::vector<Event> schedule;
      // The exact search for small graphs (autoSchedule's), with this
      // pass's limit on its states; the fast solver where it gives up, and
      // also where it finds no schedule: its schedules compute a value at
      // most once per stage, and the fast solver's may compute one twice
      // (as in the feasible-minimum search's first probes, whose exact
      // search gives way sooner). The fast solver's windows (`improve`)
      // come after: whether a target fits is this schedule's answer alone
      // (below).
      std::string solver;
      if (!exactGaveUp && solverGraph.size() <= remat::kMaxExactNodes &&
          remat::rememberedExactSchedule(
              solverGraph, target, schedule, exactStates, limits.maxCost,
              limits.memo) == remat::ExactResult::optimal)
        solver = "exact";
      else if (remat::fastSchedule(solverGraph, target, schedule, nullptr,
                                   /*improve=*/false, limits))
        solver = "fast";
      exactGaveUp = exactGaveUp || solver == "fast";
      schedulesFound += !solver.empty();
      if (solver.empty()) {
        if (best)
          return best;
        if (slack == 0 || slackUsed)
          return std::nullopt;
        slackUsed = true;
        target = budget + slack;
        continue;
      }
      FailureOr<Rewrite> rewritten = rewrite(func, start, problem, graphOptions,
                                             schedule, budget + slack, planned);
      if (succeeded(rewritten) && rewritten->peak <= budget && improve &&
          solver == "fast")
        rewritten = withWindows(std::move(*rewritten), schedule, solverGraph,
                                target, limits, func, start, problem,
                                graphOptions, budget, slack, planned);
      if (failed(rewritten)) {
        if (best)
          best->work->destroy();
        loweringFailed = true;
        return std::nullopt;
      }
      func::FuncOp work = rewritten->work;
      schedule = std::move(rewritten->schedule);
      RematProblem after = std::move(rewritten->after);
      int64_t peak = rewritten->peak;
      if (peak <= budget) {
        double cost =
            remat::simulate(after.graph, remat::storeAllSchedule(after.graph))
                .cost;
        bool cheaper = !best || cost < bestCost;
        if (cheaper) {
          if (best)
            best->work->destroy();
          best = Attempt{work, std::move(schedule), std::move(after), solver,
                         peak};
          bestCost = cost;
        } else {
          work->destroy();
        }
        // Raise the solver's budget by the gap, or halfway to a raised
        // budget that overshot.
        fitTarget = target;
        int64_t next = overTarget ? (target + overTarget) / 2
                                  : target + (budget - peak);
        if (!improve || !raiseBudgets || !raising ||
            this->budget.isOverhead() || !cheaper || raises == kMaxRaises ||
            next - target <= budget / kRaiseGapDivisor)
          return best;
        ++raises;
        target = next;
        continue;
      }
      work->destroy();
      if (best) {
        overTarget = target;
        int64_t next = (fitTarget + overTarget) / 2;
        if (raises == kMaxRaises ||
            next - fitTarget <= budget / kRaiseGapDivisor)
          return best;
        ++raises;
        target = next;
        continue;
      }
      target -= peak - budget;
    }
    return best;
  }

  /// tryBudget, and when that fails, the same after recomputing inside the
  /// body of the loop that peaks highest (tryLoopBody).
  /// `bodyWindows`: whether a loop body's schedule gets the windows, which
  /// (unlike the function's, in tryBudget) decide what fits around it.
  std::optional<Attempt> tryAll(func::FuncOp func, const RematProblem &problem,
                                const RematGraphOptions &graphOptions,
                                int64_t budget, bool improve, bool planned,
                                bool bodyWhenPlanFails, bool bodyWindows) {
    if (std::optional<Attempt> a = tryBudget(func, func, problem, graphOptions,
                                             budget, improve, planned))
      return a;
    // Only when a loop's run alone (its body's peak on top of what it
    // holds) is over the budget does scheduling its body have to help, by
    // the model. The plan may put a loop's run higher than the model does
    // (a reverse step that reads residual tapes from its accumulators'
    // rows): the compile's own attempt (`bodyWhenPlanFails`) tries the
    // body whenever the function failed. (The search for the feasible
    // minimum does not: its many budgets would each pay for it.)
    if (loweringFailed || storeAllFits ||
        (!bodyWhenPlanFails && remat::lowerBound(problem.graph) <= budget))
      return std::nullopt;
    return tryLoopBody(func, problem, graphOptions, budget, improve, planned,
                       bodyWindows);
  }

  /// The loops of `func`'s body whose bodies the pass may schedule: the
  /// reverse sweep's (not the forward sweep's, whose values the tape
  /// keeps), with one block and no revolve dispatcher (whose body is one
  /// branch).
  static SmallVector<scf::ForOp> schedulableLoops(func::FuncOp func) {
    SmallVector<scf::ForOp> loops;
    for (auto loop : func.getBody().front().getOps<scf::ForOp>())
      if (!isForward(loop) && loop.getRegion().hasOneBlock() &&
          llvm::none_of(loop.getBody()->without_terminator(),
                        [](Operation &op) {
                          return op.hasAttr(TadDialect::kCaseCountsAttrName);
                        }))
        loops.push_back(loop);
    return loops;
  }

  /// A loop body's store-all peak and, once asked (`withFloor`), the least
  /// peak that a schedule of it reaches (0 until then).
  struct BodyPeaks {
    int64_t storeAll = 0, floor = 0;
    /// At most the floor, known with the store-all peak: the body's
    /// largest single compute (remat::lowerBound), or its store-all peak
    /// where that is less.
    int64_t floorBound = 0;
  };
  /// (The answer for a loop of the function being scheduled is kept: the
  /// bisection for the feasible minimum asks for it at every step.) The
  /// floor is a search, asked only where it is read: of the body that
  /// peaks highest (tryLoopBody), or of every body by the minimum's search.
  /// It only spaces the body budgets that tryLoopBody tries, so a probe's
  /// whole-graph work is enough (with it the random programs' plans did
  /// not change: scripts/compare-plan-quality.py).
  BodyPeaks bodyPeaks(scf::ForOp loop, const RematGraphOptions &graphOptions,
                      bool withFloor) {
    BodyPeaks &peaks = knownBodyPeaks[loop];
    if (peaks.storeAll > 0 && (peaks.floor > 0 || !withFloor))
      return peaks;
    RematProblem body = buildRematProblem(*loop.getBody(), graphOptions);
    peaks.storeAll =
        remat::simulate(body.graph, remat::storeAllSchedule(body.graph)).peak;
    peaks.floorBound = std::min(peaks.storeAll, remat::lowerBound(body.graph));
    // No schedule peaks below the largest single compute: where that is
    // the store-all peak, the floor needs no search.
    if (withFloor)
      peaks.floor = remat::lowerBound(body.graph) >= peaks.storeAll
                        ? peaks.storeAll
                        : std::min(peaks.storeAll,
                                   remat::autoMinimumBudget(
                                       body.graph,
                                       withProbeWholeGraphWork(solverLimits)));
    return peaks;
  }
  /// `limits` with a probe's work for the searches of the whole graph.
  static remat::SolverLimits
  withProbeWholeGraphWork(remat::SolverLimits limits) {
    limits.wholeGraphWork =
        std::min(limits.wholeGraphWork, kProbeWholeGraphWork);
    limits.wholeGraphProbeWork =
        std::min(limits.wholeGraphProbeWork, kProbeWholeGraphWork / 4);
    return limits;
  }
  llvm::DenseMap<Operation *, BodyPeaks> knownBodyPeaks;
  /// Whether schedules the model puts just over the budget may be planned
  /// (tryBudget around a scheduled loop body): in functions with reverse
  /// loops, whose results the model holds together (the forward loop's
  /// tape and its last carried value), where the plan frees each after its
  /// own last reader. The minimum's search then looks that far lower.
  bool modelSlack = false;

  /// What recomputing inside loop bodies can take off a function's peak at
  /// most, by the model: for the bisection's lower end.
  int64_t loopBodySlack(func::FuncOp func,
                        const RematGraphOptions &graphOptions) {
    int64_t slack = 0;
    for (scf::ForOp loop : schedulableLoops(func)) {
      BodyPeaks peaks = bodyPeaks(loop, graphOptions, /*withFloor=*/true);
      slack += peaks.storeAll - peaks.floor;
    }
    return slack;
  }

  /// A reverse loop runs one iteration's recomputed forward and its adjoint
  /// at a time, and the function's peak is often inside it. When no
  /// schedule of the function meets the budget, this schedules the body of
  /// the loop that peaks highest as a graph of its own (the same model,
  /// the same solver), within a body budget lowered by the function's
  /// excess, then schedules the function around it: first at the body's
  /// store-all peak less the excess, then lower, down to the body's least
  /// peak. An update in place that overwrites what the body reads (a tape
  /// row in a gradient accumulator) runs last in the rewritten body
  /// (RematProblem::lastUpdates), so a recomputation never reads
  /// overwritten data.
  std::optional<Attempt> tryLoopBody(func::FuncOp func,
                                     const RematProblem &problem,
                                     const RematGraphOptions &graphOptions,
                                     int64_t budget, bool improve, bool planned,
                                     bool bodyWindows) {
    SmallVector<scf::ForOp> loops = schedulableLoops(func);
    if (loops.empty())
      return std::nullopt;
    size_t highest = 0;
    int64_t highestPeak = -1;
    for (auto [i, loop] : llvm::enumerate(loops)) {
      int64_t peak =
          bodyPeaks(loop, graphOptions, /*withFloor=*/false).storeAll;
      if (peak > highestPeak) {
        highest = i;
        highestPeak = peak;
      }
    }
    // Even at the body's least peak, the loop's run must fit (by the
    // model, give or take the planned slack). That peak is a search: where
    // the bound below it already says that the run cannot fit (near a
    // minimum, as in most of the loop choice's probes), it is not searched.
    int64_t slack = planned ? budget / kModelSlackDivisor : 0;
    int64_t run = remat::lowerBound(problem.graph);
    auto cannotFit = [&](const BodyPeaks &body, int64_t floor) {
      return floor >= body.storeAll ||
             run - (body.storeAll - floor) > budget + slack;
    };
    BodyPeaks body = bodyPeaks(loops[highest], graphOptions,
                               /*withFloor=*/false);
    if (cannotFit(body, body.floorBound))
      return std::nullopt;
    body = bodyPeaks(loops[highest], graphOptions, /*withFloor=*/true);
    if (cannotFit(body, body.floor))
      return std::nullopt;
    int64_t storeAll =
        remat::simulate(problem.graph, remat::storeAllSchedule(problem.graph))
            .peak;
    int64_t step = (body.storeAll - body.floor + 3) / 4;
    int64_t target = body.storeAll - std::max<int64_t>(1, storeAll - budget);
    // Where the model puts the function within the budget and only the
    // plan does not (tryAll's bodyWhenPlanFails), the model cannot say how
    // much the body must give: the attempts go down from a quarter of
    // what it can give to all of it, so that the body computes no more
    // again than the plan needs.
    if (storeAll <= budget)
      target = body.storeAll - step;
    for (int attempt = 0; attempt < kMaxBodyAttempts; ++attempt) {
      target = std::max(target, body.floor);
      if (std::optional<ScheduledBody> trial = scheduleLoopBody(
              func, highest, target, graphOptions, bodyWindows)) {
        RematProblem trialProblem =
            buildRematProblem(trial->work, graphOptions);
        std::optional<Attempt> a =
            tryBudget(func, trial->work, trialProblem, graphOptions, budget,
                      improve, planned, /*aroundBody=*/true);
        scf::ForOp before = loops[highest];
        scf::ForOp after = schedulableLoops(trial->work)[highest];
        RematLoopBody note{locationOf(before), constantTrips(before),
                           trial->budget, trial->recomputes,
                           estimateCost(after) - estimateCost(before)};
        trial->work->destroy();
        if (a) {
          a->body = note;
          return a;
        }
      }
      if (loweringFailed || storeAllFits || target == body.floor)
        break;
      target -= step;
    }
    return std::nullopt;
  }

  /// A copy of `func` whose `index`th schedulable loop has its body
  /// scheduled within `target` bytes by the model (with that peak and the
  /// number of recomputations), or none. As for the
  /// function (tryBudget), the rewritten body is measured again, and
  /// scheduled again with a target lowered by the excess, up to
  /// kMaxAttempts times.
  struct ScheduledBody {
    func::FuncOp work; // detached; the caller destroys it
    int64_t budget;    // the body's peak by the model
    int64_t recomputes;
  };
  std::optional<ScheduledBody>
  scheduleLoopBody(func::FuncOp func, size_t index, int64_t target,
                   const RematGraphOptions &graphOptions, bool improve) {
    int64_t aim = target;
    for (int attempt = 0; attempt < kMaxAttempts && aim > 0; ++attempt) {
      auto trial = cast<func::FuncOp>(func->clone());
      Block &body = *schedulableLoops(trial)[index].getBody();
      RematProblem bodyProblem = buildRematProblem(body, graphOptions);
      std::vector<Event> schedule;
      if (remat::autoSchedule(bodyProblem.graph, aim, schedule, improve,
                              solverLimits.memo)
              .empty()) {
        trial->destroy();
        return std::nullopt;
      }
      schedule = remat::freeAfterLastUse(bodyProblem.graph, schedule);
      applySchedule(body, bodyProblem, schedule);
      RematProblem after = buildRematProblem(body, graphOptions);
      int64_t peak =
          remat::simulate(after.graph, remat::storeAllSchedule(after.graph))
              .peak;
      if (peak <= target) {
        int64_t recomputes = 0;
        std::vector<char> seen(bodyProblem.graph.size(), 0);
        for (const Event &e : schedule)
          if (e.kind == Event::compute && e.node != bodyProblem.sink)
            recomputes += seen[e.node]++ ? 1 : 0;
        return ScheduledBody{trial, peak, recomputes};
      }
      trial->destroy();
      aim -= peak - target;
    }
    return std::nullopt;
  }

  static constexpr int kMaxBodyAttempts = 5;
  static constexpr int64_t kProbeExactStates = 20'000;

  /// The smallest budget that tryBudget meets, by bisection between the
  /// solver's minimum and the store-all peak (which always works). The
  /// bisection asks for any schedule, which is faster; the answer is then
  /// checked with the cheapest one, which the compile at that budget uses
  /// and whose rewrite may measure differently.
  int64_t minimumBudget(func::FuncOp func, const RematProblem &problem,
                        const RematGraphOptions &graphOptions,
                        int64_t plannedStoreAll) {
    // Recomputing inside a loop's body lowers the function's peak below
    // what the function's own graph (with the body at its store-all peak)
    // reaches.
    int64_t bodySlack = loopBodySlack(func, graphOptions);
    int64_t low = std::max<int64_t>(
        1, remat::autoMinimumBudget(problem.graph, solverLimits) - bodySlack);
    int64_t high = std::max(
        plannedStoreAll,
        remat::simulate(problem.graph, remat::storeAllSchedule(problem.graph))
            .peak);
    // The first bisection trusts the model and asks for any schedule; the
    // answer is then refined with what a compile runs (the cheapest
    // schedule, checked against the plan).
    // Store-all compiles at its planned peak and above, whatever the model
    // says of it.
    if (low >= plannedStoreAll)
      return plannedStoreAll;
    high = std::min(high, plannedStoreAll);
    // Each probe is a compile's schedule, checked against a plan (a second
    // or more for a failing one on the transformer loop of bench/step):
    // above a MiB, the bisections stop within 1/1024 of their answer,
    // which is a budget that compiles either way.
    // A probe's minimum only ranks the loop choices (their minimums differ
    // by far more): its bisections stop within 1/128.
    // The least planned peak of any schedule the probes below found.
    int64_t lowestSeen = std::numeric_limits<int64_t>::max();
    int64_t slack = high < (int64_t(1) << 20) ? 0
                    : anySchedule             ? high / 128
                                              : high / 1024;
    auto fits = [&](bool refined) {
      return [&, refined](int64_t budget) {
        if (budget >= plannedStoreAll)
          return true;
        // The first bisection's probes, many of them below the minimum,
        // where the exact search visits every state it may to prove that
        // none fits (most of the search's time on the transformer loop of
        // bench/step), give way to the fast solver sooner. The refined
        // probes run what decides whether a compile fits: the same search,
        // the body scheduled also where only the plan puts the function
        // over; so the minimum named compiles. (Not the function's
        // windows, which only make a schedule that fits cheaper: tryBudget.)
        // (A probe's whole search asks what the first bisection asks.)
        bool full = refined && !anySchedule;
        exactStates = full ? remat::kAutoExactStates : kProbeExactStates;
        raising = false;
        std::optional<Attempt> a =
            tryAll(func, problem, graphOptions, budget, /*improve=*/false,
                   refined, refined, /*bodyWindows=*/full);
        raising = true;
        exactStates = anySchedule ? kProbeExactStates : remat::kAutoExactStates;
        if (a) {
          lowestSeen = std::min(lowestSeen, a->plannedPeak);
          a->work->destroy();
        }
        return a.has_value();
      };
    };
    // The planned peak of the rewrite that decides whether a compile at
    // `budget` fits (before the windows), if it does.
    auto plannedAt = [&](int64_t budget) -> std::optional<int64_t> {
      if (budget >= plannedStoreAll)
        return plannedStoreAll;
      std::optional<Attempt> a =
          tryAll(func, problem, graphOptions, budget, /*improve=*/false,
                 /*planned=*/true, /*bodyWhenPlanFails=*/true,
                 /*bodyWindows=*/true);
      if (!a)
        return std::nullopt;
      lowestSeen = std::min(lowestSeen, a->plannedPeak);
      a->work->destroy();
      return a->plannedPeak;
    };
    // Only a minimum below `minimumBelow` is wanted (the caller has a
    // choice that compiles there): none where not even the first
    // bisection's kind of probe fits just below it; else the search stays
    // below it, and names it where nothing below compiles.
    if (minimumBelow > 0 && minimumBelow < high) {
      if (minimumBelow <= low || !fits(false)(minimumBelow - 1))
        return minimumBelow;
      high = minimumBelow;
    }
    // The loop choice's trial of these counts searched the minimum as this
    // search does, with a probe's smaller searches: where a compile meets
    // its answer, the first bisection is not needed (the steps below
    // still look further down).
    int64_t minimum = 0;
    std::optional<int64_t> planned;
    if (minimumHint > low && minimumHint < high && minimumBelow == 0) {
      planned = plannedAt(minimumHint);
      if (planned)
        minimum = minimumHint;
    }
    if (!planned) {
      minimum = remat::smallestFittingBudget(low, high, fits(false), slack);
      planned = plannedAt(minimum);
    }
    // Where the first bisection's answer does not compile, the answer is
    // mostly a little above it: up from there (each failing probe costs a
    // compile's whole search).
    if (!planned) {
      minimum = remat::smallestFittingBudgetFromBelow(minimum, high, fits(true),
                                                      slack);
      planned = plannedAt(minimum);
    }
    // What compiles at the minimum may plan below it (the model counts
    // more than the plan): a budget of that planned peak compiles too,
    // unless the search takes another route there. Follow it down.
    for (int step = 0; planned && *planned < minimum && step < kMaxAttempts;
         ++step) {
      std::optional<int64_t> lower = plannedAt(*planned);
      if (!lower)
        break;
      minimum = *planned;
      planned = lower;
    }
    // The compile's own search (the exact search with all its states,
    // the fast solver where that fails) can meet budgets below the
    // bisection's answer, and below autoMinimumBudget's when that
    // comes from the exact search, whose schedules never compute a value
    // twice in one stage: the least budget a compile meets is the minimum.
    // One byte less is the usual check; only when a compile meets it does
    // the search go further down.
    // (The plan may fit below the model's bound: by the slack tryBudget
    // allows.)
    int64_t floor = std::max<int64_t>(
        1, remat::lowerBound(problem.graph) - bodySlack -
               (modelSlack ? minimum / kModelSlackDivisor : 0));
    if (minimum > floor && fits(true)(minimum - 1))
      minimum = remat::smallestFittingBudgetFromAbove(floor, minimum - 1,
                                                      fits(true), slack);
    // The searches are not monotone in the budget: a probe above the
    // minimum may have found a schedule that plans below it, which the
    // searches at the budgets between did not (examples/transformer.tad:
    // a probe at 220587 bytes plans 214016, where 218111 fails). A budget
    // of that planned peak is the minimum where a compile meets it.
    for (int step = 0; lowestSeen < minimum && step < kMaxAttempts; ++step) {
      int64_t candidate = lowestSeen;
      if (!plannedAt(candidate))
        break;
      minimum = candidate;
    }
    return minimum;
  }

  /// The overhead policy (Budget::overhead): schedules `func` at the least
  /// budget at which its schedule adds at most budget.percent of its base
  /// compute to what store-all computes, and rewrites it. The budget is
  /// bisected with the model (feasibility and cost are nearly monotone in
  /// it), then checked against the plan and raised where the plan does not
  /// hold it; it is recorded on the function for tad-buffer-peak's check.
  std::optional<RematFunctionReport>
  scheduleWithinOverhead(func::FuncOp func, const RematProblem &problem,
                         const RematGraphOptions &graphOptions) {
    std::vector<Event> storeAll = remat::storeAllSchedule(problem.graph);
    FailureOr<int64_t> plannedStoreAll = planPeak(func, func);
    if (failed(plannedStoreAll)) {
      loweringFailed = true;
      return std::nullopt;
    }
    int64_t high = *plannedStoreAll;
    functionStoreAll = high;
    RematFunctionReport whole = describe(func, problem, storeAll, problem,
                                         "store-all", high, policy, high, high);
    whole.overheadBound = budget.percent;
    double allowed =
        whole.storeAllCost + budget.percent / 100 * whole.baseCost;
    // What a compile at `b` emits, when its cost is within the bound.
    auto attemptWithin = [&](int64_t b, bool planned,
                             bool improve = true) -> std::optional<Attempt> {
      std::optional<Attempt> a =
          tryAll(func, problem, graphOptions, b, improve, planned,
                 /*bodyWhenPlanFails=*/planned, /*bodyWindows=*/improve);
      if (a && remat::simulate(a->after.graph,
                               remat::storeAllSchedule(a->after.graph))
                       .cost > allowed) {
        a->work->destroy();
        a.reset();
      }
      return a;
    };
    // The last planned probe's rewrite that fitted, and its budget: the
    // compile adopts it when the search ends there, instead of attempting
    // the same budget again (on examples/gpt, 0.7 s of a 3 s compile). It
    // is the same rewrite: a probe's smaller work for the search of the
    // whole graph only stops sooner an A* search that, where it finishes,
    // finds the one schedule it would find with more.
    std::optional<Attempt> lastPlanned;
    int64_t lastPlannedBudget = -1;
    // The least planned peak of any schedule within the bound that the
    // probes found (as in minimumBudget).
    int64_t lowestSeen = std::numeric_limits<int64_t>::max();
    llvm::scope_exit dropLastPlanned([&] {
      if (lastPlanned)
        lastPlanned->work->destroy();
    });
    auto fits = [&](bool planned) {
      return [&, planned](int64_t b) {
        if (b >= high)
          return true;
        overheadProbe = true;
        // The first bisection's probes ask only whether a schedule within
        // the bound exists: where the fast solver's schedule before its
        // windows (most of its time) is within it and fits, that answers.
        // The windows run where it does not, unless the solver found no
        // schedule at all (it finds none with them either). The answer is
        // checked with them (fits(true)) before it is adopted.
        std::optional<Attempt> a;
        if (planned) {
          a = attemptWithin(b, planned);
        } else {
          int64_t found = schedulesFound;
          a = attemptWithin(b, planned, /*improve=*/false);
          if (!a && schedulesFound != found)
            a = attemptWithin(b, planned);
        }
        overheadProbe = false;
        bool fitted = a.has_value() && !loweringFailed;
        if (fitted)
          lowestSeen = std::min(lowestSeen, a->plannedPeak);
        if (a && planned && fitted) {
          if (lastPlanned)
            lastPlanned->work->destroy();
          lastPlanned = std::move(a);
          lastPlannedBudget = b;
        } else if (a) {
          a->work->destroy();
        }
        return fitted;
      };
    };
    std::optional<Attempt> attempt;
    int64_t chosen = high;
    overheadCostBound = allowed;
    llvm::scope_exit unbound([&] { overheadCostBound = kNoCostBound; });
    if (policy != RematPolicy::saveAll) {
      int64_t low =
          std::min(high, std::max<int64_t>(1, remat::lowerBound(problem.graph)));
      // Above a MiB, within 1/256 of the store-all peak: each step is a
      // whole search.
      int64_t slack = high < (int64_t(1) << 20) ? 0 : high / 256;
      // Mostly nothing below store-all is within the bound (a small
      // derivative whose stored values are cheap to keep and dear to
      // recompute): one probe just below it says so, where the bisection
      // proved it at every one of its ~log2(high - low) steps (12 probes,
      // 0.5 s of the 0.7 s that examples/mlp.tad took to compile).
      int64_t top = high - std::max<int64_t>(slack, 1);
      chosen = low <= top && fits(false)(top)
                   ? remat::smallestFittingBudget(low, top, fits(false), slack)
                   : high;
      if (chosen < high && !fits(true)(chosen))
        chosen = remat::smallestFittingBudgetFromBelow(chosen, high,
                                                       fits(true), slack);
      // The searches are not monotone in the budget: a probe above the
      // answer may have planned below it (examples/transformer.tad at 0%:
      // 209.0 KiB, found by a probe above the 213.0 KiB the bisection
      // answers).
      for (int step = 0;
           lowestSeen < chosen && step < kMaxAttempts && !loweringFailed;
           ++step) {
        int64_t candidate = lowestSeen;
        if (!fits(true)(candidate))
          break;
        chosen = candidate;
      }
      if (loweringFailed)
        return std::nullopt;
      if (chosen < high && lastPlanned && lastPlannedBudget == chosen) {
        attempt = std::move(lastPlanned);
        lastPlanned.reset();
      } else if (chosen < high) {
        attempt = attemptWithin(chosen, /*planned=*/true);
      }
    }
    Builder b(func.getContext());
    if (!attempt) {
      if (failed(addTimeline(whole, func, func)))
        return std::nullopt;
      func->setAttr(TadDialect::kBudgetAttrName, b.getI64IntegerAttr(high));
      return whole;
    }
    std::optional<RematFunctionReport> report =
        adopt(func, problem, *attempt, chosen, high);
    if (!report)
      return std::nullopt;
    report->overheadBound = budget.percent;
    func->setAttr(TadDialect::kBudgetAttrName, b.getI64IntegerAttr(chosen));
    return report;
  }

  /// Makes `attempt`'s rewrite `func`'s body, and reports it as scheduled
  /// within `budget`; consumes the attempt's copy either way.
  std::optional<RematFunctionReport> adopt(func::FuncOp func,
                                           const RematProblem &problem,
                                           Attempt &attempt, int64_t budget,
                                           int64_t plannedStoreAll) {
    RematFunctionReport report = describe(
        func, problem, attempt.schedule, attempt.after, attempt.solver,
        budget, policy, attempt.plannedPeak, plannedStoreAll);
    if (attempt.body)
      report.loopBodies.push_back(*attempt.body);
    if (failed(addTimeline(report, func, attempt.work))) {
      attempt.work->destroy();
      return std::nullopt;
    }
    func.getBody().takeBody(attempt.work.getBody());
    attempt.work->destroy();
    return report;
  }

  /// Schedules `func` within the budget and rewrites it, or reports why it
  /// cannot be.
  std::optional<RematFunctionReport>
  scheduleFunction(func::FuncOp func, const RematProblem &problem,
                   const RematGraphOptions &graphOptions) {
    // Loops are keyed by address: only this function's, while it lives.
    knownBodyPeaks.clear();
    modelSlack = !schedulableLoops(func).empty();
    if (budget.isOverhead())
      return scheduleWithinOverhead(func, problem, graphOptions);
    std::vector<Event> storeAll = remat::storeAllSchedule(problem.graph);
    functionStoreAll = remat::simulate(problem.graph, storeAll).peak;
    // Planning store-all and the first schedule each lower a copy of the
    // module through bufferization (70 ms each for 4 transformer blocks).
    // Where the model puts store-all over the budget, the schedule is
    // likely needed: both run at once, store-all's plan on a thread of its
    // own (it reads the module; the schedule works on a detached copy).
    // So do the loop choice's probes, on the context's threads: while the
    // choice waits for one probe's answer, the other core is free.
    std::optional<Attempt> attempt;
    bool attempted = false;
    FailureOr<int64_t> storeAllPeak = failure();
    if (module.getContext()->isMultithreadingEnabled() &&
        policy != RematPolicy::saveAll &&
        remat::simulate(problem.graph, storeAll).peak > getBudget()) {
      // Where the model overcounts store-all (around loops, branches and
      // calls) its plan may meet the budget: the search then stops early.
      storeAllFits = false;
      // Copied here, where verifying it may use the context's threads
      // (copyForPlan).
      OwningOpRef<ModuleOp> storeAllCopy;
      if (!cancelled())
        storeAllCopy = copyForPlan(planLowering, module, func, func);
      std::thread storeAllPlan([&] {
        storeAllPeak =
            planCopyPeak(planLowering, std::move(storeAllCopy), func);
        if (succeeded(storeAllPeak) && *storeAllPeak <= getBudget())
          storeAllFits = true;
      });
      attempt = tryAll(func, problem, graphOptions, getBudget(),
                       /*improve=*/improving(), /*planned=*/true,
                       /*bodyWhenPlanFails=*/true,
                       /*bodyWindows=*/!anySchedule);
      attempted = true;
      storeAllPlan.join();
      storeAllFits = false;
    } else {
      storeAllPeak = planPeak(func, func);
    }
    if (failed(storeAllPeak)) {
      if (attempt)
        attempt->work->destroy();
      loweringFailed = true;
      return std::nullopt;
    }
    if (budget.isStoreAll())
      functionStoreAll = *storeAllPeak;
    if (*storeAllPeak <= getBudget()) {
      if (attempt)
        attempt->work->destroy();
      RematFunctionReport report =
          describe(func, problem, storeAll, problem, "store-all", getBudget(),
                   policy, *storeAllPeak, *storeAllPeak);
      if (failed(addTimeline(report, func, func)))
        return std::nullopt;
      return report;
    }
    if (policy == RematPolicy::saveAll) {
      func.emitError() << "the save-all policy needs " << *storeAllPeak
                       << " bytes for @" << func.getName()
                       << ", over the budget of " << getBudget() << " bytes";
      failedMinimum = *storeAllPeak;
      return std::nullopt;
    }
    if (!attempted)
      attempt = tryAll(func, problem, graphOptions, getBudget(),
                       /*improve=*/improving(), /*planned=*/true,
                       /*bodyWhenPlanFails=*/true,
                       /*bodyWindows=*/!anySchedule);
    if (!attempt) {
      if (loweringFailed)
        return std::nullopt;
      if (!searchMinimum) {
        func.emitError() << "no schedule of @" << func.getName() << " fits in "
                         << getBudget() << " bytes";
        return std::nullopt;
      }
      failedMinimum = minimumBudget(func, problem, graphOptions, *storeAllPeak);
      if (loweringFailed)
        return std::nullopt;
      // The solvers are heuristics above the exact search's reach: the
      // search at a budget may miss what the search at a smaller one finds
      // (examples/transformer.tad at 217000 bytes, where 216000 fits). A
      // budget at or above the minimum takes the minimum's schedule. (Not
      // in the loop choice's probes for any schedule, which read a failure
      // and its minimum as such: tad-choose-loop-snapshots.)
      if (!anySchedule && failedMinimum > 0 && failedMinimum <= getBudget()) {
        attempt = tryAll(func, problem, graphOptions, failedMinimum,
                         /*improve=*/improving(), /*planned=*/true,
                         /*bodyWhenPlanFails=*/true,
                         /*bodyWindows=*/!anySchedule);
        if (attempt)
          return adopt(func, problem, *attempt, getBudget(), *storeAllPeak);
        if (loweringFailed)
          return std::nullopt;
      }
      explainInfeasible(func, problem, getBudget(), failedMinimum,
                        loopSnapshotsChosen);
      return std::nullopt;
    }
    return adopt(func, problem, *attempt, getBudget(), *storeAllPeak);
  }

  /// Whether the schedule that fits is improved (the windows, raised
  /// budgets): not in probes, nor where only whether it fits is asked.
  bool improving() const { return !anySchedule && improveSchedules; }

  static constexpr int kMaxAttempts = 8;
  /// How often tryBudget raises the solver's budget by the gap under the
  /// budget that a rewrite leaves, and the least gap (1/64 of the budget)
  /// it raises by.
  static constexpr int kMaxRaises = 3;
  static constexpr int64_t kRaiseGapDivisor = 64;
  /// How far over the budget (1/50 of it) a rewrite the model measures is
  /// still lowered and planned.
  static constexpr int64_t kModelSlackDivisor = 50;

  /// The report's timeline, when the JSON report is written: the buffer
  /// plan's run of the compiled function (`body` as `func`'s body), each
  /// allocation and free as the allocator will see it (where the GPU's
  /// kernels moved them, too).
  LogicalResult addTimeline(RematFunctionReport &report, func::FuncOp func,
                            func::FuncOp body) {
    // The GPU targets' predicted peak is the device's plan, which only the
    // mapping onto kernels knows: counted where a report shows it.
    if (reportFile.empty() && (!gpuLoops || summary == ReportStream::none))
      return success();
    std::optional<GpuLoops> gpu;
    if (gpuLoops)
      gpu = GpuLoops{cublasMatmul, kernelFallback};
    FailureOr<PlannedTimeline> timeline =
        planBufferTimeline(planLowering, module, func, body,
                           reportFile.empty() ? 0 : kMaxTimelineEvents, gpu);
    if (failed(timeline)) {
      loweringFailed = true;
      return failure();
    }
    if (timeline->mappedPeak >= 0 &&
        timeline->mappedPeak != report.predictedPeak) {
      report.hostPlannedPeak = report.predictedPeak;
      report.predictedPeak = timeline->mappedPeak;
    }
    if (reportFile.empty())
      return success();
    for (const BufferEvent &e : timeline->events)
      report.timeline.push_back(
          {llvm::formatv("{0} {1} bytes at {2}", e.bytes > 0 ? "alloc" : "free",
                         std::abs(e.bytes), describeLocation(e.location))
               .str(),
           e.live});
    report.timelineTruncated = timeline->truncated;
    return success();
  }

  /// The report's timeline stops after this many events.
  static constexpr size_t kMaxTimelineEvents = 100000;

  LogicalResult writeGraph(func::FuncOp func, const RematProblem &problem,
                           bool several) {
    std::string path = graphFile;
    if (several) {
      StringRef stem = StringRef(path).rsplit('.').first;
      StringRef extension = StringRef(path).rsplit('.').second;
      path = (stem + "." + func.getName() +
              (extension.empty() ? "" : "." + extension))
                 .str();
    }
    std::error_code ec;
    llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return func.emitError()
             << "cannot write '" << path << "': " << ec.message();
    out.os() << remat::graphToJson(problem.graph) << "\n";
    out.keep();
    return success();
  }

  ModuleOp module;
  /// Once set, no plan is checked (scheduleDerivatives).
  const std::atomic<bool> *cancel;
  /// The store-all peak of the function being scheduled (by the model
  /// before its plan is known): the bytes of a store-all budget.
  int64_t functionStoreAll = 0;
  /// The smallest budget that the function that could not be scheduled
  /// needs.
  int64_t failedMinimum = 0;
  /// Set when a copy could not be lowered to measure its buffers (an
  /// error has been reported).
  bool loweringFailed = false;
  /// The exact search's limit on states (autoSchedule): lower in the
  /// feasible-minimum search's first bisection (minimumBudget) and in
  /// probes (anySchedule).
  int64_t exactStates = remat::kAutoExactStates;
  /// Cleared while the feasible-minimum search's probes run, which ask only
  /// whether a budget fits: then tryBudget does not raise the solver's
  /// budget (as with raise-budgets off for the whole pass).
  bool raising = true;
  /// The fast solver's limits: smaller searches of a whole graph in probes.
  remat::SolverLimits solverLimits;
  /// While the overhead policy searches (scheduleWithinOverhead), the
  /// compute its rewrite may cost by the model (its store-all cost): the
  /// searches look for nothing dearer (tryBudget).
  static constexpr double kNoCostBound = std::numeric_limits<double>::infinity();
  double overheadCostBound = kNoCostBound;
  /// Set while the overhead policy's bisection probes a budget.
  bool overheadProbe = false;
  /// How much more recomputation than the overhead bound allows the solver
  /// may still return (its costs are not the rewrite's: on d_rank3 of
  /// test/AutoDiff/Inputs/stdlib.tad, the chosen schedule recomputes 2.7
  /// times as much by the solver's graph as by the rewrite's model).
  static constexpr double kSolverCostMargin = 4;
  /// The memory of the fast solver's window searches, from one solve to
  /// the next (this scheduler solves on one thread).
  remat::WindowArena windowArena;
  /// The pipeline that lowers each plan checked (planPeak), built once.
  PlanLowering planLowering;
  /// Set by the thread that plans store-all beside the first search
  /// (scheduleFunction) when that plan meets the budget: the search is
  /// then not needed, and stops (solverLimits.stop).
  std::atomic<bool> storeAllFits{false};
  static constexpr int64_t kProbeWholeGraphWork = int64_t(1) << 21;
  /// tad-choose-loop-snapshots chose the loops' snapshot counts: errors
  /// then say so instead of suggesting other counts.
  bool loopSnapshotsChosen = false;
  /// The feasible minimum that the loop choice's trial found, where the
  /// search for the minimum starts (0: none).
  int64_t minimumHint = 0;
};

} // namespace

RematResult tad::scheduleDerivatives(ModuleOp module,
                                     const RematOptions &options,
                                     remat::SearchMemos *memo,
                                     const std::atomic<bool> *cancel) {
  return Scheduler(module, options, memo, cancel).run();
}

namespace {
struct RematPass : tad::impl::RematBase<RematPass> {
  using RematBase::RematBase;

  // It lowers copies of functions to check their plans: what the
  // bufferization steps create must be loaded before it runs.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    BufferizationSteps::getDependentDialects(registry);
  }

  void runOnOperation() override {
    RematOptions options;
    options.budget = budget;
    options.policy = policy;
    options.entry = entry;
    options.reportFile = reportFile;
    options.summary = summary;
    options.graphFile = graphFile;
    options.searchMinimum = searchMinimum;
    options.minimumBelow = minimumBelow;
    options.anySchedule = anySchedule;
    options.raiseBudgets = raiseBudgets;
    options.improveSchedules = improveSchedules;
    options.gpuLoops = gpuLoops;
    options.cublasMatmul = cublasMatmul;
    options.kernelFallback = kernelFallback;
    if (!scheduleDerivatives(getOperation(), options, memo.get()).scheduled)
      signalPassFailure();
  }

  /// The pipeline's, which the loop choice filled (createRemat).
  std::shared_ptr<remat::SearchMemos> memo;
};
} // namespace

std::unique_ptr<Pass>
tad::createRemat(const RematOptions &options,
                 std::shared_ptr<remat::SearchMemos> memo) {
  auto pass = std::make_unique<RematPass>(options);
  pass->memo = std::move(memo);
  return pass;
}
