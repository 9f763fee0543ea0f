//===- Sema.h - semantic checks of .tad programs ----------------*- C++ -*-===//
//
// Resolves names, checks every type and shape rule of the language, and
// annotates the AST with what MLIRGen needs (types, resolved callees, the
// variables that flow into and out of loops, branches and checkpoints).
// After a successful check, MLIRGen cannot fail on the program.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_FRONTEND_SEMA_H
#define TAD_FRONTEND_SEMA_H

#include "tad/Frontend/AST.h"
#include "tad/Frontend/Diagnostics.h"

namespace tad::lang {

/// Checks `module`, reporting the first error through `diag`. Returns true
/// when the module is valid.
bool checkModule(Module &module, DiagnosticEngine &diag);

/// Returns the builtin called `name`, or Builtin::none.
Builtin lookupBuiltin(llvm::StringRef name);

} // namespace tad::lang

#endif // TAD_FRONTEND_SEMA_H
