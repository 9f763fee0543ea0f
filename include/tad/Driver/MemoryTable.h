//===- MemoryTable.h - tadc mem: the plans between two budgets --*- C++ -*-===//
//
// `tadc mem` tabulates what tad-remat plans for a derivative at budgets
// from its store-all peak down to its feasible minimum, each asked of the
// pipeline library's planning entry point (tad::planAtBudget, Plan.h).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DRIVER_MEMORYTABLE_H
#define TAD_DRIVER_MEMORYTABLE_H

#include "tad/Pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace tad::driver {

/// The store-all peak of `entry`, its feasible minimum, and what tad-remat
/// plans at `points` budgets evenly between them, as a table on `os` and,
/// when `jsonPath` is not empty, as JSON there. `options` are the
/// compile's, whose AD settings the plans keep.
llvm::Error describeMemory(mlir::ModuleOp module,
                           const PipelineOptions &options,
                           llvm::StringRef entry, unsigned points,
                           llvm::raw_ostream &os, llvm::StringRef jsonPath);

} // namespace tad::driver

#endif // TAD_DRIVER_MEMORYTABLE_H
