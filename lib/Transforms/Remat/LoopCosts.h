//===- LoopCosts.h - what the reverse sweep computes again ------*- C++ -*-===//
//
// The estimated cost (MemoryModelOpInterface's units) of what a derivative
// computes a second time because AD put it there: a forward loop's body
// that the reverse sweep runs again, and the checkpoint regions and
// branches that the backward sweep computes again (tad.recomputed).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_TRANSFORMS_REMAT_LOOPCOSTS_H
#define TAD_LIB_TRANSFORMS_REMAT_LOOPCOSTS_H

#include "tad/Transforms/Remat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <vector>

namespace tad {

/// The trip count of a loop with constant bounds, else 1.
int64_t constantTrips(mlir::scf::ForOp loop);

/// A forward loop of a derivative (with tad.reverse_reruns) and the cost of
/// the reverse sweep's runs of its body, every run of the loop within
/// `func` counted (a nested loop is reversed once per iteration of its
/// parent).
RematLoopRerun describeLoopRerun(mlir::scf::ForOp loop, mlir::Operation *func);

/// describeLoopRerun of each forward loop of `func`.
std::vector<RematLoopRerun> findLoopReruns(mlir::func::FuncOp func);

/// The cost of the ops with which the backward sweep computes checkpoint
/// regions and branches again (tad.recomputed), in `op` or `op` itself,
/// every run counted: a loop's body times its trips (a revolve
/// dispatcher's cases as often as tad.case_counts says), a branch at its
/// dearer side.
double recomputedCost(mlir::Operation *op);
/// The same of the ops of `block`, without its terminator.
double recomputedCost(mlir::Block &block);

} // namespace tad

#endif // TAD_LIB_TRANSFORMS_REMAT_LOOPCOSTS_H
