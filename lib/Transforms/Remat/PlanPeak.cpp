//===- PlanPeak.cpp - the planned peak of a function's buffers ------------===//

#include "PlanPeak.h"

#include "dialects/tad/TadOps.h"
#include "tad/Conversion/Passes.h"
#include "tad/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace tad;

const PlanLowering::ModuleIndex &PlanLowering::index(ModuleOp module) {
  std::lock_guard<std::mutex> lock(mutex);
  if (moduleIndex.module == module.getOperation())
    return moduleIndex;
  moduleIndex = ModuleIndex();
  moduleIndex.module = module;
  for (Operation &op : *module.getBody()) {
    moduleIndex.position[&op] = moduleIndex.position.size();
    if (auto name = op.getAttrOfType<StringAttr>(
            SymbolTable::getSymbolAttrName()))
      moduleIndex.byName.try_emplace(name, &op);
    else
      moduleIndex.unnamed.push_back(&op);
  }
  return moduleIndex;
}

/// Whether `attr` of `op` is one that only AD reads (copyForPlan drops it): a
/// derivative's reference to its primal function, a rule's to the function
/// it is the rule of.
static bool onlyForAD(Operation *op, NamedAttribute attr) {
  return isa<func::FuncOp>(op) &&
         (attr.getName() == TadDialect::kDerivativeAttrName ||
          attr.getName() == TadDialect::kCustomRuleAttrName);
}

/// The symbols of the module that `body` references, directly or through
/// the symbols it references: all the lowering of `body` can read. Copying
/// only these keeps a plan check as cheap in a module of 2,000 functions as
/// in a module of one (copying the whole module per check was quadratic).
/// (Not the primal function of a derivative, which the lowering drops: a
/// copy with it would also be another key for the same plan.)
static llvm::SmallPtrSet<Operation *, 8>
reachableSymbols(const PlanLowering::ModuleIndex &index, func::FuncOp body) {
  llvm::SmallPtrSet<Operation *, 8> reached;
  SmallVector<Operation *> worklist{body};
  while (!worklist.empty()) {
    worklist.pop_back_val()->walk([&](Operation *op) {
      for (NamedAttribute attr : op->getAttrs())
        if (!onlyForAD(op, attr))
          attr.getValue().walk([&](SymbolRefAttr ref) {
            Operation *symbol = index.byName.lookup(ref.getRootReference());
            if (symbol && reached.insert(symbol).second)
              worklist.push_back(symbol);
          });
    });
  }
  return reached;
}

LogicalResult PlanLowering::run(ModuleOp copy) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!steps)
      steps = std::make_unique<BufferizationSteps>(context);
  }
  // The symbols that `copy` holds are all reached from its function
  // (copyForPlan), so the pipeline's symbol-dce has nothing to drop, and the
  // peaks are tad-buffer-peak's with its defaults.
  if (failed(steps->run(copy)))
    return failure();
  return annotateBufferPeaks(copy, /*budget=*/-1, /*functions=*/{});
}

OwningOpRef<ModuleOp> tad::copyForPlan(PlanLowering &lowering, ModuleOp module,
                                       func::FuncOp func, func::FuncOp body) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->cloneWithoutRegions()));
  copy->getBodyRegion().emplaceBlock();
  OpBuilder b = OpBuilder::atBlockEnd(copy->getBody());
  // Symbols `body` cannot reach are dead in the copy (SymbolDCE in the
  // lowering would drop them): not copied at all. The others keep the
  // module's order.
  const PlanLowering::ModuleIndex &index = lowering.index(module);
  llvm::SmallPtrSet<Operation *, 8> reached = reachableSymbols(index, body);
  reached.insert(func);
  SmallVector<Operation *> copied(reached.begin(), reached.end());
  copied.append(index.unnamed.begin(), index.unnamed.end());
  llvm::sort(copied, [&](Operation *a, Operation *b) {
    return index.position.lookup(a) < index.position.lookup(b);
  });
  for (Operation *op : copied) {
    bool target = op == func.getOperation();
    Operation *cloned = b.clone(target ? *body : *op);
    auto fn = dyn_cast<func::FuncOp>(cloned);
    if (!fn)
      continue;
    // Only AD reads these; without them, what `func` does not call is
    // dropped.
    fn->removeAttr(TadDialect::kDerivativeAttrName);
    fn->removeAttr(TadDialect::kCustomRuleAttrName);
    if (target)
      fn.setPublic();
    else if (!fn.isDeclaration())
      fn.setPrivate();
  }
  copy->walk([](scf::ForOp loop) {
    loop->removeAttr(TadDialect::kLoopSnapshotsAttrName);
  });
  // The copy holds the remat pass's rewrite: verified once here, not after
  // every pass of the lowering (PlanLowering).
  if (failed(verify(*copy)))
    return nullptr;
  return copy;
}

/// Lowers `copy` (copyForPlan's) through the bufferization steps; emits an
/// error at `func` when it cannot be.
static LogicalResult lower(PlanLowering &lowering, ModuleOp copy,
                           func::FuncOp func) {
  if (succeeded(lowering.run(copy)))
    return success();
  return func.emitError("cannot lower @")
         << func.getName() << " to measure its buffers";
}

/// The key of `copy` in PlanLowering::peaks: a 128-bit hash of its text
/// (generic form, without locations, which the lowering does not read).
static std::string planKey(ModuleOp copy) {
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os, OpPrintingFlags().printGenericOpForm());
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(
      ArrayRef(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  return std::string(reinterpret_cast<const char *>(&hash), sizeof(hash));
}

/// The buffer peak that the lowering left on `func` in `copy`.
static FailureOr<int64_t> loweredPeak(ModuleOp copy, func::FuncOp func) {
  auto lowered = copy.lookupSymbol<func::FuncOp>(func.getName());
  auto peak =
      lowered
          ? lowered->getAttrOfType<IntegerAttr>(TadDialect::kBufferPeakAttrName)
          : IntegerAttr();
  if (!peak)
    return func.emitError("no buffer peak for @") << func.getName();
  return peak.getInt();
}

FailureOr<int64_t> tad::planBufferPeak(PlanLowering &lowering, ModuleOp module,
                                       func::FuncOp func, func::FuncOp body) {
  return planCopyPeak(lowering, copyForPlan(lowering, module, func, body),
                      func);
}

FailureOr<int64_t> tad::planCopyPeak(PlanLowering &lowering,
                                     OwningOpRef<ModuleOp> copy,
                                     func::FuncOp func) {
  if (!copy)
    return failure();
  if (!lowering.peaks()) {
    if (failed(lower(lowering, *copy, func)))
      return failure();
    return loweredPeak(*copy, func);
  }
  // A copy that fails to lower is not kept: it is lowered again, and
  // reports why each time.
  bool failedHere = false;
  int64_t peak = lowering.peaks()->answer(
      planKey(*copy),
      [&]() -> int64_t {
        FailureOr<int64_t> planned = failure();
        if (succeeded(lower(lowering, *copy, func)))
          planned = loweredPeak(*copy, func);
        failedHere = failed(planned);
        return failedHere ? -1 : *planned;
      },
      [&] { return !failedHere; });
  if (failedHere)
    return failure();
  return peak;
}

FailureOr<PlannedTimeline>
tad::planBufferTimeline(PlanLowering &lowering, ModuleOp module,
                        func::FuncOp func, func::FuncOp body, size_t maxEvents,
                        std::optional<GpuLoops> gpu) {
  OwningOpRef<ModuleOp> copy = copyForPlan(lowering, module, func, body);
  if (!copy || failed(lower(lowering, *copy, func)))
    return failure();
  if (gpu &&
      failed(runGpuLoopMapping(*copy, gpu->cublasMatmul, gpu->kernelFallback)))
    return func.emitError("cannot map the loops of @")
           << func.getName() << " onto kernels to plan its timeline";
  auto lowered = copy->lookupSymbol<func::FuncOp>(func.getName());
  if (!lowered)
    return func.emitError("no lowered @") << func.getName();
  PlannedTimeline timeline;
  if (gpu) {
    // The kernels keep some buffers in shared memory or as their threads'
    // values: the device's plan, as the GPU targets' tad-buffer-peak
    // counts it after the mapping.
    FailureOr<int64_t> peak = failure();
    if (succeeded(annotateBufferPeaks(*copy, /*budget=*/-1, /*functions=*/{})))
      peak = loweredPeak(*copy, func);
    if (failed(peak))
      return failure();
    timeline.mappedPeak = *peak;
  }
  FailureOr<std::vector<BufferEvent>> events =
      traceBuffers(lowered, maxEvents, timeline.truncated);
  if (failed(events))
    return failure();
  timeline.events = std::move(*events);
  return timeline;
}
