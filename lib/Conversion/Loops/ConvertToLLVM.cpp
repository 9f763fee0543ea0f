//===- ConvertToLLVM.cpp - convert-to-llvm with a symbol table ------------===//
//
// Upstream's convert-to-llvm collects each loaded dialect's patterns through
// its ConvertToLLVMPatternInterface, and the func dialect's interface adds
// its patterns without a symbol table. Its call lowering then looks each
// callee up with SymbolTable::lookupNearestSymbolFrom, which walks the
// module: a module of many functions (a library of instances of generic
// functions) lowers in time quadratic in their number. This pass applies the
// same patterns, the func dialect's with a SymbolTableCollection, as
// upstream's convert-func-to-llvm does.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tad {
#define GEN_PASS_DEF_CONVERTTOLLVM
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {
struct ConvertToLLVM : tad::impl::ConvertToLLVMBase<ConvertToLLVM> {
  void getDependentDialects(DialectRegistry &registry) const override {
    // Passes.td's (the LLVM dialect), and the dialects that the
    // interfaces' patterns create, as upstream's pass loads them.
    ConvertToLLVMBase::getDependentDialects(registry);
    registerConvertToLLVMDependentDialectLoading(registry);
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addLegalDialect<LLVM::LLVMDialect>();
    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    Dialect *func = context->getLoadedDialect<func::FuncDialect>();
    for (Dialect *dialect : context->getLoadedDialects()) {
      auto *iface = dyn_cast<ConvertToLLVMPatternInterface>(dialect);
      if (iface && dialect != func)
        iface->populateConvertToLLVMConversionPatterns(target, converter,
                                                       patterns);
    }
    // Valid through the conversion: a converted function keeps its name,
    // and the conversion erases the func.func only once it has applied
    // every pattern.
    SymbolTableCollection symbolTables;
    populateFuncToLLVMConversionPatterns(converter, patterns, &symbolTables);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
