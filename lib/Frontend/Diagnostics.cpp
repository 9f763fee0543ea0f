//===- Diagnostics.cpp - frontend error reporting -------------------------===//

#include "tad/Frontend/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tad::lang;

bool DiagnosticEngine::error(llvm::SMLoc loc, const llvm::Twine &message) {
  if (errorCount++ == 0)
    sourceMgr.PrintMessage(os ? *os : llvm::errs(), loc,
                           llvm::SourceMgr::DK_Error, message);
  return false;
}

void DiagnosticEngine::note(llvm::SMLoc loc, const llvm::Twine &message) {
  if (errorCount == 1)
    sourceMgr.PrintMessage(os ? *os : llvm::errs(), loc,
                           llvm::SourceMgr::DK_Note, message);
}

std::pair<unsigned, unsigned>
DiagnosticEngine::getLineAndColumn(llvm::SMLoc loc) const {
  return sourceMgr.getLineAndColumn(loc);
}

llvm::StringRef DiagnosticEngine::getFilename() const {
  return sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
      ->getBufferIdentifier();
}
