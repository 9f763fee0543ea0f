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
#include "tad/Driver/Aot.h"
#include "tad/Driver/Config.h"
#include "tad/Driver/LaunchParameters.h"
#include "tad/Driver/Layout.h"
#include "tad/Driver/Optimize.h"
#include "tad/Driver/QuickCodegen.h"
#include "tad/Driver/ResultStores.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <iostream>

/// Code with collectives calls MPI and the MPI runtime, which tadc does not
/// link: they are loaded into the process, whose symbols the JIT-compiled
/// code resolves against, and MPI starts before the inputs are read (their
/// paths may name the rank).
static llvm::Error loadMpiRuntime() {
  if (llvm::Error e = tad::driver::checkMpiBuild())
    return e;
  const std::string &path = tad::driver::getLayout().runtimeMpiSharedLibrary;
  std::string message;
  if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(path.c_str(), &message))
    return llvm::createStringError("cannot load the MPI runtime " + path +
                                   ": " + message);
  auto init = reinterpret_cast<void (*)()>(
      llvm::sys::DynamicLibrary::SearchForAddressOfSymbol("tad_rt_mpi_init"));
  if (!init)
    return llvm::createStringError(path + " defines no tad_rt_mpi_init");
  init();
  return llvm::Error::success();
}

llvm::Error tad::driver::runEntry(mlir::ModuleOp module,
                                  const rt::EntrySpec &entry,
                                  const rt::RunOptions &options,
                                  llvm::StringRef optimizedIR) {
  if (usesCollectives(module))
    if (llvm::Error e = loadMpiRuntime())
      return e;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerBuiltinDialectTranslation(*module->getContext());
  mlir::registerLLVMDialectTranslation(*module->getContext());
  // The optimizer needs the host's target machine: without one, LLVM's cost
  // model knows no vector registers and vectorizes no loop (the engine
  // would still generate code for the host, scalar code).
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return machineBuilder.takeError();
  auto machine = machineBuilder->createTargetMachine();
  if (!machine)
    return machine.takeError();
  mlir::ExecutionEngineOptions engineOptions;
  // The engine's transformer is a function_ref: what it refers to must
  // live until the engine is made.
  // (The engine cannot report a transformer's error: the IR is written
  // once the engine is made.)
  std::string printed;
  auto transform = [&](llvm::Module *llvmModule) -> llvm::Error {
    hoistLaunchParameters(*llvmModule);
    if (llvm::Error e = optimizeModule(*llvmModule, machine->get()))
      return e;
    storeResultsEarly(*llvmModule);
    generateLongEntriesQuickly(*llvmModule);
    if (!optimizedIR.empty()) {
      llvm::raw_string_ostream os(printed);
      llvmModule->print(os, nullptr);
    }
    return llvm::Error::success();
  };
  engineOptions.transformer = transform;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = mlir::ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return engine.takeError();
  if (!optimizedIR.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream out(optimizedIR, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return llvm::createStringError(optimizedIR + ": " + ec.message());
    out << printed;
  }
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
