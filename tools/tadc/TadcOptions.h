//===- TadcOptions.h - tadc's command-line flags ----------------*- C++ -*-===//
//
// Every flag of tadc (docs/tadc.md), as members of one struct that main
// makes once: registered with LLVM's command line when it is constructed,
// read into a tad::driver::CompileOptions after parsing.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TOOLS_TADC_TADCOPTIONS_H
#define TAD_TOOLS_TADC_TADCOPTIONS_H

#include "tad/Driver/Compiler.h"

#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <string>

namespace tadc {
namespace cl = llvm::cl;
using tad::driver::InputKind;
using tad::driver::Stage;

struct TadcOptions {
  cl::OptionCategory tadcCategory{"tadc options"};
  cl::OptionCategory mlirCategory{
      "MLIR options (pass manager, printing, timing)"};

  cl::opt<std::string> inputFilename{cl::Positional,
                                     cl::desc("<input .tad or .mlir file>"),
                                     cl::init("-"), cl::cat(tadcCategory)};

  cl::opt<std::string> outputFilename{
      "o", cl::desc("Output file (default: stdout)"),
      cl::value_desc("filename"), cl::init("-"), cl::cat(tadcCategory)};

  cl::opt<Stage> emitStage{
      "emit", cl::desc("How far to run the pipeline, and what to print"),
      cl::values(
          clEnumValN(Stage::ast, "ast",
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
      cl::init(Stage::tad), cl::cat(tadcCategory)};

  cl::opt<InputKind> inputKind{
      "x", cl::desc("The input language (default: from the file extension)"),
      cl::values(clEnumValN(InputKind::tad, "tad", "a .tad program"),
                 clEnumValN(InputKind::mlir, "mlir",
                            "MLIR in the tad dialect (skips the frontend)")),
      cl::cat(tadcCategory)};

  cl::opt<bool> splitInputFile{
      "split-input-file",
      cl::desc("Compile each chunk between '// -----' lines on its own (for "
               "tests); errors are reported and compilation goes on"),
      cl::init(false), cl::cat(tadcCategory)};

  cl::opt<bool> verifyEach{
      "verify-each",
      cl::desc("Verify the IR after every pass, as tad-opt does (slower; by "
               "default tadc verifies it before and after its passes)"),
      cl::init(false), cl::cat(tadcCategory)};

  cl::opt<std::string> entry{
      "entry",
      cl::desc("The function to run, or to keep when lowering (the others it "
               "does not call are dropped)"),
      cl::value_desc("name"), cl::cat(tadcCategory)};

  cl::list<std::string> importPaths{
      "import-path",
      cl::desc("Look for imported .tad files in DIR too (repeatable; after "
               "the importing file's folder, before tad's own library)"),
      cl::value_desc("DIR"), cl::cat(tadcCategory)};

  cl::list<std::string> dimSizes{
      "dim",
      cl::desc("A size (or element type, E=f64) for a generic "
               "parameter of --entry (repeatable); without it, they "
               "are read off the inputs' .npy files"),
      cl::value_desc("NAME=SIZE[,NAME=SIZE...]"), cl::cat(tadcCategory)};

  cl::list<std::string> instantiations{
      "instantiate",
      cl::desc("Compile generic function F at these sizes too, as an entry "
               "named after them (F_B64_D128; repeatable)"),
      cl::value_desc("F[NAME=SIZE,...]"), cl::cat(tadcCategory)};

  cl::list<std::string> inputFiles{
      "input", cl::desc("Read parameter NAME from FILE.npy (repeatable)"),
      cl::value_desc("NAME=FILE"), cl::cat(tadcCategory)};

  cl::opt<std::string> inputDir{
      "inputs",
      cl::desc("Read each parameter NAME without --input from DIR/NAME.npy"),
      cl::value_desc("DIR"), cl::cat(tadcCategory)};

  cl::opt<uint64_t> seed{"seed",
                         cl::desc("Seed of the uniform [-0.5, 0.5) initializer "
                                  "of parameters without a file (default 0)"),
                         cl::init(0), cl::cat(tadcCategory)};

  cl::opt<std::string> outputDir{
      "output-dir",
      cl::desc("Write each result to DIR/NAME.npy, named after what it is: a "
               "derivative's value (value1, ... for its other results), "
               "grad_W for the gradient of parameter W, d_W for a vjp's "
               "cotangent; result<i> where there is no name. DIR and the "
               "folders above it are made when missing"),
      cl::value_desc("DIR"), cl::cat(tadcCategory)};

  // LLVM registers --stats-json too (its statistics as JSON, which tadc
  // never prints): main() unregisters LLVM's and renames this option
  // --stats-json (claimOptionNames), keeping --run-stats-json, the name
  // it had, as a hidden alias.
  // Named stats-json when main claims the name from LLVM's option
  // (claimOptionName); --run-stats-json, the name it had, stays an alias.
  cl::opt<std::string> statsJson{
      "tadc-stats-json",
      cl::desc("Write wall time per call, peak bytes and bytes live after the "
               "call, as the runtime allocator measured them, and the results' "
               "names, to FILE (its folder is made when missing)"),
      cl::value_desc("FILE"), cl::cat(tadcCategory)};
  cl::alias runStatsJson{"run-stats-json", cl::aliasopt(statsJson),
                         cl::desc("Alias for --stats-json"), cl::Hidden};

  cl::opt<std::string> depFile{
      "depfile",
      cl::desc("Write the files the compile read (the input and every file it "
               "imports, the standard library's too) to FILE as a Makefile "
               "rule for the output, as a C compiler's -MF does"),
      cl::value_desc("FILE"), cl::cat(tadcCategory)};

  cl::opt<std::string> memJson{
      "mem-json",
      cl::desc("tadc mem: also write the table as JSON to FILE (its folder is "
               "made when missing)"),
      cl::value_desc("FILE"), cl::cat(tadcCategory)};

  cl::opt<unsigned> memPoints{
      "mem-points",
      cl::desc("tadc mem: budgets between the store-all peak and the minimum "
               "(default 3)"),
      cl::init(3), cl::cat(tadcCategory)};

  cl::opt<bool> convertInputs{
      "convert-inputs",
      cl::desc("Convert an input .npy of another float dtype than its "
               "parameter's (rounded to nearest) instead of rejecting it"),
      cl::cat(tadcCategory)};

  cl::opt<std::string> memoryTrace{
      "memory-trace",
      cl::desc("Write the live bytes of the (last) call, after every "
               "allocation and free, as chrome://tracing JSON to FILE (its "
               "folder is made when missing)"),
      cl::value_desc("FILE"), cl::cat(tadcCategory)};

  cl::opt<std::string> jitLLVMIR{
      "jit-llvm-ir",
      cl::desc("tadc run: write the LLVM IR that the JIT compiles, after "
               "LLVM's optimizer, to FILE (its folder is made when missing)"),
      cl::value_desc("FILE"), cl::cat(tadcCategory)};

  cl::opt<unsigned> repeat{"repeat",
                           cl::desc("Call the entry N times (for timing)"),
                           cl::init(1), cl::cat(tadcCategory)};

  cl::opt<unsigned> codegenThreadsOption{
      "codegen-threads",
      cl::desc("Generate an object's, a library's or an executable's machine "
               "code in this many parts, one thread each (default 0: the "
               "machine's cores, at most 8, for a module of 4000 instructions "
               "or more)"),
      cl::init(0), cl::cat(tadcCategory)};

  // Named --threads by claimOptionNames: LLVM registers an option of that
  // name before tadc's.
  cl::opt<unsigned> threads{
      "run-threads",
      cl::desc("Threads that run the entry's GEMMs and loop nests (default: "
               "TAD_NUM_THREADS, else OPENBLAS_NUM_THREADS, else "
               "OMP_NUM_THREADS, else the machine's cores)"),
      cl::init(0), cl::cat(tadcCategory)};
  // The option's name before the loop nests ran on threads too.
  cl::alias blasThreads{"blas-threads", cl::aliasopt(threads),
                        cl::desc("Alias for --threads"), cl::Hidden};

  cl::opt<tad::CpuMatmul> matmulImpl{
      "matmul", cl::desc("How f32 and f64 matmuls run on the CPU"),
      cl::values(clEnumValN(tad::CpuMatmul::blas, "blas",
                            "a call of the runtime's OpenBLAS GEMM (default)"),
                 clEnumValN(tad::CpuMatmul::loops, "loops",
                            "loops generated by MLIR (for comparison)")),
      cl::init(tad::CpuMatmul::blas), cl::cat(tadcCategory)};

  cl::opt<tad::Target> target{
      "target", cl::desc("The machine the compiled code runs on"),
      cl::values(clEnumValN(tad::Target::cpu, "cpu", "the host CPU (default)"),
                 clEnumValN(tad::Target::cuda, "cuda",
                            "an NVIDIA GPU, through the CUDA driver "
                            "(docs/gpu.md)"),
                 clEnumValN(tad::Target::cudaEmulator, "cuda-emulator",
                            "the GPU kernels of cuda, run thread by thread "
                            "on the CPU (for tests without a GPU)")),
      cl::init(tad::Target::cpu), cl::cat(tadcCategory)};

  cl::list<std::string> cudaArchs{
      "cuda-arch",
      cl::desc("GPU architectures that --target=cuda assembles for (default "
               "sm_80,sm_90); the PTX for the lowest is included as well"),
      cl::value_desc("sm_XY,..."), cl::CommaSeparated, cl::cat(tadcCategory)};

  cl::opt<std::string> cudaPath{
      "cuda-path",
      cl::desc("The CUDA toolkit whose ptxas and fatbinary --target=cuda runs "
               "(default: $CUDA_ROOT, else /usr/local/cuda)"),
      cl::value_desc("DIR"), cl::cat(tadcCategory)};

  cl::opt<tad::CudaMatmul> cudaMatmul{
      "cuda-matmul", cl::desc("How f32 and f64 matmuls run with --target=cuda"),
      cl::values(
          clEnumValN(tad::CudaMatmul::cublasOrKernel, "auto",
                     "cuBLAS where the program finds it when "
                     "it runs, else generated kernels "
                     "(default)"),
          clEnumValN(tad::CudaMatmul::kernel, "kernel", "generated kernels"),
          clEnumValN(tad::CudaMatmul::cublas, "cublas",
                     "cuBLAS, loaded when the program runs; "
                     "an error without it")),
      cl::init(tad::CudaMatmul::cublasOrKernel), cl::cat(tadcCategory)};

  cl::opt<bool> cudaEmulatorReverse{
      "cuda-emulator-reverse",
      cl::desc("With --target=cuda-emulator, run each kernel's blocks and "
               "threads from the last to the first (a kernel whose threads "
               "depend on each other then gives other results)"),
      cl::init(false), cl::cat(tadcCategory)};

  cl::opt<bool> cudaSyncLaunches{
      "cuda-sync-launches",
      cl::desc("With --target=cuda, wait for every kernel after its launch "
               "(by default the host waits only where it touches a buffer "
               "that queued kernels use), to measure what that costs"),
      cl::init(false), cl::cat(tadcCategory)};

  cl::opt<bool> optimize{"opt",
                         cl::desc("Canonicalize and CSE the tad-level IR"),
                         cl::init(false), cl::cat(tadcCategory)};

  cl::opt<int64_t> loopSnapshots{
      "loop-snapshots",
      cl::desc("Reverse loops by binomial checkpointing (revolve) with at "
               "most N snapshots of their carried values; 0 (the default) "
               "keeps every iteration's"),
      cl::value_desc("N"), cl::init(0), cl::cat(tadcCategory)};

  cl::opt<bool> loopResiduals{
      "loop-residuals",
      cl::desc("With a full tape, also keep each iteration's residuals (the "
               "values its adjoint reads), so that the reverse sweep does not "
               "run the loop's body again (default true; false keeps only "
               "the carried values; under --remat-budget, false leaves it "
               "out of the choice)"),
      cl::init(true), cl::cat(tadcCategory)};

  cl::opt<bool> countRevolveActions{
      "count-revolve-actions",
      cl::desc("Make binomial checkpointing's reverse loops count the actions "
               "they run; tadc run and executables print the counts of the "
               "last call"),
      cl::init(false), cl::cat(tadcCategory)};

  cl::opt<bool> dataParallel{
      "data-parallel",
      cl::desc("Average every gradient across the processes of an MPI run "
               "(mpirun -np N), so that each process may differentiate its "
               "shard of the batch (docs/distributed.md)"),
      cl::init(false), cl::cat(tadcCategory)};

  cl::list<std::string> checkpointCalls{
      "checkpoint-calls",
      cl::desc("Checkpoint every call of these functions, as if each were "
               "declared @checkpoint fn"),
      cl::value_desc("f,g,..."), cl::CommaSeparated, cl::cat(tadcCategory)};

  cl::opt<std::string> rematBudget{
      "remat-budget",
      cl::desc(
          "Schedule every derivative (with --entry, the entry's) within "
          "this budget, recomputing forward values where needed, and "
          "print the remat report. The budget is a whole number of bytes "
          "(65536, or 65536B); a number, a fraction allowed, in KiB, MiB, "
          "GiB or TiB, a space before the unit allowed ('64KiB', "
          "'1.5MiB', or '14.8 MiB' as the report prints sizes: the whole "
          "bytes it reaches); or P% (above 0, such as 60% or 12.5%) of the "
          "store-all peak of --entry, or of the program's one derivative "
          "without it, rounded down; or store-all (plan and report, "
          "recompute nothing)"),
      cl::value_desc("BYTES|SIZE|P%|store-all"), cl::cat(tadcCategory)};

  cl::opt<std::string> rematOverhead{
      "remat-overhead",
      cl::desc(
          "Schedule every derivative (with --entry, the entry's) at the "
          "least peak the remat search finds at which recomputation adds at "
          "most P% (0 or more, such as 1%) to its estimated compute, and "
          "print the remat report; not with --remat-budget"),
      cl::value_desc("P%"), cl::cat(tadcCategory)};

  cl::opt<tad::RematPolicy> rematPolicy{
      "remat-policy", cl::desc("What the remat solver may recompute"),
      tad::getRematPolicyValues(), cl::init(tad::RematPolicy::automatic),
      cl::cat(tadcCategory)};

  cl::opt<std::string> rematReport{
      "remat-report",
      cl::desc("Write the remat report (decisions and memory timeline) as "
               "JSON to FILE (its folder is made when missing)"),
      cl::value_desc("FILE"), cl::cat(tadcCategory)};

  cl::opt<std::string> rematGraph{
      "remat-graph",
      cl::desc("Write each derivative's remat graph as node-link JSON, the "
               "input of tad-remat, to FILE (its folder is made when missing)"),
      cl::value_desc("FILE"), cl::cat(tadcCategory)};

  cl::opt<bool> printPipeline{
      "print-pipeline",
      cl::desc("Print the pass pipeline of this compile, for tad-opt "
               "--pass-pipeline (or --tad-pipeline with what is in the "
               "braces), on stderr"),
      cl::init(false), cl::cat(tadcCategory)};

  cl::opt<bool> printBuiltins{
      "print-builtins",
      cl::desc("Print the table of the builtin functions (docs/builtins.md) "
               "and exit"),
      cl::init(false), cl::cat(tadcCategory)};
};

} // namespace tadc

#endif // TAD_TOOLS_TADC_TADCOPTIONS_H
