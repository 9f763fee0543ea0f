//===- Solver.h - fast schedules of large graphs ----------------*- C++ -*-===//
//
// The remat solver for graphs of any size. The graph's node order is a
// static program order, so every value's future uses are known; the solver
// exploits that where DTR (which assumes an unknown future) cannot:
//
//   - `lookaheadSchedule` computes the nodes in order, recomputes missing
//     inputs on demand, and evicts by a score that looks at each value's
//     next use (Belady's rule weighted by recompute cost and size);
//   - `tightenSchedule` improves any valid schedule without raising its
//     peak over the budget: it frees every value right after its last use,
//     drops recomputations nobody reads, and keeps a value resident instead
//     of recomputing it wherever the budget has room for it between the two;
//   - `solveSchedule` runs several eviction scores and the DTR greedy,
//     tightens each, and returns the cheapest: never worse than DTR. The
//     gradient of a chain (Chain.h) goes to its exact dynamic program
//     instead;
//   - `fastSchedule` takes that schedule and re-solves stretches of it
//     exactly (`windowSchedule`), and searches a small graph whole where
//     the heuristics find no schedule (`wholeGraphSchedule`).
//
// `chenSchedule` is Chen et al.'s sqrt(n) checkpointing (2016), the
// baseline of bench/remat: it keeps about sqrt(n) evenly spaced forward
// values and recomputes each segment once in the backward sweep.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_REMAT_SOLVER_H
#define TAD_REMAT_SOLVER_H

#include "tad/Remat/Exact.h"
#include "tad/Remat/Graph.h"
#include "tad/Remat/SearchMemo.h"

#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <string>

namespace tad::remat {

/// How lookaheadSchedule picks the value to evict; `rc` is the estimated
/// cost of recomputing a value (with its evicted inputs), `d` the distance
/// to its next use, `b` its bytes. The smallest score is evicted.
enum class EvictionScore {
  costPerByteDistance,  // rc / (b * d)
  costPerByteDistance2, // rc / (b * d^2)
  costPerByte,          // rc / b
  farthestUse,          // 1 / d (Belady), ties by rc / b
};

/// How lookaheadSchedule runs.
struct LookaheadOptions {
  EvictionScore score = EvictionScore::costPerByteDistance;
  /// A value no later stage reads is freed at once, unless `keepAncestors`:
  /// then it stays (as an eviction candidate) while a user of it will be
  /// read, since that user may have to be recomputed from it.
  bool keepAncestors = false;
  /// How a stage recomputes its missing inputs. By default all of them, in
  /// node order, each held until the stage's compute. `depthFirst`
  /// recomputes one input at a time, latest node first, each with its own
  /// missing inputs before it, and holds only what the compute in progress
  /// reads: a value recomputed for one input may then be evicted before
  /// the next and recomputed again, which fits where holding everything
  /// a stage recomputes does not.
  bool depthFirst = false;
  /// A nonzero seed multiplies every score by a pseudo-random factor in
  /// [1/2, 2), for diversity.
  uint64_t seed = 0;
  /// The run gives up once its cost exceeds this.
  double costLimit = 1e300;
  /// When positive, the run also gives up once its cost exceeds
  /// `thrashRatio` times the store-all cost of the stages it has reached
  /// (nodes 0 to the current one, once each) plus `thrashSlack`. A run
  /// that starts to thrash keeps thrashing: on dense graphs, failing runs
  /// computed every value once up to their middle stage, then passed 3
  /// times the cost of the stages reached within a few hundred stages and
  /// went on to the cost limit, which took most of their time.
  double thrashRatio = 0;
  double thrashSlack = 0;
  /// When positive, the run also gives up once the stages of the last
  /// `thrashWindow` cost more than `windowRatio` times their store-all
  /// cost. A failing run on a dense graph recomputes 30 times the cost of
  /// its stages once it thrashes, and a limit on the whole run's ratio took
  /// hundreds of stages to see it; the runs that fit stayed below 7 times
  /// in every window (docs/remat-solver.md).
  double windowRatio = 0;
  int thrashWindow = 256;
  /// When given, multiplies each node's score (one per node): a weight
  /// above 1 makes the node less likely to be evicted.
  const std::vector<double> *weights = nullptr;
  /// Evict from a priority queue of scores instead of scanning every
  /// resident value at every eviction: O(log n) per look at a value
  /// rather than O(n) looks per eviction. Each value is queued at a lower
  /// bound of its score (its own and its missing inputs' costs for its
  /// recompute cost), and scored in full when popped. A score is queued
  /// again, before the next eviction, when its next use passes and when one
  /// of the inputs it counted missing is recomputed; a value whose
  /// recompute cost fell because a more distant ancestor came back keeps
  /// its older, higher score until it is popped, so the choice can differ
  /// from the scan's. A seed draws one factor per node instead of one per
  /// scan.
  bool queue = false;
  /// How many values a score's walk over a value's missing ancestors
  /// (its recompute cost) visits at most; the ancestors it does not reach
  /// count their own cost only.
  int64_t walkLimit = std::numeric_limits<int64_t>::max();
  /// Without the queue: the run gives up once its evictions have looked
  /// at this many resident values in all (each eviction looks at every
  /// one), which bounds a scanning run on a large graph.
  int64_t scanLimit = std::numeric_limits<int64_t>::max();
  /// Without the queue or a seed, on a graph of whole costs (whose sums
  /// are exact, so that the bound is one): a scan scores in full only the
  /// values whose lower bound (the queue's) can still beat the best score
  /// so far, and walks the others' ancestors only where a later walk
  /// could read what they memoize, so that it chooses as if it scored
  /// every value. (False scores every one: for tests that compare.)
  bool deferScores = true;
  /// Without the queue, a seed or weights, with the rc/b score on a graph
  /// of whole costs: each eviction scores resident values in the order of
  /// their lower bounds (the queue's, kept exact as values come and go) and
  /// stops at the first bound above the best score, instead of looking at
  /// every one. It chooses the value a scan that scores every value in
  /// turn chooses wherever scores do not depend on the order of the walks
  /// (an unbounded walk that stays within its depth cap); a bounded walk's
  /// memo makes them differ (docs/remat-solver.md, "The last resort").
  /// scanLimit still counts every resident value at each eviction.
  bool bestFirst = false;
};

/// The lookahead variants the fast solver runs, numbered: variant % 4 is
/// the score (in EvictionScore's order), bit 2 keepAncestors, bit 3
/// depthFirst.
constexpr int kLookaheadVariants = 16;
LookaheadOptions lookaheadVariant(int variant);

/// Schedules `graph` within `budget` by lookahead eviction (see
/// LookaheadOptions). Returns false when no eviction makes room, or when
/// recomputations exceed kDtrComputesPerNode per node.
bool lookaheadSchedule(const Graph &graph, int64_t budget,
                       const LookaheadOptions &options,
                       std::vector<Event> &out);

/// Rewrites the valid schedule `schedule` into one of no greater cost whose
/// peak stays within max(budget, its current peak): see the file comment.
void tightenSchedule(const Graph &graph, int64_t budget,
                     std::vector<Event> &schedule);

/// Tightens `schedule`, then trades recomputations for cheaper ones while
/// the peak stays within max(budget, its current peak): where keeping a
/// value instead of recomputing it overflows the budget, a cheaper value
/// resident and unread over the overflow is recomputed instead
/// (Exchange.cpp). Stops once the checks have gone through `workLimit`
/// compute events.
void exchangeSchedule(const Graph &graph, int64_t budget,
                      std::vector<Event> &schedule, int64_t workLimit);

/// The most distinct nodes a window holds (one bit each in its search).
/// On a graph of at most this many nodes the last window is the whole
/// sequence, and its search is exact.
constexpr int kMaxWindowNodes = 64;

/// The memory of the window searches (a table of the states reached and a
/// queue), kept between searches so that each does not grow it again from
/// nothing: a search of a whole graph reaches up to millions of states,
/// and the bisection for the smallest budget runs a dozen such searches.
/// For one thread at a time.
class WindowArena {
public:
  WindowArena();
  ~WindowArena();
  WindowArena(const WindowArena &) = delete;
  WindowArena &operator=(const WindowArena &) = delete;

  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Re-solves stretches of the schedule exactly (Window.cpp), keeping each
/// cheaper stretch whose peak stays within max(budget, the schedule's
/// current peak). Stops once the searches' work (the square of a window's
/// node count per state expanded, and the count again per successor past
/// that count) passes `workLimit`, or once `stop` is set.
void windowSchedule(const Graph &graph, int64_t budget,
                    std::vector<Event> &schedule, int64_t workLimit,
                    const std::atomic<bool> *stop = nullptr,
                    WindowArena *arena = nullptr);

/// Whether the bounds that the whole-graph search starts from prove that
/// no schedule of `graph` fits `budget`: a value that no schedule can
/// make room for (the graph has at most kMaxWindowNodes nodes; false on a
/// larger one, or where they do not say).
bool boundExcludes(const Graph &graph, int64_t budget);

/// The cheapest schedule of `graph` within `budget`, by the window search
/// over the whole graph as one window, from nothing (Window.cpp). `found`
/// sets `schedule`; `infeasible` is a proof that no schedule fits (with
/// `maxCost`, none that costs at most that: the search prunes above it);
/// `gaveUp` when the graph has more nodes than a window, the search
/// passes `workLimit` or `stop` is set.
enum class WholeGraphResult { found, infeasible, gaveUp };

/// The answers that solves share through SolverLimits::memo (SearchMemo.h).
struct SearchMemos {
  /// exactMinimumBudget's, by graph and state limit (autoMinimumBudget).
  SearchMemo<int64_t> exactMinimum;
  /// wholeGraphSchedule's, with the schedule where one is found.
  SearchMemo<std::pair<WholeGraphResult, std::vector<Event>>> wholeGraph;
  /// exactSchedule's (rememberedExactSchedule), likewise.
  SearchMemo<std::pair<ExactResult, std::vector<Event>>> exactSchedules;
  /// fastSchedule's without a SolveInfo: whether it found a schedule, and
  /// the schedule it left. The remat pass asks many budgets of one graph
  /// again (the loop choice's minimum searches, then the compile's own
  /// search over the chosen choice's graphs), and on a graph of 30 to 50
  /// nodes each answer costs up to a second of window searches.
  SearchMemo<std::pair<bool, std::vector<Event>>> fastSchedules;
  /// fastMinimumBudget's, by graph and limits: the least budget of a loop
  /// body, which each of the loop choice's trials asks of its bodies.
  SearchMemo<int64_t> fastMinimum;
  /// Not the solver's: the planned peaks of the remat pass's rewrites, by
  /// the text of the lowered copy (PlanLowering, in lib/Transforms/Remat),
  /// which the same trials ask again.
  SearchMemo<int64_t> plannedPeaks;
};

/// exactSchedule, whose answer `memo` keeps (when given) for the next
/// caller that asks the same.
ExactResult rememberedExactSchedule(const Graph &graph, int64_t budget,
                                    std::vector<Event> &schedule,
                                    int64_t maxStates, double maxCost,
                                    SearchMemos *memo);

/// With `memo`, an answer it holds is not searched again (and one found is
/// kept there, not in the arena).
WholeGraphResult
wholeGraphSchedule(const Graph &graph, int64_t budget,
                   std::vector<Event> &schedule, int64_t workLimit,
                   const std::atomic<bool> *stop = nullptr,
                   WindowArena *arena = nullptr,
                   double maxCost = std::numeric_limits<double>::infinity(),
                   SearchMemos *memo = nullptr);

/// What the fast solver changes on large graphs, where scanning every
/// resident value at every eviction and letting a failing run thrash to
/// kDtrComputesPerNode computes per node take minutes (docs/remat-solver.md,
/// "Large graphs"). tad-remat's --queue-nodes, --max-recompute and
/// --minimum-precision set them.
struct SolverLimits {
  /// Graphs of more nodes than this evict through a priority queue
  /// (LookaheadOptions::queue).
  int queueNodes = 256;
  /// On those graphs, a lookahead or DTR run gives up once its cost passes
  /// this many times the store-all cost (every node once): a run that
  /// thrashes stops early, and no schedule dearer than that is sought.
  /// (The last resort's scanning runs hold their schedules to it once
  /// tightened: one that fits may pass it on the way.)
  double maxRecompute = 8;
  /// On those graphs, a lookahead run also gives up once its cost passes
  /// this many times the store-all cost of the stages it has reached, plus
  /// 2% of the whole store-all cost (LookaheadOptions::thrashRatio): a
  /// failing run stops when it starts to thrash rather than at
  /// maxRecompute. 0 turns it off.
  double thrashRecompute = 3;
  /// The same ratio for the budgets that the search for the smallest
  /// budget tries (solverMinimumBudget), where failing runs take most of
  /// the time: a budget at which a run fits under the stricter ratio fits
  /// under thrashRecompute too, so the answer still fits, perhaps a little
  /// above the smallest that thrashRecompute would find. The smaller of
  /// the two applies; 0 in either turns it off.
  double searchThrashRecompute = 2;
  /// On those graphs, the bisection for the smallest budget stops once its
  /// interval is this fraction of [lowerBound, store-all peak] or less:
  /// each budget it tries costs a whole failing solve there.
  double minimumPrecision = 1.0 / 64;
  /// Those graphs are dense when their nodes have more inputs than this on
  /// average. A dense graph runs its lead lookahead variants first and
  /// nothing after they fail: its failing runs are slow, and no other run
  /// fit where they failed (docs/remat-solver.md).
  double denseInputs = 8;
  /// On dense graphs, the lookahead runs walk at most this many missing
  /// ancestors of a value to score it (LookaheadOptions::walkLimit).
  int64_t recomputeWalk = 16;
  /// On dense graphs, a lookahead run also gives up once its last 256
  /// stages cost more than this many times their store-all cost
  /// (LookaheadOptions::windowRatio). 0 turns it off.
  double windowRecompute = 12;
  /// On graphs over queueNodes (up to 1,024 nodes), where no run fits a
  /// budget of at least 0.75 of the smallest budget that they fit (0.6 on
  /// graphs over 16,384 edges), a few variants run again (fastSchedule's
  /// last resort, Solve.cpp): the ones that choose as a scan of every
  /// resident value at each eviction does, as on smaller graphs, give up
  /// after this many looks per edge of the graph (looks a scan would have
  /// made: they evict best first). 0 turns the last resort off.
  double scanLooksPerEdge = 256;
  /// On graphs over queueNodes, how many runs go at once: with 2, the lead
  /// variants, the perturbed runs and the last resort's runs go two at a
  /// time, and the search for the smallest budget asks the budget it will
  /// ask next beside the one it asks (Solve.cpp). The answers are those of
  /// one thread, run for run. The remat pass leaves it at 1: its probes
  /// already run on the context's threads.
  int threads = 1;
  /// Where the heuristics find no schedule, the search of the whole graph
  /// (wholeGraphSchedule, on graphs of at most kMaxWindowNodes nodes) stops
  /// after this much work, and after wholeGraphProbeWork at each budget
  /// that the bisection for its smallest budget tries (fastMinimumBudget,
  /// and fastSchedule with a SolveInfo). Such a search that
  /// gives up proves nothing: a caller that only asks whether a schedule
  /// is easily found (tad-choose-loop-snapshots's probes) gives it less.
  int64_t wholeGraphWork = int64_t(1) << 27;
  int64_t wholeGraphProbeWork = int64_t(1) << 25;
  /// When set (by another thread), the search stops at its next step and
  /// fails: for a caller that no longer needs its answer (the remat pass,
  /// once store-all's plan meets the budget). A search that was stopped
  /// proves nothing.
  const std::atomic<bool> *stop = nullptr;
  /// Schedules that cost more than this are of no use to the caller (the
  /// overhead policy, which wants a schedule within its bound). The exact
  /// searches of the whole graph prune above it, so that a budget at which
  /// nothing that cheap fits fails fast instead of being searched for any
  /// schedule at all; fastSchedule then fails without looking for a
  /// smaller budget. The heuristics run as without it.
  double maxCost = std::numeric_limits<double>::infinity();
  /// The window searches' memory, for a caller that solves many graphs on
  /// one thread (the remat pass): kept from one solve to the next instead
  /// of grown again. Without one, each solve makes its own.
  WindowArena *arena = nullptr;
  /// Answers kept for other solves, on any thread, of the same graphs (the
  /// loop choice's probes). Without it, only the arena keeps the
  /// whole-graph searches' answers.
  SearchMemos *memo = nullptr;
  bool stopped() const {
    return stop && stop->load(std::memory_order_relaxed);
  }
};

/// How the fast solver runs lookahead variant `variant` (lookaheadVariant)
/// on `graph` under `limits`, whose store-all schedule costs
/// `storeAllCost`: on graphs over limits.queueNodes with the eviction queue
/// and a cost limit of limits.maxRecompute times that cost, and on dense
/// ones with the bounded walk. (The portfolio also stops each run at twice
/// its best cost so far.)
LookaheadOptions fastLookaheadOptions(int variant, const Graph &graph,
                                      const SolverLimits &limits,
                                      double storeAllCost);

/// How far above the heuristics' smallest budget solverMinimumBudget's
/// answer may be under `limits`: 0 on graphs of at most limits.queueNodes
/// nodes, where the bisection is exact.
int64_t minimumBudgetSlack(const Graph &graph,
                           const SolverLimits &limits = SolverLimits());

struct SolveInfo {
  std::string winner; // which heuristic produced the returned schedule
  int attempts = 0, feasible = 0;
  bool optimal = false; // store-all, or the chain dynamic program's optimum
  /// Set by fastSchedule when it fails, unless the budget is below
  /// lowerBound: what fastMinimumBudget returns.
  int64_t minimumBudget = -1;
  /// Where the time went: each phase of solveSchedule and fastSchedule,
  /// in the order they first ran, with their wall time and how often they
  /// ran (tad-remat --verbose prints them).
  struct Phase {
    std::string name;
    double seconds = 0;
    int runs = 0;
  };
  std::vector<Phase> phases;
  void addPhase(llvm::StringRef name, double seconds);
};

/// The best tightened schedule among the lookahead scores and DTR, or false
/// when none of them fits `budget`.
bool solveSchedule(const Graph &graph, int64_t budget, std::vector<Event> &out,
                   SolveInfo *info = nullptr,
                   const SolverLimits &limits = SolverLimits());

/// solveSchedule, and where it fails, the schedule of the smallest budget
/// at which it succeeds if that is within `budget`: the heuristics'
/// feasibility is not monotone in the budget. What `tad-remat
/// --solver=fast` and the remat pass run.
/// `info`, when given, says which run produced the schedule, and where
/// none is found, the smallest budget at which one is (minimumBudget; on a
/// graph small enough for a whole-graph search, a bisection of such
/// searches that a caller without `info` is spared, and whose schedule is
/// taken where it fits).
/// `improve` false skips the windows (Window.cpp), for callers that need
/// only some schedule within the budget, such as a search for the smallest
/// budget. Without `info`, the answer is taken from limits.memo where it
/// holds one (and kept there): it depends on the graph, the budget,
/// `improve` and the limits' numbers alone, not on the time it takes.
bool fastSchedule(const Graph &graph, int64_t budget, std::vector<Event> &out,
                  SolveInfo *info = nullptr, bool improve = true,
                  const SolverLimits &limits = SolverLimits());

/// The smallest budget in [lowerBound(graph), store-all peak] at which
/// solveSchedule succeeds, found by bisection and checked (heuristic
/// feasibility need not be monotone; the store-all peak always works). On
/// graphs over limits.queueNodes the bisection stops early: the answer
/// fits, and is within minimumBudgetSlack of the bisection's. There, a
/// budget `failed` at which solveSchedule failed starts the search above
/// it: each budget tried costs a failing solve, and on large graphs the
/// search takes feasibility to be monotone. Its solves stop thrashing runs
/// at limits.searchThrashRecompute. On large dense graphs the search comes
/// down from the store-all peak (smallestFittingBudgetFromAbove).
int64_t solverMinimumBudget(const Graph &graph,
                            const SolverLimits &limits = SolverLimits(),
                            int64_t failed = -1);

/// The smallest budget in [low, high] at which `fits` holds, by bisection.
/// Heuristic feasibility need not be monotone in the budget: the answer is
/// a budget that a probe found to fit, or `high` (which the caller knows
/// fits), never one that was not tried.
int64_t smallestFittingBudget(int64_t low, int64_t high,
                              const std::function<bool(int64_t)> &fits,
                              int64_t slack = 0);

/// smallestFittingBudget for an answer near `high`: it tries budgets down
/// from `high` in steps of `slack` that double while they fit, and bisects
/// between the first that fails and the last that fit. That tries fewer
/// budgets than a bisection of [low, high] when the answer is within a few
/// steps of `high`, and at most about twice as many otherwise.
int64_t smallestFittingBudgetFromAbove(int64_t low, int64_t high,
                                       const std::function<bool(int64_t)> &fits,
                                       int64_t slack);

/// smallestFittingBudget for an answer just above `low`, which does not
/// fit: it tries budgets up from `low` in steps of `slack` that double
/// while they fail, and bisects between the last that failed and the first
/// that fits (or `high`). Each failing budget costs a whole failed search,
/// so near `low` this tries far fewer than a bisection of [low, high].
int64_t smallestFittingBudgetFromBelow(int64_t low, int64_t high,
                                       const std::function<bool(int64_t)> &fits,
                                       int64_t slack = 0);

/// The smallest budget at which fastSchedule succeeds: solverMinimumBudget,
/// lowered by bisection over the whole-graph search where the graph is
/// small enough for it.
int64_t fastMinimumBudget(const Graph &graph,
                          const SolverLimits &limits = SolverLimits());

/// No schedule fits below this: the bytes of the largest single compute.
int64_t lowerBound(const Graph &graph);

/// What tad-remat --solver=auto and the remat pass run: the exact search
/// for graphs of at most kMaxExactNodes nodes (unless it visits more than
/// kAutoExactStates states), the fast solver otherwise. Returns the
/// solver's name ("exact" or "fast"), or "" when no schedule fits.
constexpr int64_t kAutoExactStates = 200'000;
std::string autoSchedule(const Graph &graph, int64_t budget,
                         std::vector<Event> &out, bool improve = true,
                         SearchMemos *memo = nullptr);

/// The smallest budget autoSchedule meets: exact for small graphs, by
/// bisection over the fast solver otherwise.
int64_t autoMinimumBudget(const Graph &graph,
                          const SolverLimits &limits = SolverLimits());

/// The same computes with every value freed right after its last reader:
/// what compiled code does, since it frees each buffer after its last use.
/// Its peak is never above the peak of `schedule`.
std::vector<Event> freeAfterLastUse(const Graph &graph,
                                    const std::vector<Event> &schedule);

/// Chen's sqrt(n) schedule. The forward part is the prefix of the graph up
/// to the store-all schedule's peak; about sqrt(k) of its k nodes, spaced
/// evenly by bytes, are kept until their last use, the others are freed
/// after their last forward use, and a missing value is recomputed when
/// the backward sweep first needs it and kept until its last use.
std::vector<Event> chenSchedule(const Graph &graph);

} // namespace tad::remat

#endif // TAD_REMAT_SOLVER_H
