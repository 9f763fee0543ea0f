//===- TestMemoryModel.cpp - the remat model against the buffer plan ------===//
//
// Emits, per function, the store-all peak of the remat graph and the peak of
// the planned buffers, so that a test can hold each op's declared memory
// behavior (MemoryModelOpInterface) to what its lowering allocates, and the
// estimated cost of its ops, which bench/remat/op_costs.py holds to time.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"

#include "PlanPeak.h"
#include "RematGraph.h"
#include "tad/Remat/Solver.h"

#include "llvm/Support/FormatVariadic.h"

namespace tad {
#define GEN_PASS_DEF_TESTMEMORYMODEL
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;
using namespace tad;

namespace {

struct TestMemoryModelPass
    : tad::impl::TestMemoryModelBase<TestMemoryModelPass> {
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
      func.emitRemark() << "@" << func.getName() << ": model peak " << model.peak
                        << " bytes, planned peak " << *plan << " bytes, cost "
                        << llvm::formatv("{0:F1}", model.cost) << " units";
    }
  }
};

} // namespace
