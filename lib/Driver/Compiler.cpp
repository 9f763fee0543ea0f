//===- Compiler.cpp - one tadc compile, as a library call -----------------===//
//
// tadc's work after its command line (Compiler.h): for each input buffer,
// the frontend or the MLIR parser, the instance requests, the pipeline
// options, a relative budget resolved, the pipeline, and the result
// printed, written, linked or run.
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/Compiler.h"

#include "tad/Driver/Aot.h"
#include "tad/Driver/CNames.h"
#include "tad/Driver/Config.h"
#include "tad/Driver/Layout.h"
#include "tad/Driver/Instances.h"
#include "tad/Driver/JitRunner.h"
#include "tad/Driver/Signature.h"
#include "tad/Driver/MemoryTable.h"
#include "tad/Pipeline/Plan.h"
#include "tad/Frontend/Frontend.h"
#include "tad/InitAll.h"
#include "tad/Remat/ByteSize.h"
#include "tad/runtime/Output.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace tad::driver;

/// `message` with each "option 'NAME'" that names one of tadc's flags
/// spelled as that flag, --NAME.
static std::string spellOptionsAsFlags(llvm::StringRef message) {
  std::string out;
  while (true) {
    size_t at = message.find("option '");
    if (at == llvm::StringRef::npos)
      break;
    llvm::StringRef rest = message.drop_front(at + 8);
    llvm::StringRef name = rest.take_until([](char c) { return c == '\''; });
    if (name.size() == rest.size() ||
        !llvm::cl::getRegisteredOptions().count(name)) {
      out += message.take_front(at + 8);
      message = rest;
      continue;
    }
    out += message.take_front(at);
    out += "--" + name.str();
    message = rest.drop_front(name.size() + 1);
  }
  return out + message.str();
}

namespace {
/// How tadc prints MLIR's diagnostics, while it lives: with the source
/// line (a parse error in .mlir input, a verifier failure), like the
/// frontend's own errors; without a location as tadc's own (a name in
/// --entry or --checkpoint-calls that the program lacks); and the passes'
/// options (option 'loop-snapshots') spelled as tadc's flags of those
/// names (--loop-snapshots).
class Diagnostics {
public:
  Diagnostics(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context)
      : located(sourceMgr, &context),
        unlocated(&context, printUnlocated),
        optionsAsFlags(&context, [this](mlir::Diagnostic &diag) {
          return spellOptions(diag);
        }) {}

private:
  static void print(mlir::Diagnostic &d) {
    llvm::StringRef kind =
        d.getSeverity() == mlir::DiagnosticSeverity::Error     ? "error"
        : d.getSeverity() == mlir::DiagnosticSeverity::Warning ? "warning"
        : d.getSeverity() == mlir::DiagnosticSeverity::Note    ? "note"
                                                               : "remark";
    llvm::errs() << "tadc: " << kind << ": " << spellOptionsAsFlags(d.str())
                 << "\n";
  }

  static mlir::LogicalResult printUnlocated(mlir::Diagnostic &diag) {
    if (!llvm::isa<mlir::UnknownLoc>(diag.getLocation()))
      return mlir::failure();
    print(diag);
    for (mlir::Diagnostic &note : diag.getNotes())
      print(note);
    return mlir::success();
  }

  mlir::LogicalResult spellOptions(mlir::Diagnostic &diag) {
    auto mentions = [](mlir::Diagnostic &d) {
      return llvm::StringRef(d.str()).contains("option '");
    };
    if (llvm::isa<mlir::UnknownLoc>(diag.getLocation()) ||
        (!mentions(diag) && llvm::none_of(diag.getNotes(), mentions)))
      return mlir::failure();
    located.emitDiagnostic(diag.getLocation(), spellOptionsAsFlags(diag.str()),
                           diag.getSeverity());
    for (mlir::Diagnostic &note : diag.getNotes())
      located.emitDiagnostic(note.getLocation(),
                             spellOptionsAsFlags(note.str()),
                             note.getSeverity());
    return mlir::success();
  }

  mlir::SourceMgrDiagnosticHandler located;
  // Registered after `located`, so asked before it.
  mlir::ScopedDiagnosticHandler unlocated, optionsAsFlags;
};

/// One compile: the options, and what it learns on the way (the entry's
/// instance name, a relative budget, the files it read).
class Compiler {
public:
  explicit Compiler(const CompileOptions &opts) : opts(opts) {}
  int run();

private:
  const CompileOptions &opts;
  /// The entry of the chunk being compiled: --entry, or the instance it
  /// names once a generic entry is instantiated.
  std::string entry;

  /// A --remat-budget given as a share of the entry's store-all peak (60%),
  /// else 0.

  /// Sets `options` from the command line; failure (after printing the error)
  /// when it is invalid.
  mlir::LogicalResult getPipelineOptions(tad::PipelineOptions &options) {
    auto fail = [](const llvm::Twine &message) {
      llvm::errs() << "tadc: error: " << message << "\n";
      return mlir::failure();
    };
    if (opts.stage < Stage::ad && !opts.checkpointCalls.empty())
      return fail("--checkpoint-calls needs --emit=ad or later");
    if (opts.stage < Stage::ad && opts.dataParallel)
      return fail("--data-parallel needs --emit=ad or later");
    if (opts.stage != Stage::run && !opts.jitLLVMIR.empty())
      return fail("--jit-llvm-ir needs tadc run");
    // Given at all, even empty (`--remat-budget=`), it must parse: an empty
    // value once meant no budget, silently.
    bool budgeted = opts.rematBudget.isSet();
    if (opts.stage < Stage::ad && budgeted)
      return fail("--remat-budget needs --emit=ad or later");
    if (opts.codegenThreads > 256)
      return fail("--codegen-threads must be at most 256, got " +
                  llvm::Twine(unsigned(opts.codegenThreads)));
    if (opts.loopSnapshots.value_or(0) < 0)
      return fail("--loop-snapshots must be 0 or more, got " +
                  llvm::Twine(opts.loopSnapshots.value_or(0)));
    options.stage = opts.stage <= Stage::tad      ? tad::PipelineStage::tad
                    : opts.stage == Stage::ad     ? tad::PipelineStage::ad
                    : opts.stage == Stage::linalg ? tad::PipelineStage::linalg
                                                  : tad::PipelineStage::llvm;
    options.optimize = opts.optimize;
    options.checkpointCalls = llvm::ArrayRef<std::string>(opts.checkpointCalls);
    options.dataParallel = opts.dataParallel;
    if (opts.stage > Stage::tad)
      options.entry = entry;
    if (budgeted) {
      // A share is resolved once the module exists (resolveBudgetShare): of
      // the entry's store-all peak, or of the program's one derivative.
      options.rematBudget = opts.rematBudget;
      // The report goes where the IR does not.
      bool irOnStdout =
          opts.stage <= Stage::llvmir && opts.outputFilename == "-";
      options.rematSummary = irOnStdout ? tad::ReportStream::standardError
                                        : tad::ReportStream::standardOutput;
    } else if (opts.stage > Stage::tad && !opts.memoryTable) {
      // Without one, the default policy: the least peak within a small
      // overhead (docs/remat.md). Its report is printed only when asked
      // for (--remat-report, or a budget or --remat-overhead given).
      options.rematBudget = tad::Budget::overhead(tad::kDefaultRematOverhead);
    }
    // Without a budget there is nothing to choose the loops' snapshots for.
    options.countRevolveActions = opts.countRevolveActions;
    options.loopResiduals = opts.loopResiduals;
    // (tadc mem plans under budgets: the loops' snapshots are chosen for
    // each.)
    options.loopSnapshots = opts.loopSnapshots.has_value() ||
                                    (!budgeted && !opts.memoryTable)
                                ? opts.loopSnapshots.value_or(0)
                                : int64_t(-1);
    options.rematPolicy = opts.rematPolicy;
    options.rematReport = opts.rematReport;
    options.rematGraph = opts.rematGraph;
    options.exportNames = opts.stage == Stage::obj ||
                          opts.stage == Stage::lib || opts.stage == Stage::exe;
    options.target = opts.target;
    options.matmul = opts.matmul;
    options.cudaArchs = llvm::ArrayRef<std::string>(opts.cudaArchs);
    options.cudaPath = opts.cudaPath;
    options.cudaMatmul = opts.cudaMatmul;
    options.cudaEmulatorReverse = opts.cudaEmulatorReverse;
    options.cudaSyncLaunches = opts.cudaSyncLaunches;
    if (opts.target == tad::Target::cuda && opts.cudaArchsGiven &&
        opts.cudaArchs.empty())
      return fail("--cuda-arch needs at least one architecture");
    if (opts.cudaEmulatorReverse && opts.target != tad::Target::cudaEmulator)
      return fail("--cuda-emulator-reverse needs --target=cuda-emulator");
    if (opts.cudaSyncLaunches && opts.target != tad::Target::cuda)
      return fail("--cuda-sync-launches needs --target=cuda");
    return mlir::success();
  }

  /// The threads that generate a library's or an executable's code (Aot.h;
  /// 0: by the module's size).
  unsigned codegenThreads = 0;

  /// The functions from which a module's passes run on MLIR's threads
  /// without a budget: 2,000 instances of a generic gradient spent 0.8 s
  /// in nested passes on one thread, 0.4 s on two.
  static constexpr size_t kThreadedFunctions = 256;

  /// Runs the passes between the frontend and the requested stage.
  mlir::LogicalResult runPipeline(mlir::ModuleOp module,
                                  const tad::PipelineOptions &options) {
    mlir::MLIRContext *context = module.getContext();
    // --mlir-disable-threading keeps code generation on one thread too.
    codegenThreads =
        context->isMultithreadingEnabled() ? unsigned(opts.codegenThreads) : 1;
    // MLIR's threads pay only where a pass runs work at once: under a budget
    // the remat pass plans store-all's buffers beside its schedule, and a
    // module of many functions (instances of generic functions) has its
    // nested passes share them out. Otherwise the context's locked
    // uniquing costs more than the nested function passes gain (the 4
    // transformer blocks' passes: 0.25 s without threads, 0.29 s with, by
    // --mlir-timing). (The overhead policy plans on one thread.)
    const tad::Budget &budget = options.rematBudget;
    size_t functions = llvm::range_size(module.getOps<mlir::func::FuncOp>());
    if ((!budget.isSet() || budget.isOverhead()) &&
        functions < kThreadedFunctions)
      context->disableMultithreading();
    auto fail = [](const llvm::Twine &message) {
      // The pipeline's messages name its options, which are tadc's too.
      llvm::errs() << "tadc: error: --" << message << "\n";
      return mlir::failure();
    };
    if (opts.printPipeline) {
      llvm::errs() << "builtin.module(tad-pipeline";
      options.print(llvm::errs());
      llvm::errs() << ")\n";
    }
    return tad::runPipeline(module, options, opts.verifyEach, fail);
  }

  bool parseInputFiles(tad::rt::RunOptions &options) {
    for (const std::string &spec : opts.inputFiles) {
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
  mlir::LogicalResult resolveBudgetShare(mlir::ModuleOp module,
                                         tad::PipelineOptions &options) {
    llvm::Expected<tad::ResolvedBudget> resolved =
        tad::resolveBudget(module, options);
    if (!resolved) {
      llvm::errs() << "tadc: error: "
                   << spellOptionsAsFlags(llvm::toString(resolved.takeError()))
                   << "\n";
      return mlir::failure();
    }
    options.rematBudget = resolved->budget;
    llvm::raw_ostream &summary =
        options.rematSummary == tad::ReportStream::standardError ? llvm::errs()
                                                                 : llvm::outs();
    summary << "remat: --remat-budget=" << opts.rematBudget.str() << " of @"
            << resolved->function << "'s store-all peak ("
            << resolved->storeAllPeak << " bytes) is "
            << resolved->budget.bytes << " bytes\n";
    return mlir::success();
  }

  /// Prints the module at the requested stage, or runs it, or writes the
  /// compiled file.
  mlir::LogicalResult emitResult(mlir::ModuleOp module,
                                 llvm::ArrayRef<tad::rt::EntrySpec> signatures,
                                 llvm::raw_ostream &os) {
    // The plan's peak, which tad-buffer-peak left on the lowered entry.
    std::vector<tad::rt::EntrySpec> planned(signatures.begin(),
                                            signatures.end());
    tad::driver::readPlannedPeaks(module, planned);
    signatures = planned;
    const tad::rt::EntrySpec *signature =
        signatures.empty() ? nullptr : &signatures.front();
    bool cuda = opts.target == tad::Target::cuda;
    if (opts.stage == Stage::obj || opts.stage == Stage::lib ||
        opts.stage == Stage::exe) {
      llvm::Error error = llvm::Error::success();
      if (opts.stage == Stage::obj)
        error = tad::driver::emitObjectFile(module, opts.outputFilename,
                                            codegenThreads);
      else if (opts.stage == Stage::lib)
        error = tad::driver::linkSharedLibrary(
            module, signatures, opts.outputFilename, opts.inputFilename, cuda,
            codegenThreads);
      else
        error = tad::driver::linkExecutable(
            module, *signature, opts.outputFilename, cuda, codegenThreads);
      if (error) {
        llvm::errs() << "tadc: error: " << llvm::toString(std::move(error))
                     << "\n";
        return mlir::failure();
      }
      return mlir::success();
    }
    if (opts.stage == Stage::run) {
      if (opts.run.threads > tad::rt::kMaxThreads) {
        llvm::errs() << "tadc: error: --threads: " << opts.run.threads
                     << " is more than the largest allowed, "
                     << tad::rt::kMaxThreads << "\n";
        return mlir::failure();
      }
      tad::rt::RunOptions options = opts.run;
      if (!parseInputFiles(options))
        return mlir::failure();
      options.cuda = cuda;
      os.flush();
      if (llvm::Error error = tad::driver::runEntry(module, *signature, options,
                                                    opts.jitLLVMIR)) {
        llvm::errs() << "tadc: error: " << llvm::toString(std::move(error))
                     << "\n";
        return mlir::failure();
      }
      return mlir::success();
    }
    if (opts.stage == Stage::llvmir) {
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

  /// Where imports are looked for after the importing file's folder: each
  /// --import-path, then tad's library ($TAD_STDLIB_DIR overrides it).
  std::vector<std::string> getImportPath() {
    std::vector<std::string> path(opts.importPaths.begin(),
                                  opts.importPaths.end());
    path.push_back(getLayout().stdlibDir);
    return path;
  }

  /// The instances of generic functions that the command line asks for
  /// (tad::driver::addInstanceRequests).
  mlir::LogicalResult getInstanceRequests(llvm::SourceMgr &sourceMgr,
                                          unsigned bufferId,
                                          tad::lang::FrontendOptions &frontend,
                                          bool &entryRequested) {
    tad::driver::InstanceOptions options;
    options.entry = entry;
    options.dims.assign(opts.dims.begin(), opts.dims.end());
    options.instantiations.assign(opts.instantiations.begin(),
                                  opts.instantiations.end());
    options.inputDir = opts.run.inputDir;
    options.readInputs = opts.stage == Stage::run || !opts.inputFiles.empty() ||
                         !opts.run.inputDir.empty();
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
  std::vector<std::string> filesRead;
  llvm::StringSet<> filesSeen;

  void recordFilesRead(const llvm::SourceMgr &sourceMgr) {
    for (unsigned id = 1; id <= sourceMgr.getNumBuffers(); ++id) {
      llvm::StringRef name =
          sourceMgr.getMemoryBuffer(id)->getBufferIdentifier();
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
  bool writeDepFile() {
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
    std::string text = escape(opts.outputFilename) + ":";
    for (const std::string &file : filesRead)
      text += " \\\n  " + escape(file);
    text += "\n";
    std::string error;
    if (!tad::rt::makeParentFolders(opts.depFile, error) ||
        !tad::rt::writeTextFile(opts.depFile, text, error)) {
      llvm::errs() << "tadc: error: --depfile: " << error << "\n";
      return false;
    }
    return true;
  }

  /// Compiles one buffer (the whole input, or one chunk of it) and prints the
  /// requested stage to `os`. `source` is the whole input: diagnostics point
  /// into it, so that line numbers stay those of the file.
  /// The program of one chunk of input as a module; null after an error,
  /// and null with `done` set when --emit=ast printed it already.
  mlir::OwningOpRef<mlir::ModuleOp> loadModule(llvm::SourceMgr &sourceMgr,
                                               unsigned bufferId,
                                               mlir::MLIRContext &context,
                                               llvm::raw_ostream &os,
                                               bool &done) {
    if (opts.inputKind != InputKind::tad) {
      if (opts.stage == Stage::ast) {
        llvm::errs() << "tadc: error: --emit=ast needs .tad input\n";
        return nullptr;
      }
      auto module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
      recordFilesRead(sourceMgr);
      return module;
    }
    tad::lang::FrontendOptions frontend;
    frontend.importPath = getImportPath();
    bool entryRequested = false;
    if (mlir::failed(getInstanceRequests(sourceMgr, bufferId, frontend,
                                         entryRequested)))
      return nullptr;
    std::vector<std::string> instanceNames;
    if (opts.stage == Stage::ast) {
      std::unique_ptr<tad::lang::Module> ast = tad::lang::parseAndCheck(
          sourceMgr, llvm::errs(), bufferId, frontend, &instanceNames);
      if (ast) {
        tad::lang::dumpAST(*ast, sourceMgr, os);
        done = true;
      }
      return nullptr;
    }
    mlir::OwningOpRef<mlir::ModuleOp> module = tad::lang::compileToTad(
        sourceMgr, context, llvm::errs(), bufferId, frontend, &instanceNames);
    recordFilesRead(sourceMgr);
    // --entry of a generic function names its instance from here on.
    if (module && entryRequested)
      entry = instanceNames.front();
    return module;
  }

  /// What each compiled entry takes and returns, read before the pipeline,
  /// which renames and lowers them: the entry's, or every entry point's.
  mlir::LogicalResult
  readSignatures(mlir::ModuleOp module,
                 std::vector<tad::rt::EntrySpec> &signatures) {
    if ((opts.stage == Stage::run || opts.stage == Stage::exe) &&
        entry.empty()) {
      llvm::errs() << "tadc: error: "
                   << (opts.stage == Stage::run ? "run" : "--emit=exe")
                   << " needs --entry NAME\n";
      return mlir::failure();
    }
    if (opts.stage < Stage::obj)
      return mlir::success();
    if (opts.stage != Stage::run && opts.outputFilename == "-") {
      llvm::errs() << "tadc: error: --emit=obj, lib and exe need -o FILE\n";
      return mlir::failure();
    }
    std::vector<std::string> names;
    if (!entry.empty())
      names.push_back(entry);
    else
      for (auto fn : module.getOps<mlir::func::FuncOp>())
        if (tad::driver::isEntryPoint(fn))
          names.push_back(fn.getName().str());
    mlir::SymbolTable symbols(module);
    for (const std::string &name : names) {
      auto read = tad::driver::getSignature(symbols, name);
      if (!read) {
        llvm::errs() << "tadc: error: " << llvm::toString(read.takeError())
                     << "\n";
        return mlir::failure();
      }
      signatures.push_back(std::move(*read));
    }
    // A library exports each function under its .tad name.
    if (opts.stage == Stage::lib &&
        mlir::failed(tad::driver::checkLibraryNames(module, signatures)))
      return mlir::failure();
    return mlir::success();
  }

  /// `tadc mem`: the plans of the entry between its store-all peak and its
  /// feasible minimum, instead of a compile.
  mlir::LogicalResult printMemoryTable(mlir::ModuleOp module,
                                       const tad::PipelineOptions &options,
                                       llvm::raw_ostream &os) {
    if (entry.empty() || opts.rematBudget.isSet() || opts.memPoints > 64) {
      llvm::errs() << "tadc: error: "
                   << (entry.empty() ? "tadc mem needs --entry NAME"
                       : opts.memPoints > 64
                           ? "--mem-points must be at most 64"
                           : "tadc mem chooses its budgets: no --remat-budget")
                   << "\n";
      return mlir::failure();
    }
    if (llvm::Error error = tad::driver::describeMemory(
            module, options, entry, opts.memPoints, os, opts.memJson)) {
      llvm::errs() << "tadc: error: "
                   << spellOptionsAsFlags(llvm::toString(std::move(error)))
                   << "\n";
      return mlir::failure();
    }
    return mlir::success();
  }

  mlir::LogicalResult processBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                    llvm::MemoryBufferRef source,
                                    llvm::raw_ostream &os,
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
    Diagnostics diagnostics(sourceMgr, context);

    // Each chunk starts from --entry as given.
    entry = opts.entry;
    bool done = false;
    mlir::OwningOpRef<mlir::ModuleOp> module =
        loadModule(sourceMgr, bufferId, context, os, done);
    if (!module)
      return mlir::success(done);
    tad::PipelineOptions options;
    std::vector<tad::rt::EntrySpec> signatures;
    if (mlir::failed(getPipelineOptions(options)) ||
        mlir::failed(readSignatures(*module, signatures)))
      return mlir::failure();
    if (opts.memoryTable)
      return printMemoryTable(*module, options, os);
    if (opts.rematBudget.isShare() &&
        mlir::failed(resolveBudgetShare(*module, options)))
      return mlir::failure();
    if (mlir::failed(runPipeline(*module, options)))
      return mlir::failure();
    return emitResult(*module, signatures, os);
  }
};
} // namespace

int Compiler::run() {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(opts.inputFilename, &error);
  if (!input) {
    llvm::errs() << "tadc: error: " << error << "\n";
    return 1;
  }
  auto output = mlir::openOutputFile(opts.outputFilename, &error);
  if (!output) {
    llvm::errs() << "tadc: error: " << error << "\n";
    return 1;
  }
  // The folders of the files that the compile writes are made first, as
  // tadc run makes those of its results and measurements (the runtime's
  // makeParentFolders), so that a path that cannot be written fails before
  // the work, not after it.
  for (auto [flag, file] : {std::pair{"--remat-report", &opts.rematReport},
                            std::pair{"--remat-graph", &opts.rematGraph},
                            std::pair{"--mem-json", &opts.memJson},
                            std::pair{"--depfile", &opts.depFile},
                            std::pair{"--jit-llvm-ir", &opts.jitLLVMIR}})
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
  const char *marker = opts.splitInputFile ? mlir::kDefaultSplitMarker : "";
  if (mlir::failed(mlir::splitAndProcessBuffer(std::move(input), process,
                                               output->os(), marker, marker)))
    return 1;
  if (!opts.depFile.empty() && !writeDepFile())
    return 1;
  output->keep();
  return 0;
}

int tad::driver::runCompile(const CompileOptions &options) {
  return Compiler(options).run();
}
