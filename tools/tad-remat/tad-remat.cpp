//===- tad-remat.cpp - the remat solver on a graph file -------------------===//
//
// `tad-remat GRAPH.json --budget BYTES` reads a node-link graph (Checkmate
// and Moccasin's format), schedules it within the budget and prints the
// schedule as JSON. It runs the solver without the compiler, so that its
// answers can be compared with other solvers on the same graphs.
//
//===----------------------------------------------------------------------===//

#include "tad/Remat/ByteSize.h"
#include "tad/Remat/Exact.h"
#include "tad/Remat/Graph.h"
#include "tad/Remat/Solver.h"

#include "llvm/Support/CommandLine.h"
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
namespace cl = llvm::cl;

static cl::OptionCategory category("tad-remat options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph.json>"),
                                      cl::Required, cl::cat(category));

static cl::opt<std::string>
    budgetOption("budget",
                 cl::desc("Memory budget in bytes (suffixes KiB, MiB, GiB); "
                          "without it, the store-all schedule"),
                 cl::value_desc("bytes"), cl::cat(category));

// `replay` is not a --solver value: --replay selects it.
enum class Solver {
  automatic,
  exact,
  fast,
  lookahead,
  dtr,
  chen,
  storeAll,
  replay
};
static cl::opt<Solver> solverOption(
    "solver", cl::desc("Which solver schedules the graph"),
    cl::values(clEnumValN(Solver::automatic, "auto",
                          "exact for graphs of at most 20 nodes, else fast"),
               clEnumValN(Solver::exact, "exact",
                          "least-cost schedule by exhaustive search"),
               clEnumValN(Solver::fast, "fast",
                          "lookahead eviction and tightening, the best of "
                          "several scores and DTR"),
               clEnumValN(Solver::lookahead, "lookahead",
                          "one lookahead variant of the fast solver "
                          "(--variant), tightened: to measure the variants"),
               clEnumValN(Solver::chen, "chen",
                          "Chen et al.'s sqrt(n) checkpointing (a "
                          "baseline; ignores the budget's size)"),
               clEnumValN(Solver::dtr, "dtr",
                          "DTR-style greedy eviction with recompute on "
                          "demand"),
               clEnumValN(Solver::storeAll, "store-all",
                          "every node once, no recomputation")),
    cl::init(Solver::automatic), cl::cat(category));

static cl::opt<bool>
    timeOption("time",
               cl::desc("Add the solver's wall time in seconds to the output"),
               cl::cat(category));

static cl::opt<bool> verboseOption(
    "verbose",
    cl::desc("Print where the fast solver's time went to stderr: each "
             "phase's wall time and how often it ran"),
    cl::cat(category));

static cl::opt<int> queueNodesOption(
    "queue-nodes",
    cl::desc("The fast solver evicts through a priority queue, and stops "
             "runs at --max-recompute, on graphs of more nodes than this"),
    cl::init(SolverLimits().queueNodes), cl::cat(category));

static cl::opt<double> maxRecomputeOption(
    "max-recompute",
    cl::desc("On graphs over --queue-nodes, a run of the fast solver gives "
             "up once its cost passes this many times the store-all cost"),
    cl::init(SolverLimits().maxRecompute), cl::cat(category));

static cl::opt<double> thrashRecomputeOption(
    "thrash-recompute",
    cl::desc("On graphs over --queue-nodes, a lookahead run of the fast "
             "solver also gives up once its cost passes this many times the "
             "store-all cost of the stages it has reached, plus 2% of the "
             "store-all cost (0: never)"),
    cl::init(SolverLimits().thrashRecompute), cl::cat(category));

static cl::opt<double> searchThrashRecomputeOption(
    "search-thrash-recompute",
    cl::desc("The same for the budgets that the search for the smallest "
             "budget tries; the smaller of the two applies (0: never)"),
    cl::init(SolverLimits().searchThrashRecompute), cl::cat(category));

static cl::opt<double> minimumPrecisionOption(
    "minimum-precision",
    cl::desc("On graphs over --queue-nodes, the search for the fast "
             "solver's smallest budget stops within this fraction of the "
             "range from the largest compute to the store-all peak"),
    cl::init(SolverLimits().minimumPrecision), cl::cat(category));

static cl::opt<int> variantOption(
    "variant",
    cl::desc("With --solver=lookahead, which variant runs (0 to 15): the "
             "score is variant % 4, +4 keeps ancestors, +8 depth first"),
    cl::init(0), cl::cat(category));

static cl::opt<int64_t> recomputeWalkOption(
    "recompute-walk",
    cl::desc("On dense graphs (--dense-inputs), the fast solver's "
             "lookahead runs visit at most this many missing ancestors of a "
             "value to estimate its recompute cost"),
    cl::init(SolverLimits().recomputeWalk), cl::cat(category));

static cl::opt<double> denseInputsOption(
    "dense-inputs",
    cl::desc("A graph over --queue-nodes whose nodes have more inputs than "
             "this on average is dense: the fast solver stops when its "
             "first two lookahead variants fail there, and bounds their "
             "walk (--recompute-walk)"),
    cl::init(SolverLimits().denseInputs), cl::cat(category));

static cl::opt<double> windowRecomputeOption(
    "window-recompute",
    cl::desc("On dense graphs (--dense-inputs), a lookahead run of the fast "
             "solver also gives up once its last 256 stages cost more than "
             "this many times their store-all cost (0: never)"),
    cl::init(SolverLimits().windowRecompute), cl::cat(category));

static cl::opt<std::string> replayFile(
    "replay",
    cl::desc("Replay the schedule in this file (tad-remat's output format, "
             "e.g. another solver's answer) instead of solving: checks it "
             "under the memory model and the budget and prints its cost and "
             "peak"),
    cl::value_desc("schedule.json"), cl::cat(category));

static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));

/// The fast solver's phases, as --verbose prints them (also when it fails).
static void printPhases(const SolveInfo &info, double seconds) {
  llvm::errs() << llvm::format("tad-remat: %.3f s in all", seconds) << "\n";
  for (const SolveInfo::Phase &phase : info.phases)
    llvm::errs() << llvm::format("  %-48s %9.3f s  %d call%s\n",
                                 phase.name.c_str(), phase.seconds, phase.runs,
                                 phase.runs == 1 ? "" : "s");
}

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tad-remat") << message << "\n";
  return 1;
}

/// No solver fits a budget below the largest compute footprint.
static int failBelowFootprint(int64_t budget, int64_t footprint) {
  return fail("no schedule fits in " + llvm::Twine(budget) +
              " bytes: computing one node needs " + llvm::Twine(footprint) +
              " bytes");
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

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tad remat solver: schedules a node-link graph within a byte budget\n");

  if (queueNodesOption < 0)
    return fail("--queue-nodes must be 0 or more, not " +
                llvm::Twine(int(queueNodesOption)));
  // NaN fails this test too.
  if (!(maxRecomputeOption >= 1))
    return fail("--max-recompute must be at least 1 (the store-all cost), "
                "not " +
                llvm::formatv("{0}", double(maxRecomputeOption)).str());

  if (!(thrashRecomputeOption == 0 || thrashRecomputeOption >= 1))
    return fail("--thrash-recompute must be 0 (never) or at least 1, not " +
                llvm::formatv("{0}", double(thrashRecomputeOption)).str());
  if (!(searchThrashRecomputeOption == 0 || searchThrashRecomputeOption >= 1))
    return fail(
        "--search-thrash-recompute must be 0 (never) or at least 1, not " +
        llvm::formatv("{0}", double(searchThrashRecomputeOption)).str());
  if (!(minimumPrecisionOption >= 0 && minimumPrecisionOption < 1))
    return fail("--minimum-precision must be at least 0 and below 1, not " +
                llvm::formatv("{0}", double(minimumPrecisionOption)).str());
  if (variantOption < 0 || variantOption >= kLookaheadVariants)
    return fail("--variant must be from 0 to " +
                llvm::Twine(kLookaheadVariants - 1) + ", not " +
                llvm::Twine(int(variantOption)));
  if (recomputeWalkOption < 1)
    return fail("--recompute-walk must be at least 1, not " +
                llvm::Twine(int64_t(recomputeWalkOption)));
  if (!(windowRecomputeOption == 0 || windowRecomputeOption >= 1))
    return fail("--window-recompute must be 0 (never) or at least 1, not " +
                llvm::formatv("{0}", double(windowRecomputeOption)).str());
  if (!(denseInputsOption >= 0))
    return fail("--dense-inputs must be 0 or more, not " +
                llvm::formatv("{0}", double(denseInputsOption)).str());
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read '" + inputFile +
                "': " + buffer.getError().message());
  Graph graph;
  std::string error;
  if (!parseGraphJson((*buffer)->getBuffer(), graph, error))
    return fail(inputFile + ": " + error);

  std::vector<Event> schedule = storeAllSchedule(graph);
  const int64_t storeAllPeak = simulate(graph, schedule).peak;
  int64_t budget = -1;
  if (!budgetOption.empty() && !parseByteSize(budgetOption, budget, error))
    return fail("--budget: " + error);

  Solver solver = replayFile.empty() ? Solver(solverOption) : Solver::replay;
  bool automatic = solver == Solver::automatic;
  if (automatic)
    solver = budget < 0                       ? Solver::storeAll
             : graph.size() <= kMaxExactNodes ? Solver::exact
                                              : Solver::fast;
  // No schedule fits below the largest single compute: a lower bound for
  // every solver.
  const int64_t footprint = lowerBound(graph);
  auto start = std::chrono::steady_clock::now();

  const char *solverName = "store-all";
  SolveInfo info; // which run of the fast solver won
  SolverLimits limits;
  limits.queueNodes = queueNodesOption;
  limits.maxRecompute = maxRecomputeOption;
  limits.thrashRecompute = thrashRecomputeOption;
  limits.searchThrashRecompute = searchThrashRecomputeOption;
  limits.minimumPrecision = minimumPrecisionOption;
  limits.recomputeWalk = recomputeWalkOption;
  limits.denseInputs = denseInputsOption;
  limits.windowRecompute = windowRecomputeOption;
  switch (solver) {
  case Solver::replay: {
    auto text = llvm::MemoryBuffer::getFile(replayFile, /*IsText=*/true);
    if (!text)
      return fail("cannot read '" + replayFile +
                  "': " + text.getError().message());
    if (!readSchedule(graph, (*text)->getBuffer(), schedule, error))
      return fail(replayFile + ": " + error);
    solverName = "replay";
    ScheduleStats stats = simulate(graph, schedule);
    if (!stats.valid)
      return fail(replayFile + ": invalid schedule: " + stats.error);
    if (budget >= 0 && stats.peak > budget)
      return fail(replayFile + ": the schedule peaks at " +
                  llvm::Twine(stats.peak) + " bytes, over the budget of " +
                  llvm::Twine(budget) + " bytes");
    break;
  }
  case Solver::automatic:
  case Solver::storeAll:
    if (budget >= 0 && storeAllPeak > budget)
      return fail("the store-all schedule peaks at " +
                  llvm::Twine(storeAllPeak) + " bytes, over the budget of " +
                  llvm::Twine(budget) + " bytes");
    break;
  case Solver::exact: {
    solverName = "exact";
    if (budget < 0)
      budget = storeAllPeak;
    ExactResult result = exactSchedule(graph, budget, schedule);
    if (result == ExactResult::tooLarge && automatic) {
      // The search ran out of states: the fast solver answers instead.
      solverName = "fast";
      if (!fastSchedule(graph, budget, schedule, &info, /*improve=*/true,
                        limits))
        return fail("no schedule found within " + llvm::Twine(budget) +
                    " bytes; the fast solver's smallest budget is " +
                    llvm::Twine(info.minimumBudget) +
                    " bytes (no schedule fits below " + llvm::Twine(footprint) +
                    ")");
      break;
    }
    switch (result) {
    case ExactResult::optimal:
      break;
    case ExactResult::tooLarge:
      if (graph.size() > kMaxExactNodes)
        return fail("the graph has " + llvm::Twine(graph.size()) +
                    " nodes; the exact solver takes at most " +
                    llvm::Twine(kMaxExactNodes) + " (use --solver=fast)");
      return fail("the exact search exceeded its state limit on this " +
                  llvm::Twine(graph.size()) +
                  "-node graph (use --solver=fast)");
    case ExactResult::infeasible: {
      int64_t minimum = exactMinimumBudget(graph);
      if (minimum < 0)
        return fail("no schedule fits in " + llvm::Twine(budget) +
                    " bytes; the search for the feasible minimum exceeded "
                    "its state limit (no schedule fits below " +
                    llvm::Twine(footprint) + " bytes)");
      return fail("no schedule fits in " + llvm::Twine(budget) +
                  " bytes: the feasible minimum is " + llvm::Twine(minimum) +
                  " bytes");
    }
    }
    break;
  }
  case Solver::fast:
    solverName = "fast";
    if (budget < 0)
      budget = storeAllPeak;
    if (budget < footprint)
      return failBelowFootprint(budget, footprint);
    if (!fastSchedule(graph, budget, schedule, &info, /*improve=*/true,
                      limits)) {
      if (verboseOption)
        printPhases(info, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count());
      // On large graphs the bisection stops within a slack of the answer.
      int64_t slack = minimumBudgetSlack(graph, limits);
      std::string within =
          slack ? " to within " + std::to_string(slack) + " bytes" : "";
      return fail("the fast solver finds no schedule within " +
                  llvm::Twine(budget) + " bytes; its smallest budget is " +
                  llvm::Twine(info.minimumBudget) + " bytes" + within +
                  " (no schedule fits below " + llvm::Twine(footprint) + ")");
    }
    break;
  case Solver::lookahead: {
    solverName = "lookahead";
    if (budget < 0)
      budget = storeAllPeak;
    if (budget < footprint)
      return failBelowFootprint(budget, footprint);
    LookaheadOptions options = fastLookaheadOptions(
        variantOption, graph, limits, simulate(graph, schedule).cost);
    if (!lookaheadSchedule(graph, budget, options, schedule))
      return fail("lookahead variant " + llvm::Twine(int(variantOption)) +
                  " finds no schedule within " + llvm::Twine(budget) +
                  " bytes");
    tightenSchedule(graph, budget, schedule);
    break;
  }
  case Solver::chen:
    solverName = "chen";
    schedule = chenSchedule(graph);
    if (budget >= 0 && simulate(graph, schedule).peak > budget)
      return fail("Chen's schedule peaks at " +
                  llvm::Twine(simulate(graph, schedule).peak) +
                  " bytes, over the budget of " + llvm::Twine(budget) +
                  " bytes");
    break;
  case Solver::dtr:
    solverName = "dtr";
    if (budget < 0)
      budget = storeAllPeak;
    if (budget < footprint)
      return failBelowFootprint(budget, footprint);
    if (!dtrSchedule(graph, budget, schedule))
      return fail(
          "the dtr solver finds no schedule within " + llvm::Twine(budget) +
          " bytes (no eviction makes room, or its recomputations "
          "thrash); its smallest budget is " +
          llvm::Twine(dtrMinimumBudget(graph, footprint,
                                       std::max(storeAllPeak, footprint))) +
          " bytes (no schedule fits below " + llvm::Twine(footprint) + ")");
    break;
  }

  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (verboseOption)
    printPhases(info, seconds);
  // Every schedule is replayed before it is printed: the printed cost and
  // peak are the simulator's, not the solver's.
  ScheduleStats stats = simulate(graph, schedule);
  if (!stats.valid)
    return fail("internal error: the " + llvm::Twine(solverName) +
                " schedule is invalid: " + stats.error);
  if (budget >= 0 && stats.peak > budget)
    return fail("internal error: the " + llvm::Twine(solverName) +
                " schedule peaks at " + llvm::Twine(stats.peak) +
                " bytes, over the budget");

  std::error_code ec;
  llvm::ToolOutputFile out(outputFile, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return fail("cannot write '" + outputFile + "': " + ec.message());
  std::string json = scheduleToJson(graph, schedule, stats, solverName, budget);
  if (!info.winner.empty()) // after the opening brace
    json.insert(2, "  \"method\": \"" + info.winner + "\",\n");
  if (timeOption) // after the opening brace, before the summary
    json.insert(2, "  \"seconds\": " + std::to_string(seconds) + ",\n");
  out.os() << json << "\n";
  out.keep();
  return 0;
}
