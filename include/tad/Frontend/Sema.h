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
/// A generic function or derivative to instantiate at given sizes, as an
/// entry of the program (tadc's --dim and --instantiate).
struct InstanceRequest {
  std::string function;
  std::vector<std::pair<std::string, int64_t>> sizes;
};

/// Checks `module`, instantiating its generic functions at the sizes of
/// their calls and of `requests`; `instanceNames` receives the name of each
/// request's instance, in order.
bool checkModule(Module &module, DiagnosticEngine &diag,
                 llvm::ArrayRef<InstanceRequest> requests = {},
                 std::vector<std::string> *instanceNames = nullptr);

/// The name of the instance of `function` at `sizes`, one per dimension
/// parameter in declaration order: `layer_B64_D128`.
std::string getInstanceName(llvm::StringRef function,
                            llvm::ArrayRef<std::string> dims,
                            llvm::ArrayRef<int64_t> sizes);

/// Returns the builtin called `name`, or Builtin::none.
Builtin lookupBuiltin(llvm::StringRef name);

} // namespace tad::lang

#endif // TAD_FRONTEND_SEMA_H
