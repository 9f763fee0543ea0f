//===- IndexArithmetic.h - evaluating index computations --------*- C++ -*-===//
//
// The buffer plan's simulation (BufferPeak.cpp) and the remat cost model
// (RematGraph.cpp) both follow branches whose conditions the generated code
// computes from induction variables with index arithmetic (the forward loop
// of binomial checkpointing stores its snapshots so). This evaluates the
// arithmetic; each caller evaluates the leaves (its induction variables and
// constant tables).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TRANSFORMS_INDEXARITHMETIC_H
#define TAD_TRANSFORMS_INDEXARITHMETIC_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace tad {

/// The value of `op`'s integer result when `op` is an index cast, an
/// extension, an addition, subtraction, multiplication or comparison of
/// integers whose operands `operand` evaluates; nullopt otherwise.
std::optional<int64_t> evaluateIndexArithmetic(
    mlir::Operation *op,
    llvm::function_ref<std::optional<int64_t>(mlir::Value)> operand);

} // namespace tad

#endif // TAD_TRANSFORMS_INDEXARITHMETIC_H
