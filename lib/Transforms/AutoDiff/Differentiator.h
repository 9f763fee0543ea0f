//===- Differentiator.h - the state of reverse-mode AD ----------*- C++ -*-===//
//
// The Differentiator writes one derivative's body. Its parts live in their
// own files: Activity.cpp (which values carry derivatives), Forward.cpp (the
// forward sweep: calls inlined, custom rules), Backward.cpp (the backward
// sweep: op rules, checkpoints, branches, rule pullbacks), Loops.cpp (tapes,
// reverse loops and binomial checkpointing), ResidualTapes.cpp (tapes of a
// loop body's residuals) and AutoDiff.cpp (the function and the pass). AutoDiff.cpp's header comment describes the whole.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_TRANSFORMS_AUTODIFF_DIFFERENTIATOR_H
#define TAD_LIB_TRANSFORMS_AUTODIFF_DIFFERENTIATOR_H

#include "tad/Remat/Revolve.h"

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/SaveAndRestore.h"

namespace tad::autodiff {

using namespace mlir;

using CotangentMap = llvm::DenseMap<Value, Value>;

inline bool isDifferentiable(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && isa<FloatType>(type.getElementType());
}

/// Creates an scf.for whose body the caller fills (and terminates) with
/// the builder inside it. Bodies are filled after the loop exists, so that
/// analyses of nested regions (which walk up to the parent op) work while
/// the body is built.
inline scf::ForOp createEmptyLoop(OpBuilder &b, Location loc, Value lower,
                                  Value upper, Value step, ValueRange inits) {
  auto loop = scf::ForOp::create(b, loc, lower, upper, step, inits);
  Block *body = loop.getBody();
  if (!body->empty())
    body->back().erase(); // the implicit yield of a loop without inits
  return loop;
}

inline Value zerosOf(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  auto floatType = cast<FloatType>(tensor.getElementType());
  return ConstantOp::create(
      b, loc, DenseElementsAttr::get(tensor, FloatAttr::get(floatType, 0.0)));
}

/// A tensor of `type` whose elements are written before they are read: a
/// full tape, every row of which its loop writes first (docs/autodiff.md).
/// It goes where the canonicalizer puts constants, at the top of the
/// function, as the zeros that tapes started from did: the remat graph
/// models both alike, and the lowering allocates it just before its loop.
inline Value emptyOf(OpBuilder &b, Location loc, Type type) {
  OpBuilder::InsertionGuard guard(b);
  Operation *parent = b.getInsertionBlock()->getParentOp();
  Operation *isolated =
      parent->hasTrait<OpTrait::IsIsolatedFromAbove>()
          ? parent
          : parent->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  if (isolated && isolated->getNumRegions() > 0 &&
      !isolated->getRegion(0).empty())
    b.setInsertionPointToStart(&isolated->getRegion(0).front());
  return EmptyOp::create(b, loc, cast<RankedTensorType>(type));
}

/// The offsets, sizes and strides of `small` in row `row` of `stacked`
/// (rank one more than `small`'s, each other dimension at least as large),
/// `offset` down the row's first dimension.
inline void tapeSlice(OpBuilder &b, Value row, RankedTensorType small,
                      RankedTensorType stacked,
                      SmallVectorImpl<OpFoldResult> &offsets,
                      SmallVectorImpl<OpFoldResult> &sizes,
                      SmallVectorImpl<OpFoldResult> &strides,
                      int64_t offset = 0) {
  offsets.assign(stacked.getRank(), b.getIndexAttr(0));
  offsets[0] = row;
  if (offset)
    offsets[1] = b.getIndexAttr(offset);
  sizes.assign({b.getIndexAttr(1)});
  for (int64_t size : small.getShape())
    sizes.push_back(b.getIndexAttr(size));
  strides.assign(stacked.getRank(), b.getIndexAttr(1));
}

/// The values of enclosing scopes that `region` reads.
inline SmallVector<Value> getCaptures(Region &region) {
  llvm::SetVector<Value> captures;
  getUsedValuesDefinedAbove(region, captures);
  return SmallVector<Value>(captures.begin(), captures.end());
}

/// A rule call in the forward sweep: `call @f.rule.forward` whose first
/// `numResults` results are f's, followed by the saved values.
struct RuleCall {
  FlatSymbolRefAttr pullback;
  unsigned numResults;
  /// The call's arguments that the pullback takes after the forward's
  /// saved results (CustomRuleAttr's saved_params).
  SmallVector<int64_t> savedParams;
};

class Differentiator {
public:
  Differentiator(ModuleOp module, OpBuilder &builder, int64_t loopSnapshots,
                 bool loopResiduals = true, bool countRevolveActions = false)
      : module(module), b(builder), loopSnapshots(loopSnapshots),
        loopResiduals(loopResiduals),
        countRevolveActions(countRevolveActions) {}

  /// Generates the body of the declaration `fn`.
  LogicalResult generate(func::FuncOp fn, DerivativeAttr request);

private:
  // Forward sweep.
  LogicalResult cloneForward(Block &body, IRMapping &map,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<Operation *> &callStack);
  LogicalResult cloneOp(Operation &op, IRMapping &map,
                        SmallVectorImpl<Operation *> &callStack);
  LogicalResult cloneFor(scf::ForOp op, IRMapping &map,
                         SmallVectorImpl<Operation *> &callStack);
  struct LoopInfo;
  LogicalResult configureLoop(scf::ForOp op, int64_t trips, LoopInfo &info,
                              bool &residuals);
  LogicalResult appendTapeInits(scf::ForOp op, const LoopInfo &info,
                                int64_t rows, SmallVectorImpl<Value> &inits);
  SmallVector<Value> storeSnapshot(Location l, Value row, ValueRange carried,
                                   ValueRange tapeArgs, const LoopInfo &info);

  // Backward sweep over the ops [first, end) of a block, in reverse.
  LogicalResult backward(ArrayRef<Operation *> ops, CotangentMap &cot);
  LogicalResult backwardOp(Operation *op, CotangentMap &cot);
  LogicalResult backwardCheckpoint(CheckpointOp op, CotangentMap &cot);
  LogicalResult backwardFor(scf::ForOp op, CotangentMap &cot);
  LogicalResult backwardIf(scf::IfOp op, CotangentMap &cot);
  LogicalResult backwardRule(func::CallOp op, const RuleCall &rule,
                             CotangentMap &cot);
  /// Recomputes `body` (a region's block) with its arguments mapped to
  /// `args`, then runs its adjoint given the cotangents of what it yields;
  /// leaves the cotangents of `args` and of outer values in `cot`.
  LogicalResult recomputeAndBackward(Block &body, ValueRange args,
                                     ArrayRef<Value> yieldCotangents,
                                     CotangentMap &cot);

  /// Clones the ops of `body` at the insertion point as the forward sweep
  /// does (calls inlined, rules and loops with tapes), and returns the ops
  /// created, in order.
  LogicalResult recompute(Block &body, IRMapping &map,
                          SmallVectorImpl<Operation *> &created);

  void accumulate(CotangentMap &cot, Value v, Value contribution);

  /// acc + c for the accumulator of a reverse loop (see its definition).
  Value addToAccumulator(Value acc, Value c);

  LogicalResult reverseStep(const LoopInfo &info, ArrayRef<Value> outer,
                            Value iv, ValueRange carriedIn, ValueRange cotsIn,
                            ValueRange accs, SmallVectorImpl<Value> &out,
                            SmallVectorImpl<Operation *> *recomputed = nullptr);
  /// Gives the forward loop `loop` a tape of each value of its body that
  /// the reverse sweep may read (Loops.cpp, addResidualTapes).
  scf::ForOp addResidualTapes(scf::ForOp loop, Operation *mark, Value row,
                              LoopInfo &info);
  /// Reads, in a reverse step, the residuals that the forward loop `op`
  /// taped instead of the recomputed ones.
  void useResidualTapes(scf::ForOp op, const LoopInfo &info,
                        ArrayRef<Operation *> recomputed, Value row,
                        function_ref<Value(Value)> hostAccumulator);
  void markNestedReads(Operation *recomputed, Operation *forward);
  /// Drops the residual tapes of `fn`'s forward loops that no reverse step
  /// reads.
  void pruneResidualTapes(func::FuncOp fn);
  func::FuncOp getRevolveCounter();
  LogicalResult reverseRevolve(scf::ForOp op, const LoopInfo &info,
                               ArrayRef<Value> outer,
                               ArrayRef<Value> carriedCots,
                               ArrayRef<Value> accs,
                               SmallVectorImpl<Value> &results);

  /// Whether `v` belongs to the backward sweep (a recomputed clone or a
  /// block argument of a backward region), where activity is not tracked.
  bool isRecomputed(Value v) const { return !forwardValues.contains(v); }

  /// The outer value of `op` (a full-tape loop) whose gradient's
  /// accumulator can hold the tape of carried value `k`, or null.
  Value findTapeHost(scf::ForOp op, unsigned k, IRMapping &map,
                     ArrayRef<Value> taken) const;

  /// Whether the body of `op` reads the outer value `w` only as one row,
  /// `tad.take` at the induction value: each iteration's adjoint then
  /// gives `w` a cotangent in its own row alone.
  static bool readsOneRowPerStep(scf::ForOp op, Value w);

  /// Marks the results of forward ops that depend on an active value.
  void propagateActivity(ArrayRef<Operation *> ops);

  ModuleOp module;
  OpBuilder &b;
  llvm::DenseSet<Value> active;
  /// The derivative's wrt parameters, active from the start.
  llvm::DenseSet<Value> wrtArgs;
  /// Every value of the forward sweep (results, arguments, region values).
  llvm::DenseSet<Value> forwardValues;
  llvm::DenseMap<Operation *, RuleCall> ruleCalls;
  /// For each forward loop: the primal loop and the tapes of its carried
  /// values (results of the forward loop, after the primal ones).
  struct LoopInfo {
    scf::ForOp primal;
    IRMapping outer; // maps the primal's outer values to forward values
    unsigned numCarried;
    /// Binomial checkpointing: the snapshot slots (0 for a full tape), the
    /// steps whose states the forward loop stores (revolve's first sweep,
    /// in slots 1, 2, ...) and the actions the reverse sweep runs after it.
    int64_t snapshots = 0;
    std::vector<int64_t> sweepStores;
    remat::RevolveCounts counts;
    /// Per carried value: the outer (forward) value whose gradient's
    /// accumulator holds its tape (Loops.cpp, findTapeHost), or null.
    SmallVector<Value> hosts;
    /// The outer (forward) values that the body reads one row per step
    /// (readsOneRowPerStep): the reverse step writes its row of their
    /// gradient rather than adding to it.
    llvm::DenseSet<Value> rowWise;
    /// With residual tapes: the forward loop's copies of the body's ops,
    /// in order (a reverse step recomputes the same sequence), and per
    /// residual tape the op's index there, the result's number and the
    /// tape's position among the loop's results.
    SmallVector<Operation *> forwardOps;
    /// A residual's tape: a stacked tensor of its own, or rows of a host's
    /// accumulator (`host` set) from `offset` along their first dimension.
    struct ResidualTape {
      unsigned op, result;
      unsigned position; // of the tape among the forward loop's results
      Value host;
      int64_t offset = 0;
      Operation *store = nullptr; // the forward loop's write of it
      /// A value that the body yields as carried value `position -
      /// numCarried`: it is row i + 1 of that value's tape (longTapes).
      bool shifted = false;
      /// In a host: the shape of the block of its row that holds the
      /// residual (the residual reshaped, when they differ).
      RankedTensorType block;
      /// In a host whose row the reverse step writes before it last reads
      /// the residual: the step keeps a copy of it (or makes the row's
      /// gradient apart), so it costs its bytes within the step.
      bool copied = false;
    };
    SmallVector<ResidualTape> residualTapes;
    /// The share, in percent, of the bytes of the residuals that cost
    /// memory (tapes of their own, copies out of a host's row) that the
    /// reverse step computes again instead of reading
    /// (tad.loop_residual_recompute; useResidualTapes).
    int64_t residualRecompute = 0;
    /// The outer values like a tape host (findTapeHost) that can hold
    /// residuals in their rows.
    SmallVector<Value> hostCandidates;
    /// The hosts of residuals that hold no carried value, with the
    /// position of their tape among the forward loop's results (the
    /// reverse loop's accumulator starts from it).
    llvm::DenseMap<Value, unsigned> residualHosts;
    /// Per carried value whose tape has one more row, for the value after
    /// the last iteration: that tape, written after the loop.
    llvm::DenseMap<unsigned, Value> longTapes;
    /// Whether `v`'s accumulator holds a tape (of carried values or
    /// residuals): each reverse step writes its row, never adds to it.
    bool isHost(Value v) const {
      return llvm::is_contained(hosts, v) || residualHosts.contains(v);
    }
  };
  /// Snapshot slots per loop (0: a full tape).
  int64_t loopSnapshots;
  /// Whether full tapes keep residuals (per loop: tad.loop_residuals).
  bool loopResiduals;
  /// Whether cloneOp is inlining the calls inside a copied region.
  bool inRegionCopy = false;
  /// Whether revolve's reverse loops call the runtime's action counter.
  bool countRevolveActions;
  llvm::DenseMap<Operation *, LoopInfo> loops;
  /// The residual stores of forward loops that a reverse step reads.
  llvm::DenseSet<Operation *> readResidualStores;
};

} // namespace tad::autodiff

#endif // TAD_LIB_TRANSFORMS_AUTODIFF_DIFFERENTIATOR_H
