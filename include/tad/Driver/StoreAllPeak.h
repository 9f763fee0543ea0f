//===- StoreAllPeak.h - a budget relative to the store-all peak -*- C++ -*-===//
//
// `--remat-budget=60%` is a share of the entry's store-all peak, which only
// the remat pass knows, and `tadc mem` tabulates what the pass plans at
// several budgets: the driver runs the pipeline to AD on a copy of the
// module under a budget and reads the pass's JSON report.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DRIVER_STOREALLPEAK_H
#define TAD_DRIVER_STOREALLPEAK_H

#include "tad/Pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace tad::driver {

/// What the remat pass plans for `entry` under one budget.
struct PlanAtBudget {
  bool fits = false;
  int64_t budget = 0;
  int64_t storeAllPeak = 0;
  int64_t predictedPeak = 0;   // when it fits
  double overhead = 0;         // the recompute overhead, when it fits
  int64_t feasibleMinimum = 0; // when it does not
};

/// Runs `options` (the compile's, whose AD settings it keeps) to AD on a
/// copy of `module` under `budget`, and reads what the remat pass planned
/// for `entry`. A budget that no schedule meets is a PlanAtBudget that does
/// not fit (the pass's messages are held back); any other failure is an
/// error, after the messages.
llvm::Expected<PlanAtBudget> planAtBudget(mlir::ModuleOp module,
                                          PipelineOptions &options,
                                          llvm::StringRef entry,
                                          int64_t budget);

/// The store-all peak in bytes of `entry` (a derivative in `module`), as
/// the remat pass plans its buffers with every loop's full tape: `options`
/// (the compile's, whose AD settings it keeps) run to AD on a copy of
/// `module`, which stays as it is.
llvm::Expected<int64_t> getStoreAllPeak(mlir::ModuleOp module,
                                        PipelineOptions &options,
                                        llvm::StringRef entry);

/// `tadc mem`: the store-all peak of `entry`, its feasible minimum, and
/// what the remat pass plans at `points` budgets evenly between them, as
/// a table on `os` and, when `jsonPath` is not empty, as JSON there.
llvm::Error describeMemory(mlir::ModuleOp module, PipelineOptions &options,
                           llvm::StringRef entry, unsigned points,
                           llvm::raw_ostream &os, llvm::StringRef jsonPath);

/// Parses `text` as a percentage (`60%`, `12.5 %`): true with `percent`
/// set when it ends in `%`; `error` says why a percentage is malformed
/// (not a number, not above 0).
bool parseBudgetPercent(llvm::StringRef text, double &percent,
                        std::string &error);

/// The budget in bytes that `--remat-budget=<given>` (`percent` of a
/// store-all peak) names for `entry`, or, when `entry` is empty, for the
/// program's one derivative: the peak times `percent` / 100, rounded down.
/// `of` is set to the derivative. The error says why there is none (no
/// derivative or several without an entry, a peak that cannot be planned).
llvm::Expected<int64_t>
resolveBudgetPercent(mlir::ModuleOp module, PipelineOptions &options,
                     llvm::StringRef entry, llvm::StringRef given,
                     double percent, int64_t &peak, std::string &of);

} // namespace tad::driver

#endif // TAD_DRIVER_STOREALLPEAK_H
