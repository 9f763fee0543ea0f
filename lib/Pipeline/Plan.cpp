//===- Plan.cpp - what the compile plans under a budget -------------------===//

#include "tad/Pipeline/Plan.h"

#include "dialects/tad/TadDialect.h"
#include "tad/Remat/Solver.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

llvm::Expected<tad::RematResult>
tad::planAtBudget(ModuleOp module, const PipelineOptions &options,
                  const Budget &budget) {
  if (!budget.isBytes() && !budget.isStoreAll())
    return llvm::createStringError("planAtBudget takes bytes or store-all");
  OwningOpRef<ModuleOp> copy(module.clone());
  PassManager pm(module.getContext());
  // The scheduler below asks again what the loop choice's probes asked.
  auto memo = std::make_shared<remat::SearchMemos>();
  addDifferentiationPasses(pm, options, budget, memo);
  RematOptions remat = getRematOptions(options, budget);
  remat.reportFile = "";
  remat.graphFile = "";
  remat.summary = ReportStream::none;
  // A budget below the minimum is an answer, not an error: the messages
  // are held, and shown only when the failure is another.
  std::vector<Diagnostic> held;
  RematResult result;
  bool differentiated = false;
  {
    ScopedDiagnosticHandler hold(module.getContext(), [&](Diagnostic &d) {
      held.push_back(std::move(d));
      return success();
    });
    differentiated = succeeded(pm.run(*copy));
    if (differentiated)
      result = scheduleDerivatives(*copy, remat, memo.get());
  }
  if (result.scheduled || result.report.feasibleMinimum > 0)
    return result;
  for (Diagnostic &d : held)
    module.getContext()->getDiagEngine().emit(std::move(d));
  return llvm::createStringError(
      differentiated ? "cannot schedule the derivatives (the errors above)"
                     : "cannot differentiate the program (the errors above)");
}

const tad::RematFunctionReport *tad::findPlan(const RematResult &result,
                                              llvm::StringRef function) {
  for (const RematFunctionReport &f : result.report.functions)
    if (f.function == function)
      return &f;
  return nullptr;
}

/// The derivative whose store-all peak a share is of: the entry, else the
/// program's one derivative.
static llvm::Expected<std::string> findSharedFunction(ModuleOp module,
                                                      StringRef entry,
                                                      StringRef given) {
  if (!entry.empty())
    return entry.str();
  std::string names;
  int count = 0;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn->hasAttr(tad::TadDialect::kDerivativeAttrName)) {
      names += (names.empty() ? "" : ", ") + fn.getName().str();
      ++count;
    }
  if (count == 1)
    return names;
  return llvm::createStringError(
      "option 'remat-budget': " + given +
      " needs option 'entry': the share is of one derivative's store-all "
      "peak, and the program has " +
      (count == 0 ? std::string("none") : names));
}

llvm::Expected<tad::ResolvedBudget>
tad::resolveBudget(ModuleOp module, const PipelineOptions &options) {
  const Budget &budget = options.rematBudget;
  ResolvedBudget resolved{budget, "", 0};
  if (!budget.isShare())
    return resolved;
  std::string given = budget.str();
  llvm::Expected<std::string> function =
      findSharedFunction(module, options.entry, given);
  if (!function)
    return function.takeError();
  resolved.function = *function;
  llvm::Expected<RematResult> plan =
      planAtBudget(module, options, Budget::storeAll());
  if (!plan)
    return llvm::createStringError("option 'remat-budget': " + given + ": " +
                                   llvm::toString(plan.takeError()));
  const RematFunctionReport *planned = findPlan(*plan, resolved.function);
  if (!planned)
    return llvm::createStringError(
        "option 'remat-budget': " + given + ": @" + resolved.function +
        " is no derivative: a budget relative to the store-all peak applies "
        "to a gradient (value_and_grad, vjp, ...)");
  resolved.storeAllPeak = planned->storeAllPeak;
  resolved.budget = Budget::ofBytes(
      int64_t(double(planned->storeAllPeak) * budget.percent / 100));
  return resolved;
}
