//===- DeviceBuffers.cpp - buffers that only the GPU touches -------------===//
//
// The runtime allocates the buffers of GPU code as managed memory, which
// the host and the GPU may both address: the driver moves its pages to
// whichever touches them. Most buffers of a step are touched by kernels and
// cuBLAS only, and gain nothing from that; they pay for it where a block of
// the allocator's pool held a buffer that the host touched before (a
// result the caller read), whose pages then fault back to the GPU one group
// at a time, at a fraction of its memory's bandwidth.
//
// So an allocation whose every use is an operand of a kernel launch or of a
// cuBLAS GEMM, a free, or a view of it whose uses are such, is marked: the
// pass calls tad_rt_mark_device_buffer() just before it, and the runtime
// allocates it as device memory (cuMemAlloc), which the host cannot
// address, from a pool of its own. The allocator counts it as before, so
// the plan's peak and budgets hold. A buffer that the host may touch (a
// result, a scalar loaded for a branch, a copy on the host, an operand of a
// call of a function of the module, a value a loop or branch carries) stays
// managed memory.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"
#include "tad/Conversion/RuntimeFunctions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace tad {
#define GEN_PASS_DEF_GPUDEVICEBUFFERS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kMarkFunction = "tad_rt_mark_device_buffer";

/// Whether every use of `buffer`, and of the views of it, is the device's:
/// a kernel's operand, a cuBLAS GEMM's, a free, or a size read.
bool onlyDeviceUses(Value buffer) {
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<gpu::LaunchFuncOp, memref::DeallocOp, memref::DimOp>(user))
        continue;
      if (auto call = dyn_cast<func::CallOp>(user)) {
        if (tad::isCudaGemmCall(call.getCallee()))
          continue;
        return false;
      }
      // A view of it (memref.transpose too, which changes only the
      // strides but does not implement the interface).
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      auto transpose = dyn_cast<memref::TransposeOp>(user);
      if (!(view && view.getViewSource() == value) &&
          !(transpose && transpose.getIn() == value))
        return false;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          worklist.push_back(result);
    }
  }
  return true;
}

struct GpuDeviceBuffers : tad::impl::GpuDeviceBuffersBase<GpuDeviceBuffers> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp mark;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isDeclaration())
        continue;
      // Only where kernels run: elsewhere every buffer is the host's.
      bool launches = false;
      func.walk([&](Operation *op) {
        auto call = dyn_cast<func::CallOp>(op);
        launches |= isa<gpu::LaunchFuncOp>(op) ||
                    (call && tad::isCudaGemmCall(call.getCallee()));
      });
      if (!launches)
        continue;
      func.walk([&](memref::AllocOp alloc) {
        if (!onlyDeviceUses(alloc.getResult()))
          return;
        if (!mark)
          mark = tad::getOrDeclareRuntimeFunction(
              module, kMarkFunction, FunctionType::get(&getContext(), {}, {}));
        OpBuilder b(alloc);
        func::CallOp::create(b, alloc.getLoc(), mark, ValueRange());
      });
    }
  }
};

} // namespace
