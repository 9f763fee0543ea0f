//===- OpCosts.h - what an op costs the remat model -------------*- C++ -*-===//
//
// Three questions about one op that the remat graph (RematGraph.h) asks to
// build its nodes, and that AD asks too when it chooses which residuals a
// loop's tape keeps (ResidualTapes.cpp): whether its result views an
// operand's buffer, whether it only makes a buffer, and how long it runs.
// They are answered from the op's MemoryModelOpInterface and the scf and
// tensor ops' structure, as the remat graph models them; they are defined
// with it (lib/Transforms/Remat/RematGraph.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TRANSFORMS_OPCOSTS_H
#define TAD_TRANSFORMS_OPCOSTS_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace tad {

/// The operand whose buffer `op`'s result views (a reshape, a slice, a row
/// of a stacked tensor, a tensor.extract_slice), or none.
std::optional<unsigned> getViewedOperand(mlir::Operation *op);

/// Whether `op` is a constant, or makes a buffer and computes nothing (no
/// operands; its only effect is allocating its result: tad.empty, the start
/// of a tape). The graph models both alike: not nodes, and the buffer that a
/// loop updates in place from one is a node just before the loop (a
/// constant's copy; a tape's start, which the lowering puts there).
bool isConstantOrTapeStart(mlir::Operation *op);

/// An estimate of the time of running `op` once, in the cost units of
/// MemoryModelOpInterface::getComputeCost (regions count their ops, loops
/// times their trip count).
double estimateCost(mlir::Operation *op);

} // namespace tad

#endif // TAD_TRANSFORMS_OPCOSTS_H
