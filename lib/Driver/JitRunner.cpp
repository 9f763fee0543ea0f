//===- JitRunner.cpp - tadc run: JIT-compile and call an entry ------------===//
//
// The execution engine adds a packed wrapper `_mlir_<name>(void **)` for
// every function; the runner calls the one of `_mlir_ciface_<entry>`, which
// takes the result descriptors' address and one descriptor per input. The
// runtime is linked into tadc, so the JIT-compiled code allocates through
// the same counting allocator that the runner reads.
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/JitRunner.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <iostream>

llvm::Error tad::driver::runEntry(mlir::ModuleOp module,
                                  const rt::EntrySpec &entry,
                                  const rt::RunOptions &options) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerBuiltinDialectTranslation(*module->getContext());
  mlir::registerLLVMDialectTranslation(*module->getContext());
  mlir::ExecutionEngineOptions engineOptions;
  auto transformer = mlir::makeOptimizingTransformer(3, 0, nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = mlir::ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return engine.takeError();
  // Constructors load GPU modules (CUDA); runEntry reports their failures.
  (*engine)->initialize();
  auto packed = (*engine)->lookupPacked("_mlir_ciface_" + entry.function);
  if (!packed)
    return packed.takeError();
  std::string error;
  if (!rt::runEntry(entry, *packed, options, std::cout, error))
    return llvm::createStringError(error);
  std::cout.flush();
  return llvm::Error::success();
}
