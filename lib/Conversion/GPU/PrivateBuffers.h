//===- PrivateBuffers.h - buffers each thread of a kernel owns --*- C++ -*-===//
//
// A kernel's loop may be the only code that touches a buffer, each
// iteration at its own indices: a sum's f64 accumulator with the rounding
// to f32 that follows it in the same loop (tad-fuse-kernel-loops joins
// them). Each thread then owns its element, which can be a value that its
// loops carry rather than memory: the device never allocates the buffer,
// and the kernels that joining them would otherwise keep apart (the
// accumulator beside the next loop's buffers, over the plan's peak) are
// one.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_CONVERSION_GPU_PRIVATEBUFFERS_H
#define TAD_LIB_CONVERSION_GPU_PRIVATEBUFFERS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallVector.h"

namespace tad {

/// The buffers that only `loops` touch (top-level parallel loops of one
/// block over the same iteration space, run as one loop in their order,
/// the first's induction variables being the last's), besides their
/// allocation and frees: every load and store at the loop's induction
/// variables in their order, inside scf.for loops only, the first of them
/// a store in the loop's body itself.
llvm::SmallVector<mlir::Value>
privateBuffers(llvm::ArrayRef<mlir::scf::ParallelOp> loops);

/// Replaces each of `buffers` (privateBuffers of `loop` alone) by the
/// value that each iteration stores last, carried through the scf.for
/// loops that access it, and erases the buffer's allocation and frees.
/// The arithmetic is unchanged: every result keeps its bits.
void privatize(mlir::scf::ParallelOp loop, llvm::ArrayRef<mlir::Value> buffers);

/// The allocations and frees of `buffers`.
llvm::SmallVector<mlir::Operation *>
allocationsAndFrees(llvm::ArrayRef<mlir::Value> buffers);

} // namespace tad

#endif // TAD_LIB_CONVERSION_GPU_PRIVATEBUFFERS_H
