//===- Frontend.h - .tad source to the tad dialect --------------*- C++ -*-===//
//
// The frontend as one call: lex, parse, check and emit. Used by tadc and by
// the frontend fuzzer.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_FRONTEND_FRONTEND_H
#define TAD_FRONTEND_FRONTEND_H

#include "tad/Frontend/AST.h"
#include "tad/Frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace tad::lang {

/// Parses and checks buffer `bufferId` of `sourceMgr` (the last one added
/// when 0). Returns null after printing the first error to `errs`.
/// `requests` instantiate generic functions at given sizes (as entries);
/// `instanceNames` receives the name of each request's instance.
std::unique_ptr<Module>
parseAndCheck(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &errs,
              unsigned bufferId = 0,
              llvm::ArrayRef<InstanceRequest> requests = {},
              std::vector<std::string> *instanceNames = nullptr);

/// Parses, checks and emits buffer `bufferId` of `sourceMgr` (the last one
/// added when 0) as a verified module. Frontend errors go to `errs`; MLIR
/// diagnostics (a verifier failure, which would be a compiler bug) go to
/// the context's handler.
mlir::OwningOpRef<mlir::ModuleOp>
compileToTad(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context,
             llvm::raw_ostream &errs, unsigned bufferId = 0,
             llvm::ArrayRef<InstanceRequest> requests = {},
             std::vector<std::string> *instanceNames = nullptr);

/// Parses the program only (no checks): what a driver reads of the
/// signatures of generic functions before it chooses their sizes.
std::unique_ptr<Module> parseOnly(llvm::SourceMgr &sourceMgr,
                                  llvm::raw_ostream &errs,
                                  unsigned bufferId = 0);

} // namespace tad::lang

#endif // TAD_FRONTEND_FRONTEND_H
