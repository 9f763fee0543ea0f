//===- Frontend.cpp - .tad source to the tad dialect ----------------------===//

#include "tad/Frontend/Frontend.h"
#include "tad/Frontend/MLIRGen.h"
#include "tad/Frontend/Parser.h"
#include "tad/Frontend/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace tad::lang;

static std::unique_ptr<Module> parse(llvm::SourceMgr &sourceMgr,
                                     DiagnosticEngine &diag, unsigned bufferId,
                                     const FrontendOptions &options) {
  if (!bufferId)
    bufferId = sourceMgr.getNumBuffers();
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  Parser parser(buffer->getBuffer(), diag);
  std::unique_ptr<Module> module = parser.parseModule();
  if (!module ||
      !resolveImports(*module, sourceMgr, bufferId, diag, options.importPath))
    return nullptr;
  return module;
}

std::unique_ptr<Module> tad::lang::parseOnly(llvm::SourceMgr &sourceMgr,
                                             llvm::raw_ostream &errs,
                                             unsigned bufferId,
                                             const FrontendOptions &options) {
  DiagnosticEngine diag(sourceMgr, &errs);
  return parse(sourceMgr, diag, bufferId, options);
}

std::unique_ptr<Module>
tad::lang::parseAndCheck(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &errs,
                         unsigned bufferId, const FrontendOptions &options,
                         std::vector<std::string> *instanceNames) {
  DiagnosticEngine diag(sourceMgr, &errs);
  std::unique_ptr<Module> module = parse(sourceMgr, diag, bufferId, options);
  if (!module || !checkModule(*module, diag, options.requests, instanceNames))
    return nullptr;
  return module;
}

mlir::OwningOpRef<mlir::ModuleOp>
tad::lang::compileToTad(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context,
                        llvm::raw_ostream &errs, unsigned bufferId,
                        const FrontendOptions &options,
                        std::vector<std::string> *instanceNames) {
  std::unique_ptr<Module> module =
      parseAndCheck(sourceMgr, errs, bufferId, options, instanceNames);
  if (!module)
    return nullptr;
  DiagnosticEngine diag(sourceMgr, &errs);
  return emitModule(context, *module, diag);
}
