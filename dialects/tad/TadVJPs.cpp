//===- TadVJPs.cpp - vector-Jacobian products of the tad ops --------------===//
//
// The reverse-mode rule of every differentiable tad op, grouped by family.
// Each rule reads the op's operands and results as forward values and emits
// tad ops only, so that the backward sweep is readable tad IR that the
// remat pass can schedule like the forward sweep. Conventions follow
// PyTorch where a derivative is not unique: ties of max/min split the
// cotangent evenly, |x| has derivative 0 at 0, relu has derivative 0 at 0.
//
//===----------------------------------------------------------------------===//

#include "dialects/tad/TadOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tad;

#include "dialects/tad/TadInterfaces.cpp.inc"

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

Value splat(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  auto floatType = cast<FloatType>(type.getElementType());
  APFloat v(value);
  bool losesInfo;
  v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
            &losesInfo);
  return ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, FloatAttr::get(floatType, v)));
}

Value zerosLike(OpBuilder &b, Location loc, Value v) {
  return splat(b, loc, typeOf(v), 0.0);
}

Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return MulOp::create(b, loc, x, y);
}
Value sub(OpBuilder &b, Location loc, Value x, Value y) {
  return SubOp::create(b, loc, x, y);
}
Value div(OpBuilder &b, Location loc, Value x, Value y) {
  return DivOp::create(b, loc, x, y);
}
Value scaled(OpBuilder &b, Location loc, Value x, double factor) {
  return mul(b, loc, x, splat(b, loc, typeOf(x), factor));
}
Value select(OpBuilder &b, Location loc, Value c, Value x, Value y) {
  return SelectOp::create(b, loc, c, x, y);
}
Value compare(OpBuilder &b, Location loc, ComparePredicate p, Value x,
              Value y) {
  return CompareOp::create(b, loc, p, x, y);
}

/// Sums a cotangent of a broadcast's result down to the broadcast's operand:
/// over the result dimensions that the operand lacks and over those it
/// stretched from size 1.
Value unbroadcast(OpBuilder &b, Location loc, Value cotangent,
                  RankedTensorType operandType, ArrayRef<int64_t> dims) {
  RankedTensorType resultType = typeOf(cotangent);
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    auto it = llvm::find(dims, d);
    if (it == dims.end() ||
        (operandType.getDimSize(it - dims.begin()) == 1 &&
         resultType.getDimSize(d) != 1))
      axes.push_back(d);
  }
  Value summed = cotangent;
  if (!axes.empty())
    summed = ReduceSumOp::create(b, loc, cotangent, axes, /*keepdims=*/false);
  if (typeOf(summed) == operandType)
    return summed;
  return ReshapeOp::create(b, loc, operandType, summed);
}

/// Broadcasts the cotangent of a reduction over `axes` back to `type`.
Value rebroadcast(OpBuilder &b, Location loc, Value cotangent,
                  RankedTensorType type, ArrayRef<int64_t> axes,
                  bool keepdims) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (keepdims || !llvm::is_contained(axes, d))
      dims.push_back(d);
  if (typeOf(cotangent) == type)
    return cotangent;
  return BroadcastOp::create(b, loc, type, cotangent, dims);
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

void AddOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  dxs.assign({dys[0], dys[0]});
}
void AddOp::getResiduals(SmallVectorImpl<Value> &) {}

void SubOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  dxs.assign({dys[0], NegOp::create(b, getLoc(), dys[0])});
}
void SubOp::getResiduals(SmallVectorImpl<Value> &) {}

void MulOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  dxs.assign({mul(b, loc, dys[0], getRhs()), mul(b, loc, dys[0], getLhs())});
}
void MulOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.append({getLhs(), getRhs()});
}

// d(x/y) = dy/y, -dy * (x/y) / y.
void DivOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value dx = div(b, loc, dys[0], getRhs());
  dxs.assign({dx, NegOp::create(b, loc, mul(b, loc, dx, getResult()))});
}
void DivOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.append({getRhs(), getResult()});
}

// d(x^p) = dy * p * x^(p-1), dy * x^p * log(x).
void PowOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value x = getLhs(), p = getRhs(), y = getResult();
  Value pm1 = sub(b, loc, p, splat(b, loc, typeOf(p), 1.0));
  Value dx = mul(b, loc, dys[0], mul(b, loc, p, PowOp::create(b, loc, x, pm1)));
  Value dp = mul(b, loc, dys[0], mul(b, loc, y, LogOp::create(b, loc, x)));
  dxs.assign({dx, dp});
}
void PowOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.append({getLhs(), getRhs(), getResult()});
}

/// max and min: the cotangent goes to the operand that was chosen; on a tie
/// each operand gets half.
template <typename OpT>
static void extremumVJP(OpT op, OpBuilder &b, ValueRange dys,
                        SmallVectorImpl<Value> &dxs, ComparePredicate wins) {
  Location loc = op.getLoc();
  Value x = op.getLhs(), y = op.getRhs(), dy = dys[0];
  Value zero = zerosLike(b, loc, dy), half = scaled(b, loc, dy, 0.5);
  Value xWins = compare(b, loc, wins, x, y);
  Value tie = compare(b, loc, ComparePredicate::eq, x, y);
  Value dx = select(b, loc, tie, half, select(b, loc, xWins, dy, zero));
  Value dyOther = select(b, loc, tie, half, select(b, loc, xWins, zero, dy));
  dxs.assign({dx, dyOther});
}
void MaxOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  extremumVJP(*this, b, dys, dxs, ComparePredicate::gt);
}
void MaxOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.append({getLhs(), getRhs()});
}
void MinOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  extremumVJP(*this, b, dys, dxs, ComparePredicate::lt);
}
void MinOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.append({getLhs(), getRhs()});
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

void NegOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  dxs.assign({NegOp::create(b, getLoc(), dys[0])});
}
void NegOp::getResiduals(SmallVectorImpl<Value> &) {}

void AbsOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value x = getOperand(), dy = dys[0], zero = zerosLike(b, loc, x);
  Value positive = compare(b, loc, ComparePredicate::gt, x, zero);
  Value negative = compare(b, loc, ComparePredicate::lt, x, zero);
  dxs.assign({select(b, loc, positive, dy,
                select(b, loc, negative, NegOp::create(b, loc, dy),
                       zerosLike(b, loc, dy)))});
}
void AbsOp::getResiduals(SmallVectorImpl<Value> &r) { r.push_back(getOperand()); }

void ExpOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  dxs.assign({mul(b, getLoc(), dys[0], getResult())});
}
void ExpOp::getResiduals(SmallVectorImpl<Value> &r) { r.push_back(getResult()); }

void LogOp::buildVJP(OpBuilder &b, ValueRange dys,
                     SmallVectorImpl<Value> &dxs) {
  dxs.assign({div(b, getLoc(), dys[0], getOperand())});
}
void LogOp::getResiduals(SmallVectorImpl<Value> &r) { r.push_back(getOperand()); }

// d tanh = dy * (1 - y^2).
void TanhOp::buildVJP(OpBuilder &b, ValueRange dys,
                      SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value y = getResult();
  Value oneMinus = sub(b, loc, splat(b, loc, typeOf(y), 1.0), mul(b, loc, y, y));
  dxs.assign({mul(b, loc, dys[0], oneMinus)});
}
void TanhOp::getResiduals(SmallVectorImpl<Value> &r) { r.push_back(getResult()); }

// d sigmoid = dy * y * (1 - y).
void SigmoidOp::buildVJP(OpBuilder &b, ValueRange dys,
                         SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value y = getResult();
  Value oneMinus = sub(b, loc, splat(b, loc, typeOf(y), 1.0), y);
  dxs.assign({mul(b, loc, dys[0], mul(b, loc, y, oneMinus))});
}
void SigmoidOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getResult());
}

// d log1p = dy / (1 + x).
void Log1pOp::buildVJP(OpBuilder &b, ValueRange dys,
                       SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value x = getOperand();
  Value onePlus = AddOp::create(b, loc, splat(b, loc, typeOf(x), 1.0), x);
  dxs.assign({div(b, loc, dys[0], onePlus)});
}
void Log1pOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getOperand());
}

// d expm1 = dy * exp(x) = dy * (y + 1).
void Expm1Op::buildVJP(OpBuilder &b, ValueRange dys,
                       SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value y = getResult();
  Value exp = AddOp::create(b, loc, y, splat(b, loc, typeOf(y), 1.0));
  dxs.assign({mul(b, loc, dys[0], exp)});
}
void Expm1Op::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getResult());
}

// d softplus = dy * sigmoid(x).
void SoftplusOp::buildVJP(OpBuilder &b, ValueRange dys,
                          SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  dxs.assign({mul(b, loc, dys[0], SigmoidOp::create(b, loc, getOperand()))});
}
void SoftplusOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getOperand());
}

// d logsigmoid = dy * sigmoid(-x): 1 - sigmoid(x) would round to 0 where
// sigmoid(-x) is still a small normal number.
void LogSigmoidOp::buildVJP(OpBuilder &b, ValueRange dys,
                            SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value s = SigmoidOp::create(b, loc, NegOp::create(b, loc, getOperand()));
  dxs.assign({mul(b, loc, dys[0], s)});
}
void LogSigmoidOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getOperand());
}

void ReluOp::buildVJP(OpBuilder &b, ValueRange dys,
                      SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value x = getOperand();
  Value positive =
      compare(b, loc, ComparePredicate::gt, x, zerosLike(b, loc, x));
  dxs.assign({select(b, loc, positive, dys[0], zerosLike(b, loc, dys[0]))});
}
void ReluOp::getResiduals(SmallVectorImpl<Value> &r) { r.push_back(getOperand()); }

// d sqrt = dy * 0.5 / y.
void SqrtOp::buildVJP(OpBuilder &b, ValueRange dys,
                      SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  dxs.assign({div(b, loc, scaled(b, loc, dys[0], 0.5), getResult())});
}
void SqrtOp::getResiduals(SmallVectorImpl<Value> &r) { r.push_back(getResult()); }

// d rsqrt = dy * (-0.5) * y^3.
void RsqrtOp::buildVJP(OpBuilder &b, ValueRange dys,
                       SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value y = getResult();
  Value y3 = mul(b, loc, y, mul(b, loc, y, y));
  dxs.assign({mul(b, loc, scaled(b, loc, dys[0], -0.5), y3)});
}
void RsqrtOp::getResiduals(SmallVectorImpl<Value> &r) { r.push_back(getResult()); }

void SelectOp::buildVJP(OpBuilder &b, ValueRange dys,
                        SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value zero = zerosLike(b, loc, dys[0]);
  dxs.assign({Value(), select(b, loc, getCondition(), dys[0], zero),
         select(b, loc, getCondition(), zero, dys[0])});
}
void SelectOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getCondition());
}

void CastOp::buildVJP(OpBuilder &b, ValueRange dys,
                      SmallVectorImpl<Value> &dxs) {
  dxs.assign({CastOp::create(b, getLoc(), typeOf(getOperand()), dys[0])});
}
void CastOp::getResiduals(SmallVectorImpl<Value> &) {}

void StopGradientOp::buildVJP(OpBuilder &, ValueRange,
                              SmallVectorImpl<Value> &dxs) {
  dxs.assign({Value()});
}
void StopGradientOp::getResiduals(SmallVectorImpl<Value> &) {}

// The derivative of the sum over processes: x_p reaches every process's
// result, so its cotangent is the same collective of the results'
// cotangents (a mean's is their mean). A zero cotangent is zero on every
// process, since all run the same program: none of them communicates.
void AllReduceOp::buildVJP(OpBuilder &b, ValueRange dys,
                           SmallVectorImpl<Value> &dxs) {
  if (!dys[0]) {
    dxs.assign({Value()});
    return;
  }
  dxs.assign({AllReduceOp::create(b, getLoc(), getKind(), dys[0])});
}
void AllReduceOp::getResiduals(SmallVectorImpl<Value> &) {}

//===----------------------------------------------------------------------===//
// Contraction and shape ops
//===----------------------------------------------------------------------===//

// Y = op(A) op(B), op the identity or a swap of the last two dimensions
// (per batch). d op(A) = dY op(B)^T and d op(B) = op(A)^T dY; each is
// written as one matmul with flags, so no transpose is ever materialized:
//   dA = dY op(B)^T            (A plain)   dA = op(B) dY^T   (A transposed)
//   dB = op(A)^T dY            (B plain)   dB = dY^T op(A)   (B transposed)
void MatmulOp::buildVJP(OpBuilder &b, ValueRange dys,
                        SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value dy = dys[0], lhs = getLhs(), rhs = getRhs();
  bool ta = getTransposeLhs(), tb = getTransposeRhs();
  // dB first: in `x @ w` it is the last read of the activation x, which
  // can then be freed before dA's result is allocated.
  Value db = tb ? MatmulOp::create(b, loc, dy, lhs, true, ta)
                : MatmulOp::create(b, loc, lhs, dy, !ta, false);
  Value da = ta ? MatmulOp::create(b, loc, rhs, dy, tb, true)
                : MatmulOp::create(b, loc, dy, rhs, false, !tb);
  dxs.assign({da, db});
}
void MatmulOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.append({getLhs(), getRhs()});
}

void TransposeOp::buildVJP(OpBuilder &b, ValueRange dys,
                           SmallVectorImpl<Value> &dxs) {
  SmallVector<int64_t> inverse(getPermutation().size());
  for (auto [i, p] : llvm::enumerate(getPermutation()))
    inverse[p] = i;
  dxs.assign({TransposeOp::create(b, getLoc(), dys[0], inverse)});
}
void TransposeOp::getResiduals(SmallVectorImpl<Value> &) {}

void ReshapeOp::buildVJP(OpBuilder &b, ValueRange dys,
                         SmallVectorImpl<Value> &dxs) {
  dxs.assign({ReshapeOp::create(b, getLoc(), typeOf(getOperand()), dys[0])});
}
void ReshapeOp::getResiduals(SmallVectorImpl<Value> &) {}

void BroadcastOp::buildVJP(OpBuilder &b, ValueRange dys,
                           SmallVectorImpl<Value> &dxs) {
  dxs.assign({unbroadcast(b, getLoc(), dys[0], typeOf(getOperand()),
                     getDimensions())});
}
void BroadcastOp::getResiduals(SmallVectorImpl<Value> &) {}

void SliceOp::buildVJP(OpBuilder &b, ValueRange dys,
                       SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  dxs.assign({InsertSliceOp::create(b, loc, dys[0],
                               zerosLike(b, loc, getOperand()), getStart(),
                               getStep())});
}
void SliceOp::getResiduals(SmallVectorImpl<Value> &) {}

void InsertSliceOp::buildVJP(OpBuilder &b, ValueRange dys,
                             SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  RankedTensorType source = typeOf(getSource());
  SmallVector<int64_t> limit;
  for (auto [start, size, step] :
       llvm::zip(getStart(), source.getShape(), getStep()))
    limit.push_back(start + (size - 1) * step + 1);
  Value dSource =
      SliceOp::create(b, loc, source, dys[0], getStart(), limit, getStep());
  Value dDest = InsertSliceOp::create(b, loc, zerosLike(b, loc, getSource()),
                                      dys[0], getStart(), getStep());
  dxs.assign({dSource, dDest});
}
void InsertSliceOp::getResiduals(SmallVectorImpl<Value> &) {}

void ConcatOp::buildVJP(OpBuilder &b, ValueRange dys,
                        SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  int64_t axis = static_cast<int64_t>(getAxis()), offset = 0;
  RankedTensorType type = getType();
  dxs.clear();
  for (Value input : getInputs()) {
    RankedTensorType inputType = typeOf(input);
    SmallVector<int64_t> start(type.getRank(), 0), step(type.getRank(), 1);
    SmallVector<int64_t> limit(type.getShape());
    start[axis] = offset;
    limit[axis] = offset + inputType.getDimSize(axis);
    dxs.push_back(
        SliceOp::create(b, loc, inputType, dys[0], start, limit, step));
    offset = limit[axis];
  }
}
void ConcatOp::getResiduals(SmallVectorImpl<Value> &) {}

void TakeOp::buildVJP(OpBuilder &b, ValueRange dys,
                      SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  dxs.assign({UpdateOp::create(b, loc, typeOf(getOperand()), dys[0],
                          zerosLike(b, loc, getOperand()), getIndex()),
         Value()});
}
void TakeOp::getResiduals(SmallVectorImpl<Value> &r) { r.push_back(getIndex()); }

void UpdateOp::buildVJP(OpBuilder &b, ValueRange dys,
                        SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value dValue =
      TakeOp::create(b, loc, typeOf(getValue()), dys[0], getIndex());
  Value dOperand = UpdateOp::create(b, loc, typeOf(dys[0]),
                                    zerosLike(b, loc, getValue()), dys[0],
                                    getIndex());
  dxs.assign({dValue, dOperand, Value()});
}
void UpdateOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getIndex());
}

// Only the operand has a derivative; the indices are integers.
void GatherOp::buildVJP(OpBuilder &b, ValueRange dys,
                        SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  dxs.assign({ScatterAddOp::create(b, loc, typeOf(getOperand()), dys[0],
                                   zerosLike(b, loc, getOperand()),
                                   getIndices(), getAxis(), getUniqueIndices()),
              Value()});
}
void GatherOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getIndices());
}

void ScatterAddOp::buildVJP(OpBuilder &b, ValueRange dys,
                            SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value dUpdates =
      GatherOp::create(b, loc, typeOf(getUpdates()), dys[0], getIndices(),
                       getAxis(), getUniqueIndices());
  dxs.assign({dUpdates, dys[0], Value()});
}
void ScatterAddOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getIndices());
}

void DynamicSliceOp::buildVJP(OpBuilder &b, ValueRange dys,
                              SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  dxs.assign({DynamicUpdateSliceOp::create(b, loc, typeOf(getOperand()), dys[0],
                                           zerosLike(b, loc, getOperand()),
                                           getOffsets())});
  dxs.append(getOffsets().size(), Value());
}
void DynamicSliceOp::getResiduals(SmallVectorImpl<Value> &r) {
  llvm::append_range(r, getOffsets());
}

void DynamicUpdateSliceOp::buildVJP(OpBuilder &b, ValueRange dys,
                                    SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value dValue =
      DynamicSliceOp::create(b, loc, typeOf(getValue()), dys[0], getOffsets());
  Value dOperand = DynamicUpdateSliceOp::create(b, loc, typeOf(dys[0]),
                                                zerosLike(b, loc, getValue()),
                                                dys[0], getOffsets());
  dxs.assign({dValue, dOperand});
  dxs.append(getOffsets().size(), Value());
}
void DynamicUpdateSliceOp::getResiduals(SmallVectorImpl<Value> &r) {
  llvm::append_range(r, getOffsets());
}

//===----------------------------------------------------------------------===//
// Reductions, softmax, logsumexp
//===----------------------------------------------------------------------===//

void ReduceSumOp::buildVJP(OpBuilder &b, ValueRange dys,
                           SmallVectorImpl<Value> &dxs) {
  dxs.assign({rebroadcast(b, getLoc(), dys[0], typeOf(getOperand()), getAxes(),
                     getKeepdims())});
}
void ReduceSumOp::getResiduals(SmallVectorImpl<Value> &) {}

void ReduceMeanOp::buildVJP(OpBuilder &b, ValueRange dys,
                            SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value spread = rebroadcast(b, loc, dys[0], typeOf(getOperand()), getAxes(),
                             getKeepdims());
  dxs.assign({scaled(b, loc, spread, 1.0 / double(getReductionSize()))});
}
void ReduceMeanOp::getResiduals(SmallVectorImpl<Value> &) {}

// The cotangent goes to the elements equal to the maximum, split evenly.
void ReduceMaxOp::buildVJP(OpBuilder &b, ValueRange dys,
                           SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value x = getOperand();
  RankedTensorType type = typeOf(x);
  Value maxFull =
      rebroadcast(b, loc, getResult(), type, getAxes(), getKeepdims());
  Value isMax = compare(b, loc, ComparePredicate::eq, x, maxFull);
  Value ones = select(b, loc, isMax, splat(b, loc, type, 1.0),
                      splat(b, loc, type, 0.0));
  Value count = ReduceSumOp::create(b, loc, ones, getAxes(), getKeepdims());
  Value share = div(b, loc, dys[0], count);
  Value shareFull = rebroadcast(b, loc, share, type, getAxes(), getKeepdims());
  dxs.assign({select(b, loc, isMax, shareFull, splat(b, loc, type, 0.0))});
}
void ReduceMaxOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.append({getOperand(), getResult()});
}

// dx = y * (dy - sum(dy * y)) along the axis.
void SoftmaxOp::buildVJP(OpBuilder &b, ValueRange dys,
                         SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value y = getResult(), dy = dys[0];
  int64_t axis = static_cast<int64_t>(getAxis());
  Value dot = ReduceSumOp::create(b, loc, mul(b, loc, dy, y),
                                  ArrayRef<int64_t>{axis}, /*keepdims=*/true);
  Value dotFull = rebroadcast(b, loc, dot, typeOf(y), {axis}, true);
  dxs.assign({mul(b, loc, y, sub(b, loc, dy, dotFull))});
}
void SoftmaxOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.push_back(getResult());
}

// dx = dy * exp(x - y): the softmax of x along the axis.
void LogSumExpOp::buildVJP(OpBuilder &b, ValueRange dys,
                           SmallVectorImpl<Value> &dxs) {
  Location loc = getLoc();
  Value x = getOperand();
  RankedTensorType type = typeOf(x);
  int64_t axis = static_cast<int64_t>(getAxis());
  Value yFull = rebroadcast(b, loc, getResult(), type, {axis}, getKeepdims());
  Value dyFull = rebroadcast(b, loc, dys[0], type, {axis}, getKeepdims());
  dxs.assign({mul(b, loc, dyFull, ExpOp::create(b, loc, sub(b, loc, x, yFull)))});
}
void LogSumExpOp::getResiduals(SmallVectorImpl<Value> &r) {
  r.append({getOperand(), getResult()});
}
