//===- Optimize.h - LLVM's -O3 pipeline, sized for tad's modules -*- C++
//-*-===//

#ifndef TAD_DRIVER_OPTIMIZE_H
#define TAD_DRIVER_OPTIMIZE_H

#include "llvm/Support/Error.h"

namespace llvm {
class Function;
class Module;
class TargetMachine;
} // namespace llvm

namespace tad::driver {

/// Instructions from which a function is long: the program's function once
/// its loop nests are outlined. It skips dead store elimination (and its
/// module interprocedural constant propagation), and as a C interface its
/// code is generated as at -O0 (QuickCodegen.h).
constexpr unsigned kLongFunctionInstructions = 2000;

/// Parameters from which a function's read-only pointers are marked at
/// once (markReadOnlyParameters); fewer cost FunctionAttrs little.
constexpr unsigned kWideParameters = 64;

/// If `f` has kWideParameters or more, marks each pointer parameter that is
/// only the address of non-volatile loads readonly and captures(none), as
/// LLVM's FunctionAttrs would, in one new attribute list: FunctionAttrs adds
/// each attribute in turn, copying the list, in time quadratic in the
/// parameters. optimizeModule does this to every function.
void markReadOnlyParameters(llvm::Function &f);

/// Runs LLVM's default -O3 pipeline on `module` for `machine`, as
/// mlir::makeOptimizingTransformer(3, 0, machine) does, less three passes
/// whose time grows faster than the programs tad generates
/// (lib/Driver/Optimize.cpp).
llvm::Error optimizeModule(llvm::Module &module, llvm::TargetMachine *machine);

} // namespace tad::driver

#endif // TAD_DRIVER_OPTIMIZE_H
