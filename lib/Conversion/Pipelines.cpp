//===- Pipelines.cpp - the CPU lowering pipeline --------------------------===//
//
// From the tad dialect (after AD and remat) to the LLVM dialect. Every
// buffer is allocated through `_mlir_memref_to_llvm_alloc`, which tad's
// runtime defines and counts: that is how the memory budget is measured.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

std::string tad::getCpuLoweringPipeline(bool blasMatmul) {
  // No CSE between conversion and bufferization: it would merge the
  // zero-filled outputs of matmuls and force copies of the shared zeros.
  return "convert-tad-to-linalg,"
         "canonicalize,"
         "tad-fuse-elementwise,"
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map "
         "allow-return-allocs-from-loops buffer-alignment=0},"
         "canonicalize,"
         "ownership-based-buffer-deallocation,"
         "canonicalize,"
         "buffer-deallocation-simplification,"
         "bufferization-lower-deallocations,"
         "convert-bufferization-to-memref,"
         "canonicalize,"
         "func.func(tad-hoist-deallocs),"
         "cse,canonicalize,"
         + std::string(blasMatmul ? "tad-matmul-to-runtime," : "") +
         "convert-linalg-to-loops,"
         "expand-strided-metadata,"
         "lower-affine,"
         "convert-scf-to-cf,"
         // bf16 and f16 compute in f32 (as PyTorch does on the CPU); the
         // conversions to bf16 are expanded to integer ops, since the C
         // runtime of Debian 12 has no __truncsfbf2.
         "math-extend-to-supported-types{target-type=f32},"
         "arith-emulate-unsupported-floats{source-types=bf16,f16 target-type=f32},"
         "arith-expand{include-bf16=true},"
         "convert-math-to-llvm,"
         "convert-math-to-libm,"
         "finalize-memref-to-llvm{use-generic-functions},"
         "func.func(llvm-request-c-wrappers),"
         "convert-to-llvm,"
         "reconcile-unrealized-casts";
}

void tad::registerTadPipelines() {
  mlir::PassPipelineRegistration<>(
      "tad-lower-to-llvm",
      "Lower the tad dialect to the LLVM dialect for the CPU",
      [](mlir::OpPassManager &pm) {
        if (mlir::failed(mlir::parsePassPipeline(getCpuLoweringPipeline(), pm)))
          llvm::report_fatal_error("invalid built-in pipeline");
      });
}
