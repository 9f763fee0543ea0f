//===- Frontend.cpp - .tad source to the tad dialect ----------------------===//

#include "tad/Frontend/Frontend.h"
#include "tad/Frontend/MLIRGen.h"
#include "tad/Frontend/Parser.h"
#include "tad/Frontend/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace tad::lang;

std::unique_ptr<Module> tad::lang::parseAndCheck(llvm::SourceMgr &sourceMgr,
                                                 llvm::raw_ostream &errs,
                                                 unsigned bufferId) {
  DiagnosticEngine diag(sourceMgr, &errs);
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(
      bufferId ? bufferId : sourceMgr.getNumBuffers());
  Parser parser(buffer->getBuffer(), diag);
  std::unique_ptr<Module> module = parser.parseModule();
  if (!module || !checkModule(*module, diag))
    return nullptr;
  return module;
}

mlir::OwningOpRef<mlir::ModuleOp>
tad::lang::compileToTad(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context,
                        llvm::raw_ostream &errs, unsigned bufferId) {
  std::unique_ptr<Module> module = parseAndCheck(sourceMgr, errs, bufferId);
  if (!module)
    return nullptr;
  DiagnosticEngine diag(sourceMgr, &errs);
  return emitModule(context, *module, diag);
}
