//===- Passes.h - tad conversion passes -------------------------*- C++ -*-===//

#ifndef TAD_CONVERSION_PASSES_H
#define TAD_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace tad {

#define GEN_PASS_DECL
#include "tad/Conversion/Passes.h.inc"

/// Adds the patterns that rewrite tad ops into linalg, tensor, arith and
/// math ops, so that pipelines can compose them with others.
void populateTadToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// tad.random and tad.fold_in (Philox 4x32-10), part of the above.
void populateRandomLoweringPatterns(mlir::RewritePatternSet &patterns);

/// Adds the patterns that rewrite tad's collectives (tad.all_reduce) into
/// the mpi dialect on buffers (lib/Conversion/Collectives/AllReduceToMpi.cpp).
void populateCollectivesToMpiPatterns(mlir::RewritePatternSet &patterns);

// The bufferization pipeline's conversion steps as calls, each the whole
// of its pass: tad::BufferizationSteps runs them without a pass manager
// (the remat scheduler's plan checks, which run inside a pass). Pattern
// sets are frozen once by their callers, as the passes freeze theirs.

/// convert-tad-to-linalg's patterns and its work on `module`.
mlir::FrozenRewritePatternSet
freezeTadToLinalgPatterns(mlir::MLIRContext *context);
mlir::LogicalResult
convertTadToLinalg(mlir::ModuleOp module,
                   const mlir::FrozenRewritePatternSet &patterns,
                   bool collectives);

/// The greedy driver's configuration for the bufferization pipeline's
/// rewrites (tad-fold-transposes-into-matmuls, tad-fuse-elementwise, and
/// its canonicalizations with the pass's other defaults): no region
/// simplification, whose region DCE walks the whole module after each
/// round. The IR has structured control flow until the lowering to LLVM,
/// so there is no unreachable block or block argument to remove, and the
/// driver erases the ops the rewrites leave dead.
inline mlir::GreedyRewriteConfig withoutRegionSimplification() {
  mlir::GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(
      mlir::GreedySimplifyRegionLevel::Disabled);
  return config;
}

/// tad-fold-transposes-into-matmuls's patterns and its work under `root`.
mlir::FrozenRewritePatternSet
freezeFoldTransposesPatterns(mlir::MLIRContext *context);
mlir::LogicalResult
foldTransposesIntoMatmuls(mlir::Operation *root,
                          const mlir::FrozenRewritePatternSet &patterns);

/// tad-fuse-elementwise's patterns and its work under `root`.
mlir::FrozenRewritePatternSet
freezeFuseElementwisePatterns(mlir::MLIRContext *context);
mlir::LogicalResult
fuseElementwise(mlir::Operation *root,
                const mlir::FrozenRewritePatternSet &patterns);

/// tad-split-reductions and tad-reuse-operand-buffers under `root`.
void splitReductions(mlir::Operation *root);
void reuseOperandBuffers(mlir::Operation *root);

/// The runtime function that initializes MPI once per process (and is
/// declared only in modules with collectives): what tells tadc to link the
/// MPI runtime.
inline constexpr const char kMpiInitFunction[] = "tad_rt_mpi_init";

#define GEN_PASS_REGISTRATION
#include "tad/Conversion/Passes.h.inc"

/// The passes after bufferization to the LLVM dialect for the CPU. With
/// `blasMatmul` false, f32/f64 matmuls are generated loops instead of
/// runtime BLAS calls (for measuring the choice, docs/performance.md).
void addCpuCodegenPasses(mlir::OpPassManager &pm, bool blasMatmul = true);

/// The passes after bufferization to the LLVM dialect for NVIDIA GPUs:
/// host code that launches kernels, with one fatbin per module holding
/// cubins for each of `archs` (sm_XY, validated by the caller) and the PTX,
/// made by the ptxas and fatbinary of the CUDA toolkit at `toolkit`
/// (docs/gpu.md). With `cublasMatmul`, f32/f64 matmuls call the runtime's
/// cuBLAS GEMM instead of running as generated kernels; with
/// `kernelFallback` too, each runs as its kernels when the program finds
/// no cuBLAS. Launches are asynchronous (tad-gpu-host-waits), or with
/// `syncLaunches` each waited for. `afterMapping` adds passes once the
/// loops are kernels (the buffer plan's peak again: the kernels keep some
/// buffers in their own memory).
void addCudaCodegenPasses(
    mlir::OpPassManager &pm, llvm::ArrayRef<std::string> archs,
    llvm::StringRef toolkit, bool cublasMatmul = false,
    bool kernelFallback = false, bool syncLaunches = false,
    llvm::function_ref<void(mlir::OpPassManager &)> afterMapping = nullptr);

/// Runs on `module` (planned buffers: after tad-buffer-peak) the passes of
/// addCudaCodegenPasses (`cublasMatmul`, `kernelFallback` as there; both
/// false for the emulator's) that map its loops onto kernels' loops, before
/// their launches: those that move allocations and frees, so that a
/// timeline of the result has the allocator's events in its order. Runs
/// on the calling thread only.
mlir::LogicalResult runGpuLoopMapping(mlir::ModuleOp module, bool cublasMatmul,
                                      bool kernelFallback);

/// The CPU passes through the kernels of addCudaCodegenPasses, each launch
/// run thread by thread on the CPU (`tadc --target=cuda-emulator`); with
/// `reverseThreads`, from the last thread to the first.
void addCudaEmulatorCodegenPasses(
    mlir::OpPassManager &pm, bool reverseThreads = false,
    llvm::function_ref<void(mlir::OpPassManager &)> afterMapping = nullptr);

} // namespace tad

#endif // TAD_CONVERSION_PASSES_H
