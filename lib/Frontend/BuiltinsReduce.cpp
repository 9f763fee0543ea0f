//===- BuiltinsReduce.cpp - reductions over axes --------------------------===//
//
// sum, mean, max over a set of axes; softmax and logsumexp along one;
// argmax and argmin.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "dialects/tad/TadOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace tad::lang;
using mlir::Value;

namespace {

/// `shape` without `axes`, or with 1 in their place under keepdims.
llvm::SmallVector<int64_t, 4> reduceShape(llvm::ArrayRef<int64_t> shape,
                                          llvm::ArrayRef<int64_t> axes,
                                          bool keepdims) {
  llvm::SmallVector<int64_t, 4> result;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(axes, int64_t(i)))
      result.push_back(d);
    else if (keepdims)
      result.push_back(1);
  }
  return result;
}

/// A sum or maximum of integers stays in their type (as in JAX); a mean
/// is a float (its parameter is a float tensor).
bool checkReduce(BuiltinCall &c) {
  Expr &x = *c.expr("x");
  c.adaptWeak(x, ElemKind::f32);
  const TensorType &t = x.type.tensor;
  return c.result(TensorType{
      t.elem, reduceShape(t.shape, c.ints("axes"), c.flag("keepdims"))});
}

template <typename Op> Value emitReduce(BuiltinEmitter &e) {
  return Op::create(e.builder, e.loc, e.operand("x"), e.ints("axes"),
                    e.flag("keepdims"));
}

/// softmax keeps the shape; logsumexp reduces its axis.
template <bool reduces> bool checkAlongAxis(BuiltinCall &c) {
  Expr &x = *c.expr("x");
  c.adaptWeak(x, ElemKind::f32);
  const TensorType &t = x.type.tensor;
  if (!reduces)
    return c.result(t);
  return c.result(TensorType{
      t.elem, reduceShape(t.shape, {c.integer("axis")}, c.flag("keepdims"))});
}

Value emitSoftmax(BuiltinEmitter &e) {
  return tad::SoftmaxOp::create(e.builder, e.loc, e.resultType(),
                                e.operand("x"),
                                e.builder.getI64IntegerAttr(e.integer("axis")));
}

Value emitLogSumExp(BuiltinEmitter &e) {
  return tad::LogSumExpOp::create(
      e.builder, e.loc, e.resultType(), e.operand("x"),
      e.builder.getI64IntegerAttr(e.integer("axis")),
      e.flag("keepdims") ? e.builder.getUnitAttr() : mlir::UnitAttr());
}

bool checkArgMax(BuiltinCall &c) {
  Expr &x = *c.expr("x");
  c.adaptWeak(x, ElemKind::f32);
  const TensorType &t = x.type.tensor;
  int64_t axis = c.integer("axis");
  if (t.shape[axis] > (int64_t(1) << 31))
    return c.error(x.getLoc(), "the indices along axis " + llvm::Twine(axis) +
                                   " do not fit in i32");
  return c.result(TensorType{ElemKind::i32,
                             reduceShape(t.shape, {axis}, c.flag("keepdims"))});
}

template <bool isMin> Value emitArgMax(BuiltinEmitter &e) {
  return tad::ArgMaxOp::create(
      e.builder, e.loc, e.resultType(), e.operand("x"),
      e.builder.getI64IntegerAttr(e.integer("axis")),
      isMin ? e.builder.getUnitAttr() : mlir::UnitAttr(),
      e.flag("keepdims") ? e.builder.getUnitAttr() : mlir::UnitAttr());
}

} // namespace

std::vector<BuiltinDef> tad::lang::makeReductionBuiltins() {
  ParamSpec axes = axisOf("axes", ParamKind::axes, "x").optional(0, "all");
  ParamSpec keepdims = ofKind("keepdims", ParamKind::boolean).optional(0);
  ParamSpec lastAxis = axisOf("axis", ParamKind::axis, "x").optional(-1);
  ParamSpec axis = axisOf("axis", ParamKind::axis, "x");
  return {
      {"sum",
       {numeric("x"), axes, keepdims},
       checkReduce,
       emitReduce<tad::ReduceSumOp>,
       "sum over `axes`; integers stay integers (wrapping)",
       "`tad.reduce_sum`"},
      {"mean",
       {floatTensor("x"), axes, keepdims},
       checkReduce,
       emitReduce<tad::ReduceMeanOp>,
       "mean over `axes`",
       "`tad.reduce_mean`"},
      {"max",
       {numeric("x"), axes, keepdims},
       checkReduce,
       emitReduce<tad::ReduceMaxOp>,
       "maximum over `axes`",
       "`tad.reduce_max`"},
      {"softmax",
       {floatTensor("x", 1), lastAxis},
       checkAlongAxis<false>,
       emitSoftmax,
       "softmax along `axis`",
       "`tad.softmax`"},
      {"logsumexp",
       {floatTensor("x", 1), lastAxis, keepdims},
       checkAlongAxis<true>,
       emitLogSumExp,
       "`log(sum(exp(x)))` along `axis`, without overflow",
       "`tad.logsumexp`"},
      {"argmax",
       {numeric("x", 1), axis, keepdims},
       checkArgMax,
       emitArgMax<false>,
       "the `i32` index of the largest element along `axis`, the first of "
       "equal ones; a NaN counts as the largest; no derivative",
       "`tad.argmax`"},
      {"argmin",
       {numeric("x", 1), axis, keepdims},
       checkArgMax,
       emitArgMax<true>,
       "the `i32` index of the smallest element along `axis`, the first of "
       "equal ones; a NaN counts as the smallest; no derivative",
       "`tad.argmax`"},
  };
}
