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

/// What the frontend is given besides the program.
struct FrontendOptions {
  /// Instances of generic functions to make as entries.
  std::vector<InstanceRequest> requests;
  /// Where `import "f.tad"` looks after the importing file's folder.
  std::vector<std::string> importPath;
};

/// Parses and checks buffer `bufferId` of `sourceMgr` (the last one added
/// when 0), with the files it imports. Returns null after printing the
/// first error to `errs`. `instanceNames` receives the name of the
/// instance of each of `options.requests`.
std::unique_ptr<Module>
parseAndCheck(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &errs,
              unsigned bufferId = 0, const FrontendOptions &options = {},
              std::vector<std::string> *instanceNames = nullptr);

/// Parses, checks and emits buffer `bufferId` of `sourceMgr` (the last one
/// added when 0) as a verified module. Frontend errors go to `errs`; MLIR
/// diagnostics (a verifier failure, which would be a compiler bug) go to
/// the context's handler.
mlir::OwningOpRef<mlir::ModuleOp>
compileToTad(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context,
             llvm::raw_ostream &errs, unsigned bufferId = 0,
             const FrontendOptions &options = {},
             std::vector<std::string> *instanceNames = nullptr);

/// Parses the program and its imports only (no checks): what a driver
/// reads of the signatures of generic functions before it chooses their
/// sizes.
std::unique_ptr<Module> parseOnly(llvm::SourceMgr &sourceMgr,
                                  llvm::raw_ostream &errs,
                                  unsigned bufferId = 0,
                                  const FrontendOptions &options = {});

/// Adds the declarations of the files `module` (buffer `bufferId`)
/// imports, and of theirs, to it (Imports.cpp).
bool resolveImports(Module &module, llvm::SourceMgr &sourceMgr,
                    unsigned bufferId, DiagnosticEngine &diag,
                    llvm::ArrayRef<std::string> searchPath);

} // namespace tad::lang

#endif // TAD_FRONTEND_FRONTEND_H
