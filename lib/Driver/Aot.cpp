//===- Aot.cpp - objects, shared libraries and executables ----------------===//
//
// An object file is the module compiled by LLVM for the host. A shared
// library adds a generated C wrapper per exported function, with a plain
// ABI (data pointers in, caller-provided result buffers out) and a header
// that documents every shape; an executable adds a generated main that
// reads and writes .npy files through the runtime. Both link the runtime
// statically: they need OpenBLAS (loaded when the first GEMM runs) and the
// C++ runtime, never LLVM or MLIR;
// for CUDA, only the C library and the CUDA driver (docs/gpu.md).
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/Aot.h"
#include "tad/Conversion/Passes.h"

#include "tad/Transforms/Passes.h"

#include "tad/Driver/CNames.h"
#include "tad/Driver/Config.h"
#include "tad/Driver/LaunchParameters.h"
#include "tad/Driver/Layout.h"
#include "tad/Driver/Optimize.h"
#include "tad/Driver/QuickCodegen.h"
#include "tad/Driver/ResultStores.h"
#include "tad/runtime/Memref.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <thread>

using namespace tad::driver;
namespace rt = tad::rt;

static std::string getenvOr(const char *name, const char *fallback) {
  const char *value = std::getenv(name);
  return value && *value ? value : fallback;
}

RuntimeFiles tad::driver::getRuntimeFiles() {
  const Layout &layout = getLayout();
  return {layout.runtimeStaticLibrary, layout.runtimeCudaStaticLibrary,
          layout.runtimeIncludeDir};
}

/// Links the objects `parts` into the one object `path` (`ld -r`), their
/// shared symbols local.
static llvm::Error linkObjects(llvm::ArrayRef<std::string> parts,
                               llvm::StringRef path);

llvm::Error tad::driver::emitObjectFile(mlir::ModuleOp module,
                                        llvm::StringRef path,
                                        unsigned threads) {
  // Generated as a library's objects are (emitObjectFiles: a long entry at
  // -O0 in a part of its own, a large module in parts on the machine's
  // cores), and the parts linked into one object. Generated whole at -O3,
  // the gradient of the sum of a 5,000-field record spent 4.4 s in the
  // greedy register allocator.
  llvm::SmallString<128> folder;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("tad-object", folder))
    return llvm::createStringError("cannot make a temporary folder: " +
                                   ec.message());
  auto parts = emitObjectFiles(module, (folder + "/part").str(), threads);
  llvm::Error written = !parts ? parts.takeError()
                        : parts->size() > 1
                            ? linkObjects(*parts, path)
                            : llvm::errorCodeToError(llvm::sys::fs::copy_file(
                                  parts->front(), path));
  std::error_code ignored = llvm::sys::fs::remove_directories(folder);
  (void)ignored;
  return written;
}

//===----------------------------------------------------------------------===//
// Generated C and C++ sources
//===----------------------------------------------------------------------===//

static const char *getCType(rt::DType dtype) {
  switch (dtype) {
  case rt::DType::f32: return "float";
  case rt::DType::f64: return "double";
  case rt::DType::f16: return "uint16_t"; // IEEE half bits
  case rt::DType::bf16: return "uint16_t"; // bfloat16 bits
  case rt::DType::i32: return "int32_t";
  case rt::DType::i64: return "int64_t";
  }
  return "void";
}

static std::string describe(const rt::TensorSpec &spec) {
  return rt::describeArray(spec.dtype, spec.shape);
}

static std::string shapeInitializer(const rt::TensorSpec &spec) {
  if (spec.shape.empty())
    return "{0}"; // unused: a scalar has no dimensions
  std::string s = "{";
  for (size_t i = 0; i < spec.shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(spec.shape[i]);
  return s + "}";
}

static std::string cParameterList(const rt::EntrySpec &entry) {
  std::vector<std::string> names = getCNames(entry);
  std::string list;
  for (auto [i, p] : llvm::enumerate(entry.params))
    list += (list.empty() ? "" : ", ") + std::string("const ") +
            getCType(p.dtype) + " *" + names[i];
  for (auto [i, r] : llvm::enumerate(entry.results))
    list += (list.empty() ? "" : ", ") + std::string(getCType(r.dtype)) + " *" +
            names[entry.params.size() + i];
  return list.empty() ? "void" : list;
}

std::string tad::driver::generateHeader(llvm::ArrayRef<rt::EntrySpec> entries,
                                        llvm::StringRef guard,
                                        llvm::StringRef source, bool cuda,
                                        bool collectives) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* Generated by tadc from " << source << ". Do not edit.\n"
     << " *\n"
     << " * Each function reads its inputs (C-order arrays, never written or\n"
     << " * kept) and writes each result to a caller-provided C-order buffer\n"
     << " * of the shape given below. "
     << (cuda ? "It runs on the GPU (CUDA device 0) and returns 0, or 1\n"
                " * when no GPU can run it: tad_rt_cuda_error() says why. "
              : "It returns 0. ")
     << "f16 and bf16\n * elements are passed as their 16-bit patterns, "
        "i32 and i64 ones as\n * int32_t and int64_t. */\n\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const rt::EntrySpec &entry : entries) {
    os << "/* " << entry.function << "(";
    for (size_t i = 0; i < entry.params.size(); ++i)
      os << (i ? ", " : "") << entry.params[i].name << ": "
         << describe(entry.params[i]);
    os << ")\n *   -> (";
    for (size_t i = 0; i < entry.results.size(); ++i)
      os << (i ? ", " : "") << entry.results[i].name << ": "
         << describe(entry.results[i]);
    os << ") */\n";
    os << "int " << entry.function << "(" << cParameterList(entry) << ");\n";
    os << "/* The same call, the parameters' then the results' pointers in\n"
       << " * one array (for callers that pass few arguments, as ctypes). */\n"
       << "int tad_call_" << entry.function
       << "(void *const *tensors);\n";
    std::vector<std::string> names = getCNames(entry);
    auto shape = [&](const rt::TensorSpec &spec, const std::string &name) {
      os << "static const int64_t " << entry.function << "_" << name
         << "_shape[] = " << shapeInitializer(spec) << "; /* rank "
         << spec.shape.size() << " */\n";
    };
    for (auto [i, spec] : llvm::enumerate(entry.params))
      shape(spec, names[i]);
    for (auto [i, spec] : llvm::enumerate(entry.results))
      shape(spec, names[entry.params.size() + i]);
    os << "\n";
  }
  os << "/* The runtime's allocator measurements (docs/runtime.md). */\n"
     << "#ifndef TAD_RUNTIME_RUNTIME_H\n"
     << "typedef struct tad_rt_stats {\n"
     << "  int64_t current_bytes, peak_bytes, allocations, frees;\n"
     << "} tad_rt_stats;\n"
     << "tad_rt_stats tad_rt_get_stats(void);\n"
     << "void tad_rt_reset_peak(void);\n"
     << "void tad_rt_set_num_threads(int threads);\n"
     << (cuda ? "const char *tad_rt_cuda_error(void);\n" : "")
     << (collectives
             ? "/* The library's functions have collectives: each is called by\n"
               " * every process of an MPI run (docs/distributed.md). The first\n"
               " * call starts MPI, or tad_rt_mpi_init() before it; then\n"
               " * tad_rt_process_rank() and tad_rt_process_count() tell this\n"
               " * process's rank and the number of processes. */\n"
               "void tad_rt_mpi_init(void);\n"
               "int tad_rt_process_rank(void);\n"
               "int tad_rt_process_count(void);\n"
             : "")
     << "#endif\n\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return s;
}

/// `extern "C" void _mlir_ciface___tad_f(void *, void *, ...);`: a pointer
/// to the results (when there are any), then one per parameter.
static std::string cifaceDeclaration(const rt::EntrySpec &entry) {
  std::vector<std::string> args(
      entry.params.size() + (entry.results.empty() ? 0 : 1), "void *");
  std::string list;
  for (const std::string &a : args)
    list += (list.empty() ? "" : ", ") + a;
  return "void _mlir_ciface_" + tad::getInternalName(entry.function) + "(" +
         (list.empty() ? "void" : list) + ");\n";
}

std::string tad::driver::generateLibraryWrappers(
    llvm::ArrayRef<rt::EntrySpec> entries, llvm::StringRef header, bool cuda) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* Generated by tadc: the C ABI of " << header << ". */\n"
     << "#include \"" << header << "\"\n\n#include <stddef.h>\n\n"
     << "void tad_rt_copy_out(const int64_t *, int64_t, int64_t, void *);\n"
     << "void tad_rt_release(const int64_t *);\n"
     << (cuda ? "int tad_rt_cuda_begin(void);\n"
                "void *tad_rt_stage_input(const void *, size_t);\n"
                "void tad_rt_unstage_input(void *);\n"
              : "")
     << "\n"
     << "/* A row-major memref descriptor of `data`. */\n"
     << "static void tad_describe(int64_t *d, const void *data, int rank,\n"
     << "                         const int64_t *shape) {\n"
     << "  d[0] = d[1] = (int64_t)(intptr_t)data;\n"
     << "  d[2] = 0;\n"
     << "  int64_t stride = 1;\n"
     << "  for (int i = rank - 1; i >= 0; --i) {\n"
     << "    d[3 + i] = shape[i];\n"
     << "    d[3 + rank + i] = stride;\n"
     << "    stride *= shape[i];\n"
     << "  }\n}\n\n";
  for (const rt::EntrySpec &entry : entries) {
    os << cifaceDeclaration(entry) << "\n";
    os << "int " << entry.function << "(" << cParameterList(entry) << ") {\n";
    if (cuda)
      os << "  if (tad_rt_cuda_begin() != 0)\n    return 1;\n";
    size_t words = 0;
    for (const rt::TensorSpec &r : entry.results)
      words += rt::getDescriptorWords(r.shape.size());
    // Locals are tad_-prefixed, so that they never clash with parameters.
    // On the GPU, each input is first copied to memory it can read.
    std::vector<std::string> names = getCNames(entry);
    for (auto [i, p] : llvm::enumerate(entry.params)) {
      std::string data = names[i];
      if (cuda) {
        os << "  void *tad_s" << i << " = tad_rt_stage_input(" << data
           << ", " << p.getByteSize() << ");\n";
        data = "tad_s" + std::to_string(i);
      }
      os << "  int64_t tad_d" << i << "["
         << rt::getDescriptorWords(p.shape.size()) << "];\n  tad_describe(tad_d"
         << i << ", " << data << ", " << p.shape.size() << ", "
         << entry.function << "_" << names[i] << "_shape);\n";
    }
    os << "  int64_t tad_results[" << std::max<size_t>(words, 1) << "];\n"
       << "  _mlir_ciface_" << tad::getInternalName(entry.function) << "(";
    std::string callArgs = entry.results.empty() ? "" : "tad_results";
    for (size_t i = 0; i < entry.params.size(); ++i)
      callArgs += (callArgs.empty() ? "" : ", ") + ("tad_d" + std::to_string(i));
    os << callArgs << ");\n";
    size_t offset = 0;
    for (auto [i, r] : llvm::enumerate(entry.results)) {
      os << "  tad_rt_copy_out(tad_results + " << offset << ", "
         << r.shape.size() << ", " << rt::getDTypeSize(r.dtype) << ", "
         << names[entry.params.size() + i] << ");\n";
      offset += rt::getDescriptorWords(r.shape.size());
    }
    offset = 0;
    for (const rt::TensorSpec &r : entry.results) {
      os << "  tad_rt_release(tad_results + " << offset << ");\n";
      offset += rt::getDescriptorWords(r.shape.size());
    }
    if (cuda)
      for (size_t i = 0; i < entry.params.size(); ++i)
        os << "  tad_rt_unstage_input(tad_s" << i << ");\n";
    os << "  return 0;\n}\n\n";
    // The same call with its pointers in an array: ctypes passes at most
    // 1024 arguments, and a function of records may take more tensors.
    os << "int tad_call_" << entry.function
       << "(void *const *tad_tensors) {\n  return " << entry.function << "(";
    size_t count = entry.params.size() + entry.results.size();
    for (size_t i = 0; i < count; ++i)
      os << (i ? ", " : "") << "tad_tensors[" << i << "]";
    os << ");\n}\n\n";
  }
  return s;
}

std::string tad::driver::generateMain(const rt::EntrySpec &entry, bool cuda,
                                      bool collectives) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto dtype = [](rt::DType d) {
    return std::string("tad::rt::DType::") + rt::getDTypeName(d);
  };
  auto spec = [&](const rt::TensorSpec &t) {
    std::string shape;
    for (int64_t d : t.shape)
      shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    return "{\"" + t.name + "\", " + dtype(t.dtype) + ", {" + shape + "}}";
  };
  os << "// Generated by tadc: runs " << entry.function
     << " on .npy inputs (see --help).\n"
     << "#include \"tad/runtime/Runner.h\"\n\n#include <cstring>\n"
     << "#include <iostream>\n\n"
     << "extern \"C\" " << cifaceDeclaration(entry) << "\n"
     << (collectives ? "extern \"C\" void tad_rt_mpi_init(void);\n" : "")
     << "static void invoke(void **args) {\n  _mlir_ciface_"
     << tad::getInternalName(entry.function) << "(";
  size_t count = entry.params.size() + (entry.results.empty() ? 0 : 1);
  for (size_t i = 0; i < count; ++i)
    os << (i ? ", " : "") << "*(void **)args[" << i << "]";
  os << ");\n}\n\nint main(int argc, char **argv) {\n"
     << "  tad::rt::EntrySpec entry;\n  entry.function = \"" << entry.function
     << "\";\n";
  for (const rt::TensorSpec &p : entry.params)
    os << "  entry.params.push_back(" << spec(p) << ");\n";
  for (const rt::TensorSpec &r : entry.results)
    os << "  entry.results.push_back(" << spec(r) << ");\n";
  os << "  entry.plannedPeak = " << entry.plannedPeak << ";\n"
     << "  entry.plannedPeakIsBound = "
     << (entry.plannedPeakIsBound ? "true" : "false") << ";\n";
  os << "  if (argc > 1 && (!std::strcmp(argv[1], \"--help\") ||\n"
     << "                  !std::strcmp(argv[1], \"-h\"))) {\n"
     << "    std::cout << \"usage: \" << argv[0] << \" [--inputs DIR] "
        "[--input NAME=FILE.npy]... [--convert-inputs]\\n       "
        "[--output-dir DIR] [--seed N] [--repeat N] [--threads N]\\n       "
        "[--stats-json FILE] [--memory-trace FILE]\\n\\nparameters:\\n\";\n"
     << "    for (const auto &p : entry.params)\n"
     << "      std::cout << \"  \" << p.name << \": \" << "
        "tad::rt::describeArray(p.dtype, p.shape) << \"\\n\";\n"
     << "    std::cout << \"results (NAME.npy in --output-dir):\\n\";\n"
     << "    for (const auto &r : entry.results)\n"
     << "      std::cout << \"  \" << r.name << \": \" << "
        "tad::rt::describeArray(r.dtype, r.shape) << \"\\n\";\n"
     << "    return 0;\n  }\n"
     << (collectives ? "  // MPI first: the paths may name the rank (%r).\n"
                       "  tad_rt_mpi_init();\n"
                     : "")
     << "  tad::rt::RunOptions options;\n  std::string error;\n"
     << (cuda ? "  options.cuda = true;\n" : "")
     << "  if (!tad::rt::parseRunArguments(argc, argv, options, error)) {\n"
     << "    std::cerr << argv[0] << \": error: \" << error << \"\\n\";\n"
     << "    return 2;\n  }\n"
     << "  if (!tad::rt::runEntry(entry, invoke, options, std::cout, error)) "
        "{\n"
     << "    std::cerr << argv[0] << \": error: \" << error << \"\\n\";\n"
     << "    return 1;\n  }\n  return 0;\n}\n";
  return s;
}

//===----------------------------------------------------------------------===//
// Linking
//===----------------------------------------------------------------------===//

static llvm::Error writeFile(llvm::StringRef path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return llvm::createStringError(path + ": " + ec.message());
  out << text;
  return llvm::Error::success();
}

namespace {
/// A run of the system C++ compiler, started and not yet waited for.
struct CompilerRun {
  llvm::sys::ProcessInfo process;
  std::vector<std::string> args;
};
} // namespace

/// Starts the system C++ compiler (`c++`, or $CXX) with `args`, and the
/// flags that this build's runtime needs (TAD_LINK_FLAGS: the sanitizers
/// of the sanitizer build, whose compiler is then the default).
static llvm::Expected<CompilerRun> startCompiler(std::vector<std::string> args) {
  std::string compiler = getenvOr("CXX", TAD_LINK_CXX);
  llvm::SmallVector<llvm::StringRef> flags;
  llvm::StringRef(TAD_LINK_FLAGS).split(flags, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef flag : flags)
    args.push_back(flag.str());
  auto program = llvm::sys::findProgramByName(compiler);
  if (!program)
    return llvm::createStringError(
        "cannot find the C++ compiler '" + compiler +
        "' that links libraries and executables (set CXX)");
  args.insert(args.begin(), *program);
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  std::string message;
  bool failed = false;
  llvm::sys::ProcessInfo process = llvm::sys::ExecuteNoWait(
      *program, refs, std::nullopt, {}, 0, &message, &failed);
  if (failed)
    return llvm::createStringError("cannot run '" + *program + "'" +
                                   (message.empty() ? "" : ": " + message));
  return CompilerRun{process, std::move(args)};
}

/// Waits for a compiler run to end; an error names its command.
static llvm::Error finishCompiler(CompilerRun &run) {
  std::string message;
  llvm::sys::ProcessInfo done =
      llvm::sys::Wait(run.process, std::nullopt, &message);
  if (done.ReturnCode != 0) {
    std::string command;
    for (const std::string &a : run.args)
      command += a + " ";
    return llvm::createStringError("compiling or linking failed (" + command +
                                   ")" +
                                   (message.empty() ? "" : ": " + message));
  }
  return llvm::Error::success();
}

/// Links `args` into a library or an executable: with gold where the
/// machine has it, which links a deep network's library in 0.08 s where
/// GNU ld takes 0.21 s.
static llvm::Error link(std::vector<std::string> args) {
  if (llvm::sys::findProgramByName("ld.gold"))
    args.insert(args.begin(), "-fuse-ld=gold");
  llvm::Expected<CompilerRun> run = startCompiler(std::move(args));
  if (!run)
    return run.takeError();
  return finishCompiler(*run);
}

static llvm::Error linkObjects(llvm::ArrayRef<std::string> parts,
                               llvm::StringRef path) {
  std::vector<std::string> args = {"-r", "-nostdlib", "-o", path.str()};
  args.insert(args.end(), parts.begin(), parts.end());
  if (llvm::Error e = link(std::move(args)))
    return e;
  // The parts reach each other's functions and constants through symbols
  // that partitionForCodegen made hidden globals: in one object they are
  // local again, as they were internal, so that the objects of two
  // programs link together (two `__constant_4xf32`s, say).
  auto objcopy = llvm::sys::findProgramByName("objcopy");
  if (!objcopy)
    return llvm::createStringError(
        "cannot find objcopy, which makes the symbols local that the parts "
        "of an object file share");
  std::string message;
  llvm::StringRef command[] = {*objcopy, "--localize-hidden", path};
  if (llvm::sys::ExecuteAndWait(*objcopy, command, std::nullopt, {}, 0, 0,
                                &message) != 0)
    return llvm::createStringError("objcopy --localize-hidden " + path +
                                   " failed" +
                                   (message.empty() ? "" : ": " + message));
  return llvm::Error::success();
}

/// The generated C and C++ glue (descriptors, .npy files) compiles while
/// LLVM generates the model's code. It runs once per call: at -O1 for up
/// to kQuickGlueTensors tensors (parameters and results), where a call can
/// be short; above, at -O0, since GCC's -O1 grows faster than the glue
/// (points-to analysis over one local descriptor per tensor): 1.3 s for
/// the wrappers of a 400-layer MLP's gradient (1600 tensors), 0.4 s at
/// -O0, on 2 cores beside LLVM. (-O2 had taken 0.6 s for the wrappers of a
/// 200-parameter gradient.)
static constexpr size_t kQuickGlueTensors = 64;

static const char *getGlueOptimization(llvm::ArrayRef<rt::EntrySpec> entries) {
  size_t tensors = 0;
  for (const rt::EntrySpec &entry : entries)
    tensors += entry.params.size() + entry.results.size();
  return tensors > kQuickGlueTensors ? "-O0" : "-O1";
}

/// CPU outputs link the runtime, which loads OpenBLAS when the first GEMM
/// runs (runtime/lib/Blas.cpp). GPU outputs link a runtime
/// without BLAS, and the C++ runtime statically, so that they need only the
/// C library and the CUDA driver (loaded at run time) on the GPU machine.
static std::vector<std::string> runtimeLinkArgs(bool cuda) {
  RuntimeFiles runtime = getRuntimeFiles();
  // What the header declares and the Python package calls is linked from
  // the archive even where the program makes no call that pulls in its
  // object: a program without GEMMs lacked tad_rt_set_num_threads, and one
  // without a concrete function (only generic ones) every measurement.
  std::vector<std::string> args;
  for (const char *symbol :
       {"tad_rt_set_num_threads", "tad_rt_get_stats", "tad_rt_reset_peak",
        "tad_rt_trace_enable", "tad_rt_trace_size", "tad_rt_trace_data"})
    args.push_back(std::string("-Wl,-u,") + symbol);
  if (cuda) {
    args.push_back("-Wl,-u,tad_rt_cuda_error");
    llvm::append_range(args, std::vector<std::string>{
                                 runtime.cudaStaticLibrary, "-static-libstdc++",
                                 "-static-libgcc", "-lm"});
    return args;
  }
  llvm::append_range(args, std::vector<std::string>{runtime.staticLibrary,
                                                    "-ldl", "-lm"});
  return args;
}

bool tad::driver::usesCollectives(mlir::ModuleOp module) {
  return module.lookupSymbol(kMpiInitFunction) ||
         module.lookupSymbol(std::string("_mlir_ciface_") + kMpiInitFunction);
}

llvm::Error tad::driver::checkMpiBuild() {
  if (TAD_HAVE_MPI)
    return llvm::Error::success();
  return llvm::createStringError(
      "this program has collectives (all_reduce), but tad was built without "
      "MPI: install libopenmpi-dev and rebuild tad (docs/distributed.md)");
}

/// A program with collectives links the MPI runtime and the MPI library,
/// found at run time where this build found it (as OpenBLAS is).
static llvm::Expected<std::vector<std::string>> mpiLinkArgs() {
  if (llvm::Error e = checkMpiBuild())
    return std::move(e);
  std::vector<std::string> args = {getLayout().runtimeMpiStaticLibrary};
  llvm::SmallVector<llvm::StringRef> libraries;
  llvm::StringRef(TAD_MPI_LIBRARIES).split(libraries, ' ', -1, false);
  for (llvm::StringRef library : libraries) {
    args.push_back(library.str());
    args.push_back("-Wl,-rpath," + llvm::sys::path::parent_path(library).str());
  }
  return args;
}

/// Compiles the glue (`glueArgs`, at `glueOptimization`, writing `glueObject`)
/// in a second process while LLVM generates `module`'s code into objects named
/// `objectPrefix`N.o, then links `linkFlags`, the objects and the runtime
/// into `output`.
static llvm::Error
compileAndLink(mlir::ModuleOp module, llvm::StringRef objectPrefix,
               unsigned threads, std::vector<std::string> glueArgs,
               const char *glueOptimization, llvm::StringRef glueObject,
               std::vector<std::string> linkFlags, llvm::StringRef output,
               bool cuda) {
  llvm::append_range(glueArgs,
                     std::vector<std::string>{"-c", glueOptimization, "-o",
                                              std::string(glueObject)});
  llvm::Expected<CompilerRun> glue = startCompiler(std::move(glueArgs));
  if (!glue)
    return glue.takeError();
  auto objects = emitObjectFiles(module, objectPrefix, threads);
  llvm::Error glued = finishCompiler(*glue);
  if (!objects || glued)
    return llvm::joinErrors(objects.takeError(), std::move(glued));
  std::vector<std::string> args = std::move(linkFlags);
  args.push_back(std::string(glueObject));
  llvm::append_range(args, *objects);
  if (usesCollectives(module)) {
    auto mpi = mpiLinkArgs();
    if (!mpi)
      return mpi.takeError();
    llvm::append_range(args, *mpi);
  }
  llvm::append_range(args, runtimeLinkArgs(cuda));
  args.push_back("-o");
  args.push_back(output.str());
  return link(std::move(args));
}

namespace {
/// A fresh temporary folder, removed when the guard goes.
struct TempDir {
  llvm::SmallString<128> path;
  ~TempDir() {
    if (!path.empty())
      llvm::sys::fs::remove_directories(path);
  }
};
} // namespace

static llvm::Error createTempDir(llvm::StringRef prefix, TempDir &dir) {
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory(prefix, dir.path))
    return llvm::createStringError("cannot create a temporary folder: " +
                                   ec.message());
  return llvm::Error::success();
}

llvm::Error
tad::driver::linkSharedLibrary(mlir::ModuleOp module,
                               llvm::ArrayRef<rt::EntrySpec> entries,
                               llvm::StringRef output, llvm::StringRef source,
                               bool cuda, unsigned threads) {
  TempDir temp;
  if (llvm::Error e = createTempDir("tadc-lib", temp))
    return e;
  llvm::SmallString<128> object(temp.path), wrappers(temp.path);
  llvm::sys::path::append(object, "model");
  llvm::sys::path::append(wrappers, "wrappers.c");
  llvm::SmallString<128> header(output);
  llvm::sys::path::replace_extension(header, ".h");
  std::string guard = "TAD_" + llvm::sys::path::stem(header).upper();
  for (char &c : guard)
    if (!llvm::isAlnum(c))
      c = '_';
  guard += "_H";
  if (llvm::Error e =
          writeFile(header, generateHeader(entries, guard, source, cuda,
                                          usesCollectives(module))))
    return e;
  if (llvm::Error e = writeFile(
          wrappers, generateLibraryWrappers(
                        entries, llvm::sys::path::filename(header), cuda)))
    return e;
  llvm::SmallString<128> headerDir(header);
  llvm::sys::path::remove_filename(headerDir);
  if (headerDir.empty())
    headerDir = ".";
  llvm::SmallString<128> wrappersObject(temp.path);
  llvm::sys::path::append(wrappersObject, "wrappers.o");
  return compileAndLink(module, object, threads,
                        {"-fPIC", "-I" + std::string(headerDir), "-x", "c",
                         std::string(wrappers)},
                        getGlueOptimization(entries), wrappersObject,
                        // -Bsymbolic: the wrappers call the library's own
                        // functions, never a namesake already loaded in
                        // the process (glibc's legacy `step`, say).
                        {"-shared", "-fPIC", "-Wl,-Bsymbolic"}, output, cuda);
}

llvm::Error tad::driver::linkExecutable(mlir::ModuleOp module,
                                        const rt::EntrySpec &entry,
                                        llvm::StringRef output, bool cuda,
                                        unsigned threads) {
  TempDir temp;
  if (llvm::Error e = createTempDir("tadc-exe", temp))
    return e;
  llvm::SmallString<128> object(temp.path), main(temp.path);
  llvm::sys::path::append(object, "model");
  llvm::sys::path::append(main, "main.cpp");
  if (llvm::Error e =
          writeFile(main, generateMain(entry, cuda, usesCollectives(module))))
    return e;
  llvm::SmallString<128> mainObject(temp.path);
  llvm::sys::path::append(mainObject, "main.o");
  return compileAndLink(
      module, object, threads,
      {"-I" + getRuntimeFiles().includeDir, std::string(main)},
      getGlueOptimization(entry), mainObject, {}, output, cuda);
}
