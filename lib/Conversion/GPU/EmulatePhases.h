//===- EmulatePhases.h - emulate kernels that wait at barriers --*- C++ -*-===//
//
// tad-emulate-gpu-launches runs a kernel's threads one at a time. A kernel
// whose threads wait at barriers (a tiled matmul's) cannot run so: each
// thread would wait for threads that have not started. It runs in phases
// instead: every thread runs up to the next barrier, then every thread runs
// on to the one after. This is the classic fission of a kernel at its
// barriers (as MCUDA and POCL compile GPU kernels for CPUs).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_CONVERSION_GPU_EMULATEPHASES_H
#define TAD_LIB_CONVERSION_GPU_EMULATEPHASES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"

namespace tad {

/// Loops over `ids` (outermost first) from 0 to `sizes`, each id mapped
/// in `mapping` to its loop's index, counting down with `reverse`; `b` is
/// left in the innermost loop.
void emitIdLoops(mlir::OpBuilder &b, mlir::Location loc,
                 mlir::ArrayRef<mlir::Value> ids,
                 mlir::ArrayRef<mlir::Value> sizes, mlir::IRMapping &mapping,
                 bool reverse);

/// Rewrites each `gpu.shuffle` in `launch` as an exchange through
/// workgroup memory between two barriers (EmulateShuffles.cpp), which
/// emulateInPhases then runs. Fails, with an error at the launch, for a
/// block size that is not a constant, a shuffle inside a branch or of a
/// vector.
mlir::LogicalResult exchangeShuffles(mlir::gpu::LaunchOp launch);

/// Whether `launch`'s threads wait at barriers or share memory.
bool synchronizesThreads(mlir::gpu::LaunchOp launch);

/// Emits at `b` the loops that run `launch` in phases: its blocks one
/// after another, and within a block, every thread up to a barrier, then
/// every thread up to the next. `sizes` maps the launch body's grid-size
/// and block-size arguments. Barriers may stand in the body or in the
/// bodies of `scf.for` loops around them whose bounds every thread of a
/// block shares; the values a thread keeps across a barrier (scalars) are
/// kept in a buffer with an element per thread, and workgroup memory is a
/// buffer that the blocks share in turn. Fails, with an error at the
/// launch and emitting nothing, for other kernels. With `reverse`, blocks
/// and threads run from the last to the first.
mlir::LogicalResult emulateInPhases(mlir::OpBuilder &b,
                                    mlir::gpu::LaunchOp launch,
                                    const mlir::IRMapping &sizes, bool reverse);

} // namespace tad

#endif // TAD_LIB_CONVERSION_GPU_EMULATEPHASES_H
