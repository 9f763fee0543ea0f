//===- TadToLinalg.cpp - tad to linalg, tensor, arith and math ------------===//
//
// One pattern per op family. Elementwise ops, broadcasts and transposes
// become linalg.generic ops with identity or projected indexing maps, which
// linalg's elementwise fusion merges into one loop nest. Reductions are
// linalg.generic reductions over zero (or -inf) initialized outputs.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/MatmulMaps.h"
#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tad {
#define GEN_PASS_DEF_CONVERTTADTOLINALG
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;
using namespace tad;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

Value emptyLike(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  auto floatType = cast<FloatType>(type);
  APFloat v(value);
  bool losesInfo;
  v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
            &losesInfo);
  return arith::ConstantOp::create(b, loc, floatType,
                                   FloatAttr::get(floatType, v));
}

Value negativeInfinity(OpBuilder &b, Location loc, Type type) {
  auto floatType = cast<FloatType>(type);
  return arith::ConstantOp::create(
      b, loc, floatType,
      FloatAttr::get(floatType, APFloat::getInf(floatType.getFloatSemantics(),
                                                /*Negative=*/true)));
}

/// A tensor of `type` filled with `value`.
Value filled(OpBuilder &b, Location loc, RankedTensorType type, Value value) {
  return linalg::FillOp::create(b, loc, value, emptyLike(b, loc, type))
      .getResult(0);
}

using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A linalg.generic computing `body` elementwise over `inputs`, which have
/// the shape of `resultType` (their element types may differ).
Value elementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                  ValueRange inputs, ScalarFn body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, resultType, inputs, emptyLike(b, loc, resultType), maps,
             iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl,
                                       body(nb, nl, args.drop_back()));
             })
      .getResult(0);
}

/// Reduces `input` over `axes` with `combine`, starting from `init`; the
/// result drops the reduced dimensions.
Value reduce(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
             Value init, ScalarFn combine) {
  RankedTensorType type = tensorType(input);
  RankedTensorType resultType = getReducedType(type, axes, /*keepdims=*/false);
  SmallVector<AffineExpr> resultExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced)
      resultExprs.push_back(b.getAffineDimExpr(d));
  }
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(type.getRank()),
      AffineMap::get(type.getRank(), 0, resultExprs, b.getContext())};
  return linalg::GenericOp::create(
             b, loc, resultType, input, filled(b, loc, resultType, init), maps,
             iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, combine(nb, nl, args));
             })
      .getResult(0);
}

/// The type sums accumulate in: f32 for f16 and bf16, f64 for f32, f64 for
/// f64. A long f32 sum accumulated in f32 loses digits (summing a million
/// 0.1s that way is off in the third digit); accumulating wider and rounding
/// once keeps sums, means, softmax and logsumexp accurate.
Type getAccumulatorType(OpBuilder &b, Type elementType) {
  unsigned width = cast<FloatType>(elementType).getWidth();
  return width <= 16 ? Type(b.getF32Type()) : Type(b.getF64Type());
}

Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  auto from = cast<FloatType>(v.getType());
  auto target = cast<FloatType>(to);
  if (from == target)
    return v;
  if (from.getWidth() < target.getWidth())
    return arith::ExtFOp::create(b, loc, target, v);
  return arith::TruncFOp::create(b, loc, target, v);
}

/// Sums `input` over `axes` in the accumulator type; the result keeps that
/// type (see narrowTo).
Value wideSum(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes) {
  Type accumulator = getAccumulatorType(b, tensorType(input).getElementType());
  RankedTensorType type = tensorType(input);
  RankedTensorType resultType = RankedTensorType::get(
      getReducedType(type, axes, /*keepdims=*/false).getShape(), accumulator);
  SmallVector<AffineExpr> resultExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced)
      resultExprs.push_back(b.getAffineDimExpr(d));
  }
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(type.getRank()),
      AffineMap::get(type.getRank(), 0, resultExprs, b.getContext())};
  Value zero = floatConstant(b, loc, accumulator, 0);
  return linalg::GenericOp::create(
             b, loc, resultType, input, filled(b, loc, resultType, zero), maps,
             iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value x = convertFloat(nb, nl, args[0], accumulator);
               Value sum = arith::AddFOp::create(nb, nl, x, args[1]);
               linalg::YieldOp::create(nb, nl, sum);
             })
      .getResult(0);
}

/// Rounds a tensor to `elementType`, elementwise.
Value narrowTo(OpBuilder &b, Location loc, Value v, Type elementType) {
  RankedTensorType type = tensorType(v);
  if (type.getElementType() == elementType)
    return v;
  auto resultType = RankedTensorType::get(type.getShape(), elementType);
  return elementwise(b, loc, resultType, v,
                     [&](OpBuilder &nb, Location nl, ValueRange args) {
                       return convertFloat(nb, nl, args[0], elementType);
                     });
}

/// Broadcasts `input` to `resultType` along `dims` (tad.broadcast rules:
/// operand dimension i is result dimension dims[i], stretched if size 1).
Value broadcastTo(OpBuilder &b, Location loc, Value input,
                  RankedTensorType resultType, ArrayRef<int64_t> dims) {
  RankedTensorType type = tensorType(input);
  if (type == resultType)
    return input;
  SmallVector<AffineExpr> exprs;
  for (auto [i, dim] : llvm::enumerate(dims))
    exprs.push_back(type.getDimSize(i) == 1 && resultType.getDimSize(dim) != 1
                        ? b.getAffineConstantExpr(0)
                        : b.getAffineDimExpr(dim));
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, exprs, b.getContext()),
      b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, resultType, input, emptyLike(b, loc, resultType), maps,
             iterators,
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

/// Broadcasts a reduced tensor (reduced over `axes`, without kept
/// dimensions) back to `resultType`.
Value broadcastReduced(OpBuilder &b, Location loc, Value reduced,
                       RankedTensorType resultType, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      dims.push_back(d);
  return broadcastTo(b, loc, reduced, resultType, dims);
}

/// Reshapes between any two shapes with the same number of elements by
/// collapsing to one dimension and expanding again; both are metadata-only
/// after bufferization.
Value reshape(OpBuilder &b, Location loc, Value input,
              RankedTensorType resultType) {
  RankedTensorType type = tensorType(input);
  if (type == resultType)
    return input;
  auto reassociation = [](int64_t rank) {
    SmallVector<ReassociationIndices> r;
    if (rank > 0)
      r.push_back(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
    return r;
  };
  auto flatType =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  Value flat = input;
  if (type.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, input,
                                         SmallVector<ReassociationIndices>{});
  else if (type.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                           reassociation(type.getRank()));
  if (resultType.getRank() == 0)
    return tensor::CollapseShapeOp::create(
        b, loc, resultType, flat, SmallVector<ReassociationIndices>{});
  if (resultType.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       reassociation(resultType.getRank()));
}

/// Adds back the reduced dimensions with size 1 (keepdims).
Value keepDims(OpBuilder &b, Location loc, Value reduced,
               RankedTensorType keptType) {
  return reshape(b, loc, reduced, keptType);
}

/// Clamps a dynamic index into [0, size) so that an index can never address
/// memory outside the tensor (the frontend proves its indices in range).
Value clampIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value last = arith::ConstantIndexOp::create(b, loc, size - 1);
  Value low = arith::MaxSIOp::create(b, loc, index, zero);
  return arith::MinSIOp::create(b, loc, low, last);
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// The scalar computation of each elementwise op.
template <typename OpT>
Value scalarOf(OpBuilder &b, Location loc, ValueRange args, Type elementType);

#define TAD_SCALAR(OP, EXPR)                                                   \
  template <>                                                                  \
  Value scalarOf<OP>(OpBuilder & b, Location loc, ValueRange args,             \
                     Type elementType) {                                       \
    (void)elementType;                                                         \
    return EXPR;                                                               \
  }

/// The ops that also take integers (i32, i64: two's complement, wrapping
/// on overflow as in NumPy, JAX and PyTorch) pick the integer op by the
/// element type.
#define TAD_SCALAR_INT(OP, FLOAT_EXPR, INT_EXPR)                               \
  template <>                                                                  \
  Value scalarOf<OP>(OpBuilder & b, Location loc, ValueRange args,             \
                     Type elementType) {                                       \
    if (isa<IntegerType>(elementType))                                         \
      return INT_EXPR;                                                         \
    return FLOAT_EXPR;                                                         \
  }

TAD_SCALAR_INT(AddOp, arith::AddFOp::create(b, loc, args[0], args[1]),
               arith::AddIOp::create(b, loc, args[0], args[1]))
TAD_SCALAR_INT(SubOp, arith::SubFOp::create(b, loc, args[0], args[1]),
               arith::SubIOp::create(b, loc, args[0], args[1]))
TAD_SCALAR_INT(MulOp, arith::MulFOp::create(b, loc, args[0], args[1]),
               arith::MulIOp::create(b, loc, args[0], args[1]))
TAD_SCALAR(DivOp, arith::DivFOp::create(b, loc, args[0], args[1]))
TAD_SCALAR(PowOp, math::PowFOp::create(b, loc, args[0], args[1]))
TAD_SCALAR_INT(MaxOp, arith::MaximumFOp::create(b, loc, args[0], args[1]),
               arith::MaxSIOp::create(b, loc, args[0], args[1]))
TAD_SCALAR_INT(MinOp, arith::MinimumFOp::create(b, loc, args[0], args[1]),
               arith::MinSIOp::create(b, loc, args[0], args[1]))
TAD_SCALAR_INT(NegOp, arith::NegFOp::create(b, loc, args[0]),
               arith::SubIOp::create(
                   b, loc, arith::ConstantOp::create(
                               b, loc, b.getIntegerAttr(elementType, 0)),
                   args[0]))
TAD_SCALAR_INT(AbsOp, math::AbsFOp::create(b, loc, args[0]),
               math::AbsIOp::create(b, loc, args[0]))
TAD_SCALAR(ExpOp, math::ExpOp::create(b, loc, args[0]))
TAD_SCALAR(LogOp, math::LogOp::create(b, loc, args[0]))
TAD_SCALAR(TanhOp, math::TanhOp::create(b, loc, args[0]))
TAD_SCALAR(SqrtOp, math::SqrtOp::create(b, loc, args[0]))
TAD_SCALAR(RsqrtOp,
           arith::DivFOp::create(b, loc, floatConstant(b, loc, elementType, 1),
                                 math::SqrtOp::create(b, loc, args[0])))
// relu(NaN) is NaN, as in PyTorch: maximumf propagates NaN.
TAD_SCALAR(ReluOp,
           arith::MaximumFOp::create(b, loc, args[0],
                                     floatConstant(b, loc, elementType, 0)))
// With e = exp(-|x|) <= 1: 1 / (1 + e) for x >= 0, e / (1 + e) below
// (one division, of a selected numerator).
// 1 / (1 + exp(-x)) alone would overflow exp(-x) for x < -88.7 (f32) and
// return 0 where sigmoid is still exp(x), a normal or subnormal number.
template <>
Value scalarOf<SigmoidOp>(OpBuilder &b, Location loc, ValueRange args,
                          Type elementType) {
  Value x = args[0];
  Value one = floatConstant(b, loc, elementType, 1);
  Value e = math::ExpOp::create(
      b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
  Value isNegative = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT, x,
      floatConstant(b, loc, elementType, 0));
  return arith::DivFOp::create(
      b, loc, arith::SelectOp::create(b, loc, isNegative, e, one),
      arith::AddFOp::create(b, loc, one, e));
}
TAD_SCALAR(SelectOp, arith::SelectOp::create(b, loc, args[0], args[1], args[2]))
#undef TAD_SCALAR

/// log(1 + x) as Goldberg's x * log(u) / (u - 1) with u = 1 + x rounded:
/// the quotient corrects the rounding of u, so that the result keeps the
/// accuracy of log (it is x itself where u rounds to 1). math.log1p is not
/// used: convert-math-to-llvm expands it to log(1 + x), which is 0 for
/// |x| below half an ulp of 1.
static Value log1pOf(OpBuilder &b, Location loc, Value x, Type elementType) {
  Value one = floatConstant(b, loc, elementType, 1);
  Value u = arith::AddFOp::create(b, loc, one, x);
  Value d = arith::SubFOp::create(b, loc, u, one);
  Value quotient = arith::MulFOp::create(b, loc, math::LogOp::create(b, loc, u),
                                         arith::DivFOp::create(b, loc, x, d));
  Value exact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d,
                                      floatConstant(b, loc, elementType, 0));
  // x = +inf: u and d are inf, and x / d is NaN.
  Value infinite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, u,
      floatConstant(b, loc, elementType,
                    std::numeric_limits<double>::infinity()));
  return arith::SelectOp::create(
      b, loc, infinite, u, arith::SelectOp::create(b, loc, exact, x, quotient));
}

/// max(x, 0) + log1p(exp(-|x|)) (softplus), or min(x, 0) - log1p(...)
/// (logsigmoid): exp never overflows, and no sum cancels.
static Value softplusOf(OpBuilder &b, Location loc, Value x, Type elementType,
                        bool negated) {
  Value zero = floatConstant(b, loc, elementType, 0);
  Value e = math::ExpOp::create(
      b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
  Value tail = log1pOf(b, loc, e, elementType);
  if (negated)
    return arith::SubFOp::create(
        b, loc, arith::MinimumFOp::create(b, loc, x, zero), tail);
  return arith::AddFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, zero), tail);
}

template <>
Value scalarOf<Log1pOp>(OpBuilder &b, Location loc, ValueRange args,
                        Type elementType) {
  return log1pOf(b, loc, args[0], elementType);
}

/// exp(x) - 1 as Kahan's (u - 1) * x / log(u) with u = exp(x) rounded; x
/// where u rounds to 1, -1 where u - 1 does, and inf where u overflows.
template <>
Value scalarOf<Expm1Op>(OpBuilder &b, Location loc, ValueRange args,
                        Type elementType) {
  Value x = args[0];
  Value one = floatConstant(b, loc, elementType, 1);
  Value u = math::ExpOp::create(b, loc, x);
  Value d = arith::SubFOp::create(b, loc, u, one);
  Value quotient = arith::MulFOp::create(
      b, loc, d,
      arith::DivFOp::create(b, loc, x, math::LogOp::create(b, loc, u)));
  auto equals = [&](Value v, double c) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, v,
                                 floatConstant(b, loc, elementType, c));
  };
  Value result = arith::SelectOp::create(b, loc, equals(d, -1), d, quotient);
  result = arith::SelectOp::create(
      b, loc, equals(u, std::numeric_limits<double>::infinity()), u, result);
  return arith::SelectOp::create(b, loc, equals(u, 1), x, result);
}

template <>
Value scalarOf<SoftplusOp>(OpBuilder &b, Location loc, ValueRange args,
                           Type elementType) {
  return softplusOf(b, loc, args[0], elementType, /*negated=*/false);
}

template <>
Value scalarOf<LogSigmoidOp>(OpBuilder &b, Location loc, ValueRange args,
                             Type elementType) {
  return softplusOf(b, loc, args[0], elementType, /*negated=*/true);
}

template <typename OpT>
struct ElementwiseLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), type, adaptor.getOperands(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return scalarOf<OpT>(b, loc, args, elementType);
                        }));
    return success();
  }
};

struct CompareLowering : OpConversionPattern<CompareOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    arith::CmpFPredicate predicate;
    arith::CmpIPredicate intPredicate; // integers compare signed
    switch (op.getPredicate()) {
    case ComparePredicate::eq:
      predicate = arith::CmpFPredicate::OEQ;
      intPredicate = arith::CmpIPredicate::eq;
      break;
    case ComparePredicate::ne:
      predicate = arith::CmpFPredicate::UNE;
      intPredicate = arith::CmpIPredicate::ne;
      break;
    case ComparePredicate::lt:
      predicate = arith::CmpFPredicate::OLT;
      intPredicate = arith::CmpIPredicate::slt;
      break;
    case ComparePredicate::le:
      predicate = arith::CmpFPredicate::OLE;
      intPredicate = arith::CmpIPredicate::sle;
      break;
    case ComparePredicate::gt:
      predicate = arith::CmpFPredicate::OGT;
      intPredicate = arith::CmpIPredicate::sgt;
      break;
    case ComparePredicate::ge:
      predicate = arith::CmpFPredicate::OGE;
      intPredicate = arith::CmpIPredicate::sge;
      break;
    }
    bool isInteger =
        isa<IntegerType>(tensorType(op.getLhs()).getElementType());
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(),
                        adaptor.getOperands(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          if (isInteger)
                            return Value(arith::CmpIOp::create(
                                b, loc, intPredicate, args[0], args[1]));
                          return Value(arith::CmpFOp::create(
                              b, loc, predicate, args[0], args[1]));
                        }));
    return success();
  }
};

/// A cast from or to an integer type: integers widen by sign extension and
/// narrow by truncation; an integer becomes the nearest float; a float
/// becomes an integer rounded toward zero and saturated (NaN to 0, values
/// beyond the range to its bounds, as LLVM's fptosi.sat), since a plain
/// fptosi is poison there and the result must be defined.
Value castWithIntegers(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (auto fromInt = dyn_cast<IntegerType>(from)) {
    if (auto toInt = dyn_cast<IntegerType>(to))
      return fromInt.getWidth() < toInt.getWidth()
                 ? Value(arith::ExtSIOp::create(b, loc, to, x))
                 : Value(arith::TruncIOp::create(b, loc, to, x));
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  auto toInt = cast<IntegerType>(to);
  auto floatType = cast<FloatType>(from);
  // Compare in a float type that holds the bounds -2^(w-1) and 2^(w-1)
  // exactly: f32 does for both widths, f16 and bf16 go through f32.
  if (floatType.getWidth() < 32) {
    x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    floatType = b.getF32Type();
  }
  unsigned width = toInt.getWidth();
  Value low = floatConstant(b, loc, floatType, -std::ldexp(1.0, width - 1));
  Value high = floatConstant(b, loc, floatType, std::ldexp(1.0, width - 1));
  auto intConstant = [&](const APInt &v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, v));
  };
  Value converted = arith::FPToSIOp::create(b, loc, to, x);
  Value tooLow = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, low);
  Value tooHigh =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, high);
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value result = arith::SelectOp::create(
      b, loc, tooLow, intConstant(APInt::getSignedMinValue(width)), converted);
  result = arith::SelectOp::create(
      b, loc, tooHigh, intConstant(APInt::getSignedMaxValue(width)), result);
  return arith::SelectOp::create(b, loc, isNaN, intConstant(APInt(width, 0)),
                                 result);
}

struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type fromType = tensorType(op.getOperand()).getElementType();
    Type toType = op.getType().getElementType();
    if (fromType == toType) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    if (isa<IntegerType>(fromType) || isa<IntegerType>(toType)) {
      rewriter.replaceOp(
          op, elementwise(rewriter, op.getLoc(), op.getType(),
                          adaptor.getOperand(),
                          [&](OpBuilder &b, Location loc, ValueRange args) {
                            return castWithIntegers(b, loc, args[0], toType);
                          }));
      return success();
    }
    auto from = cast<FloatType>(fromType);
    auto to = cast<FloatType>(toType);
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getType(),
                        adaptor.getOperand(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          // f16 <-> bf16 have the same width but neither
                          // contains the other: go through f32.
                          if (from.getWidth() == to.getWidth()) {
                            Value wide = arith::ExtFOp::create(
                                b, loc, b.getF32Type(), args[0]);
                            return Value(
                                arith::TruncFOp::create(b, loc, to, wide));
                          }
                          if (from.getWidth() < to.getWidth())
                            return Value(
                                arith::ExtFOp::create(b, loc, to, args[0]));
                          return Value(
                              arith::TruncFOp::create(b, loc, to, args[0]));
                        }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, op.getType(), cast<TypedAttr>(op.getValue()));
    return success();
  }
};

// Nothing initializes it: bufferization allocates the buffer where the
// tensor.empty is, so that goes just before its one user (a tape's loop;
// AD and remat keep tad.empty at the top of the function, as constants),
// where the buffer of a constant's copy would be allocated.
struct EmptyLowering : OpConversionPattern<EmptyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EmptyOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    OpBuilder::InsertionGuard guard(rewriter);
    if (op->hasOneUse())
      rewriter.setInsertionPoint(*op->user_begin());
    Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(),
                                          type.getShape(),
                                          type.getElementType());
    rewriter.replaceOp(op, empty);
    return success();
  }
};

struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, broadcastTo(rewriter, op.getLoc(),
                                       adaptor.getOperand(), op.getType(),
                                       op.getDimensions()));
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Result dimension i reads operand dimension permutation[i].
    int64_t rank = op.getType().getRank();
    SmallVector<AffineExpr> inputExprs(rank);
    for (auto [i, p] : llvm::enumerate(op.getPermutation()))
      inputExprs[p] = rewriter.getAffineDimExpr(i);
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, inputExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getType(), adaptor.getOperand(),
        emptyLike(rewriter, op.getLoc(), op.getType()), maps, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshape(rewriter, op.getLoc(), adaptor.getOperand(),
                                   op.getType()));
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (auto [start, size, step] :
         llvm::zip(op.getStart(), op.getType().getShape(), op.getStep())) {
      offsets.push_back(rewriter.getIndexAttr(start));
      sizes.push_back(rewriter.getIndexAttr(size));
      strides.push_back(rewriter.getIndexAttr(step));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(), offsets, sizes, strides);
    return success();
  }
};

struct InsertSliceLowering : OpConversionPattern<InsertSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InsertSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (auto [start, size, step] :
         llvm::zip(op.getStart(), tensorType(op.getSource()).getShape(),
                   op.getStep())) {
      offsets.push_back(rewriter.getIndexAttr(start));
      sizes.push_back(rewriter.getIndexAttr(size));
      strides.push_back(rewriter.getIndexAttr(step));
    }
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getSource(), adaptor.getDest(), offsets, sizes, strides);
    return success();
  }
};

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Value result = emptyLike(rewriter, loc, type);
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      RankedTensorType inputType = tensorType(input);
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes, strides(type.getRank(),
                                               rewriter.getIndexAttr(1));
      for (int64_t size : inputType.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      offset += inputType.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The offsets, sizes and strides of row `index` of a stacked tensor.
void rowSlice(OpBuilder &b, Location loc, RankedTensorType stacked,
              Value index, SmallVectorImpl<OpFoldResult> &offsets,
              SmallVectorImpl<OpFoldResult> &sizes,
              SmallVectorImpl<OpFoldResult> &strides) {
  offsets.assign(stacked.getRank(), b.getIndexAttr(0));
  offsets[0] = clampIndex(b, loc, index, stacked.getDimSize(0));
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t size : stacked.getShape().drop_front())
    sizes.push_back(b.getIndexAttr(size));
  strides.assign(stacked.getRank(), b.getIndexAttr(1));
}

struct TakeLowering : OpConversionPattern<TakeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TakeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    rowSlice(rewriter, op.getLoc(), tensorType(op.getOperand()),
             adaptor.getIndex(), offsets, sizes, strides);
    // Rank-reducing: the leading unit dimension is dropped.
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(), offsets, sizes, strides);
    return success();
  }
};

struct UpdateLowering : OpConversionPattern<UpdateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UpdateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    rowSlice(rewriter, op.getLoc(), tensorType(op.getOperand()),
             adaptor.getIndex(), offsets, sizes, strides);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getValue(), adaptor.getOperand(), offsets, sizes, strides);
    return success();
  }
};

/// The offsets, sizes and strides of the block `block` of `operand` at
/// `offsets`, each offset clamped into [0, size - block size].
static void blockSlice(OpBuilder &b, Location loc, RankedTensorType operand,
                       RankedTensorType block, ValueRange offsets,
                       SmallVectorImpl<OpFoldResult> &offsetsOut,
                       SmallVectorImpl<OpFoldResult> &sizes,
                       SmallVectorImpl<OpFoldResult> &strides) {
  for (auto [d, offset] : llvm::enumerate(offsets)) {
    int64_t size = block.getDimSize(d);
    offsetsOut.push_back(
        clampIndex(b, loc, offset, operand.getDimSize(d) - size + 1));
    sizes.push_back(b.getIndexAttr(size));
  }
  strides.assign(operand.getRank(), b.getIndexAttr(1));
}

struct DynamicSliceLowering : OpConversionPattern<DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    blockSlice(rewriter, op.getLoc(), tensorType(op.getOperand()), op.getType(),
               adaptor.getOffsets(), offsets, sizes, strides);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(), offsets, sizes, strides);
    return success();
  }
};

/// An integer index (i32 or i64) as an `index` clamped into [0, size).
Value clampedIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  Value wide = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  return clampIndex(b, loc, wide, size);
}

/// One all-parallel generic over the result that loads each index and
/// reads the operand there (tensor.extract), so that it fuses with its
/// readers as an elementwise op does.
struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    RankedTensorType operandType = tensorType(op.getOperand());
    int64_t axis = op.getAxis();
    int64_t indexRank = tensorType(op.getIndices()).getRank();
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(rewriter.getAffineDimExpr(axis + d));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value operand = adaptor.getOperand();
    int64_t size = operandType.getDimSize(axis);
    Value result =
        linalg::GenericOp::create(
            rewriter, op.getLoc(), type, adaptor.getIndices(),
            emptyLike(rewriter, op.getLoc(), type), maps, iterators,
            [&](OpBuilder &b, Location loc, ValueRange args) {
              SmallVector<Value> coordinates;
              for (int64_t d = 0; d < axis; ++d)
                coordinates.push_back(linalg::IndexOp::create(b, loc, d));
              coordinates.push_back(clampedIndex(b, loc, args[0], size));
              for (int64_t d = axis + indexRank; d < rank; ++d)
                coordinates.push_back(linalg::IndexOp::create(b, loc, d));
              Value element =
                  tensor::ExtractOp::create(b, loc, operand, coordinates);
              linalg::YieldOp::create(b, loc, element);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A loop over the indices in row-major order: slice j of the updates is
/// added into the operand's slice at index j, in place (the loop carries
/// the operand; each slice is read, summed into and written back where it
/// lies). The operand is viewed as [P, V, S] (the dimensions before the
/// axis, the axis, those after) and the updates as [P, N, S].
struct ScatterAddLowering : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    int64_t axis = op.getAxis();
    auto product = [](ArrayRef<int64_t> dims) {
      int64_t n = 1;
      for (int64_t d : dims)
        n *= d;
      return n;
    };
    int64_t before = product(type.getShape().take_front(axis));
    int64_t size = type.getDimSize(axis);
    int64_t after = product(type.getShape().drop_front(axis + 1));
    int64_t count = tensorType(op.getIndices()).getNumElements();
    auto operand3 = RankedTensorType::get({before, size, after}, element);
    auto updates3 = RankedTensorType::get({before, count, after}, element);
    auto flatIndices = RankedTensorType::get(
        {count}, tensorType(op.getIndices()).getElementType());
    // Into zeros (the derivative of a gather): a fill, not a copy of a
    // constant as large as the table.
    Value acc;
    SplatElementsAttr splat;
    if (matchPattern(adaptor.getOperand(), m_Constant(&splat)))
      acc = filled(rewriter, loc, operand3,
                   arith::ConstantOp::create(rewriter, loc,
                                             splat.getSplatValue<TypedAttr>()));
    else
      acc = reshape(rewriter, loc, adaptor.getOperand(), operand3);
    Value updates = reshape(rewriter, loc, adaptor.getUpdates(), updates3);
    Value indices = reshape(rewriter, loc, adaptor.getIndices(), flatIndices);
    auto sliceType = RankedTensorType::get({before, after}, element);
    auto slice = [&](OpBuilder &b, Value source, Value position,
                     SmallVectorImpl<OpFoldResult> &offsets,
                     SmallVectorImpl<OpFoldResult> &sizes,
                     SmallVectorImpl<OpFoldResult> &strides) {
      offsets.assign({b.getIndexAttr(0), position, b.getIndexAttr(0)});
      sizes.assign({b.getIndexAttr(before), b.getIndexAttr(1),
                    b.getIndexAttr(after)});
      strides.assign(3, b.getIndexAttr(1));
      return tensor::ExtractSliceOp::create(b, loc, sliceType, source, offsets,
                                            sizes, strides);
    };
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value end = arith::ConstantIndexOp::create(rewriter, loc, count);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, end, one, ValueRange{acc},
        [&](OpBuilder &b, Location l, Value j, ValueRange iterArgs) {
          Value id = clampedIndex(
              b, l, tensor::ExtractOp::create(b, l, indices, ValueRange{j}),
              size);
          SmallVector<OpFoldResult> offsets, sizes, strides;
          Value update = slice(b, updates, j, offsets, sizes, strides);
          Value target = slice(b, iterArgs[0], id, offsets, sizes, strides);
          SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(2));
          SmallVector<utils::IteratorType> iterators(
              2, utils::IteratorType::parallel);
          Value sum =
              linalg::GenericOp::create(
                  b, l, sliceType, update, target, maps, iterators,
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    Value s = isa<IntegerType>(element)
                                  ? Value(arith::AddIOp::create(nb, nl, args[1],
                                                                args[0]))
                                  : Value(arith::AddFOp::create(nb, nl, args[1],
                                                                args[0]));
                    linalg::YieldOp::create(nb, nl, s);
                  })
                  .getResult(0);
          Value written = tensor::InsertSliceOp::create(
              b, l, sum, iterArgs[0], offsets, sizes, strides);
          scf::YieldOp::create(b, l, written);
        });
    // The slice's elements are independent: the GPU runs the loop inside
    // one thread per element (tad-scatter-loops-inside).
    loop->setAttr(TadDialect::kScatterLoopAttrName, rewriter.getUnitAttr());
    // With unique indices, the iterations are independent too: all of the
    // loop's may run at once.
    if (op.getUniqueIndices())
      loop->setAttr(TadDialect::kScatterLoopUniqueAttrName,
                    rewriter.getUnitAttr());
    rewriter.replaceOp(op, reshape(rewriter, loc, loop.getResult(0), type));
    return success();
  }
};

struct IotaLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    int64_t axis = op.getAxis();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), type, ValueRange(),
                        [&](OpBuilder &b, Location loc, ValueRange) {
                          Value index = linalg::IndexOp::create(b, loc, axis);
                          return Value(arith::IndexCastOp::create(
                              b, loc, type.getElementType(), index));
                        }));
    return success();
  }
};

/// One reduction generic with two results, the running extreme and its
/// index: an element replaces them when it is strictly better (so the
/// first of equal elements wins) or a NaN meets a number.
struct ArgMaxLowering : OpConversionPattern<ArgMaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArgMaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType operandType = tensorType(op.getOperand());
    Type element = operandType.getElementType();
    Type indexElement = op.getType().getElementType();
    int64_t axis = op.getAxis();
    bool isMin = op.getMin();
    RankedTensorType reduced = getReducedType(operandType, {axis}, false);
    auto indexType = RankedTensorType::get(reduced.getShape(), indexElement);
    // The start: the first element is taken at once (a NaN start, which
    // every number "beats" for the comparisons below, does it).
    Value start;
    if (auto intType = dyn_cast<IntegerType>(element)) {
      unsigned w = intType.getWidth();
      start = arith::ConstantOp::create(
          rewriter, loc,
          rewriter.getIntegerAttr(element, isMin ? APInt::getSignedMaxValue(w)
                                                 : APInt::getSignedMinValue(w)));
    } else {
      auto floatType = cast<FloatType>(element);
      start = arith::ConstantOp::create(
          rewriter, loc, floatType,
          FloatAttr::get(floatType, APFloat::getInf(floatType.getFloatSemantics(),
                                                    /*Negative=*/!isMin)));
    }
    Value zeroIndex = arith::ConstantOp::create(
        rewriter, loc, rewriter.getIntegerAttr(indexElement, 0));
    SmallVector<AffineExpr> resultExprs;
    SmallVector<utils::IteratorType> iterators;
    int64_t rank = operandType.getRank();
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(d == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (d != axis)
        resultExprs.push_back(rewriter.getAffineDimExpr(d));
    }
    AffineMap resultMap =
        AffineMap::get(rank, 0, resultExprs, rewriter.getContext());
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   resultMap, resultMap};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{reduced, indexType}, adaptor.getOperand(),
        ValueRange{filled(rewriter, loc, reduced, start),
                   filled(rewriter, loc, indexType, zeroIndex)},
        maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIndex = args[2];
          Value better;
          if (isa<IntegerType>(element)) {
            better = arith::CmpIOp::create(
                b, l, isMin ? arith::CmpIPredicate::slt
                            : arith::CmpIPredicate::sgt,
                x, best);
          } else {
            // x beats best when it is strictly better, or a NaN where best
            // is a number.
            Value strictly = arith::CmpFOp::create(
                b, l, isMin ? arith::CmpFPredicate::OLT
                            : arith::CmpFPredicate::OGT,
                x, best);
            Value xNaN =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
            Value bestNumber = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::ORD, best, best);
            better = arith::OrIOp::create(
                b, l, strictly, arith::AndIOp::create(b, l, xNaN, bestNumber));
          }
          Value index = arith::IndexCastOp::create(
              b, l, indexElement, linalg::IndexOp::create(b, l, axis));
          // The first element always takes the place of the start value.
          Value first = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq,
              linalg::IndexOp::create(b, l, axis),
              arith::ConstantIndexOp::create(b, l, 0));
          better = arith::OrIOp::create(b, l, better, first);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, x, best),
                         arith::SelectOp::create(b, l, better, index,
                                                 bestIndex)});
        });
    rewriter.replaceOp(op, keepDims(rewriter, loc, generic.getResult(1),
                                    op.getType()));
    return success();
  }
};

struct DynamicUpdateSliceLowering : OpConversionPattern<DynamicUpdateSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicUpdateSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    blockSlice(rewriter, op.getLoc(), tensorType(op.getOperand()),
               tensorType(op.getValue()), adaptor.getOffsets(), offsets, sizes,
               strides);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getValue(), adaptor.getOperand(), offsets, sizes, strides);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

/// op(A) @ op(B) over [B..., M, N]: linalg.matmul for rank 2, batch_matmul
/// for rank 3, and batch_matmul over the collapsed batch for higher ranks;
/// transposed operands through the indexing maps (`getMatmulMaps`).
struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    Type elementType = type.getElementType();
    Value zero = floatConstant(rewriter, loc, elementType, 0);
    bool ta = op.getTransposeLhs(), tb = op.getTransposeRhs();
    if (type.getRank() == 2) {
      Value init = filled(rewriter, loc, type, zero);
      auto matmul = linalg::MatmulOp::create(
          rewriter, loc, type, ValueRange{lhs, rhs}, ValueRange{init});
      if (ta || tb)
        matmul.setIndexingMapsAttr(
            getMatmulMaps(rewriter.getContext(), 0, {ta, tb}));
      rewriter.replaceOp(op, matmul.getResult(0));
      return success();
    }
    // Collapse all batch dimensions into one.
    auto collapse = [&](Value v) {
      RankedTensorType t = tensorType(v);
      int64_t batch = 1;
      for (int64_t d : t.getShape().drop_back(2))
        batch *= d;
      auto flat = RankedTensorType::get(
          {batch, t.getDimSize(t.getRank() - 2), t.getShape().back()},
          t.getElementType());
      return reshape(rewriter, loc, v, flat);
    };
    Value lhs3 = collapse(lhs), rhs3 = collapse(rhs);
    int64_t rank = type.getRank();
    auto resultType3 = RankedTensorType::get({tensorType(lhs3).getDimSize(0),
                                              type.getDimSize(rank - 2),
                                              type.getDimSize(rank - 1)},
                                             elementType);
    Value init = filled(rewriter, loc, resultType3, zero);
    auto matmul = linalg::BatchMatmulOp::create(
        rewriter, loc, resultType3, ValueRange{lhs3, rhs3}, ValueRange{init});
    if (ta || tb)
      matmul.setIndexingMapsAttr(
          getMatmulMaps(rewriter.getContext(), 1, {ta, tb}));
    rewriter.replaceOp(op, reshape(rewriter, loc, matmul.getResult(0), type));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions, softmax, logsumexp
//===----------------------------------------------------------------------===//

Value maxCombiner(OpBuilder &b, Location loc, ValueRange args) {
  return arith::MaximumFOp::create(b, loc, args[0], args[1]);
}

template <typename OpT>
struct ReductionLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getOperand();
    Type elementType = tensorType(input).getElementType();
    ArrayRef<int64_t> axes = op.getAxes();
    Value result;
    if (auto intType = dyn_cast<IntegerType>(elementType)) {
      // Integers reduce in their own type (wrapping, as in JAX): a sum
      // from 0, a maximum from the type's least value.
      bool isMax = std::is_same_v<OpT, ReduceMaxOp>;
      APInt init = isMax ? APInt::getSignedMinValue(intType.getWidth())
                         : APInt(intType.getWidth(), 0);
      Value initValue = arith::ConstantOp::create(
          rewriter, loc, rewriter.getIntegerAttr(intType, init));
      result = reduce(rewriter, loc, input, axes, initValue,
                      [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                        if (isMax)
                          return arith::MaxSIOp::create(b, l, args[0], args[1]);
                        return arith::AddIOp::create(b, l, args[0], args[1]);
                      });
    } else if constexpr (std::is_same_v<OpT, ReduceMaxOp>) {
      result = reduce(rewriter, loc, input, axes,
                      negativeInfinity(rewriter, loc, elementType),
                      maxCombiner);
    } else {
      result = wideSum(rewriter, loc, input, axes);
      if constexpr (std::is_same_v<OpT, ReduceMeanOp>) {
        Type wide = tensorType(result).getElementType();
        double count = double(op.getReductionSize());
        result = elementwise(
            rewriter, loc, tensorType(result), result,
            [&](OpBuilder &b, Location l, ValueRange args) {
              return arith::DivFOp::create(b, l, args[0],
                                           floatConstant(b, l, wide, count));
            });
      }
      result = narrowTo(rewriter, loc, result, elementType);
    }
    rewriter.replaceOp(op, keepDims(rewriter, loc, result, op.getType()));
    return success();
  }
};

/// The max of `x` along `axis`, with -inf (all elements -inf) replaced by 0
/// so that `x - max` never computes -inf - -inf = NaN.
Value stableMax(OpBuilder &b, Location loc, Value x, int64_t axis) {
  Type elementType = tensorType(x).getElementType();
  Value max = reduce(b, loc, x, {axis}, negativeInfinity(b, loc, elementType),
                     maxCombiner);
  return elementwise(b, loc, tensorType(max), max,
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       Value inf = negativeInfinity(nb, l, elementType);
                       Value isInf = arith::CmpFOp::create(
                           nb, l, arith::CmpFPredicate::OEQ, args[0], inf);
                       return arith::SelectOp::create(
                           nb, l, isInf, floatConstant(nb, l, elementType, 0),
                           args[0]);
                     });
}

/// exp(x - max) and its sum along `axis`.
std::pair<Value, Value> shiftedExp(OpBuilder &b, Location loc, Value x,
                                   Value max, int64_t axis) {
  RankedTensorType type = tensorType(x);
  Value maxFull = broadcastReduced(b, loc, max, type, {axis});
  Value e = elementwise(b, loc, type, {x, maxFull},
                        [](OpBuilder &nb, Location l, ValueRange args) {
                          return math::ExpOp::create(
                              nb, l, arith::SubFOp::create(nb, l, args[0],
                                                           args[1]));
                        });
  Value sum = narrowTo(b, loc, wideSum(b, loc, e, {axis}),
                      type.getElementType());
  return {e, sum};
}

struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Value x = adaptor.getOperand();
    Value max = stableMax(rewriter, loc, x, axis);
    auto [e, sum] = shiftedExp(rewriter, loc, x, max, axis);
    Value sumFull = broadcastReduced(rewriter, loc, sum, op.getType(), {axis});
    rewriter.replaceOp(
        op, elementwise(rewriter, loc, op.getType(), {e, sumFull},
                        [](OpBuilder &b, Location l, ValueRange args) {
                          return arith::DivFOp::create(b, l, args[0], args[1]);
                        }));
    return success();
  }
};

struct LogSumExpLowering : OpConversionPattern<LogSumExpOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LogSumExpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Value x = adaptor.getOperand();
    Value max = stableMax(rewriter, loc, x, axis);
    Value sum = shiftedExp(rewriter, loc, x, max, axis).second;
    Value result = elementwise(
        rewriter, loc, tensorType(sum), {sum, max},
        [](OpBuilder &b, Location l, ValueRange args) {
          return arith::AddFOp::create(
              b, l, math::LogOp::create(b, l, args[0]), args[1]);
        });
    rewriter.replaceOp(op, keepDims(rewriter, loc, result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Differentiation control
//===----------------------------------------------------------------------===//

struct StopGradientLowering : OpConversionPattern<StopGradientOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StopGradientOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

/// Inlines the region: after AD and remat, a checkpoint computes its body
/// once, where it stands.
struct CheckpointLowering : OpConversionPattern<CheckpointOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CheckpointOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> results(yield.getValues());
    rewriter.inlineBlockBefore(&body, op, adaptor.getInputs());
    rewriter.replaceOp(op, results);
    rewriter.eraseOp(yield);
    return success();
  }
};

/// Argument or result attribute dictionaries `attrs` without `name`, to set
/// at once: one removeArgAttr per argument rebuilds the array of them all
/// each time, quadratic in a wide record's leaves (200 MB at 5,000).
static SmallVector<DictionaryAttr> without(ArrayAttr attrs, StringRef name) {
  SmallVector<DictionaryAttr> kept;
  for (Attribute attr : attrs) {
    NamedAttrList list(cast<DictionaryAttr>(attr));
    list.erase(name);
    kept.push_back(list.getDictionary(attrs.getContext()));
  }
  return kept;
}

struct ConvertTadToLinalgPass
    : tad::impl::ConvertTadToLinalgBase<ConvertTadToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(tad::convertTadToLinalg(getOperation(), patterns, collectives)))
      signalPassFailure();
  }

  // Frozen once per pass manager: its patterns are many.
  LogicalResult initialize(MLIRContext *context) override {
    patterns = tad::freezeTadToLinalgPatterns(context);
    return success();
  }

  FrozenRewritePatternSet patterns;
};

} // namespace

FrozenRewritePatternSet tad::freezeTadToLinalgPatterns(MLIRContext *context) {
  RewritePatternSet set(context);
  populateTadToLinalgPatterns(set);
  populateCollectivesToMpiPatterns(set);
  return FrozenRewritePatternSet(std::move(set));
}

LogicalResult tad::convertTadToLinalg(ModuleOp module,
                                      const FrozenRewritePatternSet &patterns,
                                      bool collectives) {
  MLIRContext *context = module.getContext();
  // The function attributes of tad only mean something before AD. A
  // derivative that is still a declaration was never generated.
  bool undefined = false;
  module.walk([&](func::FuncOp fn) {
    if (fn->hasAttr(TadDialect::kDerivativeAttrName) && fn.isDeclaration()) {
      fn.emitError() << "derivative @" << fn.getName()
                     << " has no body: the tad-autodiff pass must generate "
                        "it before lowering";
      undefined = true;
    }
    fn->removeAttr(TadDialect::kDerivativeAttrName);
    fn->removeAttr(TadDialect::kCustomRuleAttrName);
    fn->removeAttr(TadDialect::kCheckpointedAttrName);
    // The names are for the driver, which reads the signature first;
    // LLVM has no use for them.
    if (ArrayAttr args = fn.getArgAttrsAttr())
      fn.setAllArgAttrs(without(args, TadDialect::kArgNameAttrName));
    if (ArrayAttr results = fn.getResAttrsAttr())
      fn.setAllResultAttrs(without(results, TadDialect::kResultNameAttrName));
  });
  if (undefined)
    return failure();

  bool hasCollectives = false;
  module.walk([&](AllReduceOp op) {
    hasCollectives = true;
    if (!collectives) {
      op.emitError() << "all_reduce is supported on the CPU target only "
                        "(through MPI); this target has no collectives yet";
      undefined = true;
    }
  });
  if (undefined)
    return failure();
  // MPIToLLVM names the MPI library's handles by this entry.
  if (hasCollectives)
    module->setAttr(
        DLTIDialect::kMapAttrName,
        MapAttr::get(context,
                     {DataLayoutEntryAttr::get(
                         StringAttr::get(context, "MPI:Implementation"),
                         StringAttr::get(context, TAD_MPI_IMPLEMENTATION))}));

  ConversionTarget target(*context);
  target.addIllegalDialect<TadDialect>();
  target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                         math::MathDialect, tensor::TensorDialect,
                         scf::SCFDialect, func::FuncDialect>();
  target.addLegalDialect<bufferization::BufferizationDialect,
                         memref::MemRefDialect, mpi::MPIDialect>();
  return applyPartialConversion(module, target, patterns);
}

void tad::populateTadToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  populateRandomLoweringPatterns(patterns);
  patterns
      .add<ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
           ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
           ElementwiseLowering<PowOp>, ElementwiseLowering<MaxOp>,
           ElementwiseLowering<MinOp>, ElementwiseLowering<NegOp>,
           ElementwiseLowering<AbsOp>, ElementwiseLowering<ExpOp>,
           ElementwiseLowering<LogOp>, ElementwiseLowering<TanhOp>,
           ElementwiseLowering<SqrtOp>, ElementwiseLowering<RsqrtOp>,
           ElementwiseLowering<ReluOp>, ElementwiseLowering<SigmoidOp>,
           ElementwiseLowering<Log1pOp>, ElementwiseLowering<Expm1Op>,
           ElementwiseLowering<SoftplusOp>, ElementwiseLowering<LogSigmoidOp>,
           ElementwiseLowering<SelectOp>>(context);
  patterns.add<CompareLowering, CastLowering, ConstantLowering, EmptyLowering,
               BroadcastLowering, TransposeLowering, ReshapeLowering,
               SliceLowering, InsertSliceLowering, ConcatLowering, TakeLowering,
               DynamicSliceLowering, DynamicUpdateSliceLowering, UpdateLowering,
               GatherLowering, ScatterAddLowering, IotaLowering,
               ArgMaxLowering,
               MatmulLowering, ReductionLowering<ReduceSumOp>,
               ReductionLowering<ReduceMeanOp>, ReductionLowering<ReduceMaxOp>,
               SoftmaxLowering, LogSumExpLowering, StopGradientLowering,
               CheckpointLowering>(context);
}
