//===- Plan.h - what the compile plans under a budget -----------*- C++ -*-===//
//
// One entry point for every question about a budget that needs the program
// differentiated first: what tad-remat plans at a budget (`tadc mem`'s
// table), and the bytes that a share of the store-all peak names
// (`--remat-budget=60%`). Both run the pipeline's own passes up to tad-remat
// on a copy of the module and call the remat scheduler directly, so the
// answer is a typed RematResult: no second pipeline, no report file read
// back.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_PIPELINE_PLAN_H
#define TAD_PIPELINE_PLAN_H

#include "tad/Pipeline/Pipeline.h"
#include "tad/Transforms/Remat.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tad {

/// What tad-remat plans for a copy of `module` differentiated as `options`
/// say (its AD settings, entry and policy; the loop choice for `budget`
/// included) within `budget` (bytes or store-all), as a compile at that
/// budget plans it; `module` stays as it is, and no report or graph file is
/// written. Below the feasible minimum the plan is an answer: `scheduled`
/// is false and the report names the minimum (the passes' messages about it
/// are dropped). Any other failure is an error, after the messages.
llvm::Expected<RematResult> planAtBudget(mlir::ModuleOp module,
                                         const PipelineOptions &options,
                                         const Budget &budget);

/// The plan of one function in `result`, or null.
const RematFunctionReport *findPlan(const RematResult &result,
                                    llvm::StringRef function);

/// A budget as the passes take it (bytes or store-all), and, for a share,
/// what it was a share of.
struct ResolvedBudget {
  Budget budget;
  std::string function;     // the derivative whose store-all peak it shares
  int64_t storeAllPeak = 0; // that peak, in bytes
};

/// `options.rematBudget` as the passes take it: a share of the store-all
/// peak of `options.entry`, or of the program's one derivative, is that
/// peak (planAtBudget at store-all) times the share / 100, rounded down;
/// other budgets are as given. The error says why a share names no bytes
/// (no derivative, or several and no entry); its messages name the options
/// as "option 'NAME'".
llvm::Expected<ResolvedBudget> resolveBudget(mlir::ModuleOp module,
                                             const PipelineOptions &options);

} // namespace tad

#endif // TAD_PIPELINE_PLAN_H
