//===- tadc.cpp - the tad compiler driver ---------------------------------===//
//
// `tadc FILE.tad --emit=STAGE` runs the pipeline up to STAGE and prints the
// result (docs/tadc.md). This file only parses the command line
// (TadcOptions.h) into a tad::driver::CompileOptions; the compile itself is
// the library's (tad/Driver/Compiler.h).
//
//===----------------------------------------------------------------------===//

#include "TadcOptions.h"

#include "tad/Driver/Aot.h"
#include "tad/Driver/Config.h"
#include "tad/Driver/Layout.h"
#include "tad/Frontend/Sema.h"
#include "tad/InitAll.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace tadc;

/// Gives `option` the name `name`, which an option of LLVM's has when tadc
/// starts (registered before tadc's options, so that tadc's cannot be
/// declared with it): LLVM's goes.
static void claimOptionName(cl::Option &option, llvm::StringRef name) {
  auto &options = cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it != options.end() && it->second != &option)
    it->second->removeArgument();
  option.setArgStr(name);
}

/// --stats-json (LLVM's: its statistics as JSON; tadc's keeps its old name
/// --run-stats-json as an alias) and --threads.
static void claimOptionNames(TadcOptions &o) {
  claimOptionName(o.statsJson, "stats-json");
  claimOptionName(o.threads, "threads");
}

/// The compile that the parsed flags ask for; an error for a flag whose
/// value does not parse.
static llvm::Expected<tad::driver::CompileOptions>
getCompileOptions(const TadcOptions &o, bool memoryTable) {
  tad::driver::CompileOptions c;
  // Given at all, even empty (`--remat-budget=`), it must parse: an empty
  // value once meant no budget, silently.
  if (o.rematBudget.getNumOccurrences()) {
    std::string error;
    if (!tad::parseBudget(o.rematBudget, c.rematBudget, error))
      return llvm::createStringError("--remat-budget: " + error);
  }
  if (o.rematOverhead.getNumOccurrences()) {
    if (o.rematBudget.getNumOccurrences())
      return llvm::createStringError(
          "--remat-overhead and --remat-budget: give one of them");
    std::string error;
    double percent = 0;
    if (!tad::parseOverhead(o.rematOverhead, percent, error))
      return llvm::createStringError("--remat-overhead: " + error);
    c.rematBudget = tad::Budget::overhead(percent);
  }
  c.inputFilename = o.inputFilename;
  c.outputFilename = o.outputFilename;
  c.inputKind = o.inputKind.getNumOccurrences() ? InputKind(o.inputKind)
                : llvm::StringRef(o.inputFilename).ends_with(".mlir")
                    ? InputKind::mlir
                    : InputKind::tad;
  c.splitInputFile = o.splitInputFile;
  c.stage = o.emitStage;
  c.memoryTable = memoryTable;
  c.memPoints = o.memPoints;
  c.memJson = o.memJson;
  c.depFile = o.depFile;
  c.entry = o.entry;
  c.importPaths.assign(o.importPaths.begin(), o.importPaths.end());
  c.instantiations.assign(o.instantiations.begin(), o.instantiations.end());
  c.dims.assign(o.dimSizes.begin(), o.dimSizes.end());
  c.printPipeline = o.printPipeline;
  c.verifyEach = o.verifyEach;
  c.optimize = o.optimize;
  c.checkpointCalls.assign(o.checkpointCalls.begin(), o.checkpointCalls.end());
  c.dataParallel = o.dataParallel;
  c.rematPolicy = o.rematPolicy;
  c.rematReport = o.rematReport;
  c.rematGraph = o.rematGraph;
  if (o.loopSnapshots.getNumOccurrences())
    c.loopSnapshots = o.loopSnapshots;
  c.loopResiduals = o.loopResiduals;
  c.countRevolveActions = o.countRevolveActions;
  c.target = o.target;
  c.matmul = o.matmulImpl;
  c.cudaArchs.assign(o.cudaArchs.begin(), o.cudaArchs.end());
  c.cudaArchsGiven = o.cudaArchs.getNumOccurrences() > 0;
  c.cudaPath = o.cudaPath;
  c.cudaMatmul = o.cudaMatmul;
  c.cudaEmulatorReverse = o.cudaEmulatorReverse;
  c.cudaSyncLaunches = o.cudaSyncLaunches;
  c.codegenThreads = o.codegenThreadsOption;
  c.inputFiles.assign(o.inputFiles.begin(), o.inputFiles.end());
  c.run.inputDir = o.inputDir;
  c.run.outputDir = o.outputDir;
  c.run.statsJson = o.statsJson;
  c.run.memoryTrace = o.memoryTrace;
  c.run.seed = o.seed;
  c.run.convertInputs = o.convertInputs;
  c.run.repeat = o.repeat;
  c.run.threads = o.threads;
  c.jitLLVMIR = o.jitLLVMIR;
  return c;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // `tadc run FILE ...` is `tadc FILE --emit=run ...`.
  std::vector<char *> args(argv, argv + argc);
  static char runFlag[] = "--emit=run", adFlag[] = "--emit=ad";
  if (args.size() > 1 && llvm::StringRef(args[1]) == "run")
    args[1] = runFlag;
  // `tadc mem FILE ...` plans to AD, as --emit=ad does, at several budgets.
  bool memoryTable = false;
  if (args.size() > 1 && llvm::StringRef(args[1]) == "mem") {
    args[1] = adFlag;
    memoryTable = true;
  }
  TadcOptions options;
  claimOptionNames(options);
  // LLVM's post-RA list scheduler is quadratic in a block's length: on a
  // deep network's gradient, a block of thousands of calls, it took 4 of
  // the 7 seconds of code generation (docs/performance.md). The scheduling
  // of x86 out-of-order cores gains little from it. Inserted first, so
  // that a `--post-RA-scheduler` on the command line still wins.
  static char noPostRaScheduler[] = "--post-RA-scheduler=false";
  if (cl::getRegisteredOptions().count("post-RA-scheduler"))
    args.insert(args.begin() + 1, noPostRaScheduler);
  argc = int(args.size());
  argv = args.data();
  tad::registerAllPasses(); // the lowering pipeline is textual
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  // Show tadc's own options and MLIR's (--mlir-print-ir-after-all,
  // --mlir-timing, ...) in --help, not the hundreds of LLVM internals;
  // --help-hidden still lists everything.
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->addCategory(options.mlirCategory);
  cl::HideUnrelatedOptions({&options.tadcCategory, &options.mlirCategory});
  // The version, and the files that make what tadc compiles: itself and
  // the runtime it links into libraries and executables (the Python
  // package's compile cache keys on them, docs/python.md).
  static std::string executable =
      llvm::sys::fs::getMainExecutable(argv[0], (void *)&claimOptionNames);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    tad::driver::RuntimeFiles runtime = tad::driver::getRuntimeFiles();
    os << "tadc (tad) 0.1.0, built with LLVM/MLIR " << LLVM_VERSION_STRING
       << "\n  executable: " << executable
       << "\n  runtime: " << runtime.staticLibrary
       << "\n  cuda runtime: " << runtime.cudaStaticLibrary
       << "\n  runtime headers: " << runtime.includeDir
       << "\n  standard library: " << tad::driver::getLayout().stdlibDir
       << "\n  mpi: "
       << (TAD_HAVE_MPI ? std::string(TAD_MPI_LIBRARIES)
                        : std::string("none (built without MPI: no "
                                      "collectives)"))
       << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "tadc: the tad compiler\n\n"
      "  tadc model.tad --emit=tad     print the tad dialect of model.tad\n"
      "  tadc model.tad --emit=ast     print the checked syntax tree\n"
      "  tadc run model.tad --entry f  JIT-compile and call f; with\n"
      "                                --output-dir, its results as\n"
      "                                value.npy, grad_w1.npy, ...\n"
      "  tadc mem model.tad --entry f  the store-all peak of derivative f,\n"
      "                                its least budget, and what budgets\n"
      "                                between them cost\n"
      "  tadc model.mlir               read tad-dialect MLIR instead\n");

  if (options.printBuiltins) {
    tad::lang::printBuiltinReference(llvm::outs());
    return 0;
  }
  llvm::Expected<tad::driver::CompileOptions> compile =
      getCompileOptions(options, memoryTable);
  if (!compile) {
    llvm::errs() << "tadc: error: " << llvm::toString(compile.takeError())
                 << "\n";
    return 1;
  }
  return tad::driver::runCompile(*compile);
}
