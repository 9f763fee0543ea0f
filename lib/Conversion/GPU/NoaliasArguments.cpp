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

struct GpuNoaliasArguments
    : public tad::impl::GpuNoaliasArgumentsBase<GpuNoaliasArguments> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Per kernel, the aligned pointers of the operands that view an
    // allocation of their own at every launch seen so far.
    DenseMap<Operation *, SmallVector<int64_t>> kernels;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
          launch, launch.getKernel());
      int64_t count;
      SmallVector<int64_t> pointers = tad::noaliasPointers(
          llvm::to_vector(launch.getKernelOperands()), count);
      // A kernel whose arguments are not laid out so is left alone.
      if (!kernel || kernel.getNumArguments() != count)
        return;
      auto [it, first] = kernels.try_emplace(kernel, pointers);
      if (!first)
        llvm::erase_if(it->second, [&](int64_t position) {
          return !llvm::is_contained(pointers, position);
        });
    });
    StringRef noalias = LLVM::LLVMDialect::getNoAliasAttrName();
    for (auto &[op, pointers] : kernels)
      for (int64_t position : pointers)
        cast<LLVM::LLVMFuncOp>(op).setArgAttr(position, noalias,
                                              UnitAttr::get(&getContext()));
  }
};

} // namespace
