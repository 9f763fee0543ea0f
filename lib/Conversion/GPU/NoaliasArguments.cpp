//===- NoaliasArguments.cpp - kernels' fresh buffers: noalias, aligned ----===//
//
// After outlining, a kernel reads its buffers through pointer arguments,
// and LLVM assumes that any two may overlap: a thread's loop that reduces
// into an element of one buffer while it reads another stores the
// element at every step (a softmax's row maximum: 256 stores a row), and
// loads cannot be merged across such stores. A buffer that views an
// allocation of its own at every launch of the kernel (FreshAllocations.h,
// the rule of the CPU's outlined loop nests) cannot overlap any other
// argument, and its pointer is marked `noalias`. A buffer that views an
// allocation, or an entry point's input (which the runtime copies into an
// allocation of its own), through views that keep its pointer (the
// driver's allocations are aligned to 256 bytes) is marked `align 16`, so
// that LLVM can make 4 neighbouring f32 accesses one. This runs once the
// kernels are LLVM functions (the conversion drops a memref argument's
// `llvm.noalias`: its descriptor holds two pointers to one buffer) and
// before the launches are: their operands are still the host's memrefs.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "../FreshAllocations.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace tad {
#define GEN_PASS_DEF_GPUNOALIASARGUMENTS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// The alignment of the pointers of fresh allocations that a kernel is
/// told of: the widest access (16 bytes, 4 f32 elements); the driver's
/// allocations are aligned to 256 bytes.
constexpr int64_t kAlignment = 16;

/// Per kernel, the pointer positions that `positions` finds at every
/// launch of it in `module`.
template <typename Positions>
DenseMap<Operation *, SmallVector<int64_t>> atEveryLaunch(ModuleOp module,
                                                          Positions positions) {
  DenseMap<Operation *, SmallVector<int64_t>> kernels;
  module.walk([&](gpu::LaunchFuncOp launch) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
        launch, launch.getKernel());
    int64_t count;
    SmallVector<int64_t> pointers =
        positions(llvm::to_vector(launch.getKernelOperands()), count);
    // A kernel whose arguments are not laid out so is left alone.
    if (!kernel || kernel.getNumArguments() != count)
      return;
    auto [it, first] = kernels.try_emplace(kernel, pointers);
    if (!first)
      llvm::erase_if(it->second, [&](int64_t position) {
        return !llvm::is_contained(pointers, position);
      });
  });
  return kernels;
}

struct GpuNoaliasArguments
    : public tad::impl::GpuNoaliasArgumentsBase<GpuNoaliasArguments> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef noalias = LLVM::LLVMDialect::getNoAliasAttrName();
    for (auto &[op, pointers] : atEveryLaunch(module, tad::noaliasPointers))
      for (int64_t position : pointers)
        cast<LLVM::LLVMFuncOp>(op).setArgAttr(position, noalias,
                                              UnitAttr::get(&getContext()));
    StringRef align = LLVM::LLVMDialect::getAlignAttrName();
    auto aligned = [](ArrayRef<Value> values, int64_t &count) {
      return tad::alignedPointers(values, kAlignment, count);
    };
    for (auto &[op, pointers] : atEveryLaunch(module, aligned))
      for (int64_t position : pointers)
        cast<LLVM::LLVMFuncOp>(op).setArgAttr(
            position, align,
            IntegerAttr::get(IntegerType::get(&getContext(), 64), kAlignment));
  }
};

} // namespace
