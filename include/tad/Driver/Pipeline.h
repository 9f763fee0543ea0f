//===- Pipeline.h - what tadc runs for each stage ---------------*- C++ -*-===//

#ifndef TAD_DRIVER_PIPELINE_H
#define TAD_DRIVER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace tad::driver {

/// The stages of tadc, in pipeline order.
enum class Stage { ast, tad, ad, linalg, llvm, llvmir, obj, lib, exe, run };

/// Keeps `entry` public and removes every function it does not reach, so
/// that only the code an entry needs is lowered and compiled. Runs after AD:
/// custom rules no longer keep their forward and pullback alive.
mlir::LogicalResult restrictToEntry(mlir::ModuleOp module,
                                    llvm::StringRef entry);

/// The machine that compiled code runs on.
enum class Target {
  cpu,
  cuda,
  /// The kernels of `cuda`, run thread by thread on the CPU (tests).
  cudaEmulator
};

/// How tadc lowers past the tad dialect.
struct LoweringOptions {
  Target target = Target::cpu;
  /// CPU: BLAS calls (true) or generated loops for f32/f64 matmuls.
  bool blasMatmul = true;
  /// CUDA: the GPU architectures (sm_XY) to assemble for, and the toolkit
  /// whose ptxas and fatbinary do it.
  std::vector<std::string> cudaArchs = {"sm_80", "sm_90"};
  std::string cudaToolkit = "/usr/local/cuda";
  /// CUDA: f32/f64 matmuls through cuBLAS rather than generated kernels.
  bool cublasMatmul = false;
  /// The memory budget in bytes that every derivative's planned buffers
  /// must meet (tadc --remat-budget); negative for none.
  int64_t budget = -1;
};

/// Checks `options.cudaArchs`; on failure returns false with `error` set.
bool validateCudaArchs(const LoweringOptions &options, std::string &error);

/// Adds the passes that take a tad-level module to `stage` (linalg or
/// beyond) for the target of `options`.
mlir::LogicalResult addLoweringPasses(mlir::OpPassManager &pm, Stage stage,
                                      const LoweringOptions &options);

} // namespace tad::driver

#endif // TAD_DRIVER_PIPELINE_H
