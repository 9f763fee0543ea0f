//===- MemoryTable.cpp - tadc mem: the plans between two budgets ----------===//

#include "tad/Driver/MemoryTable.h"

#include "tad/Pipeline/Plan.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ThreadPool.h"

#include <optional>

using namespace tad;

namespace {
/// One row of the table: what tad-remat plans for the entry at a budget.
struct Row {
  int64_t budget = 0;
  bool fits = false;
  int64_t predictedPeak = 0; // when it fits
  double overhead = 0;       // the recompute overhead, when it fits
};
} // namespace

/// What tad-remat plans for `entry` at `budget` bytes.
static llvm::Expected<Row> planRow(mlir::ModuleOp module,
                                   const PipelineOptions &options,
                                   llvm::StringRef entry, int64_t budget) {
  llvm::Expected<RematResult> result =
      planAtBudget(module, options, Budget::ofBytes(budget));
  if (!result)
    return result.takeError();
  Row row;
  row.budget = budget;
  const RematFunctionReport *plan = findPlan(*result, entry);
  row.fits = result->scheduled && plan;
  if (row.fits) {
    row.predictedPeak = plan->predictedPeak;
    row.overhead = getRecomputeOverhead(*plan);
  }
  return row;
}

/// The rows of `budgets`, planned at once: each in a context of its own
/// (the module's copy read back from bytecode) on a thread of its own, one
/// per core, so that the plans share nothing, and each context's messages
/// stay its own (with --mlir-disable-threading, one after another). An
/// error names the first row that failed, with its messages.
static llvm::Expected<std::vector<Row>>
planRows(mlir::ModuleOp module, const PipelineOptions &options,
         llvm::StringRef entry, llvm::ArrayRef<int64_t> budgets) {
  std::string bytecode;
  llvm::raw_string_ostream os(bytecode);
  if (mlir::failed(mlir::writeBytecodeToFile(module, os)))
    return llvm::createStringError("cannot copy the module to plan it");
  const mlir::DialectRegistry &registry =
      module.getContext()->getDialectRegistry();
  std::vector<std::optional<Row>> rows(budgets.size());
  std::vector<std::string> errors(budgets.size());
  llvm::DefaultThreadPool pool(module.getContext()->isMultithreadingEnabled()
                                   ? llvm::hardware_concurrency()
                                   : llvm::heavyweight_hardware_concurrency(1));
  for (size_t k = 0; k < budgets.size(); ++k)
    pool.async([&, k] {
      mlir::MLIRContext context(registry,
                                mlir::MLIRContext::Threading::DISABLED);
      std::string &messages = errors[k];
      mlir::ScopedDiagnosticHandler collect(
          &context, [&](mlir::Diagnostic &d) {
            std::string text;
            llvm::raw_string_ostream(text) << d.getLocation() << ": " << d;
            messages += "\n  " + text;
            return mlir::success();
          });
      mlir::OwningOpRef<mlir::ModuleOp> copy =
          mlir::parseSourceString<mlir::ModuleOp>(bytecode, &context);
      llvm::Expected<Row> row =
          copy ? planRow(*copy, options, entry, budgets[k])
               : llvm::Expected<Row>(
                     llvm::createStringError("cannot read the module back"));
      if (row)
        rows[k] = *row;
      else
        messages = llvm::toString(row.takeError()) + messages;
    });
  pool.wait();
  std::vector<Row> planned;
  for (size_t k = 0; k < budgets.size(); ++k) {
    if (!rows[k])
      return llvm::createStringError("planning a budget of " +
                                     llvm::Twine(budgets[k]) +
                                     " bytes: " + errors[k]);
    planned.push_back(*rows[k]);
  }
  return planned;
}

/// The table for people.
static void printTable(llvm::StringRef entry, int64_t storeAll,
                       int64_t minimum, llvm::ArrayRef<Row> rows,
                       llvm::raw_ostream &os) {
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
  for (const Row &row : rows) {
    os << "| " << row.budget << " | " << share(row.budget) << " | ";
    if (row.fits)
      os << row.predictedPeak << " | "
         << llvm::formatv("{0:F1}%", 100.0 * row.overhead) << " |\n";
    else
      os << "does not fit | - |\n";
  }
}

/// The table as JSON (docs/tadc.md describes the fields).
static llvm::Error writeJson(llvm::StringRef path, llvm::StringRef entry,
                             int64_t storeAll, int64_t minimum,
                             llvm::ArrayRef<Row> rows) {
  llvm::json::Array budgets;
  for (const Row &row : rows) {
    llvm::json::Object object{{"budget", row.budget}, {"fits", row.fits}};
    if (row.fits) {
      object["predicted_peak"] = row.predictedPeak;
      object["recompute_overhead"] = row.overhead;
    }
    budgets.push_back(std::move(object));
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return llvm::createStringError(path + ": " + ec.message());
  out << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                    {"function", entry},
                                    {"store_all_peak", storeAll},
                                    {"feasible_minimum", minimum},
                                    {"budgets", std::move(budgets)}}))
      << "\n";
  return llvm::Error::success();
}

llvm::Error tad::driver::describeMemory(mlir::ModuleOp module,
                                        const PipelineOptions &options,
                                        llvm::StringRef entry, unsigned points,
                                        llvm::raw_ostream &os,
                                        llvm::StringRef jsonPath) {
  llvm::Expected<RematResult> top =
      planAtBudget(module, options, Budget::storeAll());
  if (!top)
    return top.takeError();
  const RematFunctionReport *storeAllPlan = findPlan(*top, entry);
  if (!storeAllPlan)
    return llvm::createStringError(
        "@" + entry + " is no derivative: tadc mem plans a gradient "
                      "(value_and_grad, vjp, ...)");
  int64_t storeAll = storeAllPlan->storeAllPeak;
  // One byte is below every plan: tad-remat names the least budget.
  llvm::Expected<RematResult> least =
      planAtBudget(module, options, Budget::ofBytes(1));
  if (!least)
    return least.takeError();
  const RematFunctionReport *leastPlan = findPlan(*least, entry);
  int64_t minimum = least->scheduled && leastPlan
                        ? leastPlan->predictedPeak
                        : least->report.feasibleMinimum;
  std::vector<Row> rows;
  rows.push_back({storeAll, true, storeAllPlan->predictedPeak,
                  getRecomputeOverhead(*storeAllPlan)});
  std::vector<int64_t> budgets;
  for (unsigned k = 1; minimum < storeAll && k <= points; ++k)
    budgets.push_back(storeAll - (storeAll - minimum) * int64_t(k) /
                                     int64_t(points + 1));
  if (minimum < storeAll)
    budgets.push_back(minimum);
  llvm::Expected<std::vector<Row>> planned =
      planRows(module, options, entry, budgets);
  if (!planned)
    return planned.takeError();
  llvm::append_range(rows, *planned);
  printTable(entry, storeAll, minimum, rows, os);
  if (jsonPath.empty())
    return llvm::Error::success();
  return writeJson(jsonPath, entry, storeAll, minimum, rows);
}
