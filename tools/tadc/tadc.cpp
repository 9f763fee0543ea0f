//===- tadc.cpp - the tad compiler driver ---------------------------------===//
//
// `tadc FILE.tad --emit=STAGE` runs the pipeline up to STAGE and prints the
// result. The stages are ordered as in Toy's toyc; later stages are added as
// the pipeline grows (see docs/tadc.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/tad/TadDialect.h"
#include "tad/Driver/Aot.h"
#include "tad/Driver/CNames.h"
#include "tad/Driver/Config.h"
#include "tad/Driver/Instances.h"
#include "tad/Driver/JitRunner.h"
#include "tad/Driver/Signature.h"
#include "tad/Driver/StoreAllPeak.h"
#include "tad/Frontend/Frontend.h"
#include "tad/InitAll.h"
#include "tad/Pipeline/Pipeline.h"
#include "tad/Remat/ByteSize.h"
#include "tad/Transforms/Passes.h"
#include "tad/runtime/Output.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <limits>

namespace cl = llvm::cl;

namespace {
/// The stages of tadc, in pipeline order.
enum class Stage { ast, tad, ad, linalg, llvm, llvmir, obj, lib, exe, run };
enum class InputKind { tad, mlir };

cl::OptionCategory tadcCategory("tadc options");
cl::OptionCategory
    mlirCategory("MLIR options (pass manager, printing, timing)");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<input .tad or .mlir file>"),
                                   cl::init("-"), cl::cat(tadcCategory));

cl::opt<std::string> outputFilename("o",
                                    cl::desc("Output file (default: stdout)"),
                                    cl::value_desc("filename"), cl::init("-"),
                                    cl::cat(tadcCategory));

cl::opt<Stage> emitStage(
    "emit", cl::desc("How far to run the pipeline, and what to print"),
    cl::values(clEnumValN(Stage::ast, "ast",
                          "the checked syntax tree, with types and locations"),
               clEnumValN(Stage::tad, "tad",
                          "the tad dialect as the frontend emits it"),
               clEnumValN(Stage::ad, "ad",
                          "the tad dialect after AD: derivatives have bodies"),
               clEnumValN(Stage::linalg, "linalg",
                          "linalg, tensor, arith and math on tensors"),
               clEnumValN(Stage::llvm, "llvm",
                          "the LLVM dialect, after bufferization"),
               clEnumValN(Stage::llvmir, "llvm-ir", "LLVM IR"),
               clEnumValN(Stage::obj, "obj",
                          "an object file for the host CPU (needs -o)"),
               clEnumValN(Stage::lib, "lib",
                          "a shared library and its C header (needs -o)"),
               clEnumValN(Stage::exe, "exe",
                          "an executable running --entry on .npy files "
                          "(needs -o)"),
               clEnumValN(Stage::run, "run",
                          "JIT-compile and call --entry (also: tadc run ...)")),
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

cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pass, as tad-opt does (slower; by "
             "default tadc verifies it before and after its passes)"),
    cl::init(false), cl::cat(tadcCategory));

cl::opt<std::string> entry(
    "entry",
    cl::desc("The function to run, or to keep when lowering (the others it "
             "does not call are dropped)"),
    cl::value_desc("name"), cl::cat(tadcCategory));

cl::list<std::string> importPaths(
    "import-path",
    cl::desc("Look for imported .tad files in DIR too (repeatable; after "
             "the importing file's folder, before tad's own library)"),
    cl::value_desc("DIR"), cl::cat(tadcCategory));

cl::list<std::string>
    dimSizes("dim",
             cl::desc("A size (or element type, E=f64) for a generic "
                      "parameter of --entry (repeatable); without it, they "
                      "are read off the inputs' .npy files"),
             cl::value_desc("NAME=SIZE[,NAME=SIZE...]"), cl::cat(tadcCategory));

cl::list<std::string> instantiations(
    "instantiate",
    cl::desc("Compile generic function F at these sizes too, as an entry "
             "named after them (F_B64_D128; repeatable)"),
    cl::value_desc("F[NAME=SIZE,...]"), cl::cat(tadcCategory));

cl::list<std::string>
    inputFiles("input",
               cl::desc("Read parameter NAME from FILE.npy (repeatable)"),
               cl::value_desc("NAME=FILE"), cl::cat(tadcCategory));

cl::opt<std::string> inputDir(
    "inputs",
    cl::desc("Read each parameter NAME without --input from DIR/NAME.npy"),
    cl::value_desc("DIR"), cl::cat(tadcCategory));

cl::opt<uint64_t> seed("seed",
                       cl::desc("Seed of the uniform [-0.5, 0.5) initializer "
                                "of parameters without a file (default 0)"),
                       cl::init(0), cl::cat(tadcCategory));

cl::opt<std::string> outputDir(
    "output-dir",
    cl::desc("Write each result to DIR/NAME.npy, named after what it is: a "
             "derivative's value (value1, ... for its other results), "
             "grad_W for the gradient of parameter W, d_W for a vjp's "
             "cotangent; result<i> where there is no name. DIR and the "
             "folders above it are made when missing"),
    cl::value_desc("DIR"), cl::cat(tadcCategory));

// LLVM registers --stats-json too (its statistics as JSON, which tadc
// never prints): main() unregisters LLVM's and renames this option
// --stats-json (claimOptionNames), keeping --run-stats-json, the name
// it had, as a hidden alias.
cl::opt<std::string> statsJson(
    "run-stats-json",
    cl::desc("Write wall time per call, peak bytes and bytes live after the "
             "call, as the runtime allocator measured them, and the results' "
             "names, to FILE (its folder is made when missing)"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<std::string> depFile(
    "depfile",
    cl::desc("Write the files the compile read (the input and every file it "
             "imports, the standard library's too) to FILE as a Makefile "
             "rule for the output, as a C compiler's -MF does"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<std::string> memJson(
    "mem-json",
    cl::desc("tadc mem: also write the table as JSON to FILE (its folder is "
             "made when missing)"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<unsigned> memPoints(
    "mem-points",
    cl::desc("tadc mem: budgets between the store-all peak and the minimum "
             "(default 3)"),
    cl::init(3), cl::cat(tadcCategory));

/// `tadc mem FILE --entry F`: the memory table instead of a compile.
static bool memoryTable = false;

cl::opt<bool> convertInputs(
    "convert-inputs",
    cl::desc("Convert an input .npy of another float dtype than its "
             "parameter's (rounded to nearest) instead of rejecting it"),
    cl::cat(tadcCategory));

cl::opt<std::string> memoryTrace(
    "memory-trace",
    cl::desc("Write the live bytes of the (last) call, after every "
             "allocation and free, as chrome://tracing JSON to FILE (its "
             "folder is made when missing)"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<std::string> jitLLVMIR(
    "jit-llvm-ir",
    cl::desc("tadc run: write the LLVM IR that the JIT compiles, after "
             "LLVM's optimizer, to FILE (its folder is made when missing)"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<unsigned> repeat("repeat",
                         cl::desc("Call the entry N times (for timing)"),
                         cl::init(1), cl::cat(tadcCategory));

cl::opt<unsigned> codegenThreadsOption(
    "codegen-threads",
    cl::desc("Generate an object's, a library's or an executable's machine "
             "code in this many parts, one thread each (default 0: the "
             "machine's cores, at most 8, for a module of 4000 instructions "
             "or more)"),
    cl::init(0), cl::cat(tadcCategory));

// Named --threads by claimOptionNames: LLVM registers an option of that
// name before tadc's.
cl::opt<unsigned> threads(
    "run-threads",
    cl::desc("Threads that run the entry's GEMMs and loop nests (default: "
             "TAD_NUM_THREADS, else OPENBLAS_NUM_THREADS, else "
             "OMP_NUM_THREADS, else the machine's cores)"),
    cl::init(0), cl::cat(tadcCategory));
// The option's name before the loop nests ran on threads too.
cl::alias blasThreads("blas-threads", cl::aliasopt(threads),
                      cl::desc("Alias for --threads"), cl::Hidden);

cl::opt<tad::CpuMatmul> matmulImpl(
    "matmul", cl::desc("How f32 and f64 matmuls run on the CPU"),
    cl::values(clEnumValN(tad::CpuMatmul::blas, "blas",
                          "a call of the runtime's OpenBLAS GEMM (default)"),
               clEnumValN(tad::CpuMatmul::loops, "loops",
                          "loops generated by MLIR (for comparison)")),
    cl::init(tad::CpuMatmul::blas), cl::cat(tadcCategory));

cl::opt<tad::Target> target(
    "target", cl::desc("The machine the compiled code runs on"),
    cl::values(clEnumValN(tad::Target::cpu, "cpu", "the host CPU (default)"),
               clEnumValN(tad::Target::cuda, "cuda",
                          "an NVIDIA GPU, through the CUDA driver "
                          "(docs/gpu.md)"),
               clEnumValN(tad::Target::cudaEmulator, "cuda-emulator",
                          "the GPU kernels of cuda, run thread by thread "
                          "on the CPU (for tests without a GPU)")),
    cl::init(tad::Target::cpu), cl::cat(tadcCategory));

cl::list<std::string> cudaArchs(
    "cuda-arch",
    cl::desc("GPU architectures that --target=cuda assembles for (default "
             "sm_80,sm_90); the PTX for the lowest is included as well"),
    cl::value_desc("sm_XY,..."), cl::CommaSeparated, cl::cat(tadcCategory));

cl::opt<std::string> cudaPath(
    "cuda-path",
    cl::desc("The CUDA toolkit whose ptxas and fatbinary --target=cuda runs "
             "(default: $CUDA_ROOT, else /usr/local/cuda)"),
    cl::value_desc("DIR"), cl::cat(tadcCategory));

cl::opt<tad::CudaMatmul>
    cudaMatmul("cuda-matmul",
               cl::desc("How f32 and f64 matmuls run with --target=cuda"),
               cl::values(clEnumValN(tad::CudaMatmul::cublasOrKernel, "auto",
                                     "cuBLAS where the program finds it when "
                                     "it runs, else generated kernels "
                                     "(default)"),
                          clEnumValN(tad::CudaMatmul::kernel, "kernel",
                                     "generated kernels"),
                          clEnumValN(tad::CudaMatmul::cublas, "cublas",
                                     "cuBLAS, loaded when the program runs; "
                                     "an error without it")),
               cl::init(tad::CudaMatmul::cublasOrKernel),
               cl::cat(tadcCategory));

cl::opt<bool> optimize("opt", cl::desc("Canonicalize and CSE the tad-level IR"),
                       cl::init(false), cl::cat(tadcCategory));

cl::opt<int64_t> loopSnapshots(
    "loop-snapshots",
    cl::desc("Reverse loops by binomial checkpointing (revolve) with at "
             "most N snapshots of their carried values; 0 (the default) "
             "keeps every iteration's"),
    cl::value_desc("N"), cl::init(0), cl::cat(tadcCategory));

cl::opt<bool> loopResiduals(
    "loop-residuals",
    cl::desc("With a full tape, also keep each iteration's residuals (the "
             "values its adjoint reads), so that the reverse sweep does not "
             "run the loop's body again (default true; false keeps only "
             "the carried values; under --remat-budget, false leaves it "
             "out of the choice)"),
    cl::init(true), cl::cat(tadcCategory));

cl::opt<bool> countRevolveActions(
    "count-revolve-actions",
    cl::desc("Make binomial checkpointing's reverse loops count the actions "
             "they run; tadc run and executables print the counts of the "
             "last call"),
    cl::init(false), cl::cat(tadcCategory));

cl::opt<bool> dataParallel(
    "data-parallel",
    cl::desc("Average every gradient across the processes of an MPI run "
             "(mpirun -np N), so that each process may differentiate its "
             "shard of the batch (docs/distributed.md)"),
    cl::init(false), cl::cat(tadcCategory));

cl::list<std::string> checkpointCalls(
    "checkpoint-calls",
    cl::desc("Checkpoint every call of these functions, as if each were "
             "declared @checkpoint fn"),
    cl::value_desc("f,g,..."), cl::CommaSeparated, cl::cat(tadcCategory));

cl::opt<std::string> rematBudget(
    "remat-budget",
    cl::desc("Schedule every derivative (with --entry, the entry's) within "
             "this budget, recomputing forward values where needed, and "
             "print the remat report. The budget is a whole number of bytes "
             "(65536, or 65536B); a number, a fraction allowed, in KiB, MiB, "
             "GiB or TiB, a space before the unit allowed ('64KiB', "
             "'1.5MiB', or '14.8 MiB' as the report prints sizes: the whole "
             "bytes it reaches); or P% (above 0, such as 60% or 12.5%) of the "
             "store-all peak of --entry, or of the program's one derivative "
             "without it, rounded down"),
    cl::value_desc("BYTES|SIZE|P%"), cl::cat(tadcCategory));

cl::opt<tad::RematPolicy> rematPolicy(
    "remat-policy", cl::desc("What the remat solver may recompute"),
    tad::getRematPolicyValues(),
    cl::init(tad::RematPolicy::automatic), cl::cat(tadcCategory));

cl::opt<std::string> rematReport(
    "remat-report",
    cl::desc("Write the remat report (decisions and memory timeline) as "
             "JSON to FILE (its folder is made when missing)"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<std::string> rematGraph(
    "remat-graph",
    cl::desc("Write each derivative's remat graph as node-link JSON, the "
             "input of tad-remat, to FILE (its folder is made when missing)"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<bool> printPipeline(
    "print-pipeline",
    cl::desc("Print the pass pipeline of this compile, for tad-opt "
             "--pass-pipeline (or --tad-pipeline with what is in the "
             "braces), on stderr"),
    cl::init(false), cl::cat(tadcCategory));

cl::opt<bool> printBuiltins(
    "print-builtins",
    cl::desc("Print the table of the builtin functions (docs/builtins.md) "
             "and exit"),
    cl::init(false), cl::cat(tadcCategory));
} // namespace

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

/// --stats-json (LLVM's: its statistics as JSON), keeping --run-stats-json,
/// the name tadc's had, as a hidden alias; --threads.
static void claimOptionNames() {
  claimOptionName(statsJson, "stats-json");
  static cl::alias runStatsJson("run-stats-json", cl::aliasopt(statsJson),
                                cl::desc("Alias for --stats-json"),
                                cl::Hidden);
  claimOptionName(threads, "threads");
}

static InputKind getInputKind() {
  if (inputKind.getNumOccurrences())
    return inputKind;
  return llvm::StringRef(inputFilename).ends_with(".mlir") ? InputKind::mlir
                                                           : InputKind::tad;
}

/// A --remat-budget given as a share of the entry's store-all peak (60%),
/// else 0.
static double budgetPercent = 0;

/// Sets `options` from the command line; failure (after printing the error)
/// when it is invalid.
static mlir::LogicalResult getPipelineOptions(tad::PipelineOptions &options) {
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "tadc: error: " << message << "\n";
    return mlir::failure();
  };
  if (emitStage < Stage::ad && !checkpointCalls.empty())
    return fail("--checkpoint-calls needs --emit=ad or later");
  if (emitStage < Stage::ad && dataParallel)
    return fail("--data-parallel needs --emit=ad or later");
  if (emitStage != Stage::run && !jitLLVMIR.empty())
    return fail("--jit-llvm-ir needs tadc run");
  // Given at all, even empty (`--remat-budget=`), it must parse: an empty
  // value once meant no budget, silently.
  bool budgeted = rematBudget.getNumOccurrences() > 0;
  if (emitStage < Stage::ad && budgeted)
    return fail("--remat-budget needs --emit=ad or later");
  if (codegenThreadsOption > 256)
    return fail("--codegen-threads must be at most 256, got " +
                llvm::Twine(unsigned(codegenThreadsOption)));
  if (loopSnapshots < 0)
    return fail("--loop-snapshots must be 0 or more, got " +
                llvm::Twine(int64_t(loopSnapshots)));
  options.stage = emitStage <= Stage::tad      ? tad::PipelineStage::tad
                  : emitStage == Stage::ad     ? tad::PipelineStage::ad
                  : emitStage == Stage::linalg ? tad::PipelineStage::linalg
                                               : tad::PipelineStage::llvm;
  options.optimize = optimize;
  options.checkpointCalls = llvm::ArrayRef<std::string>(checkpointCalls);
  options.dataParallel = dataParallel;
  if (emitStage > Stage::tad)
    options.entry = entry;
  budgetPercent = 0;
  if (budgeted) {
    tad::ByteSize budget;
    std::string error;
    double percent;
    if (tad::driver::parseBudgetPercent(rematBudget, percent, error)) {
      if (percent < 0)
        return fail("--remat-budget: " + error);
      // Resolved once the module exists (resolveBudgetPercent): of the
      // entry's store-all peak, or of the program's one derivative.
      budgetPercent = percent;
      budget.bytes = 0;
    } else if (!tad::remat::parseByteSize(rematBudget, budget.bytes, error)) {
      return fail("--remat-budget: " + error);
    }
    options.rematBudget = budget;
    // The report goes where the IR does not.
    bool irOnStdout = emitStage <= Stage::llvmir && outputFilename == "-";
    options.rematSummary = irOnStdout ? tad::ReportStream::standardError
                                      : tad::ReportStream::standardOutput;
  }
  // Without a budget there is nothing to choose the loops' snapshots for.
  options.countRevolveActions = countRevolveActions;
  options.loopResiduals = loopResiduals;
  // (tadc mem plans under budgets: the loops' snapshots are chosen for
  // each.)
  options.loopSnapshots =
      loopSnapshots.getNumOccurrences() || (rematBudget.empty() && !memoryTable)
          ? int64_t(loopSnapshots)
          : int64_t(-1);
  options.rematPolicy = rematPolicy;
  options.rematReport = rematReport;
  options.rematGraph = rematGraph;
  options.exportNames = emitStage == Stage::obj || emitStage == Stage::lib ||
                        emitStage == Stage::exe;
  options.target = target;
  options.matmul = matmulImpl;
  options.cudaArchs = llvm::ArrayRef<std::string>(cudaArchs);
  options.cudaPath = cudaPath;
  options.cudaMatmul = cudaMatmul;
  if (target == tad::Target::cuda && cudaArchs.getNumOccurrences() &&
      cudaArchs.empty())
    return fail("--cuda-arch needs at least one architecture");
  return mlir::success();
}

/// The threads that generate a library's or an executable's code (Aot.h;
/// 0: by the module's size).
static unsigned codegenThreads = 0;

/// Runs the passes between the frontend and the requested stage.
static mlir::LogicalResult runPipeline(mlir::ModuleOp module,
                                       const tad::PipelineOptions &options) {
  mlir::MLIRContext *context = module.getContext();
  // --mlir-disable-threading keeps code generation on one thread too.
  codegenThreads =
      context->isMultithreadingEnabled() ? unsigned(codegenThreadsOption) : 1;
  // MLIR's threads pay only where a pass runs work at once: under a budget
  // the remat pass plans store-all's buffers beside its schedule. Without
  // one, the context's locked uniquing costs more than the nested
  // function passes gain (the 4 transformer blocks' passes: 0.25 s without
  // threads, 0.29 s with, by --mlir-timing).
  if (!options.rematBudget.getValue().isSet())
    context->disableMultithreading();
  auto fail = [](const llvm::Twine &message) {
    // The pipeline's messages name its options, which are tadc's too.
    llvm::errs() << "tadc: error: --" << message << "\n";
    return mlir::failure();
  };
  if (printPipeline) {
    llvm::errs() << "builtin.module(tad-pipeline";
    options.print(llvm::errs());
    llvm::errs() << ")\n";
  }
  return tad::runPipeline(module, options, verifyEach, fail);
}

static bool parseInputFiles(tad::rt::RunOptions &options) {
  for (const std::string &spec : inputFiles) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
      llvm::errs() << "tadc: error: --input expects NAME=FILE.npy, got '"
                   << spec << "'\n";
      return false;
    }
    options.inputFiles[spec.substr(0, eq)] = spec.substr(eq + 1);
  }
  return true;
}

/// Sets the budget that `--remat-budget=P%` names: P% of the entry's
/// store-all peak (rounded down), said with the remat report.
static mlir::LogicalResult resolveBudgetPercent(mlir::ModuleOp module,
                                                tad::PipelineOptions &options) {
  int64_t peak = 0;
  std::string of;
  llvm::Expected<int64_t> bytes = tad::driver::resolveBudgetPercent(
      module, options, entry, rematBudget, budgetPercent, peak, of);
  if (!bytes) {
    llvm::errs() << "tadc: error: " << llvm::toString(bytes.takeError())
                 << "\n";
    return mlir::failure();
  }
  options.rematBudget = tad::ByteSize{*bytes};
  llvm::raw_ostream &summary =
      options.rematSummary == tad::ReportStream::standardError ? llvm::errs()
                                                               : llvm::outs();
  summary << "remat: --remat-budget=" << rematBudget << " of @" << of
          << "'s store-all peak (" << peak << " bytes) is " << *bytes
          << " bytes\n";
  return mlir::success();
}

/// Prints the module at the requested stage, or runs it, or writes the
/// compiled file.
static mlir::LogicalResult
emitResult(mlir::ModuleOp module, llvm::ArrayRef<tad::rt::EntrySpec> signatures,
           llvm::raw_ostream &os) {
  // The plan's peak, which tad-buffer-peak left on the lowered entry.
  std::vector<tad::rt::EntrySpec> planned(signatures.begin(), signatures.end());
  tad::driver::readPlannedPeaks(module, planned);
  signatures = planned;
  const tad::rt::EntrySpec *signature =
      signatures.empty() ? nullptr : &signatures.front();
  bool cuda = target == tad::Target::cuda;
  if (emitStage == Stage::obj || emitStage == Stage::lib ||
      emitStage == Stage::exe) {
    llvm::Error error = llvm::Error::success();
    if (emitStage == Stage::obj)
      error = tad::driver::emitObjectFile(module, outputFilename,
                                          codegenThreads);
    else if (emitStage == Stage::lib)
      error = tad::driver::linkSharedLibrary(module, signatures, outputFilename,
                                             inputFilename, cuda,
                                             codegenThreads);
    else
      error = tad::driver::linkExecutable(module, *signature, outputFilename,
                                          cuda, codegenThreads);
    if (error) {
      llvm::errs() << "tadc: error: " << llvm::toString(std::move(error))
                   << "\n";
      return mlir::failure();
    }
    return mlir::success();
  }
  if (emitStage == Stage::run) {
    if (threads > tad::rt::kMaxThreads) {
      llvm::errs() << "tadc: error: --threads: " << threads
                   << " is more than the largest allowed, "
                   << tad::rt::kMaxThreads << "\n";
      return mlir::failure();
    }
    tad::rt::RunOptions options;
    if (!parseInputFiles(options))
      return mlir::failure();
    options.inputDir = inputDir;
    options.seed = seed;
    options.outputDir = outputDir;
    options.statsJson = statsJson;
    options.memoryTrace = memoryTrace;
    options.convertInputs = convertInputs;
    options.repeat = repeat;
    options.threads = threads;
    options.cuda = cuda;
    os.flush();
    if (llvm::Error error =
            tad::driver::runEntry(module, *signature, options, jitLLVMIR)) {
      llvm::errs() << "tadc: error: " << llvm::toString(std::move(error))
                   << "\n";
      return mlir::failure();
    }
    return mlir::success();
  }
  if (emitStage == Stage::llvmir) {
    // (GPU translations are in the registry: tad::registerAllDialects.)
    mlir::registerBuiltinDialectTranslation(*module->getContext());
    mlir::registerLLVMDialectTranslation(*module->getContext());
    llvm::LLVMContext llvmContext;
    auto llvmModule = mlir::translateModuleToLLVMIR(module, llvmContext);
    if (!llvmModule)
      return mlir::failure();
    llvmModule->print(os, nullptr);
    return mlir::success();
  }
  module->print(os);
  os << "\n";
  return mlir::success();
}

/// --entry as given: the compile of a generic entry renames it to its
/// instance, and --split-input-file compiles each chunk from the start.
static const std::string &requestedEntry() {
  static const std::string requested = entry;
  return requested;
}

/// Where imports are looked for after the importing file's folder: each
/// --import-path, then tad's library ($TAD_STDLIB_DIR overrides it).
static std::vector<std::string> getImportPath() {
  std::vector<std::string> path(importPaths.begin(), importPaths.end());
  const char *stdlib = std::getenv("TAD_STDLIB_DIR");
  path.push_back(stdlib && *stdlib ? stdlib : TAD_STDLIB_DIR);
  return path;
}

/// The instances of generic functions that the command line asks for
/// (tad::driver::addInstanceRequests).
static mlir::LogicalResult
getInstanceRequests(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                    tad::lang::FrontendOptions &frontend,
                    bool &entryRequested) {
  tad::driver::InstanceOptions options;
  options.entry = entry;
  options.dims.assign(dimSizes.begin(), dimSizes.end());
  options.instantiations.assign(instantiations.begin(), instantiations.end());
  options.inputDir = inputDir;
  options.readInputs =
      emitStage == Stage::run || !inputFiles.empty() || !inputDir.empty();
  tad::rt::RunOptions run;
  if (!parseInputFiles(run))
    return mlir::failure();
  options.inputFiles = run.inputFiles;
  // Whether the entry is generic needs the program: the compile parses it
  // again, which is cheap against the compile.
  std::unique_ptr<tad::lang::Module> parsed;
  if (!entry.empty()) {
    std::string ignored;
    llvm::raw_string_ostream quiet(ignored);
    parsed = tad::lang::parseOnly(sourceMgr, quiet, bufferId, frontend);
  }
  if (llvm::Error error = tad::driver::addInstanceRequests(
          parsed.get(), options, frontend.requests, entryRequested)) {
    llvm::errs() << "tadc: error: " << llvm::toString(std::move(error))
                 << "\n";
    return mlir::failure();
  }
  return mlir::success();
}

/// The files the compile read, by absolute path, for --depfile: the input,
/// then each import in the order it was loaded.
static std::vector<std::string> filesRead;
static llvm::StringSet<> filesSeen;

static void recordFilesRead(const llvm::SourceMgr &sourceMgr) {
  for (unsigned id = 1; id <= sourceMgr.getNumBuffers(); ++id) {
    llvm::StringRef name = sourceMgr.getMemoryBuffer(id)->getBufferIdentifier();
    if (name.empty() || name == "<stdin>")
      continue;
    llvm::SmallString<256> path(name);
    llvm::sys::fs::make_absolute(path);
    llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
    if (filesSeen.insert(path).second)
      filesRead.push_back(path.str().str());
  }
}

/// Writes --depfile: `OUTPUT: FILE ...`, spaces and '#' escaped as make
/// reads them.
static bool writeDepFile() {
  auto escape = [](llvm::StringRef path) {
    std::string out;
    for (char c : path) {
      if (c == ' ' || c == '#')
        out += '\\';
      if (c == '$')
        out += '$';
      out += c;
    }
    return out;
  };
  std::string text = escape(outputFilename) + ":";
  for (const std::string &file : filesRead)
    text += " \\\n  " + escape(file);
  text += "\n";
  std::string error;
  if (!tad::rt::makeParentFolders(depFile, error) ||
      !tad::rt::writeTextFile(depFile, text, error)) {
    llvm::errs() << "tadc: error: --depfile: " << error << "\n";
    return false;
  }
  return true;
}

/// Compiles one buffer (the whole input, or one chunk of it) and prints the
/// requested stage to `os`. `source` is the whole input: diagnostics point
/// into it, so that line numbers stay those of the file.
static mlir::LogicalResult
processBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
              llvm::MemoryBufferRef source, llvm::raw_ostream &os,
              mlir::DialectRegistry &registry) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(
                                   source, /*RequiresNullTerminator=*/false),
                               llvm::SMLoc());
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());

  mlir::MLIRContext context(registry);
  // Diagnostics point at source locations; the IR of a whole function
  // after them would bury the message.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  // MLIR diagnostics (a parse error in .mlir input, a verifier failure)
  // print with the source line, like the frontend's own errors.
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  // A diagnostic without a location is about the command line (a name in
  // --entry or --checkpoint-calls that the program lacks): it reads as
  // tadc's own.
  mlir::ScopedDiagnosticHandler unlocated(
      &context, [](mlir::Diagnostic &diag) -> mlir::LogicalResult {
        if (!llvm::isa<mlir::UnknownLoc>(diag.getLocation()))
          return mlir::failure();
        auto print = [](mlir::Diagnostic &d) {
          llvm::StringRef kind =
              d.getSeverity() == mlir::DiagnosticSeverity::Error     ? "error"
              : d.getSeverity() == mlir::DiagnosticSeverity::Warning ? "warning"
              : d.getSeverity() == mlir::DiagnosticSeverity::Note    ? "note"
                                                                     : "remark";
          llvm::errs() << "tadc: " << kind << ": " << d.str() << "\n";
        };
        print(diag);
        for (mlir::Diagnostic &note : diag.getNotes())
          print(note);
        return mlir::success();
      });

  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (getInputKind() == InputKind::tad) {
    tad::lang::FrontendOptions frontend;
    frontend.importPath = getImportPath();
    bool entryRequested = false;
    entry.setValue(requestedEntry());
    if (mlir::failed(
            getInstanceRequests(sourceMgr, bufferId, frontend, entryRequested)))
      return mlir::failure();
    std::vector<std::string> instanceNames;
    if (emitStage == Stage::ast) {
      std::unique_ptr<tad::lang::Module> ast = tad::lang::parseAndCheck(
          sourceMgr, llvm::errs(), bufferId, frontend, &instanceNames);
      if (!ast)
        return mlir::failure();
      tad::lang::dumpAST(*ast, sourceMgr, os);
      return mlir::success();
    }
    module = tad::lang::compileToTad(sourceMgr, context, llvm::errs(), bufferId,
                                     frontend, &instanceNames);
    recordFilesRead(sourceMgr);
    // --entry of a generic function names its instance from here on.
    if (module && entryRequested)
      entry.setValue(instanceNames.front());
  } else {
    if (emitStage == Stage::ast) {
      llvm::errs() << "tadc: error: --emit=ast needs .tad input\n";
      return mlir::failure();
    }
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
    recordFilesRead(sourceMgr);
  }
  if (!module)
    return mlir::failure();
  tad::PipelineOptions options;
  if (mlir::failed(getPipelineOptions(options)))
    return mlir::failure();
  // What a compiled entry takes and returns is read before the pipeline,
  // which renames and lowers it.
  std::vector<tad::rt::EntrySpec> signatures;
  bool compiled = emitStage >= Stage::obj;
  if ((emitStage == Stage::run || emitStage == Stage::exe) && entry.empty()) {
    llvm::errs() << "tadc: error: "
                 << (emitStage == Stage::run ? "run" : "--emit=exe")
                 << " needs --entry NAME\n";
    return mlir::failure();
  }
  if (compiled && emitStage != Stage::run && outputFilename == "-") {
    llvm::errs() << "tadc: error: --emit=obj, lib and exe need -o FILE\n";
    return mlir::failure();
  }
  if (compiled) {
    std::vector<std::string> names;
    if (!entry.empty())
      names.push_back(entry);
    else
      for (auto fn : module->getOps<mlir::func::FuncOp>())
        if (tad::driver::isEntryPoint(fn))
          names.push_back(fn.getName().str());
    for (const std::string &name : names) {
      auto read = tad::driver::getSignature(*module, name);
      if (!read) {
        llvm::errs() << "tadc: error: " << llvm::toString(read.takeError())
                     << "\n";
        return mlir::failure();
      }
      signatures.push_back(std::move(*read));
    }
    // A library exports each function under its .tad name.
    if (emitStage == Stage::lib &&
        mlir::failed(tad::driver::checkLibraryNames(*module, signatures)))
      return mlir::failure();
  }
  if (memoryTable) {
    if (entry.empty() || rematBudget.getNumOccurrences() || memPoints > 64) {
      llvm::errs() << "tadc: error: "
                   << (entry.empty() ? "tadc mem needs --entry NAME"
                       : memPoints > 64
                           ? "--mem-points must be at most 64"
                           : "tadc mem chooses its budgets: no --remat-budget")
                   << "\n";
      return mlir::failure();
    }
    if (llvm::Error error = tad::driver::describeMemory(
            *module, options, entry, memPoints, os, memJson)) {
      llvm::errs() << "tadc: error: " << llvm::toString(std::move(error))
                   << "\n";
      return mlir::failure();
    }
    return mlir::success();
  }
  if (budgetPercent > 0 && mlir::failed(resolveBudgetPercent(*module, options)))
    return mlir::failure();
  if (mlir::failed(runPipeline(*module, options)))
    return mlir::failure();
  return emitResult(*module, signatures, os);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // `tadc run FILE ...` is `tadc FILE --emit=run ...`.
  std::vector<char *> args(argv, argv + argc);
  static char runFlag[] = "--emit=run", adFlag[] = "--emit=ad";
  if (args.size() > 1 && llvm::StringRef(args[1]) == "run")
    args[1] = runFlag;
  // `tadc mem FILE ...` plans to AD, as --emit=ad does, at several budgets.
  if (args.size() > 1 && llvm::StringRef(args[1]) == "mem") {
    args[1] = adFlag;
    memoryTable = true;
  }
  claimOptionNames();
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
      option->addCategory(mlirCategory);
  cl::HideUnrelatedOptions({&tadcCategory, &mlirCategory});
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

  if (printBuiltins) {
    tad::lang::printBuiltinReference(llvm::outs());
    return 0;
  }

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
  // The folders of the files that the compile writes are made first, as
  // tadc run makes those of its results and measurements (the runtime's
  // makeParentFolders), so that a path that cannot be written fails before
  // the work, not after it.
  for (auto [flag, file] : {std::pair{"--remat-report", &rematReport},
                            std::pair{"--remat-graph", &rematGraph},
                            std::pair{"--mem-json", &memJson},
                            std::pair{"--depfile", &depFile},
                            std::pair{"--jit-llvm-ir", &jitLLVMIR}})
    if (!file->empty() && !tad::rt::makeParentFolders(*file, error)) {
      llvm::errs() << "tadc: error: " << flag << ": " << error << "\n";
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
  if (!depFile.empty() && !writeDepFile())
    return 1;
  output->keep();
  return 0;
}
