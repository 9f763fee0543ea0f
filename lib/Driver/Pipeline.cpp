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

mlir::LogicalResult tad::driver::addLoweringPasses(mlir::OpPassManager &pm,
                                                   Stage stage,
                                                   bool blasMatmul) {
  if (stage == Stage::ad)
    return mlir::success();
  if (stage == Stage::linalg) {
    pm.addPass(createConvertTadToLinalg());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    return mlir::success();
  }
  return mlir::parsePassPipeline(getCpuLoweringPipeline(blasMatmul), pm);
}
