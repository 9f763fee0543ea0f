//===- RematReport.cpp - the remat report as JSON and as text -------------===//

#include "tad/Transforms/Remat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace tad;

double tad::getRecomputeOverhead(const RematFunctionReport &f) {
  return f.baseCost > 0 ? f.cost / f.baseCost - 1 : 0.0;
}

std::string tad::rematReportToJson(const RematReport &report) {
  llvm::json::Array functions;
  for (const RematFunctionReport &f : report.functions) {
    llvm::json::Array values, timeline;
    for (const RematValue &v : f.values)
      values.push_back(llvm::json::Object{
          {"op", v.op},
          {"location", v.location},
          {"bytes", v.bytes},
          {"cost", v.cost},
          {"decision", v.computes > 1 ? "recompute" : "store"},
          {"computes", v.computes},
          {"added_cost", v.addedCost},
          {"reason", v.reason}});
    llvm::json::Array bodies;
    for (const RematLoopBody &b : f.loopBodies)
      bodies.push_back(llvm::json::Object{{"location", b.location},
                                          {"trips", b.trips},
                                          {"body_budget", b.bodyBudget},
                                          {"recomputes", b.recomputes},
                                          {"cost", b.cost}});
    llvm::json::Array loops;
    for (const RematLoopRerun &l : f.loopReruns)
      loops.push_back(llvm::json::Object{{"location", l.location},
                                         {"trips", l.trips},
                                         {"reruns", l.reruns},
                                         {"residuals", l.residuals},
                                         {"cost", l.cost}});
    for (const RematTimelinePoint &p : f.timeline)
      timeline.push_back(
          llvm::json::Object{{"event", p.event}, {"live_bytes", p.liveBytes}});
    llvm::json::Object function{{"function", f.function},
                                {"budget", f.budget},
                                {"solver", f.solver},
                                {"store_all_peak", f.storeAllPeak},
                                {"predicted_peak", f.predictedPeak},
                                {"store_all_cost", f.storeAllCost},
                                {"cost", f.cost},
                                {"base_cost", f.baseCost},
                                {"region_rerun_cost", f.regionRerunCost},
                                {"recompute_overhead", getRecomputeOverhead(f)},
                                {"values", std::move(values)},
                                {"loop_reruns", std::move(loops)},
                                {"loop_bodies", std::move(bodies)},
                                {"timeline", std::move(timeline)}};
    if (f.hostPlannedPeak >= 0)
      function["host_planned_peak"] = f.hostPlannedPeak;
    if (f.timelineTruncated)
      function["timeline_truncated"] = true;
    if (f.overheadBound >= 0)
      function["overhead_bound"] = f.overheadBound / 100;
    functions.push_back(std::move(function));
  }
  llvm::json::Array loops;
  for (const RematLoop &loop : report.loops)
    loops.push_back(
        llvm::json::Object{{"location", loop.location},
                           {"trips", loop.trips},
                           {"snapshots", loop.snapshots},
                           {"residuals", loop.residuals},
                           {"residual_recompute", loop.residualRecompute}});
  llvm::json::Object top{{"functions", std::move(functions)},
                         {"loops", std::move(loops)}};
  if (report.feasibleMinimum > 0)
    top["feasible_minimum"] = report.feasibleMinimum;
  return llvm::formatv("{0:2}", llvm::json::Value(std::move(top))).str();
}

/// 123456 as "120.6 KiB": reports are read by people.
static std::string human(int64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  double value = double(bytes);
  const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  int unit = -1;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  return llvm::formatv("{0:F1} {1}", value, units[unit]).str();
}

void tad::printRematReport(const RematReport &report, llvm::raw_ostream &os) {
  // Nothing to say when every loop keeps its full tape with residuals.
  if (llvm::any_of(report.loops, [](const RematLoop &loop) {
        return loop.snapshots || !loop.residuals || loop.residualRecompute;
      })) {
    os << "remat: loops, with the most tape that meets the budget:\n";
    for (const RematLoop &loop : report.loops) {
      os << "remat:   loop at " << (loop.location.empty() ? "?" : loop.location)
         << " (" << loop.trips << " iterations): ";
      if (loop.snapshots)
        os << "binomial checkpointing with " << loop.snapshots << " snapshot"
           << (loop.snapshots > 1 ? "s" : "") << "\n";
      else if (loop.residuals && loop.residualRecompute)
        os << "a full tape of its carried values and residuals, of which "
              "each reverse step computes again "
           << loop.residualRecompute
           << "% of the bytes of those that cost memory (the cheapest per "
              "byte)\n";
      else if (loop.residuals)
        os << "a full tape of its carried values and residuals\n";
      else
        os << "a full tape of its carried values (each reverse step runs "
              "the body again)\n";
    }
  }
  for (const RematFunctionReport &f : report.functions) {
    int stored = 0, recomputed = 0;
    for (const RematValue &v : f.values)
      (v.computes > 1 ? recomputed : stored) += 1;
    os << llvm::formatv(
        "remat @{0}: budget {1}, predicted peak {2} (store-all {3}), "
        "recompute overhead {4:F1}% ({5} solver)\n",
        f.function, human(f.budget), human(f.predictedPeak),
        human(f.storeAllPeak), 100 * getRecomputeOverhead(f), f.solver);
    if (f.hostPlannedPeak >= 0)
      os << "  the predicted peak is the device's: the buffer plan's is "
         << human(f.hostPlannedPeak)
         << ", and the kernels keep some of its buffers in their own "
            "memory\n";
    if (f.overheadBound >= 0)
      os << "  the budget is the least the search found at which "
            "recomputation adds at most "
         << llvm::format("%g", f.overheadBound)
         << "% to the compute (the overhead policy)\n";
    os << llvm::formatv("  {0} forward values read by the backward sweep or "
                        "recomputed: {1} stored, {2} recomputed\n",
                        f.values.size(), stored, recomputed);
    for (const RematValue &v : f.values)
      os << llvm::formatv("  {0,-9} {1,10}  {2} at {3}: {4}\n",
                          v.computes > 1 ? "recompute" : "store",
                          human(v.bytes), v.op,
                          v.location.empty() ? "?" : v.location, v.reason);
    for (const RematLoopRerun &l : f.loopReruns)
      os << llvm::formatv(
          l.residuals
              ? "  rerun                 loop at {0} ({1} iterations): the "
                "reverse sweep's {2} steps compute again what the tapes of "
                "its residuals do not hold, for {3:F1}% more compute\n"
              : "  rerun                 loop at {0} ({1} iterations): the "
                "reverse sweep runs its body again {2} times, for {3:F1}% "
                "more compute\n",
          l.location.empty() ? "?" : l.location, l.trips, l.reruns,
          f.baseCost > 0 ? 100 * l.cost / f.baseCost : 0);
    if (f.regionRerunCost > 0)
      os << llvm::formatv(
          "  rerun                 checkpoints and branches: the backward "
          "sweep computes them again, for {0:F1}% more compute\n",
          f.baseCost > 0 ? 100 * f.regionRerunCost / f.baseCost : 0);
    for (const RematLoopBody &b : f.loopBodies)
      os << llvm::formatv(
          "  body                  loop at {0} ({1} iterations): its body is "
          "scheduled within {2}, computing again {3} values in each "
          "iteration, for {4:F1}% more compute\n",
          b.location.empty() ? "?" : b.location, b.trips, human(b.bodyBudget),
          b.recomputes, f.baseCost > 0 ? 100 * b.cost / f.baseCost : 0);
  }
}
