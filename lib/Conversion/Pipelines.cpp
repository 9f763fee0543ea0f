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

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;

/// bf16 and f16 compute in f32 (as PyTorch does on the CPU, and so that the
/// GPU rounds as the CPU does); the conversions to bf16 are expanded to
/// integer ops, since the C runtime of Debian 12 has no __truncsfbf2.
static void addFloatEmulation(OpPassManager &pm) {
  math::MathExtendToSupportedTypesOptions extend;
  extend.targetTypeStr = "f32";
  pm.addPass(math::createMathExtendToSupportedTypes(extend));
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16", "f16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(tad::createExpandBf16());
}

/// Memref views to their strided metadata, affine and scf to arith and cf,
/// and the float emulation: what the CPU's functions and the GPU's module
/// both go through before the LLVM dialect.
static void addScalarLowering(OpPassManager &pm) {
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  addFloatEmulation(pm);
}

/// Memrefs to the LLVM dialect with the runtime's allocation functions
/// (`_mlir_memref_to_llvm_alloc`, which it counts).
static std::unique_ptr<Pass> createMemRefToLLVM() {
  FinalizeMemRefToLLVMConversionPassOptions options;
  options.useGenericFunctions = true;
  return createFinalizeMemRefToLLVMConversionPass(options);
}

/// From memrefs without linalg to the LLVM dialect, on the CPU.
static void addCpuCodegenPipeline(OpPassManager &pm) {
  // C wrappers for the program's functions only, not the outlined nests.
  // The passes that rewrite one function at a time run nested, so that
  // the context's threads share the outlined functions.
  pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  pm.addPass(tad::createOutlineLoopNests());
  OpPassManager &functions = pm.nest<func::FuncOp>();
  addScalarLowering(functions);
  functions.addPass(tad::createApproximateMath());
  functions.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createMemRefToLLVM());
  pm.addNestedPass<func::FuncOp>(tad::createSeparateArguments());
  pm.addPass(tad::createConvertToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(tad::createOpenMpiHandles());
  pm.addPass(tad::createWidenBoolMemory());
  pm.addNestedPass<LLVM::LLVMFuncOp>(createCanonicalizerPass());
  pm.addPass(tad::createParallelizeCalls());
  pm.addPass(tad::createAnnotateLLVMFunctions());
  pm.addPass(tad::createReturnResultsByPointer());
}

void tad::addCpuCodegenPasses(OpPassManager &pm, bool blasMatmul) {
  if (blasMatmul)
    pm.addPass(createConvertMatmulToRuntime());
  pm.addNestedPass<func::FuncOp>(createLinalgToLoops());
  addCpuCodegenPipeline(pm);
}

/// Calls `step` with each pass that maps the planned buffers' loops onto
/// kernels' loops, in order, and whether it runs on each function: the
/// steps that move host operations (allocations, frees) and so decide the
/// allocator's timeline, which the remat report also plans
/// (runGpuLoopMapping).
static void
forEachLoopMappingStep(bool cublasMatmul, bool kernelFallback,
                       function_ref<void(std::unique_ptr<Pass>, bool)> step) {
  if (cublasMatmul) {
    tad::ConvertMatmulToRuntimeOptions matmul;
    matmul.prefix = "tad_rt_cuda_";
    matmul.kernelFallback = kernelFallback;
    step(tad::createConvertMatmulToRuntime(matmul), false);
  }
  step(tad::createParallelLoopsOutermost(), true);
  step(tad::createTileGpuMatmuls(), true);
  step(createConvertLinalgToParallelLoopsPass(), false);
  step(tad::createSplitLongReductions(), false);
  step(tad::createWarpRowReductions(), false);
  step(tad::createScatterLoopsInside(), true);
  step(tad::createFuseKernelLoops(), true);
  step(tad::createForgetHostPeaks(), true);
}

/// The loop nests that become kernels, as --target=cuda maps them.
static void addKernelMapping(OpPassManager &pm, bool cublasMatmul,
                             bool kernelFallback) {
  forEachLoopMappingStep(cublasMatmul, kernelFallback,
                         [&](std::unique_ptr<Pass> pass, bool perFunction) {
                           if (perFunction)
                             pm.addNestedPass<func::FuncOp>(std::move(pass));
                           else
                             pm.addPass(std::move(pass));
                         });
  pm.addNestedPass<func::FuncOp>(tad::createConvertLoopsToGPU());
}

LogicalResult tad::runGpuLoopMapping(ModuleOp module, bool cublasMatmul,
                                     bool kernelFallback) {
  // A pass manager of its own per step and function, without the
  // verifier: neither hands work to the context's threads, which the remat
  // pass that asks may keep busy.
  LogicalResult result = success();
  forEachLoopMappingStep(cublasMatmul, kernelFallback,
                         [&](std::unique_ptr<Pass> pass, bool perFunction) {
                           if (failed(result))
                             return;
                           if (!perFunction) {
                             PassManager pm(module.getContext());
                             pm.enableVerifier(false);
                             pm.addPass(std::move(pass));
                             result = pm.run(module);
                             return;
                           }
                           // One pass instance runs on each function in turn.
                           PassManager pm(module.getContext(),
                                          func::FuncOp::getOperationName());
                           pm.enableVerifier(false);
                           pm.addPass(std::move(pass));
                           for (auto func : module.getOps<func::FuncOp>())
                             if (!func.isDeclaration() && failed(pm.run(func)))
                               result = failure();
                         });
  return result;
}

void tad::addCudaEmulatorCodegenPasses(
    OpPassManager &pm, bool reverseThreads,
    function_ref<void(OpPassManager &)> afterMapping) {
  addKernelMapping(pm, /*cublasMatmul=*/false, /*kernelFallback=*/false);
  if (afterMapping)
    afterMapping(pm);
  EmulateGpuLaunchesOptions emulate;
  emulate.reverse = reverseThreads;
  pm.addPass(createEmulateGpuLaunches(emulate));
  addCpuCodegenPipeline(pm);
}

void tad::addCudaCodegenPasses(
    OpPassManager &pm, ArrayRef<std::string> archs, StringRef toolkit,
    bool cublasMatmul, bool kernelFallback, bool syncLaunches,
    function_ref<void(OpPassManager &)> afterMapping) {
  std::string list;
  for (const std::string &a : archs)
    list += (list.empty() ? "" : ",") + a;
  // The PTX is generated for the lowest architecture; tad-gpu-fatbin
  // assembles it for each.
  std::string lowest = archs.empty() ? "sm_80" : archs.front();
  for (const std::string &a : archs)
    if (std::stoi(a.substr(3)) < std::stoi(lowest.substr(3)))
      lowest = a;
  addKernelMapping(pm, cublasMatmul, kernelFallback);
  if (afterMapping)
    afterMapping(pm);
  // The launches' trip counts and a thread's index arithmetic read
  // constants and what the host computes from them: folded first, they are
  // constants that the sinking moves into the kernels (a division by one
  // of them is then a multiplication, not a 64-bit division).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createMergeGpuModules());
  pm.addPass(tad::createGpuDeviceBuffers());
  GpuHostWaitsOptions waits;
  waits.everyLaunch = syncLaunches;
  pm.addPass(tad::createGpuHostWaits(waits));
  addScalarLowering(pm);
  GpuNVVMAttachTargetOptions target;
  target.chip = lowest;
  target.features = "+ptx80";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(tad::createGpuNoaliasArguments());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createMemRefToLLVM());
  pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(tad::createConvertToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = toolkit.str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  GpuFatbinOptions fatbin;
  fatbin.architectures = list;
  fatbin.toolkit = toolkit.str();
  pm.addPass(createGpuFatbin(fatbin));
}
