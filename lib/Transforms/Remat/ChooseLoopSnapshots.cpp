//===- ChooseLoopSnapshots.cpp - loop snapshot counts for a budget --------===//
//
// Binomial checkpointing trades a loop's tape for recomputation; how many
// snapshots a loop can keep depends on everything else the derivative holds,
// which only tad-autodiff and tad-remat know. So each candidate is priced on
// a copy of the module differentiated with it, a few choices are probed
// with the remat scheduler on differentiated copies (Passes.td describes
// the search), and the cheapest one that fits is set on the loops. AD,
// canonicalization, CSE and the scheduler are called as functions: no pass
// pipeline runs inside this pass.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/AutoDiff.h"
#include "tad/Transforms/BufferizationSteps.h"
#include "tad/Transforms/Passes.h"
#include "tad/Transforms/Remat.h"

#include "LoopCosts.h"
#include "RematGraph.h"
#include "dialects/tad/TadOps.h"
#include "tad/Remat/Solver.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Threading.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/Sequence.h"

#include <chrono>
#include <condition_variable>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>

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
  /// Whether it fit with nothing computed again: its cost is exact (a
  /// probe for any schedule's is an upper bound otherwise).
  bool storeAll = false;
};

/// What a probe asks of tad-remat.
enum class Ask {
  /// Whether the first schedule that its searches find, given a small part
  /// of their work, fits (`any-schedule`).
  anySchedule,
  /// Whether the compile's own search fits (with all its work, but the
  /// schedule that fits not improved: `improve=false`).
  fits,
  /// The compile's own schedule, and its predicted compute.
  cheapest,
};

/// A loop's price under one candidate, by the model, summed over its
/// copies in the derivatives: its bytes (what its forward copies keep for
/// the reverse sweep, tapeBytes, and the peak of one step of its reverse
/// loop, reverseStepPeak), and the estimated compute of the reverse
/// sweep's runs of its bodies (LoopCosts.h).
struct Price {
  int64_t bytes = 0;
  double cost = 0;
};

/// Marks each of choosableLoops(module)'s locations with its index (as
/// fused metadata), which tad-autodiff gives the loops it makes of it.
void tagLoops(ModuleOp module) {
  Builder builder(module.getContext());
  for (auto [i, loop] : llvm::enumerate(choosableLoops(module)))
    loop.first->setLoc(FusedLoc::get(module.getContext(), {loop.first.getLoc()},
                                     builder.getI64IntegerAttr(i)));
}

/// The index that tagLoops gave the loop at `loc`, if any.
std::optional<size_t> tagOf(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  auto tag = fused ? dyn_cast_or_null<IntegerAttr>(fused.getMetadata())
                   : IntegerAttr();
  if (!tag)
    return std::nullopt;
  return size_t(tag.getInt());
}

/// The bytes that a forward loop keeps for the reverse sweep: its tapes
/// that are new buffers (a tape's start, or the zeros of revolve's
/// snapshots), and the carried values it carries twice (revolve's copy of
/// an iteration's inputs). A tape in the rows of a gradient costs none.
int64_t tapeBytes(scf::ForOp loop) {
  int64_t bytes = 0;
  OperandRange inits = loop.getInitArgs();
  for (auto [j, init] : llvm::enumerate(inits)) {
    Operation *def = init.getDefiningOp();
    if ((def && isConstantOrTapeStart(def)) ||
        llvm::is_contained(inits.take_front(j), init))
      bytes += getByteSize(init.getType());
  }
  return bytes;
}

/// The peak of one step of a reverse loop, by the model (RematGraph.h).
int64_t reverseStepPeak(scf::ForOp loop) {
  RematProblem step = buildRematProblem(*loop.getBody(), RematGraphOptions());
  return remat::simulate(step.graph, remat::storeAllSchedule(step.graph)).peak;
}

/// The derivatives that tad-remat schedules: `entry`'s alone when it is
/// one, else every one.
SmallVector<func::FuncOp> scheduledFunctions(ModuleOp module, StringRef entry) {
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isDeclaration() && func->hasAttr(TadDialect::kDerivativeAttrName))
      funcs.push_back(func);
  auto it = llvm::find_if(
      funcs, [&](func::FuncOp func) { return func.getName() == entry; });
  if (it != funcs.end())
    return {*it};
  return funcs;
}

bool isDerivative(func::FuncOp func) {
  return func->hasAttr(TadDialect::kDerivativeAttrName);
}

/// `entry` when it is a derivative (tad-remat then schedules it alone).
func::FuncOp entryDerivative(ModuleOp module, StringRef entry) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  return func && isDerivative(func) ? func : func::FuncOp();
}

/// Whether tad-remat will schedule one derivative: `entry`, or the only
/// one (requests have no body yet).
bool schedulesOneDerivative(ModuleOp module, StringRef entry) {
  return entryDerivative(module, entry) ||
         llvm::count_if(module.getOps<func::FuncOp>(), isDerivative) == 1;
}

/// A peak that every choice reaches: the bytes of the results of a
/// derivative that tad-remat schedules (`entry`'s alone when it is one),
/// the largest of them. A compiled function's results are all allocated
/// when it returns (returning an argument or a constant returns a copy),
/// whatever the loops keep.
int64_t resultBytesBound(ModuleOp module, StringRef entry) {
  int64_t bound = 0;
  func::FuncOp only = entryDerivative(module, entry);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!isDerivative(func) || (only && func != only))
      continue;
    int64_t bytes = 0;
    for (Type type : func.getResultTypes())
      bytes += std::max<int64_t>(getByteSize(type), 0);
    bound = std::max(bound, bytes);
  }
  return bound;
}

struct ChooseLoopSnapshots
    : tad::impl::ChooseLoopSnapshotsBase<ChooseLoopSnapshots> {
  using ChooseLoopSnapshotsBase::ChooseLoopSnapshotsBase;

  // It lowers copies of functions to check their plans: what the
  // bufferization steps create must be loaded before it runs.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    BufferizationSteps::getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Store-all keeps every loop's full tape, AD's default.
    const Budget &given = budget;
    if (!given.isBytes()) {
      if (given.isShare()) {
        module.emitError() << "option 'budget': a share of the store-all "
                              "peak ("
                           << given.str()
                           << ") is resolved to bytes before the passes "
                              "(tad::resolveBudget); give bytes";
        signalPassFailure();
      }
      return;
    }
    auto loops = choosableLoops(module);
    if (loops.empty())
      return;
    answers = std::make_shared<Answers>();
    memo = sharedMemo ? sharedMemo : std::make_shared<remat::SearchMemos>();
    std::vector<int64_t> counts = choose(module, loops);
    finishProbes();
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
    if (chosenMinimum > 0 && schedulesOneDerivative(module, entry))
      module->setAttr(TadDialect::kLoopChoiceMinimumAttrName,
                      builder.getI64IntegerAttr(chosenMinimum));
  }

  LogicalResult initialize(MLIRContext *context) override {
    // The canonicalizer's patterns, which each differentiated copy runs.
    RewritePatternSet patterns(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, context);
    canonicalization =
        std::make_shared<FrozenRewritePatternSet>(std::move(patterns));
    return success();
  }

  /// A copy of `module` with these counts, differentiated as the pipeline
  /// does (tad-autodiff, canonicalize, cse, tad-inline-rules, canonicalize,
  /// tad-duplicate-broadcasts, each called as a function),
  /// silently; with `tag`, its loops traced back by tagLoops. Null when
  /// tad-autodiff fails (the real compile reports why).
  OwningOpRef<ModuleOp> differentiate(ModuleOp module, ArrayRef<int64_t> counts,
                                      bool tag) {
    OwningOpRef<ModuleOp> copy(module.clone());
    ScopedDiagnosticHandler quiet(&getContext(),
                                  [](Diagnostic &) { return success(); });
    markLoops(*copy, counts);
    if (tag)
      tagLoops(*copy);
    if (failed(differentiateModule(*copy, AutoDiffOptions())))
      return nullptr;
    // As the canonicalize pass configures its driver.
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    (void)applyPatternsGreedily(copy->getOperation(), *canonicalization,
                                config);
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, copy->getOperation());
    inlineRuleCalls(*copy);
    (void)applyPatternsGreedily(copy->getOperation(), *canonicalization,
                                config);
    duplicateBroadcasts(*copy);
    return copy;
  }

  /// Each loop's price (one per entry of `counts`) in the derivatives that
  /// tad-remat schedules with these counts; none when AD fails.
  std::optional<std::vector<Price>> price(ModuleOp module,
                                          ArrayRef<int64_t> counts) {
    OwningOpRef<ModuleOp> copy = differentiate(module, counts, /*tag=*/true);
    if (!copy)
      return std::nullopt;
    std::vector<Price> prices(counts.size());
    for (func::FuncOp func : scheduledFunctions(*copy, entry))
      func.walk([&](scf::ForOp loop) {
        std::optional<size_t> index = tagOf(loop.getLoc());
        if (!index || *index >= prices.size())
          return;
        if (!loop->hasAttr(TadDialect::kReverseRerunsAttrName)) {
          // A reverse loop: the peak of one step, on top of the tapes.
          prices[*index].bytes += reverseStepPeak(loop);
          return;
        }
        prices[*index].bytes += tapeBytes(loop);
        prices[*index].cost += describeLoopRerun(loop, func).cost;
      });
    return prices;
  }

  /// A probe's question: the counts and what is asked of them.
  struct Question {
    std::vector<int64_t> counts;
    Ask ask;
  };

  /// Whether tad-remat schedules the derivatives of these counts within
  /// the budget, as `ask` says; and where none fits, with `searchMinimum`,
  /// the least budget that does. The probe runs on this thread unless one
  /// of the context's threads has started it (asked ahead); while it runs
  /// or is waited for, the questions of `ahead` (those likely asked next,
  /// likeliest first) start on the context's threads that have none
  /// (askAhead). A probe's answer depends on its question alone, so
  /// asking ahead changes no choice, only when it is known.
  Trial probe(ModuleOp module, ArrayRef<int64_t> counts, Ask ask,
              bool searchMinimum = false, int64_t minimumBelow = 0,
              ArrayRef<Question> ahead = {}) {
    // The search asks some questions twice (the climb's start, after
    // cheaperShare moved it, is a share that firstUniformFit asked).
    std::vector<int64_t> question =
        keyOf(counts, ask, searchMinimum, minimumBelow);
    std::unique_lock<std::mutex> lock(answers->mutex);
    std::shared_ptr<Job> asked;
    if (auto it = answers->trials.find(question); it != answers->trials.end())
      asked = it->second;
    else if (!searchMinimum &&
             answers->running + answers->queued < threadCount())
      asked = start(module, {counts.begin(), counts.end()}, ask, question);
    else
      asked = answers->trials[question] = newJob(counts, ask);
    // A probe that no thread has started: this thread runs it where the
    // context's threads are all busy (or it would wait for one), and
    // they ask ahead meanwhile.
    bool waited = false;
    while (asked->answer.wait_for(std::chrono::seconds(0)) !=
           std::future_status::ready) {
      if ((!asked->onThreads || waited) && take(*answers, *asked)) {
        askAhead(module, ahead, /*reserved=*/1);
        lock.unlock();
        asked->promise.set_value(
            probeCopy(module, counts, ask, searchMinimum, minimumBelow));
        lock.lock();
        answers->finished.notify_all();
        break;
      }
      askAhead(module, ahead, /*reserved=*/0);
      // A thread that is free takes a probe at once: one not taken after
      // a millisecond waits behind others.
      if (!asked->taken) {
        answers->finished.wait_for(lock, std::chrono::milliseconds(1));
        waited = true;
      } else if (answers->running < threadCount() &&
                 pricing.next < pricing.each.size()) {
        // A core is free while this thread waits: it prices a candidate,
        // which the climb reads later (priced).
        lock.unlock();
        priceNext(module);
        lock.lock();
      } else {
        answers->finished.wait(lock);
      }
    }
    return asked->answer.get();
  }

  /// The context's threads (none with --mlir-disable-threading, which
  /// probes one at a time on the pass's thread).
  size_t threadCount() {
    if (!getContext().isMultithreadingEnabled())
      return 0;
    return getContext().getThreadPool().getMaxConcurrency();
  }

  /// A question's key in Answers::trials.
  static std::vector<int64_t> keyOf(ArrayRef<int64_t> counts, Ask ask,
                                    bool searchMinimum = false,
                                    int64_t minimumBelow = 0) {
    std::vector<int64_t> key(counts.begin(), counts.end());
    key.push_back(int64_t(ask));
    key.push_back(searchMinimum);
    key.push_back(minimumBelow);
    return key;
  }

  /// A probe, and its answer once it has one.
  struct Job {
    std::vector<int64_t> counts;
    Ask ask;
    /// Set by the one thread that runs it (Answers::mutex held): a
    /// context's thread, or one that waits for it (probe), or
    /// finishProbes, which drops it.
    bool taken = false;
    /// Whether it was given to the context's threads (start).
    bool onThreads = false;
    std::promise<Trial> promise;
    std::shared_future<Trial> answer = promise.get_future().share();
  };

  /// A job for `counts` and `ask` that no thread has taken yet
  /// (Answers::mutex held).
  std::shared_ptr<Job> newJob(ArrayRef<int64_t> counts, Ask ask) {
    auto job = std::make_shared<Job>();
    job->counts.assign(counts.begin(), counts.end());
    job->ask = ask;
    ++answers->queued;
    return job;
  }

  /// Starts the probe of `counts` for `ask` on the context's threads, as
  /// the answer to `question` (Answers::mutex held).
  std::shared_ptr<Job> start(ModuleOp module, ArrayRef<int64_t> counts, Ask ask,
                             const std::vector<int64_t> &question) {
    std::shared_ptr<Job> job = answers->trials[question] = newJob(counts, ask);
    job->onThreads = true;
    // A job that another thread took touches nothing but the answers,
    // which it keeps alive: finishProbes does not wait for it.
    std::shared_ptr<Answers> shared = answers;
    getContext().getThreadPool().async([this, module, job, shared] {
      {
        std::lock_guard<std::mutex> lock(shared->mutex);
        if (!take(*shared, *job))
          return;
        ++shared->running;
      }
      job->promise.set_value(probeCopy(module, job->counts, job->ask,
                                       /*searchMinimum=*/false,
                                       /*minimumBelow=*/0));
      std::lock_guard<std::mutex> lock(shared->mutex);
      --shared->running;
      shared->finished.notify_all();
    });
    return job;
  }

  /// Starts the first questions of `ahead` not asked yet on the context's
  /// threads, while fewer probes wait or run there than it has threads,
  /// less those `reserved` for the caller's own (Answers::mutex held).
  void askAhead(ModuleOp module, ArrayRef<Question> ahead, size_t reserved) {
    for (const Question &q : ahead) {
      if (answers->running + answers->queued + reserved >= threadCount())
        return;
      std::vector<int64_t> question = keyOf(q.counts, q.ask);
      if (!answers->trials.count(question))
        start(module, q.counts, q.ask, question);
    }
  }

  /// Once the choice is made: the probes not started are dropped, those
  /// running stop at their next plan (their answers are not read), and
  /// this returns when they have.
  void finishProbes() {
    answers->cancel = true;
    std::unique_lock<std::mutex> lock(answers->mutex);
    for (auto &[question, job] : answers->trials)
      if (take(*answers, *job))
        job->promise.set_value(Trial());
    answers->finished.wait(lock, [&] { return answers->running == 0; });
  }

  /// The probes' answers in this run, by their question (the counts and
  /// the probe's other arguments), as they come.
  struct Answers {
    std::map<std::vector<int64_t>, std::shared_ptr<Job>> trials;
    std::mutex mutex;
    /// Notified whenever a probe on the context's threads finishes.
    std::condition_variable finished;
    /// The probes started on the context's threads that no thread has
    /// taken yet, and those that the context's threads run.
    size_t queued = 0, running = 0;
    /// Set once the choice is made (finishProbes).
    std::atomic<bool> cancel{false};
  };

  /// Takes `job` to run it, if no thread has (Answers::mutex held).
  static bool take(Answers &answers, Job &job) {
    if (job.taken)
      return false;
    job.taken = true;
    --answers.queued;
    return true;
  }
  std::shared_ptr<Answers> answers;
  /// The solver's exact answers, which the probes share: most of a probe's
  /// loop bodies and functions are the graphs of a probe before it.
  std::shared_ptr<remat::SearchMemos> memo;
  /// The pipeline's, which tad-remat shares (createChooseLoopSnapshots).
  std::shared_ptr<remat::SearchMemos> sharedMemo;

  Trial probeCopy(ModuleOp module, ArrayRef<int64_t> counts, Ask ask,
                  bool searchMinimum, int64_t minimumBelow) {
    Trial trial;
    if (answers->cancel)
      return trial;
    OwningOpRef<ModuleOp> copy = differentiate(module, counts, /*tag=*/false);
    if (!copy)
      return trial;
    ScopedDiagnosticHandler quiet(&getContext(),
                                  [](Diagnostic &) { return success(); });
    RematOptions options;
    options.budget = budget;
    options.policy = policy;
    options.entry = entry;
    options.searchMinimum = searchMinimum;
    options.minimumBelow = minimumBelow;
    options.anySchedule = ask == Ask::anySchedule;
    options.improveSchedules = ask == Ask::cheapest;
    options.raiseBudgets = false;
    RematResult result =
        scheduleDerivatives(*copy, options, memo.get(), &answers->cancel);
    const RematReport &report = result.report;
    trial.fits = result.scheduled;
    trial.storeAll = trial.fits;
    if (trial.fits)
      for (const RematFunctionReport &f : report.functions) {
        trial.cost += f.cost;
        trial.bodyScheduled |= !f.loopBodies.empty();
        trial.storeAll &= f.solver == "store-all";
      }
    else if (report.feasibleMinimum > 0)
      // A failure other than the budget (none is known) has no minimum; it
      // ranks last, and the real compile reports it.
      trial.minimum = report.feasibleMinimum;
    return trial;
  }

  /// The candidates, from the most memory (a full tape with the residuals)
  /// to the least.
  std::vector<int64_t> candidatesFor(int64_t longest) const {
    std::vector<int64_t> candidates;
    if (loopResiduals)
      for (int64_t count = kResiduals; count >= kFewestResiduals; --count)
        candidates.push_back(count);
    candidates.push_back(0);
    for (int64_t n = 64; n >= 1; n /= 2)
      if (n < longest)
        candidates.push_back(n);
    return candidates;
  }

  /// The steps from `at` (each loop's candidate) to the least compute, by
  /// the prices, as (loop, candidate) pairs: each takes the one step of
  /// one loop not `blocked` that saves the most compute per byte it adds,
  /// until no step saves any (a greedy walk along each loop's lower hull
  /// of bytes against compute, as for a multiple-choice knapsack).
  static std::vector<std::pair<size_t, size_t>>
  stepsFrom(std::vector<size_t> at, ArrayRef<int64_t> candidates,
            ArrayRef<std::vector<Price>> prices, // [candidate][loop]
            const std::vector<std::pair<scf::ForOp, int64_t>> &loops,
            ArrayRef<bool> blocked) {
    std::vector<std::pair<size_t, size_t>> steps;
    while (true) {
      std::optional<std::pair<size_t, size_t>> step;
      double bestRate = 0;
      for (size_t i = 0; i < loops.size(); ++i) {
        const Price &now = prices[at[i]][i];
        for (size_t c = 0; c < candidates.size() && !blocked[i]; ++c) {
          // Counts of at least a loop's trips are its full tape.
          if (candidates[c] >= loops[i].second)
            continue;
          const Price &p = prices[c][i];
          if (p.cost >= now.cost)
            continue;
          double rate = (now.cost - p.cost) /
                        double(std::max<int64_t>(1, p.bytes - now.bytes));
          if (!step || rate > bestRate) {
            step = {i, c};
            bestRate = rate;
          }
        }
      }
      if (!step)
        return steps;
      at[step->first] = step->second;
      steps.push_back(*step);
    }
  }

  /// From `start` (the same candidate for every loop), whose probe is
  /// `from`, the steps of stepsFrom while they fit: the longest run of
  /// them that fits, searched as if a run that fits fits with fewer of its
  /// steps too (as it mostly does); the loop of the first step that does
  /// not fit takes no more steps; again from there, until no step is left.
  /// A step saves its loop's reruns, but where the memory it takes must be
  /// won back by computing other values again, that can cost more than it
  /// saves: from counts that fit with nothing computed again (whose
  /// probe's cost is exact), a run fits only if its probe's cost, the
  /// derivatives' predicted compute by the first schedule found (at least
  /// the cheapest's), is no more.
  std::vector<int64_t>
  climb(ModuleOp module, size_t start, const Trial &from,
        ArrayRef<int64_t> candidates, ArrayRef<std::vector<Price>> prices,
        const std::vector<std::pair<scf::ForOp, int64_t>> &loops) {
    std::vector<size_t> at(loops.size(), start);
    Trial atTrial = from;
    SmallVector<bool> blocked(loops.size(), false);
    auto countsAfter = [&](ArrayRef<std::pair<size_t, size_t>> steps) {
      std::vector<size_t> state = at;
      for (auto [loop, candidate] : steps)
        state[loop] = candidate;
      // A count of at least a loop's trips is its full tape.
      std::vector<int64_t> counts;
      for (auto [i, c] : llvm::enumerate(state))
        counts.push_back(candidates[c] >= loops[i].second ? 0 : candidates[c]);
      return counts;
    };
    while (true) {
      std::vector<std::pair<size_t, size_t>> steps =
          stepsFrom(at, candidates, prices, loops, blocked);
      if (steps.empty())
        return countsAfter({});
      // Each run is asked once; while one is asked, the one that the
      // bisection asks next is asked ahead (probe's `ahead`): the next if
      // this one fails, or else the next if it fits.
      std::map<size_t, Trial> known;
      auto fitsAfter = [&](size_t n, ArrayRef<size_t> ahead) {
        std::vector<Question> next;
        for (size_t run : ahead)
          next.push_back(
              {countsAfter(ArrayRef(steps).take_front(run)), Ask::anySchedule});
        const Trial &trial = known[n] =
            probe(module, countsAfter(ArrayRef(steps).take_front(n)),
                  Ask::anySchedule, /*searchMinimum=*/false,
                  /*minimumBelow=*/0, next);
        return trial.fits && (!atTrial.storeAll || trial.cost <= atTrial.cost);
      };
      auto mid = [](size_t fits, size_t fails) {
        return fits + (fails - fits) / 2;
      };
      // The run that the bisection between `fits` and `fails` asks after
      // `at` if `at` fails, or else if it fits.
      auto after = [&](size_t fits, size_t at, size_t fails) {
        SmallVector<size_t, 2> next;
        if (at > fits + 1)
          next.push_back(mid(fits, at));
        else if (fails > at + 1)
          next.push_back(mid(at, fails));
        return next;
      };
      // The whole run first, which answers alone where the budget is
      // loose; then its first step, which answers alone where it is tight
      // (a budget near the minimum, where a step rarely fits); then
      // bisection between them.
      size_t n = steps.size(), fits = 0, fails = n;
      SmallVector<size_t, 2> first;
      if (n > 1)
        first = {1};
      if (fitsAfter(n, first))
        fits = n;
      else if (n > 1)
        (fitsAfter(1, after(1, 1, n)) ? fits : fails) = 1;
      while (fails > fits + 1) {
        size_t at = mid(fits, fails);
        (fitsAfter(at, after(fits, at, fails)) ? fits : fails) = at;
      }
      for (auto [loop, candidate] : ArrayRef(steps).take_front(fits))
        at[loop] = candidate;
      if (fits > 0)
        atTrial = known[fits];
      if (fits == steps.size())
        return countsAfter({});
      blocked[steps[fits].first] = true;
    }
  }

  /// After a tape of residuals (`start`, the same for every loop) that fits
  /// only by scheduling inside a reverse loop's body, the next shares of
  /// them computed again, while they fit and cost less: the body
  /// schedule's recomputation can cost more than theirs. These trials
  /// compare predicted compute, so they ask for the cheapest schedule.
  template <typename Uniform>
  size_t cheaperShare(ModuleOp module, size_t start,
                      ArrayRef<int64_t> candidates, Uniform uniform) {
    // The last share has no next one to compare with: its cheapest
    // schedule (a search many times a probe's) would answer nothing.
    if (start + 1 >= candidates.size() ||
        !keepsResiduals(candidates[start + 1]))
      return start;
    Trial best = probe(module, uniform(candidates[start]), Ask::cheapest);
    size_t chosen = start;
    for (size_t next = start + 1;
         best.bodyScheduled && next < candidates.size() &&
         keepsResiduals(candidates[next]);
         ++next) {
      Trial trial = probe(module, uniform(candidates[next]), Ask::cheapest);
      if (!trial.fits || trial.cost >= best.cost)
        break;
      best = trial;
      chosen = next;
    }
    return chosen;
  }

  /// After a tape of residuals (`start`, the same for every loop) that
  /// fits only by computing other values again, the first of the next
  /// shares of them computed again that fits as it is, where its compute
  /// (exact) is less than `start`'s probe's (by the first schedule found):
  /// keeping more residuals saves the reverse steps' work, but winning
  /// back their memory elsewhere can cost more.
  template <typename Uniform>
  std::pair<size_t, Trial>
  shareThatFitsAsIs(ModuleOp module, size_t start, const Trial &trial,
                    ArrayRef<int64_t> candidates, Uniform uniform) {
    size_t shares = start;
    while (shares < candidates.size() && keepsResiduals(candidates[shares]))
      ++shares;
    for (size_t next = start + 1;
         keepsResiduals(candidates[start]) && next < shares; ++next) {
      std::vector<Question> ahead;
      for (size_t later = next + 1; later < shares; ++later)
        ahead.push_back({uniform(candidates[later]), Ask::anySchedule});
      Trial asIs = probe(module, uniform(candidates[next]), Ask::anySchedule,
                         /*searchMinimum=*/false, /*minimumBelow=*/0, ahead);
      if (!asIs.fits || !asIs.storeAll)
        continue;
      if (asIs.cost < trial.cost)
        return {next, asIs};
      break;
    }
    return {start, trial};
  }

  /// The first of `order` (indices of `candidates`, each the same for
  /// every loop) that fits, with its trial. While one is asked, the rest
  /// of `order` and then those of `then` are asked ahead (probe).
  template <typename Uniform>
  std::optional<std::pair<size_t, Trial>>
  firstFit(ModuleOp module, ArrayRef<size_t> order,
           ArrayRef<int64_t> candidates, Uniform uniform, Ask ask,
           ArrayRef<size_t> then = {}) {
    std::vector<Question> questions;
    for (size_t k : order)
      questions.push_back({uniform(candidates[k]), ask});
    for (size_t k : then)
      questions.push_back({uniform(candidates[k]), Ask::anySchedule});
    for (size_t k = 0; k < order.size(); ++k) {
      Trial trial = probe(module, questions[k].counts, ask,
                          /*searchMinimum=*/false, /*minimumBelow=*/0,
                          ArrayRef(questions).drop_front(k + 1));
      if (trial.fits)
        return std::make_pair(order[k], trial);
    }
    return std::nullopt;
  }

  /// firstFit over every candidate, for any schedule, asking the tapes of
  /// residuals as if each held less than the one before (more of the
  /// residuals computed again, fewer kept): the most memory's and the
  /// least memory's first, and where the least memory's does not fit,
  /// the others are not asked. Near a minimum, where none of them fits,
  /// that is one round of probes instead of one per share.
  template <typename Uniform>
  std::optional<std::pair<size_t, Trial>>
  firstUniformFit(ModuleOp module, ArrayRef<int64_t> candidates,
                  Uniform uniform) {
    size_t shares = 0;
    while (shares < candidates.size() && keepsResiduals(candidates[shares]))
      ++shares;
    auto range = [](size_t from, size_t to) {
      return llvm::to_vector(llvm::seq(from, to));
    };
    if (shares < 3)
      return firstFit(module, range(0, candidates.size()), candidates, uniform,
                      Ask::anySchedule);
    // While those two run, the shares between them, which are asked next
    // where the least fits, and then the rest.
    SmallVector<size_t> then = range(1, shares - 1);
    then.append(range(shares, candidates.size()));
    std::optional<std::pair<size_t, Trial>> fit = firstFit(
        module, {0, shares - 1}, candidates, uniform, Ask::anySchedule, then);
    if (!fit)
      return firstFit(module, range(shares, candidates.size()), candidates,
                      uniform, Ask::anySchedule);
    if (fit->first == 0)
      return fit;
    if (std::optional<std::pair<size_t, Trial>> before =
            firstFit(module, range(1, shares - 1), candidates, uniform,
                     Ask::anySchedule))
      return before;
    return fit;
  }

  /// Each candidate's prices (price), one per entry of `counts`, priced
  /// in order: by this thread while it waits for a probe with a core free
  /// (probe), the rest when they are read (choose's `priced`).
  struct Pricing {
    std::vector<std::vector<int64_t>> counts;
    std::vector<std::optional<std::vector<Price>>> each;
    size_t next = 0;
  } pricing;
  void priceNext(ModuleOp module) {
    size_t i = pricing.next++;
    pricing.each[i] = price(module, pricing.counts[i]);
  }

  std::shared_ptr<const FrozenRewritePatternSet> canonicalization;
  /// Where no choice meets the budget: the feasible minimum of the chosen
  /// counts' trial (0 when unknown).
  int64_t chosenMinimum = 0;

  /// The counts per loop, as Passes.td describes.
  std::vector<int64_t>
  choose(ModuleOp module,
         const std::vector<std::pair<scf::ForOp, int64_t>> &loops) {
    int64_t longest = 0;
    for (auto &loop : loops)
      longest = std::max(longest, loop.second);
    std::vector<int64_t> candidates = candidatesFor(longest);
    // A count of at least a loop's trips is a full tape.
    auto normalize = [&](std::vector<int64_t> counts) {
      for (size_t i = 0; i < loops.size(); ++i)
        if (counts[i] > 0 && counts[i] >= loops[i].second)
          counts[i] = 0;
      return counts;
    };
    auto uniform = [&](int64_t count) {
      return normalize(std::vector<int64_t>(loops.size(), count));
    };
    // Each candidate's prices, which only the climb reads: priced while
    // this thread waits for a probe with a core free (probe), and the rest
    // when the climb needs them (each on a copy of its own, at once on the
    // context's threads). Where AD fails, the compile reports why,
    // whatever the choice.
    std::vector<std::vector<Price>> prices;
    pricing = Pricing();
    for (int64_t count : candidates)
      pricing.counts.push_back(uniform(count));
    pricing.each.resize(candidates.size());
    auto priced = [&] {
      assert(prices.empty() && "priced once");
      parallelFor(&getContext(), pricing.next, candidates.size(),
                  [&](size_t i) {
                    pricing.each[i] = price(module, pricing.counts[i]);
                  });
      pricing.next = candidates.size();
      for (std::optional<std::vector<Price>> &p : pricing.each) {
        if (!p)
          return false;
        prices.push_back(std::move(*p));
      }
      return true;
    };
    // The same candidate for every loop, from the most memory down, the
    // first that fits (the least memory does not always fit best: a
    // reverse step of binomial checkpointing holds more than a tape of a
    // short loop); then more memory for the loops where it saves the most
    // compute per byte, while it fits and, from counts that fit with
    // nothing computed again, costs no more (climb).
    // Where no probe fits, the same with the compile's own search, which
    // probes cut short: at a feasible minimum, only it may fit. (Only
    // whether it fits is asked: its schedule is not improved, which never
    // decides that, and cost most of such a trial's time.)
    // Below what every choice's results take, none fits: straight to the
    // minimums.
    bool none = budget.getValue().bytes < resultBytesBound(module, entry);
    SmallVector<size_t> all = llvm::to_vector(llvm::seq(candidates.size()));
    for (Ask ask : {Ask::anySchedule, Ask::fits}) {
      if (none)
        break;
      bool anySchedule = ask == Ask::anySchedule;
      std::optional<std::pair<size_t, Trial>> fit =
          anySchedule ? firstUniformFit(module, candidates, uniform)
                      : firstFit(module, all, candidates, uniform, ask);
      if (!fit)
        continue;
      size_t start = fit->first;
      Trial from = fit->second;
      if (anySchedule && !from.storeAll)
        std::tie(start, from) =
            shareThatFitsAsIs(module, start, from, candidates, uniform);
      size_t share = start;
      if (from.bodyScheduled && keepsResiduals(candidates[start]))
        start = cheaperShare(module, start, candidates, uniform);
      // The climb compares probes for any schedule: its start's too.
      if (start != share)
        from = probe(module, uniform(candidates[start]), Ask::anySchedule);
      if (!priced())
        return uniform(0);
      return climb(module, start, from, candidates, prices, loops);
    }
    // None fits: the choice whose feasible minimum is least, so that
    // tad-remat's error names the true minimum. That search costs a
    // compile many times over, so it runs only now, and of the tapes that
    // keep residuals only for the one that computes all the residuals that
    // cost memory again: it holds the least of them, and can hold less
    // than a tape of the carried values, whose reverse step holds a whole
    // block computed again.
    if (!priced())
      return uniform(0);
    std::vector<int64_t> best;
    int64_t bestMinimum = std::numeric_limits<int64_t>::max();
    chosenMinimum = 0;
    for (int64_t count : candidates) {
      if (keepsResiduals(count) && count != kFewestResiduals)
        continue;
      std::vector<int64_t> counts = uniform(count);
      // Past the first, each search looks below the best so far only.
      Trial trial =
          probe(module, counts, Ask::anySchedule,
                /*searchMinimum=*/true, best.empty() ? 0 : bestMinimum);
      if (best.empty() || trial.minimum < bestMinimum) {
        bestMinimum = trial.minimum;
        best = counts;
      }
    }
    if (bestMinimum < std::numeric_limits<int64_t>::max())
      chosenMinimum = bestMinimum;
    return best;
  }
};

} // namespace

std::unique_ptr<Pass>
tad::createChooseLoopSnapshots(const ChooseLoopSnapshotsOptions &options,
                               std::shared_ptr<remat::SearchMemos> memo) {
  auto pass = std::make_unique<ChooseLoopSnapshots>(options);
  pass->sharedMemo = std::move(memo);
  return pass;
}
