//===- TadOps.h - tad dialect operations ------------------------*- C++ -*-===//
//
// The ops of the tad dialect (generated from TadOps.td) and the small shape
// helpers that their verifiers, builders and users share.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DIALECTS_TAD_TADOPS_H
#define TAD_DIALECTS_TAD_TADOPS_H

#include "dialects/tad/TadDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/tad/TadEnums.h.inc"
#include "dialects/tad/TadInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tad/TadAttrs.h.inc"

namespace tad {

/// The static byte size of a ranked tensor type (an i1 element takes a
/// byte); 0 for other types and dynamic shapes.
int64_t getByteSize(mlir::Type type);

/// Whether the buffer of `value` is one contiguous run of elements after
/// bufferization: a buffer of its own, or a view (a slice, a row, a
/// reshape) that reads one run of a contiguous buffer. MPI reads such a
/// buffer in place; another view is copied first.
bool hasContiguousBuffer(mlir::Value value);

/// An i1 tensor with the shape of `type` (the result type of tad.compare and
/// the condition type of tad.select).
mlir::Type getBoolTensorLike(mlir::Type type);

/// The result type of reducing `type` over `axes`, keeping the reduced
/// dimensions with size 1 when `keepdims` holds. The axes must be valid.
mlir::RankedTensorType getReducedType(mlir::RankedTensorType type,
                                      llvm::ArrayRef<int64_t> axes,
                                      bool keepdims);

/// The function type of the derivative of `kind` of a primal of type `primal`
/// with respect to the parameters at positions `wrt` (see DerivativeAttr), or
/// failure after reporting why through `emitError`.
mlir::FailureOr<mlir::FunctionType>
getDerivativeType(mlir::FunctionType primal, DerivativeKind kind,
                  llvm::ArrayRef<int64_t> wrt,
                  llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The name of result `i` of `function` (a function op): its
/// tad.result_name, which the frontend gives the leaves of record results
/// (`result0.l1.w`), or `result<i>`.
std::string getResultName(mlir::Operation *function, unsigned i);

/// The name of parameter `i` of `function` (tad.arg_name), or `arg<i>`.
std::string getArgName(mlir::Operation *function, unsigned i);

/// Checks that `forward` and `pullback` form a custom rule for `primal` (see
/// CustomRuleAttr), reporting the first mismatch through `emitError`.
mlir::LogicalResult
verifyCustomRuleTypes(mlir::FunctionType primal, mlir::FunctionType forward,
                      mlir::FunctionType pullback,
                      llvm::ArrayRef<int64_t> savedParams,
                      llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

} // namespace tad

#define GET_OP_CLASSES
#include "dialects/tad/TadOps.h.inc"

#endif // TAD_DIALECTS_TAD_TADOPS_H
