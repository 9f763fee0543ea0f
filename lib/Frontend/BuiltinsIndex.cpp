//===- BuiltinsIndex.cpp - token ids: take, one_hot, iota -----------------===//
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
