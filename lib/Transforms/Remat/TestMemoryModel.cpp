//===- TestMemoryModel.cpp - the remat model against the buffer plan ------===//
//
// Emits, per function, the store-all peak of the remat graph and the peak of
// the planned buffers, so that a test can hold each op's declared memory
// behavior (MemoryModelOpInterface) to what its lowering allocates, and the
// estimated cost of its ops, which bench/remat/op_costs.py holds to time;
// with `explain`, what each of the two holds at its peak.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"

#include "PlanPeak.h"
#include "RematGraph.h"
#include "tad/Remat/Solver.h"

#include "llvm/Support/FormatVariadic.h"

#include <limits>

namespace tad {
#define GEN_PASS_DEF_TESTMEMORYMODEL
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;
using namespace tad;

namespace {

/// The nodes resident at the first peak of the store-all run of `problem`
/// (with the node being computed, whose transient bytes count then), as
/// "bytes name" lines, largest first.
std::vector<std::pair<int64_t, std::string>>
modelAtPeak(const RematProblem &problem) {
  const remat::Graph &graph = problem.graph;
  std::vector<bool> resident(graph.size(), false);
  int64_t live = 0, peak = -1;
  std::vector<std::pair<int64_t, std::string>> held;
  for (const remat::Event &event : remat::storeAllSchedule(graph)) {
    const remat::Node &node = graph.nodes[event.node];
    if (event.kind == remat::Event::free) {
      resident[event.node] = false;
      live -= node.bytes;
      continue;
    }
    resident[event.node] = true;
    live += node.bytes;
    if (live + node.transient <= peak)
      continue;
    peak = live + node.transient;
    held.clear();
    for (int v = 0; v < graph.size(); ++v)
      if (resident[v] && graph.nodes[v].bytes)
        held.push_back({graph.nodes[v].bytes, graph.nodes[v].name});
    if (node.transient)
      held.push_back({node.transient, "transient of " + node.name});
  }
  llvm::stable_sort(held, [](auto &a, auto &b) { return a.first > b.first; });
  return held;
}

/// The planned buffers live at the first peak of `events`, as "bytes
/// location" lines, largest first. A free names the location of the
/// allocation it releases.
std::vector<std::pair<int64_t, std::string>>
planAtPeak(ArrayRef<BufferEvent> events) {
  std::vector<std::pair<int64_t, Location>> live, atPeak;
  int64_t peak = -1;
  for (const BufferEvent &event : events) {
    if (event.bytes >= 0) {
      live.push_back({event.bytes, event.location});
    } else {
      auto it = llvm::find_if(live, [&](auto &buffer) {
        return buffer.first == -event.bytes && buffer.second == event.location;
      });
      if (it != live.end())
        live.erase(it);
    }
    if (event.live > peak) {
      peak = event.live;
      atPeak = live;
    }
  }
  std::vector<std::pair<int64_t, std::string>> held;
  for (auto &[bytes, loc] : atPeak) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << loc;
    held.push_back({bytes, text});
  }
  llvm::stable_sort(held, [](auto &a, auto &b) { return a.first > b.first; });
  return held;
}

struct TestMemoryModelPass
    : tad::impl::TestMemoryModelBase<TestMemoryModelPass> {
  using TestMemoryModelBase::TestMemoryModelBase;

  // It lowers copies of functions to check their plans: what the
  // bufferization steps create must be loaded before it runs.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    BufferizationSteps::getDependentDialects(registry);
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    PlanLowering lowering(&getContext());
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isDeclaration() || !func.getBody().hasOneBlock())
        continue;
      RematGraphOptions options;
      options.symbolTable = module;
      RematProblem problem = buildRematProblem(func, options);
      // The graph's store-all run: its peak, and its cost, in which an op
      // fused into its reader's loop costs its arithmetic alone.
      remat::ScheduleStats model =
          remat::simulate(problem.graph, remat::storeAllSchedule(problem.graph));
      FailureOr<int64_t> plan = planBufferPeak(lowering, module, func, func);
      if (failed(plan))
        return signalPassFailure();
      InFlightDiagnostic remark =
          func.emitRemark()
          << "@" << func.getName() << ": model peak " << model.peak
          << " bytes, planned peak " << *plan << " bytes, cost "
          << llvm::formatv("{0:F1}", model.cost) << " units";
      if (!explain)
        continue;
      FailureOr<PlannedTimeline> timeline = planBufferTimeline(
          lowering, module, func, func, std::numeric_limits<size_t>::max(),
          /*gpu=*/std::nullopt);
      if (failed(timeline))
        return signalPassFailure();
      Diagnostic &note = remark.attachNote();
      note << "the model holds at its peak:";
      for (auto &[bytes, name] : modelAtPeak(problem))
        note << "\n  " << bytes << " " << name;
      note << "\nthe plan holds at its peak:";
      for (auto &[bytes, where] : planAtPeak(timeline->events))
        note << "\n  " << bytes << " " << where;
    }
  }
};

} // namespace
