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

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace tad::lang {

/// Checks `module`, reporting the first error through `diag`. Returns true
/// when the module is valid.
/// A generic function or derivative to instantiate at given sizes and
/// element types, as an entry of the program (tadc's --dim and
/// --instantiate): `{"B", "64"}`, `{"E", "f64"}`.
struct InstanceRequest {
  std::string function;
  std::vector<std::pair<std::string, std::string>> sizes;
};

/// Checks `module`, instantiating its generic functions at the sizes of
/// their calls and of `requests`; `instanceNames` receives the name of each
/// request's instance, in order.
bool checkModule(Module &module, DiagnosticEngine &diag,
                 llvm::ArrayRef<InstanceRequest> requests = {},
                 std::vector<std::string> *instanceNames = nullptr);

/// The name of the instance of `function` at `sizes`, one per generic
/// parameter in declaration order (an element type as its ElemKind):
/// `layer_B64_D128`, `linear_f64_B2_I3_O4`.
std::string getInstanceName(llvm::StringRef function,
                            llvm::ArrayRef<GenericParam> params,
                            llvm::ArrayRef<int64_t> sizes);

/// Whether `name` is a builtin function's.
bool isBuiltinName(llvm::StringRef name);
/// The reference of every builtin, as the Markdown of docs/builtins.md.
void printBuiltinReference(llvm::raw_ostream &os);

} // namespace tad::lang

#endif // TAD_FRONTEND_SEMA_H
