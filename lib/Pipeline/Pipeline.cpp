//===- Pipeline.cpp - tad's whole compile as one pass pipeline ------------===//

#include "tad/Pipeline/Pipeline.h"

#include "tad/Conversion/Passes.h"
#include "tad/Pipeline/Plan.h"
#include "tad/Remat/Solver.h"
#include "tad/Transforms/Passes.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;

/// The toolkit of `options`, else $CUDA_ROOT, else /usr/local/cuda.
static std::string getCudaToolkit(const tad::PipelineOptions &options) {
  if (!options.cudaPath.empty())
    return options.cudaPath;
  const char *root = std::getenv("CUDA_ROOT");
  return root && *root ? std::string(root) : std::string("/usr/local/cuda");
}

/// The architectures of `options` (sm_80 and sm_90 when none is given), or
/// failure after reporting one that ptxas cannot assemble for.
static FailureOr<std::vector<std::string>>
getCudaArchs(const tad::PipelineOptions &options,
             function_ref<LogicalResult(const Twine &)> emitError) {
  std::vector<std::string> archs(options.cudaArchs.begin(),
                                 options.cudaArchs.end());
  if (archs.empty())
    archs = {"sm_80", "sm_90"};
  for (StringRef arch : archs) {
    unsigned number = 0;
    // ptxas of CUDA 13 assembles for sm_75 and later.
    if (!arch.starts_with("sm_") || arch.size() > 6 ||
        arch.drop_front(3).getAsInteger(10, number) || number < 75) {
      (void)emitError("cuda-arch: '" + arch +
                      "' is not a GPU architecture that CUDA 13 supports "
                      "(sm_75, sm_80, sm_86, sm_89, sm_90, ...)");
      return failure();
    }
  }
  return archs;
}

/// The options' budget as the passes take it: a share is resolved before
/// them (tad::resolveBudget).
static LogicalResult
checkBudget(const tad::PipelineOptions &options,
            function_ref<LogicalResult(const Twine &)> emitError) {
  const tad::Budget &budget = options.rematBudget;
  if (options.stage < tad::PipelineStage::ad && budget.isSet())
    return emitError("remat-budget needs stage=ad or later");
  if (budget.isShare()) {
    return emitError("remat-budget=" + budget.str() +
                     " is a share of the store-all peak, known once the "
                     "program is differentiated: tad::runPipeline (tadc) "
                     "resolves it to bytes; here give bytes or store-all");
  }
  return success();
}

void tad::addDifferentiationPasses(OpPassManager &pm,
                                   const PipelineOptions &options,
                                   const Budget &budget,
                                   std::shared_ptr<remat::SearchMemos> memo) {
  // AD first: it needs every function and every custom rule, and it gives
  // derivatives the bodies that make them runnable entries.
  if (!options.checkpointCalls.empty()) {
    CheckpointCallsOptions checkpoint;
    checkpoint.functions.assign(options.checkpointCalls.begin(),
                                options.checkpointCalls.end());
    pm.addPass(createCheckpointCalls(checkpoint));
  }
  // Store-all keeps AD's default, every loop's full tape.
  if (budget.isBytes() && options.loopSnapshots < 0) {
    ChooseLoopSnapshotsOptions choose;
    choose.budget = budget;
    choose.policy = options.rematPolicy;
    choose.entry = options.entry;
    choose.loopResiduals = options.loopResiduals;
    pm.addPass(createChooseLoopSnapshots(choose, std::move(memo)));
  }
  AutoDiffOptions ad;
  ad.loopSnapshots = std::max<int64_t>(options.loopSnapshots, 0);
  ad.countRevolveActions = options.countRevolveActions;
  ad.loopResiduals = options.loopResiduals;
  pm.addPass(createAutoDiff(ad));
  if (options.dataParallel)
    pm.addPass(createDataParallel());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // After CSE, which would merge what a rule's pullback recomputes into
  // the forward's values; before the entry is kept alone, which drops the
  // rules' attributes.
  pm.addPass(createInlineRules());
  if (!options.entry.empty()) {
    RestrictToEntryOptions restrict;
    restrict.entry = options.entry;
    pm.addPass(createRestrictToEntry(restrict));
  }
  // The rules' inlined pullbacks multiply by the ones of a sum's gradient;
  // folded, what they multiply is a broadcast that each reader can fuse.
  // No CSE: it would merge what the rules recompute, and the broadcasts'
  // copies.
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createDuplicateBroadcasts());
}

LogicalResult
tad::buildPipeline(OpPassManager &pm, const PipelineOptions &options,
                   function_ref<LogicalResult(const Twine &)> emitError) {
  PipelineStage stage = options.stage;
  const Budget &budget = options.rematBudget;
  if (stage < PipelineStage::ad && !options.checkpointCalls.empty())
    return emitError("checkpoint-calls needs stage=ad or later");
  if (failed(checkBudget(options, emitError)))
    return failure();
  if (options.loopSnapshots < -1)
    return emitError("loop-snapshots must be 0 or more (or -1: chosen for "
                     "the budget), got " +
                     Twine(int64_t(options.loopSnapshots)));
  std::string toolkit = getCudaToolkit(options);
  std::vector<std::string> archs;
  if (options.target == Target::cuda && stage == PipelineStage::llvm) {
    FailureOr<std::vector<std::string>> checked =
        getCudaArchs(options, emitError);
    if (failed(checked))
      return failure();
    archs = std::move(*checked);
  }

  if (stage == PipelineStage::tad) {
    if (options.optimize) {
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
    }
    return success();
  }
  // The remat pass asks the solver again much of what the loop choice's
  // probes asked it (the chosen counts' own graphs).
  auto memo = std::make_shared<remat::SearchMemos>();
  addDifferentiationPasses(pm, options, budget, memo);
  // Remat after CSE, which would merge its recomputed clones back into the
  // originals; nothing later CSEs tensor ops.
  if (budget.isSet())
    pm.addPass(createRemat(getRematOptions(options, budget), memo));
  // Compiled outputs export C functions named as in the .tad program; the
  // compiled code itself uses internal names (`__tad_f`), given after remat
  // so that its messages use the program's.
  if (options.exportNames)
    pm.addPass(createPrefixFunctionNames());
  if (stage == PipelineStage::ad)
    return success();
  if (stage == PipelineStage::linalg) {
    pm.addPass(createConvertTadToLinalg());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    return success();
  }
  // The lowering checks what remat planned: every derivative's buffers
  // within the budget, or the compile fails (store-all: whatever it plans).
  addLoweringPipeline(pm, options.target, budget.isBytes() ? budget.bytes : -1,
                      options.matmul == CpuMatmul::blas, archs, toolkit,
                      options.cudaMatmul, options.cudaEmulatorReverse,
                      options.cudaSyncLaunches);
  return success();
}

tad::RematOptions tad::getRematOptions(const PipelineOptions &options,
                                       const Budget &budget) {
  RematOptions remat;
  remat.budget = budget;
  remat.policy = options.rematPolicy;
  remat.entry = options.entry;
  remat.reportFile = options.rematReport;
  remat.summary = options.rematSummary;
  remat.graphFile = options.rematGraph;
  // The GPU targets' kernels move allocations and frees (HostPeak.h): the
  // report's timeline follows them.
  remat.gpuLoops =
      options.target == Target::cuda || options.target == Target::cudaEmulator;
  remat.cublasMatmul = options.target == Target::cuda &&
                       options.cudaMatmul != CudaMatmul::kernel;
  remat.kernelFallback = options.cudaMatmul == CudaMatmul::cublasOrKernel;
  return remat;
}

void tad::addLoweringPipeline(OpPassManager &pm, Target target, int64_t budget,
                              bool blasMatmul, ArrayRef<std::string> cudaArchs,
                              StringRef cudaToolkit, CudaMatmul cudaMatmul,
                              bool reverseEmulatedThreads, bool syncLaunches) {
  addBufferizationPasses(pm, /*collectives=*/target == Target::cpu);
  BufferPeakOptions peak;
  peak.budget = budget;
  pm.addPass(createBufferPeak(peak));
  // The kernels keep some buffers in shared memory or registers (a chain's
  // row sums, a joined loop's accumulators), which the device then never
  // allocates: the plan's peak is counted again on the GPU targets, and
  // checked against the budget again.
  auto devicePeak = [&](OpPassManager &passes) {
    passes.addPass(createBufferPeak(peak));
  };
  if (target == Target::cudaEmulator)
    addCudaEmulatorCodegenPasses(pm, reverseEmulatedThreads, devicePeak);
  else if (target == Target::cuda)
    addCudaCodegenPasses(
        pm, cudaArchs, cudaToolkit, cudaMatmul != CudaMatmul::kernel,
        cudaMatmul == CudaMatmul::cublasOrKernel, syncLaunches, devicePeak);
  else
    addCpuCodegenPasses(pm, blasMatmul);
}

LogicalResult
tad::runPipeline(ModuleOp module, const PipelineOptions &options,
                 bool verifyEach,
                 function_ref<LogicalResult(const Twine &)> emitError) {
  PassManager pm(module.getContext());
  pm.enableVerifier(verifyEach);
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  applyDefaultTimingPassManagerCLOptions(pm);
  // The passes take bytes: a share of the store-all peak is resolved here,
  // once the module exists.
  PipelineOptions resolved;
  resolved.copyOptionValuesFrom(options);
  if (options.rematBudget.getValue().isShare() &&
      options.stage >= PipelineStage::ad) {
    llvm::Expected<ResolvedBudget> budget = resolveBudget(module, options);
    if (!budget)
      return emitError(llvm::toString(budget.takeError()));
    resolved.rematBudget = budget->budget;
  }
  if (failed(buildPipeline(pm, resolved, emitError)) || failed(verify(module)) ||
      failed(pm.run(module)))
    return failure();
  return verify(module);
}

void tad::registerPipelines() {
  registerPassPipeline(
      "tad-pipeline",
      "Everything tadc runs after the frontend: AD, remat within a budget, "
      "and the lowering (docs/pipeline.md)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> emitError) {
        PipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        return buildPipeline(pm, options, emitError);
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(PipelineOptions());
      });
  PassPipelineRegistration<>(
      "tad-bufferize",
      "The part of the lowering that the CPU and the GPU share: the tad "
      "dialect to memrefs with every allocation and free planned "
      "(docs/memory.md)",
      [](OpPassManager &pm) { addBufferizationPasses(pm); });
  PassPipelineRegistration<>(
      "tad-lower-to-llvm",
      "Lower the tad dialect to the LLVM dialect for the CPU",
      [](OpPassManager &pm) { addLoweringPipeline(pm, Target::cpu); });
  PassPipelineRegistration<>(
      "tad-lower-to-cuda",
      "Lower the tad dialect to the LLVM dialect and fatbins for sm_80 and "
      "sm_90 (the CUDA toolkit at $CUDA_ROOT, else /usr/local/cuda)",
      [](OpPassManager &pm) {
        const char *root = std::getenv("CUDA_ROOT");
        std::string toolkit = root && *root ? root : "/usr/local/cuda";
        addLoweringPipeline(pm, Target::cuda, /*budget=*/-1,
                            /*blasMatmul=*/true, {"sm_80", "sm_90"}, toolkit,
                            CudaMatmul::kernel);
      });
}
