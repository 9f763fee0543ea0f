//===- StoreAllPeak.h - a budget relative to the store-all peak -*- C++ -*-===//
//
// `--remat-budget=60%` is a share of the entry's store-all peak, which only
// the remat pass knows: the driver runs the pipeline to AD on a copy of the
// module, under a budget that store-all meets, and reads the peak that the
// pass planned.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DRIVER_STOREALLPEAK_H
#define TAD_DRIVER_STOREALLPEAK_H

#include "tad/Pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace tad::driver {

/// The store-all peak in bytes of `entry` (a derivative in `module`), as
/// the remat pass plans its buffers with every loop's full tape: `options`
/// (the compile's, whose AD settings it keeps) run to AD on a copy of
/// `module`, which stays as it is.
llvm::Expected<int64_t> getStoreAllPeak(mlir::ModuleOp module,
                                        PipelineOptions &options,
                                        llvm::StringRef entry);

/// Parses `text` as a percentage (`60%`, `12.5 %`): true with `percent`
/// set when it ends in `%`; `error` says why a percentage is malformed
/// (not a number, not above 0).
bool parseBudgetPercent(llvm::StringRef text, double &percent,
                        std::string &error);

} // namespace tad::driver

#endif // TAD_DRIVER_STOREALLPEAK_H
