//===- NoaliasArguments.cpp - kernels' fresh buffers are noalias ----------===//
//
// After outlining, a kernel reads its buffers through pointer arguments,
// and LLVM assumes that any two may overlap: a thread's loop that reduces
// into an element of one buffer while it reads another stores the
// element at every step (a softmax's row maximum: 256 stores a row), and
// loads cannot be merged across such stores. A buffer that views an
// allocation of its own at every launch of the kernel (FreshAllocations.h,
// the rule of the CPU's outlined loop nests) cannot overlap any other
// argument, and its pointer is marked `noalias`. This runs once the
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

/// The position of each operand's first LLVM argument, in the memref
/// descriptor convention (a memref of rank r is 3 + 2r arguments: two
/// pointers, the offset, the sizes and the strides; anything else is one),
/// and after the last, their count.
SmallVector<int64_t> llvmPositions(ValueRange operands) {
  SmallVector<int64_t> positions{0};
  for (Value operand : operands) {
    auto memref = dyn_cast<MemRefType>(operand.getType());
    positions.push_back(positions.back() +
                        (memref ? 3 + 2 * memref.getRank() : 1));
  }
  return positions;
}

struct GpuNoaliasArguments
    : public tad::impl::GpuNoaliasArgumentsBase<GpuNoaliasArguments> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Per kernel, which operands view an allocation of their own at every
    // launch seen so far, and where their LLVM arguments start.
    struct Kernel {
      SmallVector<bool> own;
      SmallVector<int64_t> positions;
    };
    DenseMap<Operation *, Kernel> kernels;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
          launch, launch.getKernel());
      ValueRange operands = launch.getKernelOperands();
      SmallVector<int64_t> positions = llvmPositions(operands);
      // A kernel whose arguments are not laid out so is left alone.
      if (!kernel || kernel.getNumArguments() != positions.back())
        return;
      SmallVector<bool> own = tad::ownAllocations(llvm::to_vector(operands));
      auto [it, first] = kernels.try_emplace(kernel, Kernel{own, positions});
      if (!first)
        for (auto [kept, now] : llvm::zip(it->second.own, own))
          kept = kept && now;
    });
    StringRef noalias = LLVM::LLVMDialect::getNoAliasAttrName();
    for (auto &[op, kernel] : kernels) {
      auto function = cast<LLVM::LLVMFuncOp>(op);
      // The aligned pointer, through which the kernel reads and writes.
      for (auto [i, own] : llvm::enumerate(kernel.own))
        if (own)
          function.setArgAttr(kernel.positions[i] + 1, noalias,
                              UnitAttr::get(&getContext()));
    }
  }
};

} // namespace
