//===- TadDialect.td - the tad dialect definition ----------*- tablegen -*-===//
//
// The tad dialect: tensor ops over statically shaped builtin tensors, the
// language that tad's frontend emits, its AD pass differentiates and its remat
// pass schedules.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DIALECT_TD
#define TAD_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tad_Dialect : Dialect {
  let name = "tad";
  let cppNamespace = "::tad";
  let summary = "Tensor ops for tad, the ahead-of-time autodiff compiler";
  let description = [{
    The `tad` dialect holds the tensor language of tad. Its ops work on
    builtin ranked tensors with static shapes whose element type is `f32`,
    `f64`, `f16` or `bf16`; the ops that move, select, add or compare values
    also take the signless integers `i32` and `i64` (token ids, counts),
    which AD never differentiates (comparisons produce `i1` tensors). There is no
    implicit broadcasting: operands of elementwise ops have one type, and
    `tad.broadcast` states every broadcast explicitly, which is what lets the
    reverse-mode AD pass undo a broadcast with a reduction.

    Every op is pure except `tad.empty` (an allocation, which CSE must not
    merge), `tad.all_reduce` (a collective across processes) and
    `tad.checkpoint`, whose region is as pure as its body.
    `tad.checkpoint` is isolated from above: the values it reads are its
    operands, so recomputing it in the backward sweep needs exactly those
    values.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  // Checks tad.derivative, tad.custom_rule, tad.checkpointed and
  // tad.buffer_peak on the functions that carry them, and
  // tad.loop_snapshots on loops, tad.forward on ops and
  // tad.loop_snapshot_choice on a module.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes of TadAttrs.td (in the file that defines
    /// their storage).
    void registerAttributes();

    /// The attribute names that tad places on func.func ops.
    static constexpr ::llvm::StringLiteral kDerivativeAttrName = "tad.derivative";
    static constexpr ::llvm::StringLiteral kCustomRuleAttrName = "tad.custom_rule";
    static constexpr ::llvm::StringLiteral kCheckpointedAttrName = "tad.checkpointed";
    /// On the results of a function that returns a record (the frontend):
    /// each result's name, `result1` or, for a leaf of a record result,
    /// its path `result0.l1.w`, which the driver, the C header and a vjp's
    /// cotangent parameters (`d_result0.l1.w`) use.
    static constexpr ::llvm::StringLiteral kResultNameAttrName = "tad.result_name";
    /// On the parameters of a function of the program (the frontend): each
    /// one's name, `x` or, for a leaf of a record parameter, its path
    /// `p.l1.w`; on a derivative's (tad-autodiff), its primal's, and
    /// `d_result0` for a vjp's cotangents. The driver matches them with
    /// .npy files, and the C header and the Python package use them.
    static constexpr ::llvm::StringLiteral kArgNameAttrName = "tad.arg_name";
    /// On an scf.for that AD differentiates: its snapshots (0 for a full
    /// tape), in place of the AD pass's loop-snapshots option.
    /// tad-choose-loop-snapshots sets it per loop for a budget.
    static constexpr ::llvm::StringLiteral kLoopSnapshotsAttrName = "tad.loop_snapshots";
    /// On an scf.for that AD differentiates with a full tape: whether the
    /// tape also keeps each iteration's residuals (the values its adjoint
    /// reads), so that the reverse sweep need not run the body forward
    /// again; in place of the AD pass's loop-residuals option.
    static constexpr ::llvm::StringLiteral kLoopResidualsAttrName = "tad.loop_residuals";
    /// On an scf.for whose full tape keeps residuals: the share, in
    /// percent (0 to 100), of the bytes of the residuals that cost memory
    /// (with tapes of their own, or in a gradient's row that the reverse
    /// step writes before it last reads them, so that it copies them out)
    /// that the reverse step computes again instead of reading, the
    /// cheapest to compute per byte first. tad-choose-loop-snapshots sets
    /// it for a budget between a full tape with residuals and one without.
    static constexpr ::llvm::StringLiteral kLoopResidualRecomputeAttrName = "tad.loop_residual_recompute";
    /// On a bufferized function (tad-buffer-peak): the peak of its
    /// planned buffers in bytes, and whether that is only an upper bound
    /// (a branch on data counts its larger side).
    static constexpr ::llvm::StringLiteral kBufferPeakAttrName = "tad.buffer_peak";
    static constexpr ::llvm::StringLiteral kBufferPeakBoundAttrName = "tad.buffer_peak_bound";
    /// On a derivative that tad-remat scheduled under the overhead policy:
    /// the budget in bytes that the search chose for it, which
    /// tad-buffer-peak then checks as it checks its own `budget` option.
    static constexpr ::llvm::StringLiteral kBudgetAttrName = "tad.budget";
    /// On the ops of a derivative's forward sweep (tad-autodiff), so that
    /// the remat report can tell the forward values that the backward
    /// sweep reads from the backward sweep's own.
    static constexpr ::llvm::StringLiteral kForwardAttrName = "tad.forward";
    /// On a forward loop of a derivative (tad-autodiff): how many times the
    /// reverse sweep runs the loop's body forward again (once per iteration
    /// with a full tape; with binomial checkpointing also revolve's
    /// advances), so that the remat report can count that recomputation.
    static constexpr ::llvm::StringLiteral kReverseRerunsAttrName = "tad.reverse_reruns";
    /// On the ops of a forward loop that store its tape (tad-autodiff):
    /// bookkeeping that the reverse sweep does not run again, so that the
    /// remat report leaves it out of the cost of a loop's reruns.
    static constexpr ::llvm::StringLiteral kTapeAttrName = "tad.tape";
    /// On the ops with which the backward sweep computes a checkpoint
    /// region or a branch again before its adjoint (tad-autodiff), so that
    /// the remat report counts that recomputation.
    static constexpr ::llvm::StringLiteral kRecomputedAttrName = "tad.recomputed";
    /// On the scf.index_switch of a revolve dispatcher (tad-autodiff): how
    /// many times the loop around it takes each case, the default last, so
    /// that the remat cost model and its peak count the cases the schedule
    /// runs (they sum to the loop's trip count).
    static constexpr ::llvm::StringLiteral kCaseCountsAttrName = "tad.case_counts";
    /// On the module between tad-choose-loop-snapshots and tad-remat: what
    /// the chooser decided, one {location, trips, snapshots} dictionary per
    /// loop, for the remat report.
    static constexpr ::llvm::StringLiteral kLoopSnapshotChoiceAttrName = "tad.loop_snapshot_choice";
    /// On the module between tad-choose-loop-snapshots and tad-remat, when
    /// no choice meets the budget and one derivative is scheduled: the
    /// least budget that the chosen counts' trial found, where tad-remat's
    /// own search for the minimum starts.
    static constexpr ::llvm::StringLiteral kLoopChoiceMinimumAttrName = "tad.loop_choice_minimum";
    /// On a function that tad-outline-loop-nests made of a loop nest, until
    /// tad-annotate-llvm-functions makes it internal and noinline.
    static constexpr ::llvm::StringLiteral kOutlinedAttrName = "tad.outlined";
    /// On such a function: the positions of the LLVM arguments (the
    /// pointers of memref arguments) that alias no other argument.
    static constexpr ::llvm::StringLiteral kNoaliasPointersAttrName = "tad.noalias_pointers";
    /// On the outermost scf.for of a linalg op's loop nest
    /// (tad-linalg-to-loops): its iterations write disjoint elements and
    /// read none that another iteration writes, so they may run at once.
    static constexpr ::llvm::StringLiteral kParallelLoopAttrName = "tad.parallel";
    /// On a function of tad-outline-loop-nests whose last two arguments
    /// are the range of its outer loop's iterations that a call runs:
    /// tad-parallelize-calls calls it through the runtime's threads.
    static constexpr ::llvm::StringLiteral kParallelRangeAttrName = "tad.parallel_range";
    /// On the scf.for over the indices that tad.scatter_add lowers to: each
    /// element of the slice it adds is touched by its own position only, in
    /// every iteration, so tad-scatter-loops-inside may run the loop inside
    /// one GPU thread per element.
    static constexpr ::llvm::StringLiteral kScatterLoopAttrName = "tad.scatter_loop";
    /// On such a loop whose indices are unique (no two equal): its
    /// iterations touch disjoint elements, so they may all run at once.
    static constexpr ::llvm::StringLiteral kScatterLoopUniqueAttrName = "tad.scatter_loop_unique";
    /// On an op of the GPU targets' host code with regions (a function, a
    /// loop, a branch), during the kernel mapping: per region, the highest
    /// live total of its block in the buffer plan's order, which the steps
    /// that join kernels keep (lib/Conversion/GPU/HostPeak.h);
    /// tad-forget-host-peaks drops it.
    static constexpr ::llvm::StringLiteral kHostPeaksAttrName = "tad.host_peaks";
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tad_FloatElement : AnyTypeOf<[F32, F64, F16, BF16], "f32, f64, f16 or bf16">;
def Tad_NumericElement : AnyTypeOf<[F32, F64, F16, BF16, I32, I64],
                                   "f32, f64, f16, bf16, i32 or i64">;
def Tad_AnyElement : AnyTypeOf<[F32, F64, F16, BF16, I32, I64, I1],
                               "f32, f64, f16, bf16, i32, i64 or i1">;

// The value type of the ops of float math (exp, matmul, softmax, ...).
def Tad_Tensor : RankedTensorOf<[Tad_FloatElement], [HasStaticShapePred],
                                "statically shaped tensor">;

// Float or integer: what the ops that move, select, add and compare values
// take.
def Tad_NumericTensor : RankedTensorOf<[Tad_NumericElement],
                                       [HasStaticShapePred],
                                       "statically shaped tensor">;

// Integer indices: the token ids of tad.gather and tad.scatter_add.
def Tad_IndexTensor : RankedTensorOf<[AnyTypeOf<[I32, I64], "i32 or i64">],
                                     [HasStaticShapePred],
                                     "statically shaped tensor">;

// Float, integer or boolean: what tad.broadcast moves (a broadcast
// condition of tad.select is boolean) and tad.constant makes.
def Tad_AnyTensor : RankedTensorOf<[Tad_AnyElement], [HasStaticShapePred],
                                   "statically shaped tensor">;

// The result of tad.compare and the condition of tad.select.
def Tad_BoolTensor : RankedTensorOf<[I1], [HasStaticShapePred],
                                    "statically shaped tensor">;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tad_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "a comparison: `ne` unordered (true with a NaN), the others ordered", [
      I32EnumAttrCase<"eq", 0>,
      I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>,
      I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>,
      I32EnumAttrCase<"ge", 5>
    ]> {
  let cppNamespace = "::tad";
}

// What tad.random makes of its Philox bits.
def Tad_Distribution : I32EnumAttr<"Distribution",
    "what tad.random draws", [
      I32EnumAttrCase<"uniform", 0>,
      I32EnumAttrCase<"normal", 1>,
      I32EnumAttrCase<"keys", 2>
    ]> {
  let cppNamespace = "::tad";
}

// How tad.all_reduce combines the processes' tensors.
def Tad_ReduceKind : I32EnumAttr<"ReduceKind",
    "how a collective combines the processes' tensors", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"mean", 1>
    ]> {
  let cppNamespace = "::tad";
}

//===----------------------------------------------------------------------===//
// Base op class
//===----------------------------------------------------------------------===//

class Tad_Op<string mnemonic, list<Trait> traits = []> :
    Op<Tad_Dialect, mnemonic, traits>;

#endif // TAD_DIALECT_TD
