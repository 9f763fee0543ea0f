//===- BufferPeak.h - the peak of a function's planned buffers --*- C++ -*-===//
//
// After tad-plan-buffers every allocation and free of a function is an op
// of its IR, so its peak is a property of the IR: the largest sum of live
// buffer bytes over any run. This simulates the IR and computes it exactly
// (docs/memory.md), as the runtime allocator will measure it.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_TRANSFORMS_BUFFERPEAK_H
#define TAD_TRANSFORMS_BUFFERPEAK_H

#include "tad/Conversion/BufferBytes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <cstdint>

namespace tad {

/// `buffer` and every view derived from it, wherever they are defined.
llvm::SetVector<mlir::Value> getBufferAndViews(mlir::Value buffer);

struct BufferPeak {
  /// The most bytes of buffers that the function has allocated and not yet
  /// freed at any moment of a call (the caller's inputs are not counted).
  int64_t peak = 0;
  /// The bytes still live when it returns: its results.
  int64_t liveAtReturn = 0;
  /// Whether `peak` holds for every run. It is an upper bound instead when
  /// a branch depends on data (then the larger side counts) or a loop's
  /// trip count is not a constant.
  bool exact = true;
};

/// One allocation or free of a call, in the order the code runs them.
struct BufferEvent {
  /// The bytes allocated (positive) or freed (negative).
  int64_t bytes = 0;
  /// The live bytes after it.
  int64_t live = 0;
  /// Where the buffer was allocated: the location of the op whose result
  /// it holds (for a free, of the allocation it releases, when that is
  /// known).
  mlir::Location location;
};

/// The allocations and frees of one call of `func`, each loop iteration
/// and each call run in full, a branch on data on its larger side, up to
/// `maxEvents` events (`truncated` tells whether more followed): the
/// timeline that the runtime allocator measures. Fails (with an error) as
/// BufferPeakAnalysis::getPeak does.
mlir::FailureOr<std::vector<BufferEvent>>
traceBuffers(mlir::func::FuncOp func, size_t maxEvents, bool &truncated);

/// Computes the buffer peaks of bufferized functions with explicit frees,
/// remembering each callee's.
class BufferPeakAnalysis {
public:
  /// The peak of `func`, or failure (with an error at the op) when its IR
  /// holds something this cannot simulate.
  mlir::FailureOr<BufferPeak> getPeak(mlir::func::FuncOp func);

private:
  llvm::DenseMap<mlir::Operation *, BufferPeak> known;
  llvm::DenseMap<mlir::Operation *, bool> inProgress;
};

} // namespace tad

#endif // TAD_TRANSFORMS_BUFFERPEAK_H
