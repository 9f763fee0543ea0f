//===- Pipeline.h - tad's whole compile as one pass pipeline ----*- C++ -*-===//
//
// Everything between the tad dialect that the frontend emits and the LLVM
// dialect, as one pass pipeline with typed options: AD, loop snapshots and
// remat under a budget, then the lowering for a target. tadc builds it
// from its command line; `tad-opt --tad-pipeline="..."` runs the same
// passes from a textual description, so that any tadc compile can be
// reproduced and debugged pass by pass (--mlir-print-ir-after-all,
// --mlir-timing). docs/pipeline.md lists the passes.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_PIPELINE_PIPELINE_H
#define TAD_PIPELINE_PIPELINE_H

#include "tad/Transforms/Options.h"
#include "tad/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <memory>

namespace tad::remat {
struct SearchMemos;
} // namespace tad::remat

namespace tad {

/// How far the pipeline goes.
enum class PipelineStage {
  tad,    // nothing, or canonicalize and CSE with `optimize`
  ad,     // derivatives written and scheduled within the budget
  linalg, // the tad dialect converted to linalg on tensors
  llvm,   // the LLVM dialect (and GPU binaries), ready to translate
};

/// The machine that compiled code runs on.
enum class Target {
  cpu,
  cuda,
  /// The kernels of `cuda`, run thread by thread on the CPU (tests).
  cudaEmulator
};

enum class CpuMatmul { blas, loops };
enum class CudaMatmul { kernel, cublas, cublasOrKernel };

struct PipelineOptions : mlir::PassPipelineOptions<PipelineOptions> {
  Option<PipelineStage> stage{
      *this, "stage", llvm::cl::desc("How far to compile"),
      llvm::cl::init(PipelineStage::llvm),
      llvm::cl::values(
          clEnumValN(PipelineStage::tad, "tad", "the tad dialect"),
          clEnumValN(PipelineStage::ad, "ad",
                     "derivatives generated and scheduled"),
          clEnumValN(PipelineStage::linalg, "linalg", "linalg on tensors"),
          clEnumValN(PipelineStage::llvm, "llvm", "the LLVM dialect"))};
  Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("At stage tad, canonicalize and CSE (later stages "
                     "always do)"),
      llvm::cl::init(false)};
  ListOption<std::string> checkpointCalls{
      *this, "checkpoint-calls",
      llvm::cl::desc("Make every call of these functions a checkpoint "
                     "region (tad-checkpoint-calls)")};
  Option<int64_t> loopSnapshots{
      *this, "loop-snapshots",
      llvm::cl::desc("Snapshots per loop for AD (0: every iteration's); "
                     "-1: chosen for remat-budget, or 0 without one"),
      llvm::cl::init(-1)};
  Option<bool> loopResiduals{
      *this, "loop-residuals",
      llvm::cl::desc("With a full tape, keep each iteration's residuals "
                     "too, so that the reverse sweep does not run the body "
                     "again (tad-autodiff's option); under remat-budget, "
                     "whether that is a candidate"),
      llvm::cl::init(true)};
  Option<bool> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("Average every gradient across the processes of an "
                     "MPI run (tad-data-parallel)"),
      llvm::cl::init(false)};
  Option<bool> countRevolveActions{
      *this, "count-revolve-actions",
      llvm::cl::desc("Make revolve's reverse loops count their actions in "
                     "the runtime (tad-autodiff's option)"),
      llvm::cl::init(false)};
  Option<std::string> entry{
      *this, "entry",
      llvm::cl::desc("Keep only this function and what it reaches; when "
                     "it is a derivative, the budget is its own")};
  Option<Budget> rematBudget{
      *this, "remat-budget",
      llvm::cl::desc("Schedule every derivative within this many bytes "
                     "(suffixes KiB, MiB, GiB), checked on the buffer plan; "
                     "P% of the store-all peak (resolved by runPipeline); "
                     "store-all: plan and report, recompute nothing"),
      llvm::cl::init(Budget())};
  Option<RematPolicy> rematPolicy{
      *this, "remat-policy", llvm::cl::desc("What remat may recompute"),
      llvm::cl::init(RematPolicy::automatic),
      getRematPolicyValues()};
  Option<std::string> rematReport{
      *this, "remat-report",
      llvm::cl::desc("Write the remat report as JSON to this file")};
  Option<ReportStream> rematSummary{
      *this, "remat-summary",
      llvm::cl::desc("Print the remat report for people"),
      llvm::cl::init(ReportStream::none),
      getReportStreamValues()};
  Option<std::string> rematGraph{
      *this, "remat-graph",
      llvm::cl::desc("Write each derivative's remat graph as node-link "
                     "JSON to this file")};
  Option<bool> exportNames{
      *this, "export-names",
      llvm::cl::desc("Give functions their internal names (`__tad_f`), "
                     "as compiled outputs that export `f` need"),
      llvm::cl::init(false)};
  Option<Target> target{
      *this, "target", llvm::cl::desc("The machine that runs the code"),
      llvm::cl::init(Target::cpu),
      llvm::cl::values(clEnumValN(Target::cpu, "cpu", "the host CPU"),
                       clEnumValN(Target::cuda, "cuda", "NVIDIA GPUs"),
                       clEnumValN(Target::cudaEmulator, "cuda-emulator",
                                  "the CUDA kernels, run on the CPU"))};
  Option<CpuMatmul> matmul{
      *this, "matmul", llvm::cl::desc("CPU f32/f64 matmuls"),
      llvm::cl::init(CpuMatmul::blas),
      llvm::cl::values(
          clEnumValN(CpuMatmul::blas, "blas", "runtime BLAS calls"),
          clEnumValN(CpuMatmul::loops, "loops", "generated loops"))};
  ListOption<std::string> cudaArchs{
      *this, "cuda-arch",
      llvm::cl::desc("GPU architectures to assemble for (default sm_80, "
                     "sm_90)")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("The CUDA toolkit whose ptxas and fatbinary assemble "
                     "(default: $CUDA_ROOT, else /usr/local/cuda)")};
  Option<CudaMatmul> cudaMatmul{
      *this, "cuda-matmul", llvm::cl::desc("CUDA f32/f64 matmuls"),
      llvm::cl::init(CudaMatmul::cublasOrKernel),
      llvm::cl::values(
          clEnumValN(CudaMatmul::kernel, "kernel", "generated kernels"),
          clEnumValN(CudaMatmul::cublas, "cublas", "cuBLAS GEMM"),
          clEnumValN(CudaMatmul::cublasOrKernel, "auto",
                     "cuBLAS where the program finds it, else the kernels"))};
  Option<bool> cudaEmulatorReverse{
      *this, "cuda-emulator-reverse",
      llvm::cl::desc("With the cuda-emulator target, run each kernel's "
                     "blocks and threads from the last to the first"),
      llvm::cl::init(false)};
  Option<bool> cudaSyncLaunches{
      *this, "cuda-sync-launches",
      llvm::cl::desc("With the cuda target, wait for every kernel after "
                     "its launch (no tad-gpu-host-waits)"),
      llvm::cl::init(false)};
};

/// Adds the passes of `options` to `pm` (on a builtin.module). Options
/// that contradict each other, or a CUDA architecture or path that cannot
/// be used, are reported through `emitError`, and nothing is added.
mlir::LogicalResult buildPipeline(
    mlir::OpPassManager &pm, const PipelineOptions &options,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> emitError);

/// Adds the passes of `options` up to tad-remat (checkpoint calls, the loop
/// choice for `budget`, AD, the entry, canonicalize and CSE) to `pm`: the
/// compile's, and what planAtBudget (Plan.h) runs on a copy. The loop
/// choice keeps the solver's answers in `memo` for tad-remat to find.
void addDifferentiationPasses(
    mlir::OpPassManager &pm, const PipelineOptions &options,
    const Budget &budget, std::shared_ptr<remat::SearchMemos> memo = nullptr);

/// tad-remat's options in the pipeline of `options`, within `budget`.
RematOptions getRematOptions(const PipelineOptions &options,
                             const Budget &budget);

/// Runs the passes of `options` on `module`, as tadc does. A budget that
/// is a share of the store-all peak is resolved first (resolveBudget,
/// Plan.h). The module is
/// verified before the passes and after them, and after every pass only
/// with `verifyEach`: verifying after each pass took half of the passes'
/// time (docs/performance.md). MLIR's pass manager and timing command-line
/// options apply where they are registered (tadc's --mlir-timing, IR
/// printing). Options that buildPipeline rejects go to `emitError`.
mlir::LogicalResult runPipeline(
    mlir::ModuleOp module, const PipelineOptions &options, bool verifyEach,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> emitError);

/// Adds the lowering from the tad dialect (after AD and remat) to the LLVM
/// dialect for `target` to `pm` (on a builtin.module): bufferization
/// (addBufferizationPasses), tad-buffer-peak, which fails a derivative
/// whose planned buffers exceed `budget` bytes (negative: no limit), and
/// the target's code generation. The budget goes to tad-buffer-peak as its
/// typed option. `reverseEmulatedThreads`: tad-emulate-gpu-launches'
/// `reverse`, for Target::cudaEmulator; `syncLaunches`: every launch waited
/// for (no tad-gpu-host-waits), for Target::cuda.
void addLoweringPipeline(mlir::OpPassManager &pm, Target target,
                         int64_t budget = -1, bool blasMatmul = true,
                         llvm::ArrayRef<std::string> cudaArchs = {},
                         llvm::StringRef cudaToolkit = "",
                         CudaMatmul cudaMatmul = CudaMatmul::kernel,
                         bool reverseEmulatedThreads = false,
                         bool syncLaunches = false);

/// Registers `tad-pipeline` (buildPipeline) and the lowering pipelines
/// `tad-lower-to-llvm` and `tad-lower-to-cuda`.
void registerPipelines();

} // namespace tad

#endif // TAD_PIPELINE_PIPELINE_H
