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
/// runtime's functions and scratch count nothing), and the highest live total
/// among the moved ones is at most the highest that the block reaches in
/// its own order before its first operation of an unknown count. The
/// block then allocates what it did, and its peak (inside the whole
/// program's) is the same, whatever was live when it began.
///
/// The allocations and frees in `vanish` count nothing in `order`, nor do
/// those marked kernel-owned (markKernelOwned): buffers that a kernel
/// keeps in its own memory (shared memory, a thread's values), which the
/// pass asking then marks. They count in the block's own order, which is
/// then the plan's.
bool keepsPeak(
    mlir::Block *block, llvm::ArrayRef<mlir::Operation *> order,
    const llvm::SmallPtrSetImpl<mlir::Operation *> *vanish = nullptr);

/// Marks the allocation of a buffer that a kernel now keeps in its own
/// memory, and its frees: they stay in the host code, allocating nothing
/// that anything reads, until tad-drop-kernel-owned erases them after the
/// last step of the kernel mapping, so that until then the peak rule
/// measures every later change against the plan's order, not against one
/// that earlier steps lowered.
void markKernelOwned(llvm::ArrayRef<mlir::Operation *> ops);
bool isKernelOwned(mlir::Operation *op);

} // namespace tad

#endif // TAD_LIB_CONVERSION_GPU_HOSTPEAK_H
