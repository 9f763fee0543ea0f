//===- EmulateLaunches.cpp - run gpu.launch bodies as CPU loops -----------===//
//
// The kernels that tad-loops-to-gpu builds use no barriers, no shared
// memory and no warp operations: each thread's work is independent of the
// others'. Running every thread of every block in turn on the CPU is
// therefore a faithful execution of the launch (a kernel whose threads
// wait at barriers, tad-tile-gpu-matmuls', runs in phases instead:
// EmulatePhases.h, and so does one whose warps shuffle, each shuffle an
// exchange between barriers), which lets the tests check
// the mapping of loops onto blocks and threads (indices, guards, globals)
// against the CPU results on machines without a GPU (docs/gpu.md). Each
// launch that runs calls the runtime's tad_rt_count_kernel_launch(), so
// that a run's count of launches is the GPU's. Running the threads in the
// reverse order too exposes kernels whose threads are not independent
// after all: their results depend on the order.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"
#include "tad/Conversion/RuntimeFunctions.h"

#include "EmulatePhases.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace tad {
#define GEN_PASS_DEF_EMULATEGPULAUNCHES
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// Replaces `launch` by a count of it and loops over its blocks and threads
/// (z, y, x from the outside in) around a copy of its body, or, where its
/// threads wait at barriers or share memory, by its phases
/// (EmulatePhases.h); with `reverse`, each loop over ids counts down.
LogicalResult emulate(gpu::LaunchOp launch, func::FuncOp counter,
                      bool reverse) {
  Region &body = launch.getBody();
  if (!body.hasOneBlock())
    return launch.emitOpError("with more than one block cannot be emulated");
  bool unsupported = false;
  body.walk([&](Operation *op) {
    if (isa<gpu::AllReduceOp, gpu::SubgroupReduceOp>(op))
      unsupported = true;
  });
  if (unsupported || !launch.getPrivateAttributions().empty() ||
      !launch.getAsyncDependencies().empty())
    return launch.emitOpError(
        "uses warp reductions or private memory, which emulation does not "
        "model");
  if (failed(tad::exchangeShuffles(launch)))
    return failure();

  OpBuilder b(launch);
  Location loc = launch.getLoc();
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  IRMapping mapping;
  // Block-size and grid-size arguments of the body are the operands.
  gpu::KernelDim3 gridArgs = launch.getGridSize();
  gpu::KernelDim3 blockArgs = launch.getBlockSize();
  mapping.map(gridArgs.x, grid.x);
  mapping.map(gridArgs.y, grid.y);
  mapping.map(gridArgs.z, grid.z);
  mapping.map(blockArgs.x, block.x);
  mapping.map(blockArgs.y, block.y);
  mapping.map(blockArgs.z, block.z);
  func::CallOp::create(b, loc, counter, ValueRange());
  if (tad::synchronizesThreads(launch)) {
    if (failed(tad::emulateInPhases(b, launch, mapping, reverse)))
      return failure();
    launch.erase();
    return success();
  }
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  gpu::KernelDim3 threadIds = launch.getThreadIds();
  tad::emitIdLoops(b, loc,
                   {blockIds.z, blockIds.y, blockIds.x, threadIds.z,
                    threadIds.y, threadIds.x},
                   {grid.z, grid.y, grid.x, block.z, block.y, block.x}, mapping,
                   reverse);
  for (Operation &op : body.front().without_terminator())
    b.clone(op, mapping);
  launch.erase();
  return success();
}

struct EmulateGpuLaunches
    : public tad::impl::EmulateGpuLaunchesBase<EmulateGpuLaunches> {
  using EmulateGpuLaunchesBase::EmulateGpuLaunchesBase;

  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    if (launches.empty())
      return;
    // The runtime's counter of launches.
    func::FuncOp counter = tad::getOrDeclareRuntimeFunction(
        getOperation(), "tad_rt_count_kernel_launch",
        FunctionType::get(&getContext(), {}, {}));
    for (gpu::LaunchOp launch : launches)
      if (failed(emulate(launch, counter, reverse)))
        return signalPassFailure();
  }
};

} // namespace
