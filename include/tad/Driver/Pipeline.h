//===- Pipeline.h - what tadc runs for each stage ---------------*- C++ -*-===//

#ifndef TAD_DRIVER_PIPELINE_H
#define TAD_DRIVER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace tad::driver {

/// The stages of tadc, in pipeline order.
enum class Stage { ast, tad, ad, linalg, llvm, llvmir, obj, lib, exe, run };

/// Keeps `entry` public and removes every function it does not reach, so
/// that only the code an entry needs is lowered and compiled. Runs after AD:
/// custom rules no longer keep their forward and pullback alive.
mlir::LogicalResult restrictToEntry(mlir::ModuleOp module,
                                    llvm::StringRef entry);

/// Adds the passes that take a tad-level module to `stage` (linalg or
/// beyond). `blasMatmul` picks BLAS calls or generated loops for matmuls.
mlir::LogicalResult addLoweringPasses(mlir::OpPassManager &pm, Stage stage,
                                      bool blasMatmul = true);

} // namespace tad::driver

#endif // TAD_DRIVER_PIPELINE_H
