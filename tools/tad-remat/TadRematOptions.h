//===- TadRematOptions.h - tad-remat's command-line flags -------*- C++ -*-===//
//
// Every flag of tad-remat, as members of one struct that main makes once:
// registered with LLVM's command line when it is constructed, read after
// parsing.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TOOLS_TAD_REMAT_TADREMATOPTIONS_H
#define TAD_TOOLS_TAD_REMAT_TADREMATOPTIONS_H

#include "tad/Remat/Solver.h"

#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <string>
#include <thread>

namespace tadremat {
namespace cl = llvm::cl;
using tad::remat::SolverLimits;

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

struct TadRematOptions {
  cl::OptionCategory category{"tad-remat options"};

  cl::opt<std::string> inputFile{cl::Positional, cl::desc("<graph.json>"),
                                 cl::Required, cl::cat(category)};

  cl::opt<std::string> budget{
      "budget",
      cl::desc("Memory budget in bytes (suffixes KiB, MiB, GiB); "
               "without it, the store-all schedule"),
      cl::value_desc("bytes"), cl::cat(category)};

  cl::opt<Solver> solver{
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
      cl::init(Solver::automatic), cl::cat(category)};

  cl::opt<bool> printSeconds{
      "time", cl::desc("Add the solver's wall time in seconds to the output"),
      cl::cat(category)};

  cl::opt<bool> verbose{
      "verbose",
      cl::desc("Print where the fast solver's time went to stderr: each "
               "phase's wall time and how often it ran"),
      cl::cat(category)};

  cl::opt<int> queueNodes{
      "queue-nodes",
      cl::desc("The fast solver evicts through a priority queue, and stops "
               "runs at --max-recompute, on graphs of more nodes than this"),
      cl::init(SolverLimits().queueNodes), cl::cat(category)};

  cl::opt<double> maxRecompute{
      "max-recompute",
      cl::desc("On graphs over --queue-nodes, a run of the fast solver gives "
               "up once its cost passes this many times the store-all cost"),
      cl::init(SolverLimits().maxRecompute), cl::cat(category)};

  cl::opt<double> thrashRecompute{
      "thrash-recompute",
      cl::desc("On graphs over --queue-nodes, a lookahead run of the fast "
               "solver also gives up once its cost passes this many times the "
               "store-all cost of the stages it has reached, plus 2% of the "
               "store-all cost (0: never)"),
      cl::init(SolverLimits().thrashRecompute), cl::cat(category)};

  cl::opt<double> searchThrashRecompute{
      "search-thrash-recompute",
      cl::desc("The same for the budgets that the search for the smallest "
               "budget tries; the smaller of the two applies (0: never)"),
      cl::init(SolverLimits().searchThrashRecompute), cl::cat(category)};

  cl::opt<double> minimumPrecision{
      "minimum-precision",
      cl::desc("On graphs over --queue-nodes, the search for the fast "
               "solver's smallest budget stops within this fraction of the "
               "range from the largest compute to the store-all peak"),
      cl::init(SolverLimits().minimumPrecision), cl::cat(category)};

  cl::opt<int> variant{
      "variant",
      cl::desc("With --solver=lookahead, which variant runs (0 to 15): the "
               "score is variant % 4, +4 keeps ancestors, +8 depth first"),
      cl::init(0), cl::cat(category)};

  cl::opt<bool> bestFirst{
      "best-first",
      cl::desc("With --solver=lookahead and a variant of score rc/b that "
               "scans (not over --queue-nodes): each eviction scores values "
               "in the order of their lower bounds and stops at the first "
               "bound above the best score, as the last resort's runs do"),
      cl::init(false), cl::cat(category)};

  cl::opt<int64_t> recomputeWalk{
      "recompute-walk",
      cl::desc("On dense graphs (--dense-inputs), the fast solver's "
               "lookahead runs visit at most this many missing ancestors of a "
               "value to estimate its recompute cost"),
      cl::init(SolverLimits().recomputeWalk), cl::cat(category)};

  cl::opt<double> denseInputs{
      "dense-inputs",
      cl::desc("A graph over --queue-nodes whose nodes have more inputs than "
               "this on average is dense: the fast solver stops when its "
               "first two lookahead variants fail there, and bounds their "
               "walk (--recompute-walk)"),
      cl::init(SolverLimits().denseInputs), cl::cat(category)};

  cl::opt<double> windowRecompute{
      "window-recompute",
      cl::desc("On dense graphs (--dense-inputs), a lookahead run of the fast "
               "solver also gives up once its last 256 stages cost more than "
               "this many times their store-all cost (0: never)"),
      cl::init(SolverLimits().windowRecompute), cl::cat(category)};

  cl::opt<double> scanLooks{
      "scan-looks",
      cl::desc("Where no run of the fast solver fits a graph over "
               "--queue-nodes, its last resort runs a few lookahead variants "
               "again, some choosing as a scan of every resident value at "
               "each eviction does; each of those gives up after this many "
               "looks per edge (0: no last resort)"),
      cl::init(SolverLimits().scanLooksPerEdge), cl::cat(category)};

  cl::opt<int> threads{
      "solver-threads",
      cl::desc("On graphs over --queue-nodes, the fast solver runs this many "
               "lookahead runs at once (1 or 2; the answer is the same): by "
               "default 2 where the machine has two cores or more"),
      cl::init(std::thread::hardware_concurrency() >= 2 ? 2 : 1),
      cl::cat(category)};

  cl::opt<std::string> replayFile{
      "replay",
      cl::desc("Replay the schedule in this file (tad-remat's output format, "
               "e.g. another solver's answer) instead of solving: checks it "
               "under the memory model and the budget and prints its cost and "
               "peak"),
      cl::value_desc("schedule.json"), cl::cat(category)};

  cl::opt<std::string> outputFile{"o", cl::desc("Output file"),
                                  cl::value_desc("file"), cl::init("-"),
                                  cl::cat(category)};
};

} // namespace tadremat

#endif // TAD_TOOLS_TAD_REMAT_TADREMATOPTIONS_H
