//===- tadc.cpp - the tad compiler driver ---------------------------------===//
//
// `tadc FILE.tad --emit=STAGE` runs the pipeline up to STAGE and prints the
// result. The stages are ordered as in Toy's toyc; later stages are added as
// the pipeline grows (see docs/tadc.md).
//
//===----------------------------------------------------------------------===//

#include "tad/Frontend/Frontend.h"
#include "tad/InitAll.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace {
enum class Stage { ast, tad };
enum class InputKind { tad, mlir };

cl::OptionCategory tadcCategory("tadc options");
cl::OptionCategory mlirCategory("MLIR options (pass manager, printing, timing)");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<input .tad or .mlir file>"),
                                   cl::init("-"), cl::cat(tadcCategory));

cl::opt<std::string> outputFilename("o", cl::desc("Output file (default: stdout)"),
                                    cl::value_desc("filename"), cl::init("-"),
                                    cl::cat(tadcCategory));

cl::opt<Stage> emitStage(
    "emit", cl::desc("How far to run the pipeline, and what to print"),
    cl::values(clEnumValN(Stage::ast, "ast",
                          "the checked syntax tree, with types and locations"),
               clEnumValN(Stage::tad, "tad",
                          "the tad dialect as the frontend emits it")),
    cl::init(Stage::tad), cl::cat(tadcCategory));

cl::opt<InputKind> inputKind(
    "x", cl::desc("The input language (default: from the file extension)"),
    cl::values(clEnumValN(InputKind::tad, "tad", "a .tad program"),
               clEnumValN(InputKind::mlir, "mlir",
                          "MLIR in the tad dialect (skips the frontend)")),
    cl::cat(tadcCategory));

cl::opt<bool> splitInputFile(
    "split-input-file",
    cl::desc("Compile each chunk between '// -----' lines on its own (for "
             "tests); errors are reported and compilation goes on"),
    cl::init(false), cl::cat(tadcCategory));

cl::opt<bool> optimize("opt",
                       cl::desc("Canonicalize and CSE the tad-level IR"),
                       cl::init(false), cl::cat(tadcCategory));
} // namespace

static InputKind getInputKind() {
  if (inputKind.getNumOccurrences())
    return inputKind;
  return llvm::StringRef(inputFilename).ends_with(".mlir") ? InputKind::mlir
                                                           : InputKind::tad;
}

/// Runs the passes between the frontend and the requested stage.
static mlir::LogicalResult runPipeline(mlir::ModuleOp module,
                                       mlir::MLIRContext &context) {
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
    return mlir::failure();
  mlir::applyDefaultTimingPassManagerCLOptions(pm);
  if (optimize) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
  return pm.run(module);
}

/// Compiles one buffer (the whole input, or one chunk of it) and prints the
/// requested stage to `os`. `source` is the whole input: diagnostics point
/// into it, so that line numbers stay those of the file.
static mlir::LogicalResult
processBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
              llvm::MemoryBufferRef source, llvm::raw_ostream &os,
              mlir::DialectRegistry &registry) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(source, /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  unsigned bufferId = sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());

  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // MLIR diagnostics (a parse error in .mlir input, a verifier failure)
  // print with the source line, like the frontend's own errors.
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);

  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (getInputKind() == InputKind::tad) {
    if (emitStage == Stage::ast) {
      std::unique_ptr<tad::lang::Module> ast =
          tad::lang::parseAndCheck(sourceMgr, llvm::errs(), bufferId);
      if (!ast)
        return mlir::failure();
      tad::lang::dumpAST(*ast, sourceMgr, os);
      return mlir::success();
    }
    module = tad::lang::compileToTad(sourceMgr, context, llvm::errs(), bufferId);
  } else {
    if (emitStage == Stage::ast) {
      llvm::errs() << "tadc: error: --emit=ast needs .tad input\n";
      return mlir::failure();
    }
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  }
  if (!module || mlir::failed(runPipeline(*module, context)))
    return mlir::failure();
  module->print(os);
  return mlir::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  // Show tadc's own options and MLIR's (--mlir-print-ir-after-all,
  // --mlir-timing, ...) in --help, not the hundreds of LLVM internals;
  // --help-hidden still lists everything.
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->addCategory(mlirCategory);
  cl::HideUnrelatedOptions({&tadcCategory, &mlirCategory});
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "tadc (tad) 0.1.0, built with LLVM/MLIR " << LLVM_VERSION_STRING
       << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "tadc: the tad compiler\n\n"
      "  tadc model.tad --emit=tad     print the tad dialect of model.tad\n"
      "  tadc model.tad --emit=ast     print the checked syntax tree\n"
      "  tadc model.mlir               read tad-dialect MLIR instead\n");

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "tadc: error: " << error << "\n";
    return 1;
  }
  auto output = mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "tadc: error: " << error << "\n";
    return 1;
  }

  mlir::DialectRegistry registry;
  tad::registerAllDialects(registry);
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     const llvm::MemoryBufferRef &source,
                     llvm::raw_ostream &os) {
    return processBuffer(std::move(chunk), source, os, registry);
  };
  if (mlir::failed(mlir::splitAndProcessBuffer(
          std::move(input), process, output->os(),
          splitInputFile ? mlir::kDefaultSplitMarker : "",
          splitInputFile ? mlir::kDefaultSplitMarker : "")))
    return 1;
  output->keep();
  return 0;
}
