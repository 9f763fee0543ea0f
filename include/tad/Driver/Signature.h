//===- Signature.h - the tensor signature of an entry point -----*- C++ -*-===//
//
// The parameter and result tensor types of a function, read before lowering
// so that the runner and the generated C code know what the lowered
// function's memref descriptors hold.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DRIVER_SIGNATURE_H
#define TAD_DRIVER_SIGNATURE_H

#include "tad/runtime/Runner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Error.h"

namespace tad::driver {

/// Whether `fn` of a tad-level module can be run or exported: a public
/// function with a body, or a derivative (whose body AD writes).
bool isEntryPoint(mlir::func::FuncOp fn);

/// Reads the signature of `function` in the module of `symbols` (a
/// tad-level module, before or after AD; its symbol table, built once for
/// all its entries). Parameter names are the tad.arg_name that the
/// frontend declares on function arguments (a derivative's its primal's),
/// and `arg<i>` otherwise.
llvm::Expected<rt::EntrySpec> getSignature(const mlir::SymbolTable &symbols,
                                           llvm::StringRef function);

/// Copies into each of `entries` the peak that the buffer plan
/// (tad-buffer-peak) left on its function in the lowered `module`, found
/// by its name or its internal name, and whether that peak is a bound.
void readPlannedPeaks(mlir::ModuleOp module,
                      std::vector<rt::EntrySpec> &entries);

} // namespace tad::driver

#endif // TAD_DRIVER_SIGNATURE_H
