//===- StoreAllPeak.cpp - a budget relative to the store-all peak ---------===//

#include "tad/Driver/StoreAllPeak.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
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

llvm::Expected<int64_t>
tad::driver::getStoreAllPeak(mlir::ModuleOp module, PipelineOptions &options,
                             llvm::StringRef entry) {
  TempFile report;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "tadc-store-all", "json", report.path))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  // The compile's options, to AD, under a budget that every plan meets,
  // with the report in the temporary file only; then as they were.
  PipelineStage stage = options.stage;
  ByteSize budget = options.rematBudget;
  ReportStream summary = options.rematSummary;
  std::string reportFile = options.rematReport, graphFile = options.rematGraph;
  options.stage = PipelineStage::ad;
  options.rematBudget = ByteSize{int64_t(1) << 60};
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
  bool ran = built && succeeded(pm.run(*copy));
  options.stage = stage;
  options.rematBudget = budget;
  options.rematSummary = summary;
  options.rematReport = reportFile;
  options.rematGraph = graphFile;
  if (!built)
    return llvm::createStringError(message);
  if (!ran)
    return llvm::createStringError("cannot plan @" + entry +
                                   "'s store-all peak (the errors above)");
  auto text = llvm::MemoryBuffer::getFile(report.path);
  if (!text)
    return llvm::createStringError("cannot read the remat report: " +
                                   text.getError().message());
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*text)->getBuffer());
  if (!json)
    return json.takeError();
  const llvm::json::Object *top = json->getAsObject();
  const llvm::json::Array *functions =
      top ? top->getArray("functions") : nullptr;
  if (functions)
    for (const llvm::json::Value &f : *functions) {
      const llvm::json::Object *fn = f.getAsObject();
      if (!fn || fn->getString("function") != entry)
        continue;
      if (std::optional<int64_t> peak = fn->getInteger("store_all_peak"))
        return *peak;
    }
  return llvm::createStringError(
      "@" + entry + " is no derivative: a budget relative to the store-all "
                    "peak applies to a gradient (value_and_grad, vjp, ...)");
}
