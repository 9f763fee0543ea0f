//===- InitAll.cpp - everything tad's tools register ----------------------===//

#include "tad/InitAll.h"

#include "dialects/tad/TadDialect.h"
#include "tad/Conversion/Passes.h"
#include "tad/Pipeline/Pipeline.h"
#include "tad/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void tad::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<tad::TadDialect>();
  // The lowering goes through linalg, tensor, bufferization, scf, vector,
  // gpu, nvvm and llvm; registering every upstream dialect (and the external
  // interface models that bufferization and the LLVM translation need) keeps
  // tad-opt a superset of mlir-opt, at no link cost with libMLIR.so.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates GPU modules to LLVM IR (NVVM), and the
  // CUDA objects translate gpu.binary and gpu.launch_func.
  mlir::registerAllToLLVMIRTranslations(registry);
}

void tad::registerAllPasses() {
  mlir::registerAllPasses();
  tad::registerTadConversionPasses();
  tad::registerTadTransformsPasses();
  tad::registerPipelines();
}
