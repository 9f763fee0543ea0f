//===- LoopAccesses.h - the element accesses of a loop nest -----*- C++ -*-===//
//
// tad-fuse-kernel-loops and tad-scatter-loops-inside both change which GPU
// thread runs which iteration, which is exact only where each thread reads
// and writes its own elements: both ask for a nest's loads and stores, and
// compare their indices.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_CONVERSION_GPU_LOOPACCESSES_H
#define TAD_LIB_CONVERSION_GPU_LOOPACCESSES_H

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tad {

/// A load or store of a memref element inside a loop nest.
struct Access {
  mlir::Value memref;
  mlir::ValueRange indices;
  bool write;
};

/// The loads and stores in `root` (itself included), or nothing when
/// something else in it touches memory (a copy, a call, a nested op with
/// effects that cannot be seen), which the passes leave alone.
std::optional<llvm::SmallVector<Access>> accessesOf(mlir::Operation *root);

/// Whether two index values are the same: one value, or equal constants.
bool sameIndex(mlir::Value a, mlir::Value b);

/// sameIndex of every pair, in lists of one length.
bool sameIndices(mlir::ValueRange a, mlir::ValueRange b);

/// Whether `memref` views a constant global, which nothing writes: it
/// shares no element that a kernel writes.
bool readOnlyGlobal(mlir::Value memref);

/// Whether an access of `a` and one of `b` may touch the same buffer, one
/// of them writing it (a constant global shares nothing).
bool shareWritten(llvm::ArrayRef<Access> a, llvm::ArrayRef<Access> b,
                  mlir::AliasAnalysis &alias);

} // namespace tad

#endif // TAD_LIB_CONVERSION_GPU_LOOPACCESSES_H
