//===- Compiler.h - one tadc compile, as a library call ---------*- C++ -*-===//
//
// What tadc does once its command line is parsed: read the input (a .tad
// program or tad-dialect MLIR, whole or in `// -----` chunks), run the
// frontend, the instances and the pipeline up to the requested stage, and
// print, write, link or run the result. tools/tadc only turns its flags
// into a CompileOptions; everything else is here, so that the compile can
// be driven (and tested) without a command line.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DRIVER_COMPILER_H
#define TAD_DRIVER_COMPILER_H

#include "tad/Pipeline/Pipeline.h"
#include "tad/runtime/Runner.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tad::driver {

/// The stages of a compile, in pipeline order: how far it goes and what
/// it produces.
enum class Stage { ast, tad, ad, linalg, llvm, llvmir, obj, lib, exe, run };
/// The input language.
enum class InputKind { tad, mlir };

/// Everything one compile is asked to do. The fields are tadc's flags
/// (docs/tadc.md), already parsed into their types.
struct CompileOptions {
  // Input and output.
  std::string inputFilename = "-";
  std::string outputFilename = "-";
  InputKind inputKind = InputKind::tad;
  bool splitInputFile = false;
  Stage stage = Stage::tad;
  /// `tadc mem`: the memory table of --entry's derivative.
  bool memoryTable = false;
  unsigned memPoints = 3;
  std::string memJson;
  std::string depFile;

  // The program.
  std::string entry;
  std::vector<std::string> importPaths;
  std::vector<std::string> instantiations; // f[B=64]
  std::vector<std::string> dims;           // B=64
  bool printPipeline = false;
  bool verifyEach = false;

  // The pipeline (PipelineOptions, by flag).
  bool optimize = false;
  std::vector<std::string> checkpointCalls;
  bool dataParallel = false;
  /// --remat-budget; unset: none.
  tad::Budget rematBudget;
  RematPolicy rematPolicy = RematPolicy::automatic;
  std::string rematReport, rematGraph;
  /// --loop-snapshots, when given.
  std::optional<int64_t> loopSnapshots;
  bool loopResiduals = true;
  bool countRevolveActions = false;
  Target target = Target::cpu;
  CpuMatmul matmul = CpuMatmul::blas;
  std::vector<std::string> cudaArchs;
  bool cudaArchsGiven = false;
  std::string cudaPath;
  CudaMatmul cudaMatmul = CudaMatmul::cublasOrKernel;
  bool cudaEmulatorReverse = false;
  bool cudaSyncLaunches = false;
  unsigned codegenThreads = 0; // 0: by the module's size

  // tadc run: what the runner reads and writes (its input files come from
  // `inputFiles`).
  std::vector<std::string> inputFiles; // NAME=FILE.npy
  tad::rt::RunOptions run;
  std::string jitLLVMIR;
};

/// Runs the compile that `options` describe; its errors are printed on
/// stderr as `tadc: error: ...` or at their source location. Returns the
/// process's exit status: 0 on success, 1 on any error.
int runCompile(const CompileOptions &options);

} // namespace tad::driver

#endif // TAD_DRIVER_COMPILER_H
