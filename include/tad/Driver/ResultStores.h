//===- ResultStores.h - results stored where they are made ------*- C++ -*-===//

#ifndef TAD_DRIVER_RESULTSTORES_H
#define TAD_DRIVER_RESULTSTORES_H

namespace llvm {
class Module;
} // namespace llvm

namespace tad::driver {

/// Moves each store of a result descriptor in a C interface
/// (`_mlir_ciface_f`, whose result pointer is `noalias`) up its block, to
/// just after the value it stores: the code generator's time on a
/// function that returns hundreds of tensors stays linear
/// (lib/Driver/ResultStores.cpp).
void storeResultsEarly(llvm::Module &module);

} // namespace tad::driver

#endif // TAD_DRIVER_RESULTSTORES_H
