//===- TadOps.td - tad dialect operations ------------------*- tablegen -*-===//
//
// The ops of the tad dialect, by family. Shape rules that ODS traits cannot
// state are checked by hand-written verifiers in TadOps.cpp; every rule has a
// failing example in test/Dialect/tad/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_OPS_TD
#define TAD_OPS_TD

include "dialects/tad/TadDialect.td"
include "dialects/tad/TadAttrs.td"
include "dialects/tad/TadInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Tad_ConstantOp : Tad_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a tensor constant";
  let description = [{
    Produces a tensor from a dense elements attribute of the same type.

    ```mlir
    %0 = tad.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tad_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let builders = [
    OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
      build($_builder, $_state, value.getType(), value);
    }]>
  ];
}

def Tad_EmptyOp : Tad_Op<"empty",
    [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getComputeCost"]>]> {
  let summary = "a tensor whose elements are written before they are read";
  let description = [{
    Produces a tensor of the result type whose elements are undefined:
    reading one before it is written is undefined behavior. It lowers to
    `tensor.empty`, a buffer that nothing initializes, placed just before
    the op's one user when it has one (a tape's loop: AD puts tad.empty at
    the top of the function, as the canonicalizer puts constants, and the
    buffer is allocated where a constant's copy would be).

    Reverse-mode AD starts the tapes of a loop with it: the forward loop
    writes every row of a tape before the reverse loop reads it, and the
    reverse loop writes every row of a gradient that holds tapes, so
    filling them with zeros first would be a pass over the tape's bytes
    that no one reads (docs/autodiff.md). Two of them are two buffers: the
    result is an allocation (so CSE does not merge them, and DCE removes an
    unused one).

    ```mlir
    %tape = tad.empty : tensor<4x128x256xf32>
    ```
  }];
  let results = (outs Res<Tad_AnyTensor, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// `model` names the MemoryModelOpInterface methods the op defines itself
// (in TadMemoryModel.cpp): getElementCost for the dearer functions.
class Tad_UnaryOp<string mnemonic, list<Trait> traits = [],
                   list<string> model = [], Type tensor = Tad_Tensor> :
    Tad_Op<mnemonic, !listconcat(traits,
        [Pure, Elementwise, SameOperandsAndResultType, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>, DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, model>])> {
  let arguments = (ins tensor:$operand);
  let results = (outs tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

// `model` names the MemoryModelOpInterface methods the op defines itself
// (in TadMemoryModel.cpp): getElementCost for the dearer functions.
class Tad_BinaryOp<string mnemonic, list<Trait> traits = [],
                   list<string> model = [], Type tensor = Tad_Tensor> :
    Tad_Op<mnemonic, !listconcat(traits,
        [Pure, Elementwise, SameOperandsAndResultType, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>, DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, model>])> {
  let arguments = (ins tensor:$lhs, tensor:$rhs);
  let results = (outs tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Tad_AddOp : Tad_BinaryOp<"add", [Commutative], [], Tad_NumericTensor> {
  let summary = "elementwise addition";
  let description = [{
    ```mlir
    %z = tad.add %x, %y : tensor<4x8xf32>
    ```
    Folds `x + (-0.0)` to `x` and constant operands; `x + 0.0` is not folded
    because it turns `-0.0` into `+0.0`.
  }];
  let hasFolder = 1;
}

def Tad_SubOp : Tad_BinaryOp<"sub", [], [], Tad_NumericTensor> {
  let summary = "elementwise subtraction";
  let description = [{
    ```mlir
    %z = tad.sub %x, %y : tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}

def Tad_MulOp : Tad_BinaryOp<"mul", [Commutative], [], Tad_NumericTensor> {
  let summary = "elementwise multiplication";
  let description = [{
    ```mlir
    %z = tad.mul %x, %y : tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}

def Tad_DivOp : Tad_BinaryOp<"div", [], ["getElementCost"]> {
  let summary = "elementwise division";
  let description = [{
    ```mlir
    %z = tad.div %x, %y : tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}

def Tad_PowOp : Tad_BinaryOp<"pow", [], ["getElementCost"]> {
  let summary = "elementwise power `lhs ^ rhs`";
  let description = [{
    ```mlir
    %z = tad.pow %x, %y : tensor<4x8xf32>
    ```
    Follows C's `powf`: a negative base with a non-integer exponent is NaN.
  }];
  let hasFolder = 1;
}

def Tad_MaxOp : Tad_BinaryOp<"max", [Commutative], [], Tad_NumericTensor> {
  let summary = "elementwise maximum, propagating NaN";
  let description = [{
    ```mlir
    %z = tad.max %x, %y : tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}

def Tad_MinOp : Tad_BinaryOp<"min", [Commutative], [], Tad_NumericTensor> {
  let summary = "elementwise minimum, propagating NaN";
  let description = [{
    ```mlir
    %z = tad.min %x, %y : tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}

def Tad_NegOp : Tad_UnaryOp<"neg", [Involution], [], Tad_NumericTensor> {
  let summary = "elementwise negation";
  let description = [{
    ```mlir
    %y = tad.neg %x : tensor<4xf32>
    ```
  }];
  let hasFolder = 1;
}

def Tad_AbsOp : Tad_UnaryOp<"abs", [Idempotent], [], Tad_NumericTensor> {
  let summary = "elementwise absolute value";
  let description = [{
    ```mlir
    %y = tad.abs %x : tensor<4xf32>
    ```
  }];
  let hasFolder = 1;
}

def Tad_ExpOp : Tad_UnaryOp<"exp", [], ["getElementCost"]> {
  let summary = "elementwise natural exponential";
  let description = [{
    ```mlir
    %y = tad.exp %x : tensor<4xf32>
    ```
  }];
}

def Tad_LogOp : Tad_UnaryOp<"log", [], ["getElementCost"]> {
  let summary = "elementwise natural logarithm";
  let description = [{
    ```mlir
    %y = tad.log %x : tensor<4xf32>
    ```
  }];
}

def Tad_TanhOp : Tad_UnaryOp<"tanh", [], ["getElementCost"]> {
  let summary = "elementwise hyperbolic tangent";
  let description = [{
    ```mlir
    %y = tad.tanh %x : tensor<4xf32>
    ```
  }];
}

def Tad_SigmoidOp : Tad_UnaryOp<"sigmoid", [], ["getElementCost"]> {
  let summary = "elementwise logistic function `1 / (1 + exp(-x))`";
  let description = [{
    ```mlir
    %y = tad.sigmoid %x : tensor<4xf32>
    ```
  }];
}

def Tad_Log1pOp : Tad_UnaryOp<"log1p", [], ["getElementCost"]> {
  let summary = "elementwise `log(1 + x)`, accurate for small `x`";
  let description = [{
    `log(1 + x)` without the rounding of `1 + x`: `log1p(1e-10)` is
    `1e-10`, where `log(1.0 + 1e-10)` is 0 in f32.

    ```mlir
    %y = tad.log1p %x : tensor<4xf32>
    ```
  }];
}

def Tad_Expm1Op : Tad_UnaryOp<"expm1", [], ["getElementCost"]> {
  let summary = "elementwise `exp(x) - 1`, accurate for small `x`";
  let description = [{
    `exp(x) - 1` without the cancellation near 0: `expm1(1e-10)` is
    `1e-10`, where `exp(1e-10) - 1.0` is 0 in f32.

    ```mlir
    %y = tad.expm1 %x : tensor<4xf32>
    ```
  }];
}

def Tad_SoftplusOp : Tad_UnaryOp<"softplus", [], ["getElementCost"]> {
  let summary = "elementwise `log(1 + exp(x))`, finite for every finite `x`";
  let description = [{
    Computed as `max(x, 0) + log1p(exp(-|x|))`, which neither overflows
    for large `x` (`softplus(1e4)` is `1e4`) nor loses the tail for very
    negative `x` (`softplus(-20)` is `exp(-20)` to the last bits). Its
    derivative is `sigmoid(x)`.

    ```mlir
    %y = tad.softplus %x : tensor<4xf32>
    ```
  }];
}

def Tad_LogSigmoidOp : Tad_UnaryOp<"logsigmoid", [], ["getElementCost"]> {
  let summary = "elementwise `log(sigmoid(x))`, finite for every finite `x`";
  let description = [{
    `-softplus(-x)`, computed as `min(x, 0) - log1p(exp(-|x|))`:
    `logsigmoid(-1e4)` is `-1e4`, where `log(sigmoid(-1e4))` is `-inf`.
    Its derivative is `sigmoid(-x)`.

    ```mlir
    %y = tad.logsigmoid %x : tensor<4xf32>
    ```
  }];
}

def Tad_ReluOp : Tad_UnaryOp<"relu", [Idempotent]> {
  let summary = "elementwise `max(x, 0)`";
  let description = [{
    ```mlir
    %y = tad.relu %x : tensor<4xf32>
    ```
  }];
}

def Tad_SqrtOp : Tad_UnaryOp<"sqrt", [], ["getElementCost"]> {
  let summary = "elementwise square root";
  let description = [{
    ```mlir
    %y = tad.sqrt %x : tensor<4xf32>
    ```
  }];
}

def Tad_RsqrtOp : Tad_UnaryOp<"rsqrt", [], ["getElementCost"]> {
  let summary = "elementwise reciprocal square root";
  let description = [{
    ```mlir
    %y = tad.rsqrt %x : tensor<4xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

def Tad_CompareOp : Tad_Op<"compare", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface>, Pure, Elementwise, SameTypeOperands,
    TypesMatchWith<"the result is an i1 tensor of the operand shape",
                   "lhs", "result",
                   "::tad::getBoolTensorLike($_self)">]> {
  let summary = "elementwise comparison producing an i1 tensor";
  let description = [{
    Compares two tensors of one type elementwise. `eq`, `lt`, `le`, `gt` and
    `ge` are false when either operand is NaN; `ne` is true then (as `!=` in
    C).

    ```mlir
    %c = tad.compare lt, %x, %y : tensor<4xf32>
    ```
  }];
  let arguments = (ins Tad_ComparePredicate:$predicate, Tad_NumericTensor:$lhs,
                       Tad_NumericTensor:$rhs);
  let results = (outs Tad_BoolTensor:$result);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Tad_SelectOp : Tad_Op<"select", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface>, Pure, Elementwise, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>,
    AllTypesMatch<["on_true", "on_false", "result"]>,
    TypesMatchWith<"the condition is an i1 tensor of the value shape",
                   "result", "condition",
                   "::tad::getBoolTensorLike($_self)">]> {
  let summary = "elementwise choice between two tensors";
  let description = [{
    Takes `on_true` where `condition` holds and `on_false` elsewhere.

    ```mlir
    %z = tad.select %c, %x, %y : tensor<4xf32>
    ```
  }];
  let arguments = (ins Tad_BoolTensor:$condition, Tad_NumericTensor:$on_true,
                       Tad_NumericTensor:$on_false);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

def Tad_MatmulOp : Tad_Op<"matmul", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["writesFreshBuffer", "getComputeCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "matrix product with batch dimensions, operands possibly transposed";
  let description = [{
    Multiplies `op(lhs)` of shape `[B..., M, K]` by `op(rhs)` of shape
    `[B..., K, N]` into `[B..., M, N]`, where `op` swaps the last two
    dimensions of an operand marked `transpose_lhs` / `transpose_rhs` and is
    the identity otherwise. Both operands have one element type and one rank
    (at least 2) and the same batch dimensions `B...`; there is no implicit
    broadcasting of batch dimensions.

    ```mlir
    %c = tad.matmul %a, %b : tensor<8x64x32xf32>, tensor<8x32x16xf32>
           -> tensor<8x64x16xf32>
    // x^T dy, as the gradient of a weight is written:
    %dw = tad.matmul %x, %dy {transpose_lhs} : tensor<64x32xf32>,
            tensor<64x16xf32> -> tensor<32x16xf32>
    ```

    The flags are how a transpose reaches BLAS as a transposed view instead
    of a copy. Canonicalization folds a `tad.transpose` of the last two
    dimensions into them, before the remat pass sees the graph, so every
    schedule of one program multiplies the same operands the same way and
    gets bit-identical results.
  }];
  let arguments = (ins Tad_Tensor:$lhs, Tad_Tensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Tad_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs,
                   CArg<"bool", "false">:$transposeLhs,
                   CArg<"bool", "false">:$transposeRhs)>
  ];
  let extraClassDeclaration = [{
    /// The contracted size K.
    int64_t getContractedSize();
  }];
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Tad_TransposeOp : Tad_Op<"transpose", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["isFusableLoop", "getElementCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`.

    ```mlir
    %t = tad.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
    An identity permutation folds away; two transposes compose.
  }];
  let arguments = (ins Tad_NumericTensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $operand $permutation attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$operand,
                   "::llvm::ArrayRef<int64_t>":$permutation)>
  ];
}

def Tad_ReshapeOp : Tad_Op<"reshape", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getViewedOperand", "getComputeCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "reinterprets a tensor with another shape, in row-major order";
  let description = [{
    The operand and the result have the same element type and the same number
    of elements.

    ```mlir
    %r = tad.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$operand);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tad_BroadcastOp : Tad_Op<"broadcast", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["isFusableLoop"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "broadcasts a tensor to a larger shape along explicit dimensions";
  let description = [{
    Broadcasts float tensors, and the `i1` conditions of `tad.select`.
    Operand dimension `i` becomes result dimension `dimensions[i]`; the
    `dimensions` are strictly increasing, and each operand dimension is
    either 1 or equal to its result dimension. Every other result dimension
    is new.

    ```mlir
    %b = tad.broadcast %x dims [1] : tensor<4xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Tad_AnyTensor:$operand, DenseI64ArrayAttr:$dimensions);
  let results = (outs Tad_AnyTensor:$result);
  let assemblyFormat = [{
    $operand `dims` $dimensions attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tad_SliceOp : Tad_Op<"slice", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getViewedOperand", "getComputeCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "a strided static slice of a tensor";
  let description = [{
    Takes, along each dimension `d`, the indices
    `start[d], start[d] + step[d], ...` below `limit[d]`, with
    `0 <= start[d] <= limit[d] <= size[d]` and `step[d] >= 1`.

    ```mlir
    %s = tad.slice %x start [0, 1] limit [2, 4] step [1, 2]
           : tensor<2x4xf32> -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$operand, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$step);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `start` $start `limit` $limit `step` $step attr-dict `:`
    type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tad_TakeOp : Tad_Op<"take", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getViewedOperand", "getComputeCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "the slice of a stacked tensor at a dynamic leading index";
  let description = [{
    Returns `operand[index]`: the operand without its leading dimension, at
    position `index` of that dimension. This is how a loop body reads the
    weights of layer `i` from a stacked tensor. The index must lie in
    `[0, size)`; the frontend proves it for every index it emits, and the
    lowering clamps it so that no index can read outside the tensor.

    ```mlir
    %w = tad.take %ws[%i] : tensor<48x16x16xf32> -> tensor<16x16xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$operand, Index:$index);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `[` $index `]` attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tad_UpdateOp : Tad_Op<"update", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getUpdatedOperand", "getComputeCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>,
    AllTypesMatch<["operand", "result"]>]> {
  let summary = "replaces the slice of a stacked tensor at a dynamic index";
  let description = [{
    Returns `operand` with `operand[index]` replaced by `value`, whose type is
    the operand's without the leading dimension. It writes loop tapes and the
    adjoints of `tad.take`. The index rules are those of `tad.take`.

    ```mlir
    %t2 = tad.update %h into %tape[%i] : tensor<8x16xf32> into tensor<48x8x16xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$value, Tad_NumericTensor:$operand, Index:$index);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $value `into` $operand `[` $index `]` attr-dict `:` type($value) `into`
    type($operand)
  }];
  let hasVerifier = 1;
}

def Tad_GatherOp : Tad_Op<"gather", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["isFusableLoop", "absorbsProducers", "getComputeCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "the slices of a tensor at integer indices (an embedding lookup)";
  let description = [{
    Indexes dimension `axis` of the operand with every element of `indices`:
    the result's shape is the operand's with dimension `axis` replaced by
    the shape of `indices`, and

      result[p..., j..., s...] = operand[p..., indices[j...], s...]

    An embedding lookup is a gather of a table `[V, D]` along axis 0 with
    ids `[B, T]`, giving `[B, T, D]`. An index outside `[0, size)` is
    clamped into it, so that no index reads outside the operand. Its
    derivative is `tad.scatter_add` into zeros: repeated indices add up.

    `unique_indices` says that no two indices are equal once clamped (the
    frontend's `take_along_axis` with one index per row, whose positions
    lie in distinct rows, sets it); the derivative's `tad.scatter_add`
    inherits it.

    ```mlir
    %e = tad.gather %table[%ids] axis 0
           : tensor<50x8xf32>, tensor<4x16xi32> -> tensor<4x16x8xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$operand, Tad_IndexTensor:$indices,
                       I64Attr:$axis, UnitAttr:$unique_indices);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` `axis` $axis attr-dict `:` type($operand) `,`
    type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tad_ScatterAddOp : Tad_Op<"scatter_add", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getUpdatedOperand", "getComputeCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>,
    AllTypesMatch<["operand", "result"]>]> {
  let summary = "adds slices into a tensor at integer indices";
  let description = [{
    The adjoint of `tad.gather`: returns `operand` with each slice of
    `updates` added at its index,

      result[p..., indices[j...], s...] += updates[p..., j..., s...]

    where `updates` has the shape of the gather of `operand` at `indices`.
    The slices are added one after another in the row-major order of
    `indices`, so a repeated index accumulates in the same order on every
    run and every target: the results are bit-reproducible. Indices are
    clamped as `tad.gather` clamps them. With `unique_indices` (no two
    indices equal once clamped) every element gets one update at most, so
    the slices may be added at once, in any order, with the same result.

    ```mlir
    %g = tad.scatter_add %d into %zeros[%ids] axis 0
           : tensor<4x16x8xf32>, tensor<4x16xi32> into tensor<50x8xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$updates, Tad_NumericTensor:$operand,
                       Tad_IndexTensor:$indices, I64Attr:$axis,
                       UnitAttr:$unique_indices);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $updates `into` $operand `[` $indices `]` `axis` $axis attr-dict `:`
    type($updates) `,` type($indices) `into` type($operand)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The type of the gather of `operand` at `indices` along `axis`.
    static ::mlir::RankedTensorType getGatheredType(
        ::mlir::RankedTensorType operand, ::mlir::RankedTensorType indices,
        int64_t axis);
  }];
}

def Tad_IotaOp : Tad_Op<"iota", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["isFusableLoop"]>, Pure]> {
  let summary = "each element's index along one dimension";
  let description = [{
    `result[i_0, ..., i_n] = i_axis`, in an integer type: the building
    block of masks (`iota(0) >= iota(1)` is a causal mask) and of
    one-hot encodings. It has no operands and no derivative.

    ```mlir
    %rows = tad.iota axis 0 : tensor<4x4xi32>
    ```
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs Tad_IndexTensor:$result);
  let assemblyFormat = "`axis` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tad_ArgMaxOp : Tad_Op<"argmax", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["absorbsProducers", "writesFreshBuffer", "getTransientBytes"]>, Pure]> {
  let summary = "the index of the largest (or smallest) element along an axis";
  let description = [{
    Reduces `axis` of the operand to the index of its largest element
    (smallest with `min`), the first one where several are equal, as NumPy
    and PyTorch do. A NaN counts as larger (with `min`, smaller) than every
    number, so a row with a NaN gives the first NaN's index. The result has
    the operand's shape without `axis` (with `keepdims`, with it as size 1)
    and an integer type. It has no derivative.

    ```mlir
    %i = tad.argmax %x axis 1 : tensor<4x10xf32> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$operand, I64Attr:$axis,
                       UnitAttr:$min, UnitAttr:$keepdims);
  let results = (outs Tad_IndexTensor:$result);
  let assemblyFormat = [{
    $operand `axis` $axis (`min` $min^)? (`keepdims` $keepdims^)? attr-dict
    `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tad_RandomOp : Tad_Op<"random", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["isFusableLoop", "absorbsProducers", "getElementCost"]>, Pure]> {
  let summary = "counter-based random numbers from a key";
  let description = [{
    Draws a tensor from the `i64` key `key` with Philox 4x32-10 (Salmon et
    al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011): element
    `i` (in row-major order) is a function of the key and `i` alone, so the
    same key gives the same tensor on every run, target and schedule, and a
    recomputation (a checkpoint, a remat, a loop's reverse sweep) draws
    exactly what the first computation drew. With `uniform`, floats in
    [0, 1) (24 random bits for f32, f16 and bf16, computed in f32; 53 for
    f64); with `normal`, standard normal floats (Box-Muller); with `keys`,
    `i64` keys (what `split` returns), from a stream apart from the
    samples'. It has no derivative.

    ```mlir
    %u = tad.random %key uniform : tensor<i64> -> tensor<4x8xf32>
    %k = tad.random %key keys : tensor<i64> -> tensor<3xi64>
    ```
  }];
  let arguments = (ins TensorOf<[I64]>:$key, Tad_Distribution:$distribution);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $key $distribution attr-dict `:` type($key) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tad_FoldInOp : Tad_Op<"fold_in", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getElementCost"]>, Pure, AllTypesMatch<["key", "result"]>]> {
  let summary = "a key derived from a key and an integer";
  let description = [{
    A new `i64` key that is a Philox function of `key` and `data` (an
    integer: a loop index, a step count), apart from the streams of
    `tad.random`: `fold_in(key, i)` gives each iteration of a loop its own
    key, recomputed exactly wherever the iteration is.

    ```mlir
    %k = tad.fold_in %key, %i : tensor<i64>, index
    ```
  }];
  let arguments = (ins TensorOf<[I64]>:$key,
                       AnyTypeOf<[Index, TensorOf<[I32, I64]>]>:$data);
  let results = (outs TensorOf<[I64]>:$result);
  let assemblyFormat = "$key `,` $data attr-dict `:` type($key) `,` type($data)";
  let hasVerifier = 1;
}

def Tad_DynamicSliceOp : Tad_Op<"dynamic_slice", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getViewedOperand", "getComputeCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "a slice of static size at dynamic offsets";
  let description = [{
    Returns the block of `operand` that starts at `offsets` (one index per
    dimension) and has the result's shape: element `r` of the result is
    element `offsets + r` of the operand. This is how a loop reads
    `s[:, k]` or `s[:, k:k+2]` with its index `k`. Every offset must lie
    in `[0, size - slice size]`; the frontend proves it for every offset
    it emits, and the lowering clamps each into that range, so that no
    offset can read outside the tensor (as StableHLO's `dynamic_slice`
    does).

    ```mlir
    %c = tad.dynamic_slice %s[%c0, %k] : tensor<4x16xf32> -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$operand, Variadic<Index>:$offsets);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `[` $offsets `]` attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tad_DynamicUpdateSliceOp : Tad_Op<"dynamic_update_slice", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getUpdatedOperand", "getComputeCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>,
    AllTypesMatch<["operand", "result"]>]> {
  let summary = "replaces a slice of static size at dynamic offsets";
  let description = [{
    Returns `operand` with the block that starts at `offsets` replaced by
    `value`, of the same rank: the inverse of `tad.dynamic_slice`, which is
    how AD sends its cotangent back. The offset rules are those of
    `tad.dynamic_slice`.

    ```mlir
    %r = tad.dynamic_update_slice %v into %s[%c0, %k]
           : tensor<4x2xf32> into tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$value, Tad_NumericTensor:$operand,
                       Variadic<Index>:$offsets);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $value `into` $operand `[` $offsets `]` attr-dict `:` type($value) `into`
    type($operand)
  }];
  let hasVerifier = 1;
}

def Tad_InsertSliceOp : Tad_Op<"insert_slice", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getUpdatedOperand"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>,
    AllTypesMatch<["dest", "result"]>]> {
  let summary = "writes a tensor into a strided static slice of another";
  let description = [{
    Returns `dest` with the elements `start[d] + k * step[d]` of each
    dimension `d` replaced by `source`: the inverse of `tad.slice`, which
    is how AD sends a slice's cotangent back.

    ```mlir
    %r = tad.insert_slice %s into %x start [0, 1] step [1, 2]
           : tensor<2x2xf32> into tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$source, Tad_NumericTensor:$dest,
                       DenseI64ArrayAttr:$start, DenseI64ArrayAttr:$step);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $source `into` $dest `start` $start `step` $step attr-dict `:`
    type($source) `into` type($dest)
  }];
  let hasVerifier = 1;
}

def Tad_ConcatOp : Tad_Op<"concat", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "concatenates tensors along one dimension";
  let description = [{
    All operands have one element type and one rank, and agree on every
    dimension but `axis`.

    ```mlir
    %c = tad.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<4x3xf32>
           -> tensor<6x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Tad_NumericTensor>:$inputs, I64Attr:$axis);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = [{
    $inputs `axis` $axis attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tad_CastOp : Tad_Op<"cast", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["isFusableLoop", "readsAtResultIndex"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "converts between element types";
  let description = [{
    Between float types it rounds to nearest even when narrowing. From an
    integer to a float it rounds to nearest even; from a float to an
    integer it rounds toward zero and saturates (a value beyond the
    integer's range becomes its nearest bound and a NaN becomes 0, as
    LLVM's `fptosi.sat` and Rust's `as` do); between
    integers it sign-extends or truncates. The shapes are equal.

    ```mlir
    %h = tad.cast %x : tensor<4xf32> -> tensor<4xf16>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$operand);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Tad_ReduceOp<string mnemonic, string what, Type tensor = Tad_NumericTensor> :
    Tad_Op<mnemonic, [Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>,
        DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["absorbsProducers", "writesFreshBuffer", "getTransientBytes", "getFusableTailBytes", "getElementCost"]>]> {
  let summary = what # " over a list of axes";
  let description = [{
    Reduces the operand over `axes` (unique, each in `[0, rank)`). With
    `keepdims` each reduced dimension stays as a dimension of size 1;
    without it, it is removed. An empty axis list is the identity.

    ```mlir
    %s = tad.}] # mnemonic # [{ %x axes [1] : tensor<2x3xf32> -> tensor<2xf32>
    %k = tad.}] # mnemonic # [{ %x axes [0, 1] keepdims
           : tensor<2x3xf32> -> tensor<1x1xf32>
    ```
  }];
  let arguments = (ins tensor:$operand, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
  let results = (outs tensor:$result);
  let assemblyFormat = [{
    $operand `axes` $axes (`keepdims` $keepdims^)? attr-dict `:`
    type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$operand, "::llvm::ArrayRef<int64_t>":$axes,
                   "bool":$keepdims)>
  ];
  let extraClassDeclaration = [{
    /// The number of operand elements folded into each result element.
    int64_t getReductionSize();
  }];
}

def Tad_ReduceSumOp : Tad_ReduceOp<"reduce_sum", "sum">;
def Tad_ReduceMeanOp : Tad_ReduceOp<"reduce_mean", "arithmetic mean", Tad_Tensor>;
def Tad_ReduceMaxOp : Tad_ReduceOp<"reduce_max", "maximum (NaN propagating)">;

def Tad_SoftmaxOp : Tad_Op<"softmax", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["writesFreshBuffer", "getTransientBytes", "getFusableTailBytes", "getElementCost"]>, Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`, which the
    lowering evaluates in this numerically stable form.

    ```mlir
    %p = tad.softmax %x axis 1 : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tad_Tensor:$operand, I64Attr:$axis);
  let results = (outs Tad_Tensor:$result);
  let assemblyFormat = "$operand `axis` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tad_LogSumExpOp : Tad_Op<"logsumexp", [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["writesFreshBuffer", "getTransientBytes", "getFusableTailBytes", "getElementCost"]>, Pure, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "log of the sum of exponentials along one axis";
  let description = [{
    `m + log(sum(exp(x - m)))` with `m = max(x)` along `axis`, removing that
    axis or, with `keepdims`, keeping it with size 1.

    ```mlir
    %l = tad.logsumexp %x axis 1 : tensor<2x3xf32> -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Tad_Tensor:$operand, I64Attr:$axis, UnitAttr:$keepdims);
  let results = (outs Tad_Tensor:$result);
  let assemblyFormat = [{
    $operand `axis` $axis (`keepdims` $keepdims^)? attr-dict `:`
    type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Tad_AllReduceOp : Tad_Op<"all_reduce", [SameOperandsAndResultType,
    DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>,
    DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["getTransientBytes"]>,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "sums or averages a tensor across the processes of a run";
  let description = [{
    Every process of the run (the ranks of `MPI_COMM_WORLD`) passes a tensor
    of the same type and receives the elementwise sum of them all (`sum`)
    or that sum divided by the number of processes (`mean`). A run of one
    process returns the operand.

    The op has effects: every process must reach the same collectives in
    the same order, so no pass may remove, merge or duplicate one on its
    own, and the remat pass never recomputes one (it would communicate
    again). Its derivative is taken of the sum over the processes of what
    each computes (the SPMD convention, as JAX's `psum`): the cotangent of
    the operand is the same collective of the result's cotangent.

    On the CPU it lowers to `mpi.allreduce` (docs/distributed.md); other
    targets reject it.

    ```mlir
    %g = tad.all_reduce mean, %x : tensor<256x128xf32>
    ```
  }];
  let arguments = (ins Tad_ReduceKind:$kind, Tad_Tensor:$operand);
  let results = (outs Tad_Tensor:$result);
  let assemblyFormat = "$kind `,` $operand attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Differentiation control
//===----------------------------------------------------------------------===//

def Tad_StopGradientOp : Tad_Op<"stop_gradient",
    [DeclareOpInterfaceMethods<Tad_MemoryModelOpInterface, ["isFusableLoop", "readsAtResultIndex"]>, Pure, SameOperandsAndResultType, DeclareOpInterfaceMethods<Tad_DifferentiableOpInterface>]> {
  let summary = "the identity, with a zero derivative";
  let description = [{
    Returns its operand; reverse-mode AD sends no cotangent through it.

    ```mlir
    %y = tad.stop_gradient %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins Tad_NumericTensor:$operand);
  let results = (outs Tad_NumericTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tad_CheckpointOp : Tad_Op<"checkpoint", [RecursiveMemoryEffects,
    IsolatedFromAbove, SingleBlock]> {
  let summary = "a region whose inner values are recomputed, not stored";
  let description = [{
    Runs its body on its operands (tensors, and the `index` values of
    enclosing loops) and returns what the body yields. The
    values computed inside are not kept for the backward sweep: AD recomputes
    the region from its operands just before the region's adjoint runs. The
    region is isolated from above, so its operands are exactly what the
    recomputation needs.

    ```mlir
    %y = tad.checkpoint(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>)
           -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
      %m = tad.matmul %a, %b : tensor<4x8xf32>, tensor<8x8xf32>
             -> tensor<4x8xf32>
      %t = tad.tanh %m : tensor<4x8xf32>
      tad.yield %t : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[AnyRankedTensor, Index]>>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::tad::YieldOp getYield();
  }];
}

def Tad_YieldOp : Tad_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"CheckpointOp">]> {
  let summary = "returns the results of a tad.checkpoint body";
  let description = [{
    ```mlir
    tad.yield %t : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // TAD_OPS_TD
