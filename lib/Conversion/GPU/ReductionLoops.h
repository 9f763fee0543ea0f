//===- ReductionLoops.h - reduction loops that GPU threads share -*- C++
//-*-===//
//
// After convert-linalg-to-parallel-loops, a reduction is an `scf.for` that
// combines a value into one accumulator element, alone in an `scf.parallel`
// over the outputs (or a statement of its own, for a full reduction). Run
// as tad-loops-to-gpu maps it, each output is one thread's loop; the
// passes that share a reduction between threads (tad-split-long-reductions
// for long loops, tad-warp-row-reductions for rows) find the loop and
// rebuild it from the pieces here.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_CONVERSION_GPU_REDUCTIONLOOPS_H
#define TAD_LIB_CONVERSION_GPU_REDUCTIONLOOPS_H

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace tad {

/// The threads of a warp, which combine their values by shuffles.
constexpr int64_t kWarpSize = 32;

/// A reduction loop: `for j in [0, trips) { acc[idx] = op(value, acc[idx])
/// }` (or `op(acc[idx], value)`), where `op` is a commutative arith op with
/// a neutral element (a sum, a maximum, ...), `value` is computed from
/// loads of other buffers and arithmetic, and `idx` does not depend on `j`.
struct SumLoop {
  mlir::scf::ForOp loop;
  int64_t trips;
  mlir::memref::LoadOp accLoad;
  mlir::Operation *combine;
  mlir::TypedAttr neutral;
  mlir::memref::StoreOp accStore;
};

/// The operand of `sum.combine` that is not the accumulator.
mlir::Value valueOf(SumLoop sum);

/// The trips of a loop from 0 by 1 to a constant, without results.
std::optional<int64_t> tripsOf(mlir::scf::ForOp loop);

/// The reduction whose body is `body` (innermost in the nest of `outer`,
/// perhaps `outer` itself): its accumulator's element is the same in every
/// iteration of the nest, and nothing else in the body writes memory or
/// reads the accumulator's buffer. `trips` is left 0.
std::optional<SumLoop> matchSumBody(mlir::scf::ForOp outer, mlir::Block *body,
                                    mlir::AliasAnalysis &alias);

/// `loop` as a reduction of at least `minTrips` trips.
std::optional<SumLoop> matchSumLoop(mlir::scf::ForOp loop, int64_t minTrips,
                                    mlir::AliasAnalysis &alias);

/// Whether `op` stands in host code: in a function's body, or in loops and
/// branches there that hold host operations (an allocation, a
/// deallocation, a copy, a call: a transformer's loop over its layers),
/// which tad-loops-to-gpu keeps on the host. A loop of device operations
/// only around `op` is a nest that becomes one kernel (a full reduction
/// over two dimensions), and a parallel loop or a launch is a kernel.
bool onHost(mlir::Operation *op);

/// The loop's place in its nest: an `scf.parallel` of host code (constant
/// bounds from 0, step 1) that holds only this loop, or none where the
/// loop is a statement of host code itself; fails elsewhere. Host code is
/// a function's body and the loops and branches there that hold host
/// operations (allocations, calls: a loop over a transformer's layers).
mlir::FailureOr<mlir::scf::ParallelOp> enclosingParallel(mlir::scf::ForOp loop);

/// The extents of `parallel`'s loops (none for no loop).
llvm::SmallVector<int64_t> extentsOf(mlir::scf::ParallelOp parallel);

/// Whether `loop` runs over the same outputs as `parallel` (whose bounds
/// are constants, from 0 by 1): the same constant extents, from 0 by 1,
/// and no results.
bool sameOutputs(mlir::scf::ParallelOp loop, mlir::scf::ParallelOp parallel);

/// The value that `sum` combines in the iteration that `map` maps its
/// induction variable to: its body cloned at `b`, but for the accumulator.
mlir::Value elementOf(mlir::OpBuilder &b, SumLoop sum, mlir::IRMapping &map);

/// `sum`'s combining op cloned at `b` with `acc` as its accumulator and
/// `value` as the other operand, in their order in the loop.
mlir::Value combineInto(mlir::OpBuilder &b, SumLoop sum, mlir::Value acc,
                        mlir::Value value);

/// The fill of `sum`'s accumulator right before its nest (`parallel`, or
/// the loop where there is none): a loop over the same outputs, or a
/// store, that only stores one value (defined before it) into each
/// accumulator element the reduction combines into. Taking it over, the
/// kernel that finishes the reduction combines its result into that value
/// instead of loading the element, and the fill's launch is gone.
struct AccumulatorFill {
  mlir::Operation *op = nullptr;
  mlir::Value value;
};
AccumulatorFill findFill(SumLoop sum, mlir::scf::ParallelOp parallel);

/// Emits at `b` the end of `sum` for one output: the accumulator element
/// at `ivs` (the parallel loop's indices) becomes `op(result, element)`,
/// the element being `fill.value` where a fill was taken over.
void finishOutput(mlir::OpBuilder &b, SumLoop sum,
                  mlir::scf::ParallelOp parallel, mlir::ValueRange ivs,
                  const AccumulatorFill &fill, mlir::Value result);

/// Creates at `b` a launch of `blocks` blocks of `threads` threads, along
/// x, with `workgroup` memory, and leaves `b` at the start of its body
/// (before its terminator).
mlir::gpu::LaunchOp launchLinear(mlir::OpBuilder &b, mlir::Location loc,
                                 int64_t blocks, int64_t threads,
                                 mlir::TypeRange workgroup = {});

/// The lanes of a warp below `width` (a power of 2, at most 32) combine
/// their `value`s with `sum`'s op, as a butterfly of `xor` shuffles: at
/// offset 16, 8, ..., 1 each lane combines its value with the lane's at
/// that distance. Every lane gets the same bits, the op being commutative,
/// and the order is a halving tree's (lane t < s combines t and t + s);
/// every lane of the warp must run it.
mlir::Value combineAcrossWarp(mlir::OpBuilder &b, mlir::Location loc,
                              SumLoop sum, mlir::Value value, int64_t width);

/// The parallel iteration of linear index `linear` (the last index varying
/// fastest) in a nest of `extents`.
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value linear,
                                           llvm::ArrayRef<int64_t> extents);

} // namespace tad

#endif // TAD_LIB_CONVERSION_GPU_REDUCTIONLOOPS_H
