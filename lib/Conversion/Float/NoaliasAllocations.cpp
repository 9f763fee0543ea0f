//===- NoaliasAllocations.cpp - fresh buffers do not alias ----------------===//
//
// Every buffer comes from the runtime's `_mlir_memref_to_llvm_alloc`, which
// LLVM sees as an unknown function: it cannot tell that the pointer it
// returns aliases nothing else. Then an accumulator in a buffer (a row sum,
// a row max) is loaded and stored on every iteration of the inner loop,
// since the input might overlap it, and the loop does not vectorize. The
// runtime returns fresh memory (runtime/lib/Allocator.cpp), so the
// declaration's result is `noalias`, as malloc's is.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tad {
#define GEN_PASS_DEF_NOALIASALLOCATIONS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {
struct NoaliasAllocations
    : tad::impl::NoaliasAllocationsBase<NoaliasAllocations> {
  using Base::Base;
  void runOnOperation() override {
    for (StringRef name : {"_mlir_memref_to_llvm_alloc",
                           "_mlir_memref_to_llvm_aligned_alloc"}) {
      auto function = getOperation().lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!function || !function.isExternal())
        continue;
      function.setResultAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(),
                             UnitAttr::get(&getContext()));
    }
  }
};
} // namespace
