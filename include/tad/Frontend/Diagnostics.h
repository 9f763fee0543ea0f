//===- Diagnostics.h - frontend error reporting -----------------*- C++ -*-===//
//
// Errors of the .tad frontend print as `file:line:col: error: message`, then
// the source line and a caret. The frontend stops at the first error: it is
// the one that matters, and later ones are usually its echoes.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_FRONTEND_DIAGNOSTICS_H
#define TAD_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

namespace tad::lang {

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::SourceMgr &sourceMgr,
                            llvm::raw_ostream *os = nullptr)
      : sourceMgr(sourceMgr), os(os) {}

  /// Reports an error at `loc`, unless one was reported already. Returns
  /// false so that callers can write `return diag.error(...)`.
  bool error(llvm::SMLoc loc, const llvm::Twine &message);

  /// Adds a note to the error just reported (ignored after a suppressed
  /// error, so that notes never attach to the wrong error).
  void note(llvm::SMLoc loc, const llvm::Twine &message);

  /// Reports a note that belongs to no error (a function that shadows a
  /// builtin): the compile goes on.
  void remark(llvm::SMLoc loc, const llvm::Twine &message);

  bool hadError() const { return errorCount > 0; }
  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }

  /// The 1-based line and column of `loc`.
  std::pair<unsigned, unsigned> getLineAndColumn(llvm::SMLoc loc) const;
  /// The name of the main source buffer.
  llvm::StringRef getFilename() const;

private:
  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream *os;
  unsigned errorCount = 0;
};

} // namespace tad::lang

#endif // TAD_FRONTEND_DIAGNOSTICS_H
