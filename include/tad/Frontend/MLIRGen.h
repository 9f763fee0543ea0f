//===- MLIRGen.h - .tad AST to the tad dialect ------------------*- C++ -*-===//
//
// Emits a checked module (see Sema.h) as func.func ops over the tad dialect,
// with scf.for and scf.if for loops and branches. Every op carries the
// FileLineColLoc of the .tad construct it comes from.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_FRONTEND_MLIRGEN_H
#define TAD_FRONTEND_MLIRGEN_H

#include "tad/Frontend/AST.h"
#include "tad/Frontend/Diagnostics.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tad::lang {

/// Emits `module`, which Sema has checked, and verifies the result. Returns
/// null if verification fails (a compiler bug, reported through the
/// context's diagnostic handler).
mlir::OwningOpRef<mlir::ModuleOp> emitModule(mlir::MLIRContext &context,
                                             const Module &module,
                                             DiagnosticEngine &diag);

} // namespace tad::lang

#endif // TAD_FRONTEND_MLIRGEN_H
