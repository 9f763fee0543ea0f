//===- HostPeak.h - whether moving host operations keeps the peak -*- C++
//-*-===//
//
// Kernels that are one launch, not several, need the allocations between
// them before the launch and the frees between them after it. That keeps
// every buffer alive for longer, so it may raise the live total's peak,
// which must stay the plan's: the runtime's allocator counts it, and the
// remat budget is a bound on it. The passes that join kernels ask here
// whether an order of a host block's operations reaches a higher live
// total than the block's own order does anywhere.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_CONVERSION_GPU_HOSTPEAK_H
#define TAD_LIB_CONVERSION_GPU_HOSTPEAK_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace tad {

/// The operations of `block` in their order.
llvm::SmallVector<mlir::Operation *> orderOf(mlir::Block *block);

/// Moves `op` in `order` to right before (or after) `anchor`.
void moveBefore(llvm::SmallVectorImpl<mlir::Operation *> &order,
                mlir::Operation *op, mlir::Operation *anchor);
void moveAfter(llvm::SmallVectorImpl<mlir::Operation *> &order,
               mlir::Operation *op, mlir::Operation *anchor);

/// Whether running `block`'s operations in `order` (a permutation of them)
/// keeps the peak of the live bytes that the block allocates: the
/// operations whose positions differ, and every one before them, add known
/// byte counts (an allocation or a free of a static shape, or none at all:
/// no call of the program's functions, no nested allocation or free; the
/// runtime's functions and scratch count nothing), and the highest live
/// total among the moved ones is at most the block's planned peak
/// (planPeakOf). The block then allocates at most what it did, and its
/// peak (inside the whole program's) is at most the plan's, whatever was
/// live when it began.
///
/// The allocations and frees in `vanish` count nothing in `order`: buffers
/// that a kernel will keep in its own memory (shared memory, its threads'
/// values), whose allocations and frees the pass asking then erases.
bool keepsPeak(
    mlir::Block *block, llvm::ArrayRef<mlir::Operation *> order,
    const llvm::SmallPtrSetImpl<mlir::Operation *> *vanish = nullptr);

/// The highest live total that `block` reaches in the plan's order before
/// its first operation of an unknown count. The first call for a block
/// counts it in the block's order then and records it on the block's
/// parent op (`tad.host_peaks`, one per region), so that a later step of
/// the kernel mapping measures its changes against the plan's order, not
/// against one that an earlier step lowered (a chain that kept its row
/// sums in shared memory): the passes that change a host block's order or
/// erase its allocations call it first. tad-forget-host-peaks drops the
/// records once the mapping is done.
int64_t planPeakOf(mlir::Block *block);

} // namespace tad

#endif // TAD_LIB_CONVERSION_GPU_HOSTPEAK_H
