//===- tad-fuzz-frontend.cpp - libFuzzer target for the .tad frontend -----===//
//
// Feeds arbitrary bytes to the frontend. A finding is a crash, a sanitizer
// report, a hang, or a program that Sema accepts but that MLIRGen turns into
// IR the verifier rejects (Sema promises that this cannot happen).
// `make fuzz` builds it with clang and runs it; docs/fuzzing.md has details.
//
//===----------------------------------------------------------------------===//

#include "tad/Frontend/Frontend.h"
#include "tad/Frontend/MLIRGen.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>

/// tad's code is instrumented but libMLIR.so is not. LLVM's BumpPtrAllocator
/// poisons the unused tail of a slab when instrumented code starts the slab,
/// and uninstrumented code then allocates from it without unpoisoning, which
/// ASan would report as use-after-poison. Manual poisoning is therefore
/// switched off; every other ASan check stays on.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

/// One context serves many inputs (creating one per input would dominate
/// the run time). It is replaced every 1000 inputs, since the attributes it
/// uniques (names, locations) would otherwise grow without bound.
static mlir::MLIRContext &getContext() {
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses % 1000 == 0) {
    context = std::make_unique<mlir::MLIRContext>(
        mlir::MLIRContext::Threading::DISABLED);
    context->loadDialect<tad::TadDialect>();
  }
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.tad"),
      llvm::SMLoc());
  std::string errors;
  llvm::raw_string_ostream errs(errors);
  // Imports resolve from the folder the fuzzer runs in (scripts/fuzz.sh:
  // the repository's, whose examples and tests it may import) and from
  // the standard library, whose generic functions it then instantiates.
  static const tad::lang::FrontendOptions options = [] {
    tad::lang::FrontendOptions o;
    o.importPath = {"stdlib"};
    return o;
  }();
  std::unique_ptr<tad::lang::Module> module =
      tad::lang::parseAndCheck(sourceMgr, errs, 0, options);
  if (!module)
    return 0; // a rejected program is fine; a crash is not

  mlir::MLIRContext &context = getContext();
  std::string mlirErrors;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    mlirErrors += d.str() + "\n";
    return mlir::success();
  });
  tad::lang::DiagnosticEngine diag(sourceMgr, &errs);
  if (!tad::lang::emitModule(context, *module, diag)) {
    llvm::errs() << "Sema accepted a program that MLIRGen emitted as invalid "
                    "IR:\n"
                 << mlirErrors;
    std::abort();
  }
  return 0;
}
