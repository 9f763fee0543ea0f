//===- ReuseOperandBuffers.cpp - elementwise results in dying operands ----===//
//
// An elementwise op whose input dies with it can write its result into that
// input's buffer instead of a new one: element i is read before it is
// written, and nothing reads the input afterwards. This makes the input the
// op's destination, and one-shot bufferization (which knows elementwise
// access) then writes in place. Only inputs in buffers of their own qualify:
// a fresh linalg result, not an argument (the caller's), a constant (a
// read-only global) or a view (of a buffer something else may read).
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tad {
#define GEN_PASS_DEF_REUSEOPERANDBUFFERS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// Whether `value` is the result of a linalg op that writes a fresh buffer
/// (its destination is an empty tensor, or a fill of one).
bool isFreshLinalgResult(Value value) {
  auto result = dyn_cast<OpResult>(value);
  auto producer =
      result ? dyn_cast<linalg::LinalgOp>(result.getOwner()) : nullptr;
  if (!producer)
    return false;
  Value init = producer.getDpsInitOperand(result.getResultNumber())->get();
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    init = fill.getDpsInitOperand(0)->get();
  return init.getDefiningOp<tensor::EmptyOp>() != nullptr;
}

/// Makes a dying input of an elementwise generic its destination.
void reuseDyingInput(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumParallelLoops() != op.getNumLoops())
    return;
  OpOperand *init = op.getDpsInitOperand(0);
  // The destination must be a fresh tensor whose contents the op ignores.
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      op.payloadUsesValueFromOperand(init) ||
      !op.getMatchingIndexingMap(init).isIdentity())
    return;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (value.getType() != init->get().getType() ||
        !op.getMatchingIndexingMap(input).isIdentity() || !value.hasOneUse() ||
        !isFreshLinalgResult(value))
      continue;
    init->set(value);
    return;
  }
}

struct ReuseOperandBuffersPass
    : tad::impl::ReuseOperandBuffersBase<ReuseOperandBuffersPass> {
  void runOnOperation() override { tad::reuseOperandBuffers(getOperation()); }
};

} // namespace

void tad::reuseOperandBuffers(Operation *root) { root->walk(reuseDyingInput); }
