//===- Diagnostics.cpp - frontend error reporting -------------------------===//

#include "tad/Frontend/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tad::lang;

/// Prints a diagnostic as SourceMgr does. SourceMgr leaves out the caret
/// line when the source line has a byte that is not ASCII (its columns would
/// not line up); here the caret is placed by characters instead, counting
/// each UTF-8 sequence (or stray byte) as one column and keeping tabs.
static void print(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os,
                  llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
                  const llvm::Twine &message) {
  // Without a location, the message is about the command line (a size
  // for a generic entry): it reads as tadc's own.
  if (!loc.isValid()) {
    os << "tadc: " << (kind == llvm::SourceMgr::DK_Error ? "error" : "note")
       << ": " << message << "\n";
    return;
  }
  unsigned buffer = sourceMgr.FindBufferContainingLoc(loc);
  if (!buffer) {
    sourceMgr.PrintMessage(os, loc, kind, message);
    return;
  }
  llvm::StringRef text = sourceMgr.getMemoryBuffer(buffer)->getBuffer();
  size_t offset = loc.getPointer() - text.data();
  size_t begin = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  begin = begin == llvm::StringRef::npos || offset == 0 ? 0 : begin + 1;
  if (offset > 0 && text[offset - 1] == '\n')
    begin = offset;
  size_t end = text.find_first_of("\r\n", offset);
  llvm::StringRef line = text.slice(begin, end);
  if (llvm::all_of(line, [](char c) { return (unsigned char)c < 0x80; })) {
    sourceMgr.PrintMessage(os, loc, kind, message);
    return;
  }
  // The first line as SourceMgr writes it (the column counts bytes).
  llvm::SMDiagnostic diagnostic = sourceMgr.GetMessage(loc, kind, message);
  os << diagnostic.getFilename() << ":" << diagnostic.getLineNo() << ":"
     << diagnostic.getColumnNo() + 1 << ": "
     << (kind == llvm::SourceMgr::DK_Note ? "note" : "error") << ": "
     << diagnostic.getMessage() << "\n"
     << line << "\n";
  std::string caret;
  for (char c : line.take_front(offset - begin))
    if (((unsigned char)c & 0xc0) != 0x80)
      caret += c == '\t' ? '\t' : ' ';
  os << caret << "^\n";
}

bool DiagnosticEngine::error(llvm::SMLoc loc, const llvm::Twine &message) {
  if (errorCount++ == 0)
    print(sourceMgr, os ? *os : llvm::errs(), loc, llvm::SourceMgr::DK_Error,
          message);
  return false;
}

void DiagnosticEngine::note(llvm::SMLoc loc, const llvm::Twine &message) {
  if (errorCount == 1)
    print(sourceMgr, os ? *os : llvm::errs(), loc, llvm::SourceMgr::DK_Note,
          message);
}

void DiagnosticEngine::remark(llvm::SMLoc loc, const llvm::Twine &message) {
  if (errorCount == 0)
    print(sourceMgr, os ? *os : llvm::errs(), loc, llvm::SourceMgr::DK_Note,
          message);
}

std::pair<unsigned, unsigned>
DiagnosticEngine::getLineAndColumn(llvm::SMLoc loc) const {
  return sourceMgr.getLineAndColumn(loc);
}

llvm::StringRef DiagnosticEngine::getFilename() const {
  return sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
      ->getBufferIdentifier();
}
