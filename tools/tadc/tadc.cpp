//===- tadc.cpp - the tad compiler driver ---------------------------------===//
//
// `tadc FILE.tad --emit=STAGE` runs the pipeline up to STAGE and prints the
// result. The stages are ordered as in Toy's toyc; later stages are added as
// the pipeline grows (see docs/tadc.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/tad/TadDialect.h"
#include "tad/Driver/Aot.h"
#include "tad/Driver/JitRunner.h"
#include "tad/Driver/Pipeline.h"
#include "tad/Driver/Signature.h"
#include "tad/Frontend/Frontend.h"
#include "tad/InitAll.h"
#include "tad/Remat/ByteSize.h"
#include "tad/Transforms/Passes.h"
#include "tad/Transforms/Remat.h"

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
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <limits>

namespace cl = llvm::cl;

namespace {
using tad::driver::Stage;
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

cl::opt<std::string> entry(
    "entry",
    cl::desc("The function to run, or to keep when lowering (the others it "
             "does not call are dropped)"),
    cl::value_desc("name"), cl::cat(tadcCategory));

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

cl::opt<std::string> outputDir("output-dir",
                               cl::desc("Write result<i>.npy files to DIR"),
                               cl::value_desc("DIR"), cl::cat(tadcCategory));

// LLVM owns the name --stats-json (for its statistics), so main() rewrites
// --stats-json to this option's name before parsing.
cl::opt<std::string> statsJson(
    "run-stats-json",
    cl::desc("Write wall time per call, peak bytes and bytes live after the "
             "call, as the runtime allocator measured them, to FILE"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<std::string> memoryTrace(
    "memory-trace",
    cl::desc("Write the live bytes of the (last) call, after every "
             "allocation and free, as chrome://tracing JSON to FILE"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<unsigned> repeat("repeat",
                         cl::desc("Call the entry N times (for timing)"),
                         cl::init(1), cl::cat(tadcCategory));

cl::opt<unsigned> threads("blas-threads",
                          cl::desc("BLAS threads (default: OpenBLAS's own)"),
                          cl::init(0), cl::cat(tadcCategory));

enum class MatmulImpl { blas, loops };
cl::opt<MatmulImpl> matmulImpl(
    "matmul", cl::desc("How f32 and f64 matmuls run on the CPU"),
    cl::values(clEnumValN(MatmulImpl::blas, "blas",
                          "a call of the runtime's OpenBLAS GEMM (default)"),
               clEnumValN(MatmulImpl::loops, "loops",
                          "loops generated by MLIR (for comparison)")),
    cl::init(MatmulImpl::blas), cl::cat(tadcCategory));

cl::opt<tad::driver::Target> target(
    "target", cl::desc("The machine the compiled code runs on"),
    cl::values(clEnumValN(tad::driver::Target::cpu, "cpu",
                          "the host CPU (default)"),
               clEnumValN(tad::driver::Target::cuda, "cuda",
                          "an NVIDIA GPU, through the CUDA driver "
                          "(docs/gpu.md)"),
               clEnumValN(tad::driver::Target::cudaEmulator, "cuda-emulator",
                          "the GPU kernels of cuda, run thread by thread "
                          "on the CPU (for tests without a GPU)")),
    cl::init(tad::driver::Target::cpu), cl::cat(tadcCategory));

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

enum class CudaMatmul { kernel, cublas };
cl::opt<CudaMatmul>
    cudaMatmul("cuda-matmul",
               cl::desc("How f32 and f64 matmuls run with --target=cuda"),
               cl::values(clEnumValN(CudaMatmul::kernel, "kernel",
                                     "generated kernels (default)"),
                          clEnumValN(CudaMatmul::cublas, "cublas",
                                     "cuBLAS, loaded when the program runs")),
               cl::init(CudaMatmul::kernel), cl::cat(tadcCategory));

cl::opt<bool> optimize("opt", cl::desc("Canonicalize and CSE the tad-level IR"),
                       cl::init(false), cl::cat(tadcCategory));

cl::opt<int64_t> loopSnapshots(
    "loop-snapshots",
    cl::desc("Reverse loops by binomial checkpointing (revolve) with at "
             "most N snapshots of their carried values; 0 (the default) "
             "keeps every iteration's"),
    cl::value_desc("N"), cl::init(0), cl::cat(tadcCategory));

cl::list<std::string> checkpointCalls(
    "checkpoint-calls",
    cl::desc("Checkpoint every call of these functions, as if each were "
             "declared @checkpoint fn"),
    cl::value_desc("f,g,..."), cl::CommaSeparated, cl::cat(tadcCategory));

cl::opt<std::string> rematBudget(
    "remat-budget",
    cl::desc("Schedule every derivative within this many bytes (suffixes "
             "KiB, MiB, GiB), recomputing forward values where needed, and "
             "print the remat report"),
    cl::value_desc("bytes"), cl::cat(tadcCategory));

cl::opt<tad::RematPolicy> rematPolicy(
    "remat-policy", cl::desc("What the remat solver may recompute"),
    cl::values(clEnumValN(tad::RematPolicy::automatic, "auto",
                          "whatever costs least within the budget (default)"),
               clEnumValN(tad::RematPolicy::saveAll, "save-all",
                          "nothing: the budget must hold every value"),
               clEnumValN(tad::RematPolicy::saveMatmuls, "save-matmuls",
                          "anything but matmul results")),
    cl::init(tad::RematPolicy::automatic), cl::cat(tadcCategory));

cl::opt<std::string> rematReport(
    "remat-report",
    cl::desc("Write the remat report (decisions and memory timeline) as "
             "JSON to FILE"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

cl::opt<std::string> rematGraph(
    "remat-graph",
    cl::desc("Write each derivative's remat graph as node-link JSON, the "
             "input of tad-remat, to FILE"),
    cl::value_desc("FILE"), cl::cat(tadcCategory));

/// What the remat pass decided, printed after the pipeline ran.
tad::RematReport rematResult;
/// Whether tadc chose the loops' snapshot count for the budget.
bool loopsChosen = false;
} // namespace

/// The lowering options from the command line; false (after printing the
/// error) when they are invalid.
static bool getLoweringOptions(tad::driver::LoweringOptions &options) {
  options.target = target;
  options.blasMatmul = matmulImpl == MatmulImpl::blas;
  options.cublasMatmul = cudaMatmul == CudaMatmul::cublas;
  if (!cudaArchs.empty())
    options.cudaArchs.assign(cudaArchs.begin(), cudaArchs.end());
  const char *root = std::getenv("CUDA_ROOT");
  options.cudaToolkit = !cudaPath.empty() ? cudaPath.getValue()
                        : root && *root   ? std::string(root)
                                          : std::string("/usr/local/cuda");
  if (target != tad::driver::Target::cuda)
    return true;
  std::string error;
  if (!tad::driver::validateCudaArchs(options, error)) {
    llvm::errs() << "tadc: error: " << error << "\n";
    return false;
  }
  // The toolkit path goes into a textual pass pipeline.
  if (llvm::StringRef(options.cudaToolkit).find_first_of(" ,{}=") !=
      llvm::StringRef::npos) {
    llvm::errs() << "tadc: error: --cuda-path: '" << options.cudaToolkit
                 << "' has a space or one of ,{}=; use a path without them\n";
    return false;
  }
  return true;
}

static InputKind getInputKind() {
  if (inputKind.getNumOccurrences())
    return inputKind;
  return llvm::StringRef(inputFilename).ends_with(".mlir") ? InputKind::mlir
                                                           : InputKind::tad;
}

/// The remat pass's configuration from the command line, for `module`.
static std::optional<tad::RematConfig> getRematConfig(mlir::ModuleOp module) {
  if (emitStage < Stage::ad) {
    llvm::errs() << "tadc: error: --remat-budget needs --emit=ad or later\n";
    return std::nullopt;
  }
  tad::RematConfig config;
  config.policy = rematPolicy;
  // With an entry that is a derivative, the budget is the entry's; the
  // derivatives it calls (a custom rule's pullback may) count within it.
  // (Compiled outputs rename functions after remat.)
  const std::string &name = entry;
  if (auto fn = module.lookupSymbol<mlir::func::FuncOp>(name);
      !entry.empty() && fn && fn->hasAttr(tad::TadDialect::kDerivativeAttrName))
    config.functions.push_back(name);
  std::string error;
  if (!tad::remat::parseByteSize(rematBudget, config.budget, error)) {
    llvm::errs() << "tadc: error: --remat-budget: " << error << "\n";
    return std::nullopt;
  }
  return config;
}

/// The loops whose snapshots tadc chooses: those with constant bounds and
/// at least two trips, in walk order (the same in a clone of the module).
static std::vector<std::pair<mlir::scf::ForOp, int64_t>>
choosableLoops(mlir::ModuleOp module) {
  std::vector<std::pair<mlir::scf::ForOp, int64_t>> loops;
  module.walk([&](mlir::scf::ForOp loop) {
    auto lower = mlir::getConstantIntValue(loop.getLowerBound());
    auto upper = mlir::getConstantIntValue(loop.getUpperBound());
    if (lower && upper && *upper - *lower >= 2)
      loops.push_back({loop, *upper - *lower});
  });
  return loops;
}

/// Marks each of choosableLoops(module) with its snapshot count (`counts`
/// in the same order) for AD; returns the loops.
static std::vector<std::pair<mlir::scf::ForOp, int64_t>>
markLoopSnapshots(mlir::ModuleOp module, const std::vector<int64_t> &counts) {
  auto loops = choosableLoops(module);
  mlir::Builder builder(module.getContext());
  for (size_t i = 0; i < counts.size(); ++i)
    loops[i].first->setAttr(tad::TadDialect::kLoopSnapshotsAttrName,
                            builder.getI64IntegerAttr(counts[i]));
  return loops;
}

/// What AD and the remat pass make of the module with these snapshots per
/// loop (choosableLoops' order), run on a copy, silently.
struct LoopTrial {
  bool fits = false;
  int64_t minimum = std::numeric_limits<int64_t>::max(); // when it does not
  double cost = 0; // the predicted compute of the derivatives, when it does
};

static LoopTrial tryLoopSnapshots(mlir::ModuleOp module,
                                  mlir::MLIRContext &context,
                                  const std::vector<int64_t> &counts) {
  mlir::OwningOpRef<mlir::ModuleOp> copy(module.clone());
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  LoopTrial trial;
  std::optional<tad::RematConfig> config = getRematConfig(*copy);
  if (!config)
    return trial;
  markLoopSnapshots(*copy, counts);
  mlir::PassManager pm(&context);
  pm.addPass(tad::createAutoDiff());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  tad::RematReport report;
  pm.addPass(tad::createRematPass(*config, &report));
  trial.fits = mlir::succeeded(pm.run(*copy));
  if (trial.fits)
    for (const tad::RematFunctionReport &f : report.functions)
      trial.cost += f.cost;
  else if (report.feasibleMinimum > 0)
    // A failure other than the budget (none is known) has no minimum; it
    // ranks last, and the real compile reports it.
    trial.minimum = report.feasibleMinimum;
  return trial;
}

/// With a budget and loops, and no --loop-snapshots: the snapshots of each
/// loop, as many as the budget allows. The candidates per loop are a full
/// tape, then 64, 32, ..., 1 below its trip count. The same count for every
/// loop first, the most that fits; then, while some loop can take the next
/// larger candidate and still fit, the one such step that leaves the least
/// predicted compute. When no count fits, the one whose feasible minimum is
/// smallest (for a short loop, a full tape can need less than one
/// snapshot), so that the real compile's error names the true minimum.
/// Returns one count per choosableLoops entry (0: a full tape).
static std::vector<int64_t> chooseLoopSnapshots(mlir::ModuleOp module,
                                                mlir::MLIRContext &context) {
  auto loops = choosableLoops(module);
  if (loops.empty())
    return {};
  loopsChosen = true;
  int64_t longest = 0;
  for (auto &loop : loops)
    longest = std::max(longest, loop.second);
  // Candidates from the most memory (a full tape) to the least.
  auto candidatesBelow = [](int64_t trips) {
    std::vector<int64_t> candidates = {0};
    for (int64_t n = 64; n >= 1; n /= 2)
      if (n < trips)
        candidates.push_back(n);
    return candidates;
  };
  // A count of at least a loop's trips is a full tape.
  auto normalize = [&](std::vector<int64_t> counts) {
    for (size_t i = 0; i < loops.size(); ++i)
      if (counts[i] >= loops[i].second)
        counts[i] = 0;
    return counts;
  };
  std::vector<int64_t> best;
  int64_t bestMinimum = std::numeric_limits<int64_t>::max();
  double cost = 0;
  for (int64_t snapshots : candidatesBelow(longest)) {
    std::vector<int64_t> counts =
        normalize(std::vector<int64_t>(loops.size(), snapshots));
    LoopTrial trial = tryLoopSnapshots(module, context, counts);
    if (trial.fits) {
      best = counts;
      bestMinimum = 0;
      cost = trial.cost;
      break;
    }
    if (best.empty() || trial.minimum < bestMinimum) {
      bestMinimum = trial.minimum;
      best = counts;
    }
  }
  if (bestMinimum > 0 || loops.size() == 1)
    return best;
  // More snapshots, loop by loop, where the budget leaves room.
  while (true) {
    std::vector<int64_t> step;
    double stepCost = cost;
    for (size_t i = 0; i < loops.size(); ++i) {
      if (best[i] == 0)
        continue;
      std::vector<int64_t> counts = best;
      counts[i] =
          best[i] * 2 >= loops[i].second || best[i] >= 64 ? 0 : best[i] * 2;
      LoopTrial trial = tryLoopSnapshots(module, context, counts);
      if (trial.fits && (step.empty() || trial.cost < stepCost)) {
        step = counts;
        stepCost = trial.cost;
      }
    }
    if (step.empty())
      return best;
    best = step;
    cost = stepCost;
  }
}

/// Runs the passes between the frontend and the requested stage.
static mlir::LogicalResult runPipeline(mlir::ModuleOp module,
                                       mlir::MLIRContext &context) {
  if (emitStage > Stage::tad && !entry.empty() &&
      mlir::failed(tad::driver::restrictToEntry(module, entry)))
    return mlir::failure();
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
    return mlir::failure();
  mlir::applyDefaultTimingPassManagerCLOptions(pm);
  if (optimize || emitStage > Stage::tad) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
  // Remat after CSE, which would merge its recomputed clones back into the
  // originals; nothing later CSEs tensor ops.
  // The lowering checks what remat planned: every derivative's buffers
  // within the budget, or the compile fails.
  tad::driver::LoweringOptions lowering;
  if (!rematBudget.empty()) {
    std::optional<tad::RematConfig> config = getRematConfig(module);
    if (!config)
      return mlir::failure();
    config->graphFile = rematGraph;
    config->loopSnapshotsChosen = loopsChosen;
    pm.addPass(tad::createRematPass(*config, &rematResult));
    lowering.budget = config->budget;
  }
  // Compiled outputs export C functions named as in the .tad program; the
  // compiled code itself uses internal names (`__tad_f`), given after remat
  // so that its messages use the program's.
  if (emitStage == Stage::obj || emitStage == Stage::lib ||
      emitStage == Stage::exe)
    pm.addPass(tad::driver::createPrefixFunctionNamesPass());
  if (!getLoweringOptions(lowering))
    return mlir::failure();
  if (emitStage > Stage::tad &&
      mlir::failed(tad::driver::addLoweringPasses(pm, emitStage, lowering)))
    return mlir::failure();
  return pm.run(module);
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

/// Prints the remat report for people (on stdout, or on stderr when the IR
/// goes to stdout) and writes it as JSON if asked.
static mlir::LogicalResult writeRematReport() {
  bool irOnStdout = emitStage <= Stage::llvmir && outputFilename == "-";
  tad::printRematReport(rematResult, irOnStdout ? llvm::errs() : llvm::outs());
  if (rematReport.empty())
    return mlir::success();
  std::string error;
  auto file = mlir::openOutputFile(rematReport, &error);
  if (!file) {
    llvm::errs() << "tadc: error: --remat-report: " << error << "\n";
    return mlir::failure();
  }
  file->os() << tad::rematReportToJson(rematResult) << "\n";
  file->keep();
  return mlir::success();
}

/// Prints the module at the requested stage, or runs it, or writes the
/// compiled file.
static mlir::LogicalResult
emitResult(mlir::ModuleOp module, llvm::ArrayRef<tad::rt::EntrySpec> signatures,
           llvm::raw_ostream &os) {
  // The plan's peak, which tad-buffer-peak left on the lowered entry.
  std::vector<tad::rt::EntrySpec> planned(signatures.begin(), signatures.end());
  for (tad::rt::EntrySpec &spec : planned) {
    // (Compiled outputs call it by its internal name.)
    mlir::Operation *fn = module.lookupSymbol(spec.function);
    if (!fn)
      fn = module.lookupSymbol(tad::driver::getInternalName(spec.function));
    if (!fn)
      continue;
    if (auto peak = fn->getAttrOfType<mlir::IntegerAttr>(
            tad::TadDialect::kBufferPeakAttrName))
      spec.plannedPeak = peak.getInt();
    spec.plannedPeakIsBound =
        fn->hasAttr(tad::TadDialect::kBufferPeakBoundAttrName);
  }
  signatures = planned;
  const tad::rt::EntrySpec *signature =
      signatures.empty() ? nullptr : &signatures.front();
  bool cuda = target == tad::driver::Target::cuda;
  if (emitStage == Stage::obj || emitStage == Stage::lib ||
      emitStage == Stage::exe) {
    llvm::Error error = llvm::Error::success();
    if (emitStage == Stage::obj)
      error = tad::driver::emitObjectFile(module, outputFilename);
    else if (emitStage == Stage::lib)
      error = tad::driver::linkSharedLibrary(module, signatures, outputFilename,
                                             inputFilename, cuda);
    else
      error =
          tad::driver::linkExecutable(module, *signature, outputFilename, cuda);
    if (error) {
      llvm::errs() << "tadc: error: " << llvm::toString(std::move(error))
                   << "\n";
      return mlir::failure();
    }
    return mlir::success();
  }
  if (emitStage == Stage::run) {
    tad::rt::RunOptions options;
    if (!parseInputFiles(options))
      return mlir::failure();
    options.inputDir = inputDir;
    options.seed = seed;
    options.outputDir = outputDir;
    options.statsJson = statsJson;
    options.memoryTrace = memoryTrace;
    options.repeat = repeat;
    options.threads = threads;
    options.cuda = cuda;
    os.flush();
    if (llvm::Error error =
            tad::driver::runEntry(module, *signature, options)) {
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
  return mlir::success();
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
    module =
        tad::lang::compileToTad(sourceMgr, context, llvm::errs(), bufferId);
  } else {
    if (emitStage == Stage::ast) {
      llvm::errs() << "tadc: error: --emit=ast needs .tad input\n";
      return mlir::failure();
    }
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return mlir::failure();
  // AD first: it needs every function and every custom rule, and it gives
  // derivatives the bodies that make them runnable entries.
  if (emitStage < Stage::ad && !checkpointCalls.empty()) {
    llvm::errs() << "tadc: error: --checkpoint-calls needs --emit=ad or "
                    "later\n";
    return mlir::failure();
  }
  if (emitStage >= Stage::ad && !checkpointCalls.empty()) {
    for (const std::string &name : checkpointCalls) {
      auto fn = module->lookupSymbol<mlir::func::FuncOp>(name);
      if (fn && !fn.isDeclaration())
        continue;
      std::string names;
      for (auto f : module->getOps<mlir::func::FuncOp>())
        if (!f.isDeclaration())
          names += (names.empty() ? "" : ", ") + f.getName().str();
      llvm::errs() << "tadc: error: --checkpoint-calls: "
                   << (fn ? "'" + name +
                                "' is a derivative, whose body AD "
                                "writes; checkpoint its primal"
                          : "no function '" + name + "'")
                   << "; the functions with bodies are: " << names << "\n";
      return mlir::failure();
    }
    mlir::PassManager pm(&context);
    tad::CheckpointCallsOptions options;
    options.functions.assign(checkpointCalls.begin(), checkpointCalls.end());
    pm.addPass(tad::createCheckpointCalls(options));
    if (mlir::failed(pm.run(*module)))
      return mlir::failure();
  }
  if (emitStage >= Stage::ad) {
    mlir::PassManager ad(&context);
    if (mlir::failed(mlir::applyPassManagerCLOptions(ad)))
      return mlir::failure();
    if (loopSnapshots < 0) {
      llvm::errs() << "tadc: error: --loop-snapshots must be 0 or more, got "
                   << loopSnapshots << "\n";
      return mlir::failure();
    }
    tad::AutoDiffOptions adOptions;
    adOptions.loopSnapshots = loopSnapshots;
    if (!rematBudget.empty() && !loopSnapshots.getNumOccurrences()) {
      std::vector<int64_t> counts = chooseLoopSnapshots(*module, context);
      auto loops = markLoopSnapshots(*module, counts);
      for (size_t i = 0; i < counts.size(); ++i)
        rematResult.loops.push_back(
            {tad::describeLocation(loops[i].first.getLoc()), loops[i].second,
             counts[i]});
    }
    ad.addPass(tad::createAutoDiff(adOptions));
    if (mlir::failed(ad.run(*module)))
      return mlir::failure();
    // The counts were for AD; the primal loops need not carry them on.
    module->walk([](mlir::scf::ForOp loop) {
      loop->removeAttr(tad::TadDialect::kLoopSnapshotsAttrName);
    });
  }
  // What a compiled entry takes and returns is read before lowering.
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
        if (fn.isPublic() && !fn.isDeclaration())
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
  }
  if (mlir::failed(runPipeline(*module, context)))
    return mlir::failure();
  if (!rematBudget.empty() && mlir::failed(writeRematReport()))
    return mlir::failure();
  return emitResult(*module, signatures, os);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // `tadc run FILE ...` is `tadc FILE --emit=run ...`.
  std::vector<char *> args(argv, argv + argc);
  static char runFlag[] = "--emit=run";
  if (args.size() > 1 && llvm::StringRef(args[1]) == "run")
    args[1] = runFlag;
  std::vector<std::string> rewritten;
  rewritten.reserve(args.size());
  for (char *&arg : args) {
    llvm::StringRef a(arg);
    for (llvm::StringRef prefix : {"--stats-json", "-stats-json"})
      if (a == prefix || a.starts_with((prefix + "=").str())) {
        rewritten.push_back(
            ("--run-stats-json" + a.drop_front(prefix.size())).str());
        arg = rewritten.back().data();
        break;
      }
  }
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
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "tadc (tad) 0.1.0, built with LLVM/MLIR " << LLVM_VERSION_STRING
       << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "tadc: the tad compiler\n\n"
      "  tadc model.tad --emit=tad     print the tad dialect of model.tad\n"
      "  tadc model.tad --emit=ast     print the checked syntax tree\n"
      "  tadc run model.tad --entry f  JIT-compile and call f\n"
      "                                (--stats-json=FILE is "
      "--run-stats-json)\n"
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
