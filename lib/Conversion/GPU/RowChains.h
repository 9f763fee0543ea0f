//===- RowChains.h - the loops over a row that one warp runs -----*- C++
//-*-===//
//
// A warp per row (tad-warp-row-reductions) runs more than the row's
// reduction: the loops over the same rows before and after it that touch
// only their own row of what the kernel writes, a layer norm's mean, its
// variance and its scaled rows, or a softmax's maxima, exponentials, sums
// and quotients. Here those loops are found and checked; the pass emits
// them.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_CONVERSION_GPU_ROWCHAINS_H
#define TAD_LIB_CONVERSION_GPU_ROWCHAINS_H

#include "ReductionLoops.h"

namespace tad {

/// One loop of a warp's kernel.
struct RowStage {
  enum class Kind {
    Reduce,   // a reduction along the row: every lane, then shuffles
    Outputs,  // a loop over the rows: the first lane
    Elements, // a loop over the rows' elements: every lane, strided
  };
  Kind kind;
  /// The loop over the rows (and the elements); null for a full reduction,
  /// which is a kernel alone.
  mlir::scf::ParallelOp loop;
  /// A reduction's loop and the fill of its accumulator taken over.
  std::optional<SumLoop> sum;
  AccumulatorFill fill;

  /// Its first and last operation in the host block.
  mlir::Operation *first() const;
  mlir::Operation *last() const;
};

/// A block's warps, each a row.
inline constexpr int64_t kRowsPerBlock = 8;

/// The most shared memory that a chain's own buffers take in a block (of
/// the 48 KiB that every CUDA GPU gives a block without asking).
inline constexpr int64_t kChainSharedBytes = 32 * 1024;

/// The stages of a kernel over `rows` (their loops' extents), in order,
/// and the host operations between them: those that move before the
/// launch (allocations, views, constants) and the frees that move after.
/// `local` are the chain's own buffers: allocations that only its stages
/// touch, which the kernel keeps in shared memory, a block's rows of them
/// (the lanes of a row's sum, a row's mean), so that the device never
/// allocates them.
struct RowChain {
  llvm::SmallVector<RowStage> stages;
  llvm::SmallVector<int64_t> rows;
  llvm::SmallVector<mlir::Operation *> before, after;
  llvm::SmallVector<mlir::Value> local;
  /// Kernels' loops between the stages that are not stages (a layer norm's
  /// column sums between its row sums), each with the number of stages
  /// before it: they touch nothing that a later stage writes and write
  /// nothing that one touches, and run after the launch, in their order,
  /// before the frees.
  llvm::SmallVector<std::pair<mlir::Operation *, size_t>> later;
};

/// `loop` as a reduction that a warp per row runs, in its nest.
std::optional<RowStage> warpReduction(mlir::scf::ForOp loop,
                                      mlir::AliasAnalysis &alias);

/// `loop` as the lanes of a row's sum that tad-split-reductions made for
/// the CPU's vectors (a loop over the rows and at most 32 lanes, each a
/// loop over its share of the row), which a warp's first lanes can run.
std::optional<RowStage> rowLanes(mlir::scf::ParallelOp loop);

/// The row reductions of `chain`: its reductions and its sums in lanes.
int64_t reductionsOf(const RowChain &chain);

/// The chain of stages around `seed` (a warpReduction): the loops over
/// the same rows before and after it, each taken while the whole chain
/// stays exact as a warp per row runs it (stage by stage, a barrier
/// between them) and moving the host operations between them keeps the
/// block's peak (HostPeak.h).
RowChain chainAround(const RowStage &seed, mlir::AliasAnalysis &alias);

/// The rows of `chain` that one block runs.
int64_t rowsPerBlock(const RowChain &chain);

/// The shared memory that holds a block's rows of `chain.local[i]`: a row
/// per warp, its elements in their row-major order.
mlir::MemRefType sharedTypeOf(const RowChain &chain, mlir::Value local);

/// Makes the loads and stores in `launch` (a kernel of `chain`'s) of each
/// buffer of `chain.local` access `shared[i]` at `slot`, the warp's row in
/// the block, instead.
void useSharedMemory(const RowChain &chain, mlir::Operation *launch,
                     mlir::ValueRange shared, mlir::Value slot);

/// Erases the allocations, views and frees of `chain.local`, once the
/// chain's loops are gone.
void eraseLocalBuffers(const RowChain &chain);

} // namespace tad

#endif // TAD_LIB_CONVERSION_GPU_ROWCHAINS_H
