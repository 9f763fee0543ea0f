//===- ShareNestShapes.h - one outlined nest for many shapes ----*- C++ -*-===//
//
// tad-outline-loop-nests' second step (ShareNestShapes.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_CONVERSION_LOOPS_SHARENESTSHAPES_H
#define TAD_CONVERSION_LOOPS_SHARENESTSHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tad {

/// Lets the outlined loop nests `nests` (each one a distinct function) that
/// differ only in their shapes share one function, where at least
/// `minVariants` do: the index constants in which they differ (trip counts,
/// bounds) become arguments, and so do the sizes, strides and offsets of
/// the memref arguments in which they differ (dynamic in the shared
/// function's types, cast at each call). The others are left as they are.
void shareNestShapes(mlir::ModuleOp module,
                     llvm::ArrayRef<mlir::func::FuncOp> nests,
                     unsigned minVariants);

} // namespace tad

#endif // TAD_CONVERSION_LOOPS_SHARENESTSHAPES_H
