//===- RematExplain.h - the remat report's reasons --------------*- C++ -*-===//
//
// What the remat report says of a scheduled function (each value kept or
// recomputed, and why; the loops computed again) and, when no schedule
// fits, which values hold the minimum up.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_TRANSFORMS_REMAT_REMATEXPLAIN_H
#define TAD_LIB_TRANSFORMS_REMAT_REMATEXPLAIN_H

#include "RematGraph.h"
#include "tad/Remat/Graph.h"
#include "tad/Transforms/Options.h"
#include "tad/Transforms/Remat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace tad {

/// Whether `op` belongs to a forward sweep (AD marks it tad.forward).
bool isForward(mlir::Operation *op);

/// `op`'s source location as the report gives it.
std::string locationOf(mlir::Operation *op);

/// The report of one scheduled function, but its timeline.
/// `schedule` is the solver's, over `problem`'s graph; `after` is the
/// graph of the rewritten function, whose ops run in block order. The
/// peaks are the buffer plan's (planPeak).
RematFunctionReport describe(mlir::func::FuncOp func, const RematProblem &problem,
                             const std::vector<remat::Event> &schedule,
                             const RematProblem &after,
                             const std::string &solver, int64_t budget,
                             RematPolicy policy, int64_t plannedPeak,
                             int64_t plannedStoreAll);

/// Why no schedule fits: the minimum budget, and the values resident at the
/// peak of a schedule that meets it.
void explainInfeasible(mlir::func::FuncOp func, const RematProblem &problem,
                       int64_t budget, int64_t minimum,
                       bool loopSnapshotsChosen);

} // namespace tad

#endif // TAD_LIB_TRANSFORMS_REMAT_REMATEXPLAIN_H
