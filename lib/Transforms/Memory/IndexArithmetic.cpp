//===- IndexArithmetic.cpp - evaluating index computations ----------------===//

#include "tad/Transforms/IndexArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

std::optional<int64_t> tad::evaluateIndexArithmetic(
    Operation *op, llvm::function_ref<std::optional<int64_t>(Value)> operand) {
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp>(op))
    return operand(op->getOperand(0));
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::CmpIOp>(op))
    return std::nullopt;
  std::optional<int64_t> a = operand(op->getOperand(0)),
                         b = operand(op->getOperand(1));
  if (!a || !b)
    return std::nullopt;
  if (isa<arith::AddIOp>(op))
    return *a + *b;
  if (isa<arith::SubIOp>(op))
    return *a - *b;
  if (isa<arith::MulIOp>(op))
    return *a * *b;
  switch (cast<arith::CmpIOp>(op).getPredicate()) {
  case arith::CmpIPredicate::eq:
    return *a == *b;
  case arith::CmpIPredicate::ne:
    return *a != *b;
  case arith::CmpIPredicate::slt:
    return *a < *b;
  case arith::CmpIPredicate::sle:
    return *a <= *b;
  case arith::CmpIPredicate::sgt:
    return *a > *b;
  case arith::CmpIPredicate::sge:
    return *a >= *b;
  default:
    return std::nullopt;
  }
}
