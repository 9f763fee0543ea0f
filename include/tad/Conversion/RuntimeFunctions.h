//===- RuntimeFunctions.h - the runtime functions lowerings call -*- C++
//-*-===//
//
// Lowerings that call tad's runtime (a GEMM, whether cuBLAS loaded, a
// count of launches) declare the function they call once per module.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_CONVERSION_RUNTIMEFUNCTIONS_H
#define TAD_CONVERSION_RUNTIMEFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tad {

/// The private declaration of `name` in `module`: the one there, or a new
/// one of `type` at the module's end.
mlir::func::FuncOp getOrDeclareRuntimeFunction(mlir::ModuleOp module,
                                               llvm::StringRef name,
                                               mlir::FunctionType type);

/// Whether `callee` is one of the runtime's cuBLAS GEMMs
/// (tad-convert-matmul-to-runtime with the `tad_rt_cuda_` prefix): work on
/// the device's default stream, ordered after the kernels before it. Where
/// a GEMM's layout falls back to a loop on the host, the runtime waits for
/// the device first, and copies operands in device-only memory to the host
/// and back (runtime/lib/CudaBlas.cpp).
bool isCudaGemmCall(llvm::StringRef callee);

/// The runtime function that marks the next allocation as scratch (a long
/// reduction's partial results: tad-split-long-reductions), which the
/// allocator counts apart from the plan's buffers and records no event of.
constexpr llvm::StringLiteral kMarkScratchFunction = "tad_rt_mark_scratch";

/// Whether `op` is such a scratch allocation: an allocation right after a
/// call of kMarkScratchFunction.
bool isScratchAllocation(mlir::Operation *op);

} // namespace tad

#endif // TAD_CONVERSION_RUNTIMEFUNCTIONS_H
