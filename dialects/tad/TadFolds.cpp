//===- TadFolds.cpp - tad folds and canonicalizations ---------------------===//
//
// Only folds that are exact in IEEE arithmetic: `x * 1 -> x` folds, but
// `x + 0 -> x` does not, since it would turn -0.0 into +0.0. Transcendental
// functions are not constant folded, so that a folded constant never differs
// from what the compiled code computes.
//
//===----------------------------------------------------------------------===//

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tad;

/// Folds an elementwise binary op on two float constants. `void` opts out of
/// poison propagation: tad has no poison values.
template <typename Fn>
static Attribute foldBinary(ArrayRef<Attribute> operands, Fn &&fn) {
  return constFoldBinaryOp<FloatAttr, APFloat, void>(
      operands, [&](const APFloat &a, const APFloat &b) { return fn(a, b); });
}

template <typename Fn>
static Attribute foldUnary(ArrayRef<Attribute> operands, Fn &&fn) {
  return constFoldUnaryOp<FloatAttr, APFloat, void>(
      operands, [&](const APFloat &a) { return fn(a); });
}

/// The same on integer constants (i32, i64: two's complement, wrapping).
template <typename Fn>
static Attribute foldIntBinary(ArrayRef<Attribute> operands, Fn &&fn) {
  return constFoldBinaryOp<IntegerAttr, APInt, void>(
      operands, [&](const APInt &a, const APInt &b) { return fn(a, b); });
}

template <typename Fn>
static Attribute foldIntUnary(ArrayRef<Attribute> operands, Fn &&fn) {
  return constFoldUnaryOp<IntegerAttr, APInt, void>(
      operands, [&](const APInt &a) { return fn(a); });
}

static bool isInteger(Value v) {
  return isa<IntegerType>(cast<ShapedType>(v.getType()).getElementType());
}

/// A splat constant reshaped to `type` (same element type), or null.
static Attribute reshapeSplat(Attribute attr, Type type) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return {};
  return SplatElementsAttr::get(cast<ShapedType>(type),
                                splat.getSplatValue<Attribute>());
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isInteger(getLhs()))
    return matchPattern(getRhs(), m_Zero())
               ? OpFoldResult(getLhs())
               : foldIntBinary(adaptor.getOperands(),
                               [](const APInt &a, const APInt &b) {
                                 return a + b;
                               });
  if (matchPattern(getRhs(), m_NegZeroFloat()))
    return getLhs();
  return foldBinary(adaptor.getOperands(),
                    [](const APFloat &a, const APFloat &b) { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isInteger(getLhs()))
    return matchPattern(getRhs(), m_Zero())
               ? OpFoldResult(getLhs())
               : foldIntBinary(adaptor.getOperands(),
                               [](const APInt &a, const APInt &b) {
                                 return a - b;
                               });
  if (matchPattern(getRhs(), m_PosZeroFloat()))
    return getLhs();
  return foldBinary(adaptor.getOperands(),
                    [](const APFloat &a, const APFloat &b) { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isInteger(getLhs()))
    return matchPattern(getRhs(), m_One())
               ? OpFoldResult(getLhs())
               : foldIntBinary(adaptor.getOperands(),
                               [](const APInt &a, const APInt &b) {
                                 return a * b;
                               });
  if (matchPattern(getRhs(), m_OneFloat()))
    return getLhs();
  return foldBinary(adaptor.getOperands(),
                    [](const APFloat &a, const APFloat &b) { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(getRhs(), m_OneFloat()))
    return getLhs();
  return foldBinary(adaptor.getOperands(),
                    [](const APFloat &a, const APFloat &b) { return a / b; });
}

OpFoldResult PowOp::fold(FoldAdaptor) {
  if (matchPattern(getRhs(), m_OneFloat()))
    return getLhs();
  return {};
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  if (isInteger(getLhs()))
    return foldIntBinary(adaptor.getOperands(),
                         [](const APInt &a, const APInt &b) {
                           return a.sge(b) ? a : b;
                         });
  return foldBinary(adaptor.getOperands(), [](const APFloat &a,
                                              const APFloat &b) {
    return llvm::maximum(a, b);
  });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  if (isInteger(getLhs()))
    return foldIntBinary(adaptor.getOperands(),
                         [](const APInt &a, const APInt &b) {
                           return a.sle(b) ? a : b;
                         });
  return foldBinary(adaptor.getOperands(), [](const APFloat &a,
                                              const APFloat &b) {
    return llvm::minimum(a, b);
  });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (isInteger(getOperand()))
    return foldIntUnary(adaptor.getOperands(),
                        [](const APInt &a) { return -a; });
  return foldUnary(adaptor.getOperands(), [](const APFloat &a) { return -a; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (isInteger(getOperand()))
    return foldIntUnary(adaptor.getOperands(),
                        [](const APInt &a) { return a.abs(); });
  return foldUnary(adaptor.getOperands(),
                   [](const APFloat &a) { return llvm::abs(a); });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  if (auto cond = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCondition()))
    return cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  // Only float-to-float casts fold: the others' rounding and saturation
  // are the lowering's (TadToLinalg), and a fold must not differ from it.
  if (!isa<FloatType>(getType().getElementType()) ||
      !isa<FloatType>(getOperand().getType().getElementType()))
    return {};
  const llvm::fltSemantics &to =
      cast<FloatType>(getType().getElementType()).getFloatSemantics();
  return constFoldCastOp<FloatAttr, FloatAttr, APFloat, APFloat, void>(
      adaptor.getOperands(), getType(), [&](const APFloat &a, bool &ok) {
        APFloat result = a;
        bool losesInfo = false;
        ok = result.convert(to, APFloat::rmNearestTiesToEven, &losesInfo) !=
             APFloat::opInvalidOp;
        return result;
      });
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

namespace {
/// matmul(transpose(a), b) -> matmul(a, b) {transpose_lhs}, for a transpose
/// that swaps the last two dimensions and keeps the batch ones: BLAS reads
/// the operand transposed where it lies, where the transpose was a copy.
/// Updated in place, so that attributes such as `tad.forward` stay.
struct FoldTransposeIntoMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto swapsLastTwo = [](Value v) -> TransposeOp {
      auto transpose = v.getDefiningOp<TransposeOp>();
      if (!transpose)
        return {};
      ArrayRef<int64_t> p = transpose.getPermutation();
      int64_t n = p.size();
      for (int64_t d = 0; d < n - 2; ++d)
        if (p[d] != d)
          return {};
      return n >= 2 && p[n - 2] == n - 1 && p[n - 1] == n - 2 ? transpose
                                                              : TransposeOp();
    };
    TransposeOp lhs = swapsLastTwo(op.getLhs());
    TransposeOp rhs = swapsLastTwo(op.getRhs());
    if (!lhs && !rhs)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (lhs) {
        op.getLhsMutable().assign(lhs.getOperand());
        op.setTransposeLhs(!op.getTransposeLhs());
      }
      if (rhs) {
        op.getRhsMutable().assign(rhs.getOperand());
        op.setTransposeRhs(!op.getTransposeRhs());
      }
    });
    return success();
  }
};
} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldTransposeIntoMatmul>(context);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> permutation = getPermutation();
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return getOperand();
  // transpose(transpose(x, p), q) = transpose(x, p o q), updated in place.
  if (auto inner = getOperand().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t dim : permutation)
      composed.push_back(inner.getPermutation()[dim]);
    setPermutation(composed);
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  // Row-major order is unchanged, so any dense constant reshapes exactly.
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand()))
    return dense.reshape(getType());
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return reshapeSplat(adaptor.getOperand(), getType());
}

namespace {
/// broadcast(broadcast(x, d1), d2) -> broadcast(x, d2[d1]): an operand
/// dimension of size 1 or equal to the middle one stays valid for the result.
struct ComposeBroadcasts : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> dims;
    for (int64_t dim : inner.getDimensions())
      dims.push_back(op.getDimensions()[dim]);
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(),
                                             inner.getOperand(), dims);
    return success();
  }
};
} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeBroadcasts>(context);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {
/// A reduction over dimensions of size 1 only moves data: sum, mean and max
/// of a single element are that element. It becomes a reshape.
template <typename ReduceOpT>
struct TrivialReductionToReshape : OpRewritePattern<ReduceOpT> {
  using OpRewritePattern<ReduceOpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOpT op,
                                PatternRewriter &rewriter) const override {
    if (op.getReductionSize() != 1 ||
        op.getOperand().getType() == op.getType())
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getOperand());
    return success();
  }
};
} // namespace

#define TAD_REDUCTION_FOLDS(OP)                                                \
  OpFoldResult OP::fold(FoldAdaptor) {                                         \
    /* Same type means every reduced dimension has size 1 and is kept. */      \
    if (getOperand().getType() == getType())                                   \
      return getOperand();                                                     \
    return {};                                                                 \
  }                                                                            \
  void OP::getCanonicalizationPatterns(RewritePatternSet &results,             \
                                       MLIRContext *context) {                 \
    results.add<TrivialReductionToReshape<OP>>(context);                       \
  }

TAD_REDUCTION_FOLDS(ReduceSumOp)
TAD_REDUCTION_FOLDS(ReduceMeanOp)
TAD_REDUCTION_FOLDS(ReduceMaxOp)
#undef TAD_REDUCTION_FOLDS

//===----------------------------------------------------------------------===//
// Differentiation control
//===----------------------------------------------------------------------===//

OpFoldResult StopGradientOp::fold(FoldAdaptor adaptor) {
  // A constant has a zero derivative already.
  if (adaptor.getOperand())
    return adaptor.getOperand();
  if (getOperand().getDefiningOp<StopGradientOp>())
    return getOperand();
  return {};
}
