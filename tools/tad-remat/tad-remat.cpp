//===- tad-remat.cpp - the remat solver on a graph file -------------------===//
//
// `tad-remat GRAPH.json --budget BYTES` reads a node-link graph (Checkmate
// and Moccasin's format), schedules it within the budget and prints the
// schedule as JSON. It runs the solver without the compiler, so that its
// answers can be compared with other solvers on the same graphs.
//
//===----------------------------------------------------------------------===//

#include "TadRematOptions.h"

#include "tad/Remat/ByteSize.h"
#include "tad/Remat/Exact.h"
#include "tad/Remat/Graph.h"
#include "tad/Remat/Solver.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <map>

using namespace tad::remat;
using namespace tadremat;

/// The fast solver's phases, as --verbose prints them (also when it fails).
static void printPhases(const SolveInfo &info, double seconds) {
  llvm::errs() << llvm::format("tad-remat: %.3f s in all", seconds) << "\n";
  for (const SolveInfo::Phase &phase : info.phases)
    llvm::errs() << llvm::format("  %-48s %9.3f s  %d call%s\n",
                                 phase.name.c_str(), phase.seconds, phase.runs,
                                 phase.runs == 1 ? "" : "s");
}

/// An error that main prints as `tad-remat: error: MESSAGE`.
static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

/// No solver fits a budget below the largest compute footprint.
static llvm::Error belowFootprint(int64_t budget, int64_t footprint) {
  return makeError("no schedule fits in " + llvm::Twine(budget) +
                   " bytes: computing one node needs " +
                   llvm::Twine(footprint) + " bytes");
}

/// The smallest budget in [low, high] for which the DTR greedy finds a
/// schedule.
static int64_t dtrMinimumBudget(const Graph &graph, int64_t low, int64_t high) {
  std::vector<Event> schedule;
  return smallestFittingBudget(low, high, [&](int64_t budget) {
    return dtrSchedule(graph, budget, schedule);
  });
}

/// Reads the events of a schedule printed by tad-remat (or written in its
/// format by another solver, such as bench/remat/milp.py's MILP), so that
/// other solvers' answers are checked by the same simulator.
static bool readSchedule(const Graph &graph, llvm::StringRef text,
                         std::vector<Event> &schedule, std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    error = "invalid JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *events = root ? root->getArray("events") : nullptr;
  if (!events) {
    error = "expected an object with the array \"events\"";
    return false;
  }
  std::map<std::string, int> index;
  for (int v = 0; v < graph.size(); ++v)
    index[graph.nodes[v].name] = v;
  schedule.clear();
  for (const llvm::json::Value &e : *events) {
    const llvm::json::Object *event = e.getAsObject();
    std::optional<llvm::StringRef> compute, free;
    if (event) {
      compute = event->getString("compute");
      free = event->getString("free");
    }
    auto it = index.end();
    if (compute || free)
      it = index.find((compute ? *compute : *free).str());
    if (it == index.end()) {
      error = "event " + std::to_string(schedule.size()) +
              ": expected {\"compute\": ID} or {\"free\": ID} naming a "
              "node of the graph";
      return false;
    }
    schedule.push_back({compute ? Event::compute : Event::free, it->second});
  }
  return true;
}

/// The solver limits that the flags set, or an error naming the first flag
/// out of its range (--variant too, which is checked among them).
static llvm::Expected<SolverLimits> getSolverLimits(const TadRematOptions &o) {
  if (o.queueNodes < 0)
    return makeError("--queue-nodes must be 0 or more, not " +
                     llvm::Twine(int(o.queueNodes)));
  // NaN fails this test too.
  if (!(o.maxRecompute >= 1))
    return makeError("--max-recompute must be at least 1 (the store-all "
                     "cost), not " +
                     llvm::formatv("{0}", double(o.maxRecompute)).str());
  if (!(o.thrashRecompute == 0 || o.thrashRecompute >= 1))
    return makeError(
        "--thrash-recompute must be 0 (never) or at least 1, not " +
        llvm::formatv("{0}", double(o.thrashRecompute)).str());
  if (!(o.searchThrashRecompute == 0 || o.searchThrashRecompute >= 1))
    return makeError(
        "--search-thrash-recompute must be 0 (never) or at least 1, not " +
        llvm::formatv("{0}", double(o.searchThrashRecompute)).str());
  if (!(o.minimumPrecision >= 0 && o.minimumPrecision < 1))
    return makeError(
        "--minimum-precision must be at least 0 and below 1, not " +
        llvm::formatv("{0}", double(o.minimumPrecision)).str());
  if (o.variant < 0 || o.variant >= kLookaheadVariants)
    return makeError("--variant must be from 0 to " +
                     llvm::Twine(kLookaheadVariants - 1) + ", not " +
                     llvm::Twine(int(o.variant)));
  if (o.recomputeWalk < 1)
    return makeError("--recompute-walk must be at least 1, not " +
                     llvm::Twine(int64_t(o.recomputeWalk)));
  if (!(o.windowRecompute == 0 || o.windowRecompute >= 1))
    return makeError(
        "--window-recompute must be 0 (never) or at least 1, not " +
        llvm::formatv("{0}", double(o.windowRecompute)).str());
  if (!(o.denseInputs >= 0))
    return makeError("--dense-inputs must be 0 or more, not " +
                     llvm::formatv("{0}", double(o.denseInputs)).str());
  if (!(o.scanLooks >= 0))
    return makeError("--scan-looks must be 0 or more, not " +
                     llvm::formatv("{0}", double(o.scanLooks)).str());
  if (o.threads < 1 || o.threads > 2)
    return makeError("--solver-threads must be 1 or 2, not " +
                     llvm::Twine(int(o.threads)));
  SolverLimits limits;
  limits.threads = o.threads;
  limits.queueNodes = o.queueNodes;
  limits.scanLooksPerEdge = o.scanLooks;
  limits.maxRecompute = o.maxRecompute;
  limits.thrashRecompute = o.thrashRecompute;
  limits.searchThrashRecompute = o.searchThrashRecompute;
  limits.minimumPrecision = o.minimumPrecision;
  limits.recomputeWalk = o.recomputeWalk;
  limits.denseInputs = o.denseInputs;
  limits.windowRecompute = o.windowRecompute;
  return limits;
}

/// The node-link graph in the file at `path` (- for stdin).
static llvm::Expected<Graph> readGraph(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  Graph graph;
  std::string error;
  if (!parseGraphJson((*buffer)->getBuffer(), graph, error))
    return makeError(path + ": " + error);
  return graph;
}

/// The solver that --replay or --solver names; --solver=auto takes the
/// store-all schedule without a budget, the exact solver for graphs of at
/// most kMaxExactNodes nodes and the fast solver for the others.
static Solver chooseSolver(const TadRematOptions &o, const Graph &graph,
                           int64_t budget) {
  if (!o.replayFile.empty())
    return Solver::replay;
  if (o.solver != Solver::automatic)
    return o.solver;
  return budget < 0                       ? Solver::storeAll
         : graph.size() <= kMaxExactNodes ? Solver::exact
                                          : Solver::fast;
}

namespace {
/// A graph to schedule, and what every solver checks its answer against.
struct Problem {
  Problem(const TadRematOptions &options, const Graph &graph,
          const SolverLimits &limits)
      : options(options), graph(graph), limits(limits),
        automatic(options.replayFile.empty() &&
                  options.solver == Solver::automatic),
        storeAll(storeAllSchedule(graph)),
        storeAllPeak(simulate(graph, storeAll).peak),
        footprint(lowerBound(graph)), start(std::chrono::steady_clock::now()) {}

  /// The wall time since the problem was set, that is since solving began.
  double getSeconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

  const TadRematOptions &options;
  const Graph &graph;
  const SolverLimits limits;
  /// Whether --solver=auto chose the solver: an exact search that runs out
  /// of states then hands the graph to the fast solver.
  const bool automatic;
  /// Every node once, no recomputation.
  const std::vector<Event> storeAll;
  const int64_t storeAllPeak;
  /// The largest single compute: no schedule fits below it, a lower bound
  /// for every solver.
  const int64_t footprint;
  const std::chrono::steady_clock::time_point start;
};

/// A solver's answer.
struct Solution {
  std::vector<Event> schedule;
  /// The solver that the output names.
  const char *solverName = "store-all";
  /// The budget the schedule keeps to, -1 for none; the solvers that need
  /// one take the store-all peak when --budget is not given.
  int64_t budget = -1;
  /// Which run of the fast solver won.
  SolveInfo info;
};
} // namespace

/// Reads --replay's schedule and checks it under the memory model and the
/// budget.
static llvm::Error replaySchedule(const Problem &p, Solution &s) {
  const std::string &file = p.options.replayFile;
  auto text = llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!text)
    return makeError("cannot read '" + file +
                     "': " + text.getError().message());
  std::string error;
  if (!readSchedule(p.graph, (*text)->getBuffer(), s.schedule, error))
    return makeError(file + ": " + error);
  s.solverName = "replay";
  ScheduleStats stats = simulate(p.graph, s.schedule);
  if (!stats.valid)
    return makeError(file + ": invalid schedule: " + stats.error);
  if (s.budget >= 0 && stats.peak > s.budget)
    return makeError(file + ": the schedule peaks at " +
                     llvm::Twine(stats.peak) + " bytes, over the budget of " +
                     llvm::Twine(s.budget) + " bytes");
  return llvm::Error::success();
}

/// Keeps the store-all schedule, which must fit the budget.
static llvm::Error keepStoreAll(const Problem &p, const Solution &s) {
  if (s.budget >= 0 && p.storeAllPeak > s.budget)
    return makeError(
        "the store-all schedule peaks at " + llvm::Twine(p.storeAllPeak) +
        " bytes, over the budget of " + llvm::Twine(s.budget) + " bytes");
  return llvm::Error::success();
}

/// What a heuristic's refusal says of the budgets below its smallest: none
/// fits below the largest compute, and between the two one may (where all
/// nodes may be recomputed, the least budget is a pebbling number, often
/// far below what bounded recomputation reaches: docs/remat-solver.md).
static std::string boundsOfRefusal(const Problem &p) {
  return " (no schedule fits below " + std::to_string(p.footprint) +
         "; one between the two may exist that the solver does not find)";
}

/// Runs the exact search; under --solver=auto, the fast solver answers
/// where the search runs out of states.
static llvm::Error solveExact(const Problem &p, Solution &s) {
  s.solverName = "exact";
  if (s.budget < 0)
    s.budget = p.storeAllPeak;
  switch (exactSchedule(p.graph, s.budget, s.schedule)) {
  case ExactResult::optimal:
    return llvm::Error::success();
  case ExactResult::tooLarge:
    if (p.automatic) {
      // The search ran out of states: the fast solver answers instead.
      s.solverName = "fast";
      if (!fastSchedule(p.graph, s.budget, s.schedule, &s.info,
                        /*improve=*/true, p.limits))
        return makeError("no schedule found within " + llvm::Twine(s.budget) +
                         " bytes; the fast solver's smallest budget is " +
                         llvm::Twine(s.info.minimumBudget) + " bytes" +
                         boundsOfRefusal(p));
      return llvm::Error::success();
    }
    if (p.graph.size() > kMaxExactNodes)
      return makeError("the graph has " + llvm::Twine(p.graph.size()) +
                       " nodes; the exact solver takes at most " +
                       llvm::Twine(kMaxExactNodes) + " (use --solver=fast)");
    return makeError("the exact search exceeded its state limit on this " +
                     llvm::Twine(p.graph.size()) +
                     "-node graph (use --solver=fast)");
  case ExactResult::infeasible: {
    int64_t minimum = exactMinimumBudget(p.graph);
    if (minimum < 0)
      return makeError("no schedule fits in " + llvm::Twine(s.budget) +
                       " bytes; the search for the feasible minimum exceeded "
                       "its state limit (no schedule fits below " +
                       llvm::Twine(p.footprint) + " bytes)");
    return makeError("no schedule fits in " + llvm::Twine(s.budget) +
                     " bytes: the feasible minimum is " + llvm::Twine(minimum) +
                     " bytes");
  }
  }
  llvm_unreachable("unknown result of the exact search");
}

/// The budget of a solver that needs one (the store-all peak when none is
/// given); an error below the largest compute, where no solver fits.
static llvm::Error takeBudget(const Problem &p, Solution &s) {
  if (s.budget < 0)
    s.budget = p.storeAllPeak;
  if (s.budget < p.footprint)
    return belowFootprint(s.budget, p.footprint);
  return llvm::Error::success();
}

/// Runs the fast solver; where it fails, the error names its smallest
/// budget.
static llvm::Error solveFast(const Problem &p, Solution &s) {
  s.solverName = "fast";
  if (llvm::Error error = takeBudget(p, s))
    return error;
  if (fastSchedule(p.graph, s.budget, s.schedule, &s.info, /*improve=*/true,
                   p.limits))
    return llvm::Error::success();
  if (p.options.verbose)
    printPhases(s.info, p.getSeconds());
  // On large graphs the bisection stops within a slack of the answer.
  int64_t slack = minimumBudgetSlack(p.graph, p.limits);
  std::string within =
      slack ? " to within " + std::to_string(slack) + " bytes" : "";
  return makeError("the fast solver finds no schedule within " +
                   llvm::Twine(s.budget) + " bytes; its smallest budget is " +
                   llvm::Twine(s.info.minimumBudget) + " bytes" + within +
                   boundsOfRefusal(p));
}

/// Runs the one lookahead variant of the fast solver that --variant names,
/// and tightens its schedule.
static llvm::Error solveLookahead(const Problem &p, Solution &s) {
  s.solverName = "lookahead";
  if (llvm::Error error = takeBudget(p, s))
    return error;
  LookaheadOptions options = fastLookaheadOptions(
      p.options.variant, p.graph, p.limits, simulate(p.graph, p.storeAll).cost);
  options.bestFirst = p.options.bestFirst;
  if (!lookaheadSchedule(p.graph, s.budget, options, s.schedule))
    return makeError(
        "lookahead variant " + llvm::Twine(int(p.options.variant)) +
        " finds no schedule within " + llvm::Twine(s.budget) + " bytes");
  tightenSchedule(p.graph, s.budget, s.schedule);
  return llvm::Error::success();
}

/// Takes Chen et al.'s sqrt(n) schedule, which must fit the budget.
static llvm::Error solveChen(const Problem &p, Solution &s) {
  s.solverName = "chen";
  s.schedule = chenSchedule(p.graph);
  if (s.budget < 0)
    return llvm::Error::success();
  int64_t peak = simulate(p.graph, s.schedule).peak;
  if (peak > s.budget)
    return makeError("Chen's schedule peaks at " + llvm::Twine(peak) +
                     " bytes, over the budget of " + llvm::Twine(s.budget) +
                     " bytes");
  return llvm::Error::success();
}

/// Runs the DTR greedy; where it fails, the error names its smallest
/// budget.
static llvm::Error solveDtr(const Problem &p, Solution &s) {
  s.solverName = "dtr";
  if (llvm::Error error = takeBudget(p, s))
    return error;
  if (dtrSchedule(p.graph, s.budget, s.schedule))
    return llvm::Error::success();
  int64_t minimum = dtrMinimumBudget(p.graph, p.footprint,
                                     std::max(p.storeAllPeak, p.footprint));
  return makeError("the dtr solver finds no schedule within " +
                   llvm::Twine(s.budget) +
                   " bytes (no eviction makes room, or its recomputations "
                   "thrash); its smallest budget is " +
                   llvm::Twine(minimum) + " bytes" + boundsOfRefusal(p));
}

/// Schedules the problem with `solver`, into `s` (which starts as the
/// store-all schedule, with the budget of --budget or -1).
static llvm::Error runSolver(const Problem &p, Solver solver, Solution &s) {
  switch (solver) {
  case Solver::replay:
    return replaySchedule(p, s);
  case Solver::automatic:
  case Solver::storeAll:
    return keepStoreAll(p, s);
  case Solver::exact:
    return solveExact(p, s);
  case Solver::fast:
    return solveFast(p, s);
  case Solver::lookahead:
    return solveLookahead(p, s);
  case Solver::chen:
    return solveChen(p, s);
  case Solver::dtr:
    return solveDtr(p, s);
  }
  llvm_unreachable("unknown solver");
}

/// Replays the schedule, so that the printed cost and peak are the
/// simulator's, not the solver's, and writes it as JSON to -o.
static llvm::Error printSchedule(const Problem &p, const Solution &s,
                                 double seconds) {
  ScheduleStats stats = simulate(p.graph, s.schedule);
  if (!stats.valid)
    return makeError("internal error: the " + llvm::Twine(s.solverName) +
                     " schedule is invalid: " + stats.error);
  if (s.budget >= 0 && stats.peak > s.budget)
    return makeError("internal error: the " + llvm::Twine(s.solverName) +
                     " schedule peaks at " + llvm::Twine(stats.peak) +
                     " bytes, over the budget");

  const std::string &file = p.options.outputFile;
  std::error_code ec;
  llvm::ToolOutputFile out(file, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return makeError("cannot write '" + file + "': " + ec.message());
  std::string json =
      scheduleToJson(p.graph, s.schedule, stats, s.solverName, s.budget);
  if (!s.info.winner.empty()) // after the opening brace
    json.insert(2, "  \"method\": \"" + s.info.winner + "\",\n");
  if (p.options.printSeconds) // after the opening brace, before the summary
    json.insert(2, "  \"seconds\": " + std::to_string(seconds) + ",\n");
  out.os() << json << "\n";
  out.keep();
  return llvm::Error::success();
}

/// Reads the graph, schedules it as the flags ask and prints the schedule.
static llvm::Error scheduleGraph(const TadRematOptions &options) {
  llvm::Expected<SolverLimits> limits = getSolverLimits(options);
  if (!limits)
    return limits.takeError();
  llvm::Expected<Graph> graph = readGraph(options.inputFile);
  if (!graph)
    return graph.takeError();
  Solution solution;
  std::string error;
  if (!options.budget.empty() &&
      !parseByteSize(options.budget, solution.budget, error))
    return makeError("--budget: " + error);

  Solver solver = chooseSolver(options, *graph, solution.budget);
  Problem problem(options, *graph, *limits);
  solution.schedule = problem.storeAll;
  if (llvm::Error err = runSolver(problem, solver, solution))
    return err;
  double seconds = problem.getSeconds();
  if (options.verbose)
    printPhases(solution.info, seconds);
  return printSchedule(problem, solution, seconds);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  TadRematOptions options;
  cl::HideUnrelatedOptions(options.category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tad remat solver: schedules a node-link graph within a byte budget\n");
  if (llvm::Error err = scheduleGraph(options)) {
    llvm::WithColor::error(llvm::errs(), "tad-remat")
        << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}
