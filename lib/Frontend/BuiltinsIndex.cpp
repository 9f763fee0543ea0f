//===- BuiltinsIndex.cpp - token ids: take, one_hot, iota, ... ------------===//
//
// The builtins whose operands or results are integer indices.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "dialects/tad/TadOps.h"

#include "mlir/IR/Builders.h"

using namespace tad::lang;
using llvm::Twine;
using mlir::RankedTensorType;
using mlir::Value;

namespace {

bool checkTake(BuiltinCall &c) {
  const TensorType &t = c.tensor("x");
  Expr &indices = *c.expr("indices");
  int64_t axis = c.integer("axis");
  // A literal index is checked here; others are clamped at run time.
  if (auto *number = llvm::dyn_cast<NumberExpr>(&indices)) {
    int64_t literal;
    if (number->isInteger &&
        !llvm::StringRef(number->spelling).getAsInteger(10, literal) &&
        (literal < 0 || literal >= t.shape[axis]))
      return c.error(indices.getLoc(), "index " + Twine(literal) +
                                           " is out of range for "
                                           "dimension " +
                                           Twine(axis) + " of " + t.str());
  }
  TensorType result{t.elem, {}};
  result.shape.append(t.shape.begin(), t.shape.begin() + axis);
  result.shape.append(indices.type.tensor.shape.begin(),
                      indices.type.tensor.shape.end());
  result.shape.append(t.shape.begin() + axis + 1, t.shape.end());
  return c.result(result);
}

Value emitTake(BuiltinEmitter &e) {
  return tad::GatherOp::create(e.builder, e.loc, e.resultType(), e.operand("x"),
                               e.operand("indices"), e.integer("axis"));
}

bool checkTakeAlongAxis(BuiltinCall &c) {
  const TensorType &t = c.tensor("x"), &indices = c.tensor("indices");
  int64_t axis = c.integer("axis");
  bool compatible = indices.getRank() == t.getRank();
  for (int64_t d = 0; compatible && d < t.getRank(); ++d)
    compatible = d == axis || indices.shape[d] == t.shape[d];
  if (!compatible)
    return c.error(c.loc("indices"),
                   "the indices of take_along_axis must have the rank of x and "
                   "its sizes but along axis " +
                       Twine(axis) + ": x is " + t.str() +
                       ", the indices are " + indices.str());
  return c.result(TensorType{t.elem, indices.shape});
}

/// x[..., indices[..., k, ...], ...]: a take from x flattened, at the
/// row-major position of each index (clamped into [0, size) along the
/// axis first, so that an index never leaves its row).
Value emitTakeAlongAxis(BuiltinEmitter &e) {
  const TensorType &t = e.tensor("x");
  int64_t axis = e.integer("axis");
  auto indicesType =
      llvm::cast<RankedTensorType>(e.operand("indices").getType());
  int64_t elements = t.getNumElements();
  mlir::Type intType =
      elements <= INT32_MAX ? e.builder.getI32Type() : e.builder.getI64Type();
  auto positionType = RankedTensorType::get(indicesType.getShape(), intType);
  // Clamped in their own type, then narrowed: no index wraps.
  Value indices = tad::MinOp::create(
      e.builder, e.loc,
      tad::MaxOp::create(e.builder, e.loc, e.operand("indices"),
                         e.splat(indicesType, 0)),
      e.splat(indicesType, t.shape[axis] - 1));
  if (indicesType != positionType)
    indices = tad::CastOp::create(e.builder, e.loc, positionType, indices);
  // Strides of x, row-major.
  llvm::SmallVector<int64_t, 4> strides(t.getRank(), 1);
  for (int64_t d = t.getRank() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * t.shape[d + 1];
  auto scaled = [&](Value v, int64_t d) -> Value {
    if (strides[d] == 1)
      return v;
    return tad::MulOp::create(e.builder, e.loc, v,
                              e.splat(positionType, strides[d]));
  };
  Value position = scaled(indices, axis);
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (d == axis)
      continue;
    Value along = tad::IotaOp::create(e.builder, e.loc, positionType, d);
    position = tad::AddOp::create(e.builder, e.loc, position, scaled(along, d));
  }
  auto flatType = RankedTensorType::get(
      {elements},
      llvm::cast<RankedTensorType>(e.operand("x").getType()).getElementType());
  Value flat =
      tad::ReshapeOp::create(e.builder, e.loc, flatType, e.operand("x"));
  // One index per row (size 1 along the axis): the positions lie in
  // distinct rows of x, so no two are equal, and the derivative's slices
  // may be added at once.
  bool unique = indicesType.getDimSize(axis) == 1;
  return tad::GatherOp::create(e.builder, e.loc, e.resultType(), flat, position,
                               0, unique);
}

bool checkOneHot(BuiltinCall &c) {
  TensorType result{c.elem("to"), c.tensor("indices").shape};
  result.shape.push_back(c.integer("depth"));
  return c.checkElementCount(result, c.loc("depth")) && c.result(result);
}

/// indices[..., None] == iota(..., depth) along the new last axis.
Value emitOneHot(BuiltinEmitter &e) {
  Value indices = e.operand("indices");
  RankedTensorType type = e.resultType();
  auto indicesType = llvm::cast<RankedTensorType>(indices.getType());
  auto wide =
      RankedTensorType::get(type.getShape(), indicesType.getElementType());
  llvm::SmallVector<int64_t> dims;
  for (int64_t d = 0; d < indicesType.getRank(); ++d)
    dims.push_back(d);
  Value stretched =
      tad::BroadcastOp::create(e.builder, e.loc, wide, indices, dims);
  Value positions =
      tad::IotaOp::create(e.builder, e.loc, wide, type.getRank() - 1);
  Value hit = tad::CompareOp::create(
      e.builder, e.loc, tad::ComparePredicate::eq, stretched, positions);
  return tad::SelectOp::create(e.builder, e.loc, hit, e.splat(type, 1.0),
                               e.splat(type, 0.0));
}

bool checkIota(BuiltinCall &c) {
  TensorType result{c.elem("to"),
                    llvm::SmallVector<int64_t, 4>(c.ints("shape"))};
  int64_t axis = c.integer("axis");
  if (result.shape[axis] > (int64_t(1) << 31))
    return c.error(c.loc("shape"), "the indices along axis " + Twine(axis) +
                                       " do not fit in i32");
  return c.result(result);
}

/// Integer indices, cast to a float `to`.
Value emitIota(BuiltinEmitter &e) {
  RankedTensorType type = e.resultType();
  auto indexType = RankedTensorType::get(
      type.getShape(), isIntegerKind(e.elem("to")) ? type.getElementType()
                                                   : e.builder.getI32Type());
  Value iota =
      tad::IotaOp::create(e.builder, e.loc, indexType, e.integer("axis"));
  if (indexType == type)
    return iota;
  return tad::CastOp::create(e.builder, e.loc, type, iota);
}

} // namespace

std::vector<BuiltinDef> tad::lang::makeIndexingBuiltins() {
  ParamSpec indices = ofKind("indices", ParamKind::indices);
  ParamSpec shape = ofKind("shape", ParamKind::shape);
  shape.minRank = 1;
  return {
      {"take",
       {numeric("x", 1), indices,
        axisOf("axis", ParamKind::axis, "x").optional(0)},
       checkTake,
       emitTake,
       "`x` indexed along `axis` by every element of the integer tensor "
       "`indices`: the shape of `x` with dimension `axis` replaced by that of "
       "`indices` (an embedding lookup: `take(E, ids)` with `E: f32[V, D]`, "
       "`ids: i32[B, T]` is `f32[B, T, D]`). An index outside `[0, size)` is "
       "clamped into it; a literal one out of range is an error. Its "
       "derivative adds the cotangent's slices into a zero tensor in the "
       "order of `indices`, so repeated ids accumulate bit-reproducibly",
       "`tad.gather` (derivative `tad.scatter_add`)"},
      {"take_along_axis",
       {numeric("x", 1), indices, axisOf("axis", ParamKind::axis, "x")},
       checkTakeAlongAxis,
       emitTakeAlongAxis,
       "`x` picked along `axis` at each position by `indices` (NumPy's "
       "`take_along_axis`): `indices` has the rank and sizes of `x` but "
       "along `axis`, and so has the result; `take_along_axis(z, "
       "reshape(labels, [..., 1]), -1)` picks each row's logit. An index is "
       "clamped into `[0, size)`; the derivative scatter-adds into zeros",
       "`tad.gather` on `x` flattened, `tad.iota`"},
      {"one_hot",
       {indices, integer("depth", 1, int64_t(1) << 31),
        ofKind("to", ParamKind::elemType).optional(int64_t(ElemKind::f32))},
       checkOneHot,
       emitOneHot,
       "`indices[..., None] == [0, depth)` as `1` and `0` of type `to`: shape "
       "of `indices` and `depth`; an index outside `[0, depth)` gives a row "
       "of zeros",
       "`tad.iota`, `tad.compare`, `tad.select`"},
      {"iota",
       {shape, axisOf("axis", ParamKind::axis, "shape").optional(0),
        ofKind("to", ParamKind::elemType).optional(int64_t(ElemKind::i32))},
       checkIota,
       emitIota,
       "each element's index along `axis`; `where(iota([T, T], axis: 0) >= "
       "iota([T, T], axis: 1), s, -1e9)` is a causal mask",
       "`tad.iota` (and `tad.cast` for a float `to`)"},
  };
}
