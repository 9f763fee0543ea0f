//===- Pipeline.cpp - what tadc runs for each stage -----------------------===//

#include "tad/Driver/Pipeline.h"

#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace tad::driver;

mlir::LogicalResult tad::driver::restrictToEntry(mlir::ModuleOp module,
                                                 llvm::StringRef entry) {
  auto fn = module.lookupSymbol<mlir::func::FuncOp>(entry);
  if (!fn || fn.isDeclaration()) {
    std::string names;
    for (auto f : module.getOps<mlir::func::FuncOp>())
      if (f.isPublic() && !f.isDeclaration())
        names += (names.empty() ? "" : ", ") + f.getName().str();
    return module.emitError() << "no function '" << entry
                              << "' to run; the functions are: " << names;
  }
  // Custom rules only matter to AD, which runs before this: their forward
  // and pullback are dropped unless something calls them.
  for (auto f : module.getOps<mlir::func::FuncOp>()) {
    f->removeAttr(tad::TadDialect::kCustomRuleAttrName);
    if (f != fn && !f.isDeclaration())
      f.setPrivate();
  }
  mlir::PassManager pm(module.getContext());
  pm.addPass(mlir::createSymbolDCEPass());
  return pm.run(module);
}

bool tad::driver::validateCudaArchs(const LoweringOptions &options,
                                   std::string &error) {
  if (options.cudaArchs.empty()) {
    error = "--cuda-arch needs at least one architecture";
    return false;
  }
  for (llvm::StringRef arch : options.cudaArchs) {
    unsigned number = 0;
    // ptxas of CUDA 13 assembles for sm_75 and later.
    if (!arch.starts_with("sm_") || arch.size() > 6 ||
        arch.drop_front(3).getAsInteger(10, number) || number < 75) {
      error = "--cuda-arch: '" + arch.str() +
              "' is not a GPU architecture that CUDA 13 supports (sm_75, "
              "sm_80, sm_86, sm_89, sm_90, ...)";
      return false;
    }
  }
  return true;
}

mlir::LogicalResult
tad::driver::addLoweringPasses(mlir::OpPassManager &pm, Stage stage,
                               const LoweringOptions &options) {
  if (stage == Stage::ad)
    return mlir::success();
  if (stage == Stage::linalg) {
    pm.addPass(createConvertTadToLinalg());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    return mlir::success();
  }
  if (options.target == Target::cudaEmulator)
    return mlir::parsePassPipeline(getCudaEmulatorPipeline(options.budget),
                                   pm);
  if (options.target == Target::cuda)
    return mlir::parsePassPipeline(
        getCudaLoweringPipeline(options.cudaArchs, options.cudaToolkit,
                                options.cublasMatmul, options.budget),
        pm);
  return mlir::parsePassPipeline(
      getCpuLoweringPipeline(options.blasMatmul, options.budget), pm);
}
