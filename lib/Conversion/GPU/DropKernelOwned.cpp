//===- DropKernelOwned.cpp - erase what kernels keep in their own memory --===//
//
// The kernel mapping's steps that keep a buffer in a kernel's own memory
// (shared memory, a thread's values) leave its allocation and frees in the
// host code, marked, so that the peak rule of the later steps still counts
// them in the plan's order (HostPeak.h). Once the mapping is done they go.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "HostPeak.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace tad {
#define GEN_PASS_DEF_DROPKERNELOWNED
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

struct DropKernelOwned : tad::impl::DropKernelOwnedBase<DropKernelOwned> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation().walk([&](memref::AllocOp alloc) {
      if (tad::isKernelOwned(alloc))
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user) && tad::isKernelOwned(user))
          user->erase();
      if (!alloc->use_empty()) {
        alloc.emitError("a buffer that a kernel keeps in its own memory is "
                        "still used by the host code");
        return signalPassFailure();
      }
      alloc->erase();
    }
  }
};

} // namespace
