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

llvm::StringRef tad::getCpuLoweringPipeline() {
  return "convert-tad-to-linalg,"
         "canonicalize,cse,"
         "linalg-fuse-elementwise-ops,"
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map},"
         "canonicalize,"
         "ownership-based-buffer-deallocation,"
         "canonicalize,"
         "buffer-deallocation-simplification,"
         "bufferization-lower-deallocations,"
         "cse,canonicalize,"
         "tad-matmul-to-runtime,"
         "convert-linalg-to-loops,"
         "lower-affine,"
         "expand-strided-metadata,"
         "convert-scf-to-cf,"
         "arith-expand,"
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
