//===- StoreAllPeak.cpp - a budget relative to the store-all peak ---------===//

#include "tad/Driver/StoreAllPeak.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace tad;

bool tad::driver::parseBudgetPercent(llvm::StringRef text, double &percent,
                                     std::string &error) {
  text = text.trim();
  if (!text.consume_back("%"))
    return false;
  if (text.trim().getAsDouble(percent) || !(percent > 0) ||
      percent > 1e6) {
    error = "expected a share of the store-all peak above 0, such as 60%, "
            "got '" +
            text.str() + "%'";
    percent = -1;
  }
  return true;
}

namespace {
/// A temporary file, removed when the guard goes.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

llvm::Expected<tad::driver::PlanAtBudget>
tad::driver::planAtBudget(mlir::ModuleOp module, PipelineOptions &options,
                          llvm::StringRef entry, int64_t budget) {
  TempFile report;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "tadc-plan", "json", report.path))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  // The compile's options, to AD, under `budget`, with the report in the
  // temporary file only; then as they were.
  PipelineStage stage = options.stage;
  ByteSize saved = options.rematBudget;
  ReportStream summary = options.rematSummary;
  std::string reportFile = options.rematReport, graphFile = options.rematGraph;
  options.stage = PipelineStage::ad;
  options.rematBudget = ByteSize{budget};
  options.rematSummary = ReportStream::none;
  options.rematReport = report.path.str().str();
  options.rematGraph = "";
  mlir::OwningOpRef<mlir::ModuleOp> copy(module.clone());
  mlir::PassManager pm(module.getContext());
  std::string message;
  bool built = succeeded(buildPipeline(pm, options, [&](const llvm::Twine &m) {
    message = m.str();
    return mlir::failure();
  }));
  // A budget below the minimum is an answer, not an error: its messages
  // are held, and shown only when the failure is another.
  std::vector<mlir::Diagnostic> held;
  bool ran = false;
  {
    mlir::ScopedDiagnosticHandler hold(
        module.getContext(), [&](mlir::Diagnostic &d) {
          held.push_back(std::move(d));
          return mlir::success();
        });
    ran = built && succeeded(pm.run(*copy));
  }
  options.stage = stage;
  options.rematBudget = saved;
  options.rematSummary = summary;
  options.rematReport = reportFile;
  options.rematGraph = graphFile;
  if (!built)
    return llvm::createStringError(message);
  auto text = llvm::MemoryBuffer::getFile(report.path);
  llvm::Expected<llvm::json::Value> json =
      text ? llvm::json::parse((*text)->getBuffer())
           : llvm::Expected<llvm::json::Value>(llvm::createStringError(""));
  const llvm::json::Object *top = json ? json->getAsObject() : nullptr;
  PlanAtBudget plan;
  plan.budget = budget;
  if (!ran) {
    std::optional<int64_t> minimum =
        top ? top->getInteger("feasible_minimum") : std::nullopt;
    if (minimum) {
      if (!json)
        llvm::consumeError(json.takeError());
      plan.feasibleMinimum = *minimum;
      return plan;
    }
    if (!json)
      llvm::consumeError(json.takeError());
    for (mlir::Diagnostic &d : held)
      module.getContext()->getDiagEngine().emit(std::move(d));
    return llvm::createStringError("cannot plan @" + entry +
                                   " (the errors above)");
  }
  if (!json)
    return json.takeError();
  const llvm::json::Array *functions =
      top ? top->getArray("functions") : nullptr;
  if (functions)
    for (const llvm::json::Value &f : *functions) {
      const llvm::json::Object *fn = f.getAsObject();
      if (!fn || fn->getString("function") != entry)
        continue;
      plan.fits = true;
      plan.storeAllPeak = fn->getInteger("store_all_peak").value_or(0);
      plan.predictedPeak = fn->getInteger("predicted_peak").value_or(0);
      plan.overhead = fn->getNumber("recompute_overhead").value_or(0);
      return plan;
    }
  return llvm::createStringError(
      "@" + entry + " is no derivative: a budget relative to the store-all "
                    "peak applies to a gradient (value_and_grad, vjp, ...)");
}

llvm::Expected<int64_t>
tad::driver::getStoreAllPeak(mlir::ModuleOp module, PipelineOptions &options,
                             llvm::StringRef entry) {
  // A budget that every plan meets: the pass keeps everything.
  llvm::Expected<PlanAtBudget> plan =
      planAtBudget(module, options, entry, int64_t(1) << 60);
  if (!plan)
    return plan.takeError();
  return plan->storeAllPeak;
}

llvm::Error tad::driver::describeMemory(mlir::ModuleOp module,
                                        PipelineOptions &options,
                                        llvm::StringRef entry, unsigned points,
                                        llvm::raw_ostream &os,
                                        llvm::StringRef jsonPath) {
  llvm::Expected<PlanAtBudget> top =
      planAtBudget(module, options, entry, int64_t(1) << 60);
  if (!top)
    return top.takeError();
  int64_t storeAll = top->storeAllPeak;
  // One byte is below every plan: the pass names the least budget.
  llvm::Expected<PlanAtBudget> least = planAtBudget(module, options, entry, 1);
  if (!least)
    return least.takeError();
  int64_t minimum = least->fits ? least->predictedPeak : least->feasibleMinimum;
  std::vector<PlanAtBudget> plans;
  plans.push_back(*top);
  plans.back().budget = storeAll;
  for (unsigned k = 1; minimum < storeAll && k <= points; ++k) {
    int64_t budget = storeAll - (storeAll - minimum) * int64_t(k) /
                                    int64_t(points + 1);
    llvm::Expected<PlanAtBudget> plan =
        planAtBudget(module, options, entry, budget);
    if (!plan)
      return plan.takeError();
    plans.push_back(*plan);
  }
  if (minimum < storeAll) {
    llvm::Expected<PlanAtBudget> plan =
        planAtBudget(module, options, entry, minimum);
    if (!plan)
      return plan.takeError();
    plans.push_back(*plan);
  }
  auto share = [&](int64_t bytes) {
    return llvm::formatv("{0:F1}%", 100.0 * double(bytes) / double(storeAll))
        .str();
  };
  os << "memory of @" << entry << " (the remat pass's buffer plans, bytes):\n"
     << "  store-all peak    " << storeAll << "\n"
     << "  feasible minimum  " << minimum << " (" << share(minimum)
     << " of store-all)\n\n"
     << "| budget | of store-all | predicted peak | recompute overhead |\n"
     << "| --- | --- | --- | --- |\n";
  llvm::json::Array rows;
  for (const PlanAtBudget &plan : plans) {
    os << "| " << plan.budget << " | " << share(plan.budget) << " | ";
    if (plan.fits)
      os << plan.predictedPeak << " | "
         << llvm::formatv("{0:F1}%", 100.0 * plan.overhead) << " |\n";
    else
      os << "does not fit | - |\n";
    llvm::json::Object row{{"budget", plan.budget}, {"fits", plan.fits}};
    if (plan.fits) {
      row["predicted_peak"] = plan.predictedPeak;
      row["recompute_overhead"] = plan.overhead;
    }
    rows.push_back(std::move(row));
  }
  if (jsonPath.empty())
    return llvm::Error::success();
  std::error_code ec;
  llvm::raw_fd_ostream out(jsonPath, ec);
  if (ec)
    return llvm::createStringError(jsonPath + ": " + ec.message());
  out << llvm::formatv(
             "{0:2}",
             llvm::json::Value(llvm::json::Object{
                 {"function", entry},
                 {"store_all_peak", storeAll},
                 {"feasible_minimum", minimum},
                 {"budgets", std::move(rows)}}))
      << "\n";
  return llvm::Error::success();
}

llvm::Expected<int64_t> tad::driver::resolveBudgetPercent(
    mlir::ModuleOp module, PipelineOptions &options, llvm::StringRef entry,
    llvm::StringRef given, double percent, int64_t &peak, std::string &of) {
  of = entry.str();
  if (of.empty()) {
    std::vector<std::string> derivatives;
    for (auto fn : module.getOps<mlir::func::FuncOp>())
      if (fn->hasAttr(TadDialect::kDerivativeAttrName))
        derivatives.push_back(fn.getName().str());
    if (derivatives.size() != 1) {
      std::string names;
      for (const std::string &d : derivatives)
        names += (names.empty() ? "" : ", ") + d;
      return llvm::createStringError(
          "--remat-budget=" + given +
          " needs --entry: the share is of one derivative's store-all peak, "
          "and the program has " +
          (derivatives.empty() ? "none" : names));
    }
    of = derivatives.front();
  }
  llvm::Expected<int64_t> storeAll = getStoreAllPeak(module, options, of);
  if (!storeAll)
    return llvm::createStringError("--remat-budget=" + given + ": " +
                                   llvm::toString(storeAll.takeError()));
  peak = *storeAll;
  return int64_t(double(peak) * percent / 100);
}
