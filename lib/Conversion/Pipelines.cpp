//===- Pipelines.cpp - the CPU and CUDA lowering pipelines ----------------===//
//
// From the tad dialect (after AD and remat) to the LLVM dialect. Every
// buffer is allocated through `_mlir_memref_to_llvm_alloc`, which tad's
// runtime defines and counts: that is how the memory budget is measured.
// For CUDA the runtime allocates that memory on the GPU (docs/gpu.md), so
// the same count is the device peak.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdlib>

/// Adds a built-in pipeline, given as text, to `pm`.
static void addPasses(mlir::OpPassManager &pm, llvm::StringRef pipeline) {
  if (mlir::failed(mlir::parsePassPipeline(pipeline.rtrim(','), pm)))
    llvm::report_fatal_error("invalid built-in pipeline: " + pipeline);
}

/// tad-forward-copies writes values straight into the tape rows that
/// store them where one-shot bufferization made a copy, and
/// tad-plan-buffers places every free (docs/memory.md).
void tad::addBufferizationPasses(mlir::OpPassManager &pm, bool collectives) {
  // No CSE between conversion and bufferization: it would merge the
  // zero-filled outputs of matmuls and force copies of the shared zeros.
  addPasses(pm, std::string(collectives
                                ? "convert-tad-to-linalg,"
                                : "convert-tad-to-linalg{collectives=false},") +
                    "canonicalize,"
                    "tad-fold-transposes-into-matmuls,"
                    "tad-fuse-elementwise,"
                    "tad-split-reductions,"
                    "tad-reuse-operand-buffers,"
                    "eliminate-empty-tensors,"
                    "one-shot-bufferize{bufferize-function-boundaries "
                    "function-boundary-type-conversion=identity-layout-map "
                    "allow-return-allocs-from-loops buffer-alignment=0},"
                    "canonicalize,"
                    "func.func(tad-forward-copies,tad-plan-buffers),"
                    "convert-bufferization-to-memref,"
                    "cse,canonicalize");
}

/// bf16 and f16 compute in f32 (as PyTorch does on the CPU, and so that the
/// GPU rounds as the CPU does); the conversions to bf16 are expanded to
/// integer ops, since the C runtime of Debian 12 has no __truncsfbf2.
static std::string getFloatEmulation() {
  return "math-extend-to-supported-types{target-type=f32},"
         "arith-emulate-unsupported-floats{source-types=bf16,f16 "
         "target-type=f32},"
         "tad-expand-bf16,";
}

/// From memrefs without linalg to the LLVM dialect, on the CPU.
static std::string getCpuCodegenPipeline() {
  // C wrappers for the program's functions only, not the outlined nests.
  // The passes that rewrite one function at a time run nested, so that
  // the context's threads share the outlined functions.
  return "func.func(llvm-request-c-wrappers),"
         "tad-outline-loop-nests,"
         "func.func(expand-strided-metadata,"
         "lower-affine,"
         "convert-scf-to-cf," +
         getFloatEmulation() +
         "tad-approximate-math,"
         "convert-math-to-llvm),"
         "convert-math-to-libm,"
         "finalize-memref-to-llvm{use-generic-functions},"
         "func.func(tad-separate-arguments),"
         "convert-to-llvm,"
         "reconcile-unrealized-casts,"
         "tad-openmpi-handles,"
         "tad-widen-bool-memory,"
         "llvm.func(canonicalize),"
         "tad-parallelize-calls,"
         "tad-annotate-llvm-functions,"
         "tad-return-results-by-pointer";
}

void tad::addCpuCodegenPasses(mlir::OpPassManager &pm, bool blasMatmul) {
  addPasses(pm, std::string(blasMatmul ? "tad-matmul-to-runtime," : "") +
                    "func.func(tad-linalg-to-loops)," +
                    getCpuCodegenPipeline());
}

/// The loop nests that become kernels, as --target=cuda maps them.
static std::string getKernelMapping() {
  return "func.func(tad-parallel-loops-outermost),"
         "convert-linalg-to-parallel-loops,"
         "func.func(tad-loops-to-gpu),";
}

void tad::addCudaEmulatorCodegenPasses(mlir::OpPassManager &pm) {
  addPasses(pm, getKernelMapping() + "tad-emulate-gpu-launches," +
                    getCpuCodegenPipeline());
}

void tad::addCudaCodegenPasses(mlir::OpPassManager &pm,
                               llvm::ArrayRef<std::string> archs,
                               llvm::StringRef toolkit, bool cublasMatmul,
                               bool kernelFallback) {
  std::string list;
  for (const std::string &a : archs)
    list += (list.empty() ? "" : ",") + a;
  // The PTX is generated for the lowest architecture; tad-gpu-fatbin
  // assembles it for each.
  std::string lowest = archs.empty() ? "sm_80" : archs.front();
  for (const std::string &a : archs)
    if (std::stoi(a.substr(3)) < std::stoi(lowest.substr(3)))
      lowest = a;
  addPasses(pm,
            std::string(!cublasMatmul ? ""
                        : kernelFallback
                            ? "tad-matmul-to-runtime{prefix=tad_rt_cuda_ "
                              "kernel-fallback=1},"
                            : "tad-matmul-to-runtime{prefix=tad_rt_cuda_},") +
                getKernelMapping() +
                "gpu-kernel-outlining,"
                "tad-merge-gpu-modules,"
                "expand-strided-metadata,"
                "lower-affine,"
                "convert-scf-to-cf," +
                getFloatEmulation() + "nvvm-attach-target{chip=" + lowest +
                " features=+ptx80 O=3},"
                "gpu.module(convert-gpu-to-nvvm,canonicalize,cse,"
                "reconcile-unrealized-casts),"
                "convert-math-to-llvm,"
                "convert-math-to-libm,"
                "finalize-memref-to-llvm{use-generic-functions},"
                "func.func(llvm-request-c-wrappers),"
                "gpu-to-llvm,"
                "convert-to-llvm,"
                "reconcile-unrealized-casts,"
                "gpu-module-to-binary{format=isa toolkit=" +
                toolkit.str() +
                "},"
                "tad-gpu-fatbin{archs=" +
                list + " toolkit=" + toolkit.str() + "}");
}
