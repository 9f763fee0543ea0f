//===- HostWaits.cpp - asynchronous launches, waits where the host reads --===//
//
// A synchronous `gpu.launch_func` makes the host wait for every kernel (the
// translation calls mgpuStreamSynchronize after each launch): a step of
// the GPT example waited 1,287 times for kernels of a few microseconds. The
// host needs to wait only where it touches memory that a kernel still
// running may use: a scalar load for a branch or a loop bound, a store of
// a scalar, a call of a function that reads buffers, the caller reading
// the results. So launches become asynchronous on one stream, and the pass
// tracks the buffers that the kernels and GEMMs issued since the last wait
// use (their operands), and puts a wait before a host access only where it
// may alias one of them (MLIR's local alias analysis).
//
// A buffer that the host writes may also be a freed buffer's memory, which
// the allocator's pool hands out again at once: after a free of a buffer
// that a running kernel uses, every host write waits. (Kernels are ordered
// by the stream: one that reuses the memory runs after those that freed it.)
//
// Buffers are managed memory: the host may touch a buffer while a kernel
// that uses it runs, which is a race, not an error, on a GPU that allows
// concurrent managed access. The stand-in driver of the tests
// (test/GPU/Inputs/fake_libcuda.c) protects the buffers a kernel was given
// from the host between its launch and the next wait, so that a wait this
// pass misses stops the test.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"
#include "tad/Conversion/RuntimeFunctions.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace tad {
#define GEN_PASS_DEF_GPUHOSTWAITS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kWaitFunction = "tad_rt_cuda_wait";

/// Runtime functions that neither touch buffers on the host nor run
/// anything on the device: they need no wait.
bool touchesNothing(StringRef callee) {
  static const llvm::StringSet<> names = {
      "tad_rt_cuda_blas_available",  "tad_rt_mark_scratch",
      "tad_rt_mark_device_buffer",   "tad_rt_count_kernel_launch",
      "tad_rt_count_revolve_action", kWaitFunction};
  return names.contains(callee);
}

/// What the device may still be doing: the buffers that the kernels and
/// GEMMs issued since the last wait use.
struct Pending {
  bool any = false;
  /// A call of a function of the module: its accesses are not known.
  bool unknown = false;
  /// A buffer was freed while work was issued: its memory may be a new
  /// buffer's.
  bool freedInUse = false;
  llvm::SetVector<Value> uses;

  void join(const Pending &other) {
    any |= other.any;
    unknown |= other.unknown;
    freedInUse |= other.freedInUse;
    uses.insert(other.uses.begin(), other.uses.end());
  }
};

struct GpuHostWaits : tad::impl::GpuHostWaitsBase<GpuHostWaits> {
  using GpuHostWaitsBase::GpuHostWaitsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (everyLaunch)
      return waitAfterEveryGemm(module);
    SymbolTable table(module);
    symbols = &table;
    aliases = &getAnalysis<AliasAnalysis>();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!func.isDeclaration())
        runOnFunction(module, func);
  }

  void runOnFunction(ModuleOp module, func::FuncOp func) {
    stream = nullptr;
    bool hasLaunch = false;
    func.walk([&](gpu::LaunchFuncOp) { hasLaunch = true; });
    if (hasLaunch) {
      OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
      stream =
          gpu::WaitOp::create(b, func.getLoc(),
                              b.getType<gpu::AsyncTokenType>(), ValueRange())
              .getAsyncToken();
    }
    publicFunction = func.isPublic();
    // A caller in the module may have left work queued when a function
    // begins; an entry point's callers have waited for theirs.
    Pending callers;
    if (!publicFunction || !SymbolTable::symbolKnownUseEmpty(func, module))
      callers.any = callers.unknown = true;
    for (Block &block : func.getBody())
      visit(module, block, callers);
  }

  /// Synchronous launches wait for their kernel; a wait after each GEMM.
  void waitAfterEveryGemm(ModuleOp module) {
    module.walk([&](func::CallOp call) {
      if (!tad::isCudaGemmCall(call.getCallee()))
        return;
      if (!wait)
        wait = tad::getOrDeclareRuntimeFunction(
            module, kWaitFunction, FunctionType::get(&getContext(), {}, {}));
      OpBuilder b(call);
      b.setInsertionPointAfter(call);
      func::CallOp::create(b, call.getLoc(), wait, ValueRange());
    });
  }

  /// Adds what `op` leaves running on the device, if anything.
  void addWork(Operation *op, Pending &pending) {
    auto call = dyn_cast<func::CallOp>(op);
    if (isa<gpu::LaunchFuncOp>(op) ||
        (call && tad::isCudaGemmCall(call.getCallee()))) {
      pending.any = true;
      for (Value operand : op->getOperands())
        if (isa<BaseMemRefType>(operand.getType()))
          pending.uses.insert(operand);
      return;
    }
    if (!call)
      return;
    auto callee = symbols->lookup<func::FuncOp>(call.getCallee());
    if (callee && !callee.isDeclaration())
      pending.any = pending.unknown = true;
  }

  /// Whether `op` may run a region again after a run of one of its
  /// regions (a loop, or an operation that does not say).
  static bool isLoop(Operation *op) {
    auto branch = dyn_cast<RegionBranchOpInterface>(op);
    return isa<LoopLikeOpInterface>(op) || !branch || branch.hasLoop();
  }

  /// All that `op`'s regions may leave running, in any of their runs.
  Pending workIn(Operation *op) {
    Pending work;
    bool frees = false;
    op->walk([&](Operation *inner) {
      addWork(inner, work);
      frees |= hasEffect<MemoryEffects::Free>(inner);
    });
    work.freedInUse = work.any && frees;
    return work;
  }

  bool mayAliasAny(Value value, const llvm::SetVector<Value> &values) {
    return llvm::any_of(values, [&](Value other) {
      return !aliases->alias(value, other).isNo();
    });
  }

  /// Whether `op` itself (not its regions) touches memory on the host that
  /// `pending` work may use. A function of the module waits for itself
  /// where it needs to; an unknown function, or an operation that declares
  /// nothing, is taken to touch any memory.
  bool conflicts(Operation *op, const Pending &pending) {
    if (!pending.any || isa<gpu::LaunchFuncOp, gpu::WaitOp>(op) || isPure(op) ||
        op->hasTrait<OpTrait::IsTerminator>())
      return false;
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = symbols->lookup<func::FuncOp>(call.getCallee());
      return !(callee && !callee.isDeclaration()) &&
             !touchesNothing(call.getCallee()) &&
             !tad::isCudaGemmCall(call.getCallee());
    }
    if (op->getNumRegions() > 0 &&
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return false; // its operations are visited one by one
    auto interface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!interface)
      return true;
    SmallVector<MemoryEffects::EffectInstance> effects;
    interface.getEffects(effects);
    for (auto &effect : effects) {
      bool read = isa<MemoryEffects::Read>(effect.getEffect());
      bool write = isa<MemoryEffects::Write>(effect.getEffect());
      if (!read && !write)
        continue; // an allocation or a free
      // A kernel's reads count too: which buffers a kernel writes is not
      // told apart, here or by the stand-in driver that checks this pass.
      Value value = effect.getValue();
      if (!value || pending.unknown || mayAliasAny(value, pending.uses) ||
          (write && pending.freedInUse))
        return true;
    }
    return false;
  }

  /// How many waits `op`'s regions would make, beginning with `start`
  /// pending (a dry run of visit).
  int64_t waitsIn(ModuleOp module, Operation *op, const Pending &start) {
    bool applying = apply;
    int64_t before = waits;
    apply = false;
    for (Region &region : op->getRegions())
      for (Block &inner : region)
        visit(module, inner, start);
    apply = applying;
    return std::exchange(waits, before) - before;
  }

  /// Makes the launches of `block` asynchronous and adds waits; returns
  /// what may still run at its end.
  Pending visit(ModuleOp module, Block &block, Pending pending) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<func::ReturnOp>(op)) {
        if (pending.any && publicFunction)
          waitBefore(module, &op, /*end=*/true);
        continue;
      }
      if (conflicts(&op, pending)) {
        waitBefore(module, &op, /*end=*/false);
        pending = Pending();
      }
      if (op.hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
          op.getNumRegions() > 0) {
        // A loop's body may begin after its own work of the iteration
        // before. Where work from before a loop makes its body wait more
        // often than its own work does, it is waited for once, before it.
        Pending inside = isLoop(&op) ? workIn(&op) : Pending();
        Pending start = pending;
        start.join(inside);
        if (pending.any && inside.any &&
            waitsIn(module, &op, start) > waitsIn(module, &op, inside)) {
          waitBefore(module, &op, /*end=*/false);
          pending = Pending();
          start = inside;
        }
        // After it: what ran before it (a loop of no iterations, a branch
        // not taken) and what may run at the end of any of its blocks.
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            pending.join(visit(module, inner, start));
        continue;
      }
      addWork(&op, pending);
      if (hasEffect<MemoryEffects::Free>(&op))
        pending.freedInUse |= pending.any;
      // Last: this replaces `op`.
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
        if (apply && !launch.getAsyncToken())
          makeAsync(launch);
    }
    return pending;
  }

  void makeAsync(gpu::LaunchFuncOp launch) {
    OpBuilder b(launch);
    std::optional<gpu::KernelDim3> cluster;
    if (launch.hasClusterSize())
      cluster = launch.getClusterSizeOperandValues();
    auto async = gpu::LaunchFuncOp::create(
        b, launch.getLoc(), launch.getKernelAttr(),
        launch.getGridSizeOperandValues(), launch.getBlockSizeOperandValues(),
        launch.getDynamicSharedMemorySize(), launch.getKernelOperands(),
        b.getType<gpu::AsyncTokenType>(), ValueRange{stream}, cluster);
    async->setDiscardableAttrs(launch->getDiscardableAttrDictionary());
    launch.erase();
  }

  /// A wait before `op`; at the end of a function that made a stream, the
  /// stream's own (which also ends it).
  void waitBefore(ModuleOp module, Operation *op, bool end) {
    ++waits;
    if (!apply)
      return;
    OpBuilder b(op);
    if (end && stream) {
      gpu::WaitOp::create(b, op->getLoc(), Type(), ValueRange{stream});
      return;
    }
    if (!wait)
      wait = tad::getOrDeclareRuntimeFunction(
          module, kWaitFunction, FunctionType::get(&getContext(), {}, {}));
    func::CallOp::create(b, op->getLoc(), wait, ValueRange());
  }

  SymbolTable *symbols = nullptr;
  AliasAnalysis *aliases = nullptr;
  Value stream;
  func::FuncOp wait;
  /// Whether visit changes the IR (else it counts the waits it would add).
  bool apply = true;
  int64_t waits = 0;
  bool publicFunction = false;
};

} // namespace
