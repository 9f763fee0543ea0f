//===- Signature.h - the tensor signature of an entry point -----*- C++ -*-===//
//
// The parameter and result tensor types of a function, recorded before
// lowering so that the JIT runner and the generated C header know what the
// lowered function's memref descriptors hold.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DRIVER_SIGNATURE_H
#define TAD_DRIVER_SIGNATURE_H

#include "tad/runtime/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tad::driver {

struct TensorSpec {
  std::string name; // the parameter name, or "result<i>"
  rt::DType dtype;
  std::vector<int64_t> shape;

  int64_t getNumElements() const;
  int64_t getByteSize() const;
};

struct Signature {
  std::string function;
  std::vector<TensorSpec> params, results;
};

/// Reads the signature of `function` in `module` (a tad-level module).
/// Parameter names come from the .tad source when the function has
/// `tad.param_names`, and are `arg<i>` otherwise.
llvm::Expected<Signature> getSignature(mlir::ModuleOp module,
                                       llvm::StringRef function);

} // namespace tad::driver

#endif // TAD_DRIVER_SIGNATURE_H
