//===- RematExplain.cpp - the remat report's reasons ----------------------===//

#include "RematExplain.h"

#include "LoopCosts.h"
#include "dialects/tad/TadOps.h"
#include "tad/Remat/Exact.h"
#include "tad/Remat/Solver.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tad;
using remat::Event;

bool tad::isForward(Operation *op) {
  return op->hasAttr(TadDialect::kForwardAttrName);
}

std::string tad::locationOf(Operation *op) { return describeLocation(op->getLoc()); }

/// The name of `node`'s compute in messages.
static std::string eventName(const RematProblem &problem, int node) {
  if (node == problem.sink)
    return "return";
  Operation *root = problem.groups[node].back();
  std::string where = locationOf(root);
  return root->getName().getStringRef().str() +
         (where.empty() ? "" : " at " + where);
}

RematFunctionReport tad::describe(func::FuncOp func, const RematProblem &problem,
                             const std::vector<Event> &schedule,
                             const RematProblem &after,
                             const std::string &solver, int64_t budget,
                             RematPolicy policy, int64_t plannedPeak,
                             int64_t plannedStoreAll) {
  const remat::Graph &graph = problem.graph;
  RematFunctionReport report;
  report.function = func.getName().str();
  report.budget = budget;
  report.solver = solver;
  remat::ScheduleStats all =
      remat::simulate(graph, remat::storeAllSchedule(graph));
  std::vector<Event> final = remat::storeAllSchedule(after.graph);
  remat::ScheduleStats stats = remat::simulate(after.graph, final);
  report.storeAllPeak = plannedStoreAll;
  report.storeAllCost = all.cost;
  report.predictedPeak = plannedPeak;
  report.cost = stats.cost;
  // The reverse loops' costs in the graph include their bodies' reruns:
  // without them is what computing everything once costs.
  report.loopReruns = findLoopReruns(func);
  double reruns = 0;
  for (const RematLoopRerun &loop : report.loopReruns)
    reruns += loop.cost;
  report.regionRerunCost = recomputedCost(func.getBody().front());
  report.baseCost =
      std::max(all.cost - reruns - report.regionRerunCost, 0.0);
  double base = report.baseCost;

  std::vector<int> computes(graph.size(), 0);
  for (const Event &e : schedule)
    if (e.kind == Event::compute)
      ++computes[e.node];
  for (int v = 0; v < problem.sink; ++v) {
    Operation *root = problem.groups[v].back();
    if (!isForward(root))
      continue;
    const remat::Node &node = graph.nodes[v];
    bool readByBackward = llvm::any_of(node.users, [&](int u) {
      return u != problem.sink && !isForward(problem.groups[u].back());
    });
    // Listed: what the backward sweep reads, and whatever is recomputed
    // (to recompute what it reads), so that the costs add up.
    if ((!readByBackward || node.bytes == 0) && computes[v] < 2)
      continue;
    RematValue value;
    value.op = root->getName().getStringRef().str();
    value.location = locationOf(root);
    value.bytes = node.bytes;
    value.cost = node.cost;
    value.computes = computes[v];
    if (computes[v] > 1) {
      // What its instances cost in the rewrite, over what it cost once:
      // a copy that fuses into its reader costs its arithmetic only, and
      // so may the first instance once it has one reader left.
      double extra = after.instanceCosts.size() == graph.size()
                         ? after.instanceCosts[v] - node.cost
                         : node.cost * (computes[v] - 1);
      value.addedCost = extra;
      double percent = base > 0 ? 100 * extra / base : 0;
      value.reason = llvm::formatv(
          "recomputed {0} {1} instead of held from the forward sweep, for "
          "{2}",
          computes[v] == 2 ? "once"
                           : std::to_string(computes[v] - 1) + " times",
          readByBackward ? "for the backward sweep"
                         : "as an input of recomputed values",
          percent >= -0.05
              ? llvm::formatv("{0:F1}% more compute", std::max(percent, 0.0))
                    .str()
              : llvm::formatv("{0:F1}% less compute: its instances fuse "
                              "into the loops that read them",
                              -percent)
                    .str());
    } else if (!node.recomputable)
      value.reason = "stored: " + problem.pinnedBecause[v];
    else if (policy == RematPolicy::saveAll)
      value.reason = "stored: the policy saves everything";
    else if (all.peak <= budget)
      value.reason = "stored: everything fits in the budget";
    else
      value.reason = "stored: the budget has room for it where recomputing "
                     "others costs less";
    report.values.push_back(std::move(value));
  }
  return report;
}

void tad::explainInfeasible(func::FuncOp func, const RematProblem &problem,
                       int64_t budget, int64_t minimum,
                       bool loopSnapshotsChosen) {
  const remat::Graph &graph = problem.graph;
  InFlightDiagnostic diag =
      func.emitError() << "no schedule of @" << func.getName() << " fits in "
                       << budget << " bytes: the feasible minimum is "
                       << minimum << " bytes";
  // The schedule at the minimum; store-all when the minimum is the
  // planned store-all peak, which the model may count above it.
  std::vector<Event> schedule;
  if (remat::autoSchedule(graph, minimum, schedule, /*improve=*/false).empty())
    schedule = remat::storeAllSchedule(graph);
  schedule = remat::freeAfterLastUse(graph, schedule);
  // Find the compute at the peak and what is resident then.
  std::vector<char> resident(graph.size(), 0);
  std::vector<char> atPeak;
  int peakNode = -1;
  int64_t live = 0, peak = -1;
  for (const Event &e : schedule) {
    const remat::Node &node = graph.nodes[e.node];
    resident[e.node] = e.kind == Event::compute;
    live += (e.kind == Event::compute ? 1 : -1) * node.bytes;
    if (e.kind == Event::compute && live + node.transient > peak) {
      peak = live + node.transient;
      peakNode = e.node;
      atPeak = resident;
    }
  }
  std::vector<int> held;
  for (int v = 0; v < graph.size(); ++v)
    if (atPeak[v] && graph.nodes[v].bytes > 0)
      held.push_back(v);
  llvm::sort(held, [&](int a, int b) {
    return graph.nodes[a].bytes > graph.nodes[b].bytes;
  });
  Diagnostic &note = diag.attachNote(problem.groups[peakNode].back()->getLoc());
  note << "at the minimum, the peak is reached computing "
       << eventName(problem, peakNode) << ", with";
  for (size_t i = 0; i < held.size() && i < 5; ++i)
    note << (i ? ", " : " ") << graph.nodes[held[i]].bytes << " bytes of "
         << eventName(problem, held[i]);
  if (held.size() > 5)
    note << " and " << held.size() - 5 << " more values";
  if (graph.nodes[peakNode].transient)
    note << ", plus " << graph.nodes[peakNode].transient << " transient bytes";
  note << " resident";
  // A loop's tape is one of those values, which only binomial
  // checkpointing shrinks.
  bool binomial = false;
  func.walk([&](scf::IndexSwitchOp) { binomial = true; });
  for (Operation &op : func.getBody().front())
    if (isa<scf::ForOp>(op)) {
      if (loopSnapshotsChosen)
        diag.attachNote(op.getLoc())
            << "the loop choice tried for each loop a full tape with its "
               "residuals (and shares of them computed again), a full tape "
               "of its carried values, and 64, 32, ..., 1 snapshots below "
               "its trip count; none meets the budget, and this choice ("
            << (binomial ? "binomial checkpointing" : "full tapes")
            << ") needs the least";
      else if (binomial)
        diag.attachNote(op.getLoc())
            << "loops are reversed by binomial checkpointing; fewer "
               "snapshots (option 'loop-snapshots') keep fewer carried "
               "values";
      else
        diag.attachNote(op.getLoc())
            << "this loop keeps every iteration's carried values for the "
               "backward sweep; option 'loop-snapshots' at N keeps N of them "
               "instead (binomial checkpointing)";
      break;
    }
}
