//===- BuiltinsMath.cpp - elementwise math, matmul, casts -----------------===//
//
// The builtins that compute each element from the elements at the same
// position (after a NumPy broadcast), and matmul, cast and all_reduce.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "SemaImpl.h"

#include "dialects/tad/TadOps.h"

#include "mlir/IR/Builders.h"

using namespace tad::lang;
using mlir::Value;

namespace {

/// The result has x's type (a literal x is an f32).
bool checkSameAsX(BuiltinCall &c) {
  Expr &x = *c.expr("x");
  c.adaptWeak(x, ElemKind::f32);
  return c.result(x.type.tensor);
}

template <typename Op> Value emitUnary(BuiltinEmitter &e) {
  return Op::create(e.builder, e.loc, e.operand("x"));
}

/// pow, maximum, minimum and matmul: the infix operators' rules.
template <bool isMatmul, bool allowInteger> bool checkPair(BuiltinCall &c) {
  TensorType result;
  if (!c.checkOperandPair(isMatmul, allowInteger, result))
    return false;
  c.adaptWeak(*c.expr("x"), ElemKind::f32);
  c.adaptWeak(*c.expr("y"), ElemKind::f32);
  return c.result(result);
}

template <typename Op> Value emitPair(BuiltinEmitter &e) {
  return Op::create(e.builder, e.loc, e.elementwise(e.operand("x")),
                    e.elementwise(e.operand("y")));
}

Value emitMatmul(BuiltinEmitter &e) {
  return e.matmul(e.operand("x"), e.operand("y"));
}

bool checkWhere(BuiltinCall &c) {
  Expr &cond = *c.expr("cond"), &x = *c.expr("x"), &y = *c.expr("y");
  // A literal takes the other value's type.
  if (x.type.weak && !y.type.weak) {
    if (!c.adaptWeakTo(x, y.type.tensor.elem))
      return false;
  } else if (y.type.weak && !x.type.weak) {
    if (!c.adaptWeakTo(y, x.type.tensor.elem))
      return false;
  } else if (x.type.weak) {
    c.adaptWeak(x, ElemKind::f32);
    c.adaptWeak(y, ElemKind::f32);
  }
  if (x.type.tensor.elem != y.type.tensor.elem)
    return c.error("the values of where have different element types: " +
                   x.type.tensor.str() + " and " + y.type.tensor.str());
  TensorType result{x.type.tensor.elem, {}};
  llvm::SmallVector<int64_t, 4> values;
  int64_t badA, badB;
  if (!broadcastShapes(x.type.tensor.shape, y.type.tensor.shape, values, badA,
                       badB) ||
      !broadcastShapes(cond.type.tensor.shape, values, result.shape, badA,
                       badB))
    return c.error(
        "cannot broadcast the arguments of where: " + cond.type.tensor.str() +
        ", " + x.type.tensor.str() + " and " + y.type.tensor.str());
  return c.result(result);
}

Value emitWhere(BuiltinEmitter &e) {
  return tad::SelectOp::create(
      e.builder, e.loc, e.elementwise(e.operand("cond")),
      e.elementwise(e.operand("x")), e.elementwise(e.operand("y")));
}

template <int value> Value emitLike(BuiltinEmitter &e) {
  return e.splat(e.resultType(), value);
}

bool checkCast(BuiltinCall &c) {
  Expr &x = *c.expr("x");
  ElemKind to = c.elem("to");
  // A literal cast to an integer type converts from f64, rounding toward
  // zero as every float-to-integer cast does.
  c.adaptWeak(x, isIntegerKind(to) ? ElemKind::f64 : to);
  return c.result(TensorType{to, x.type.tensor.shape});
}

Value emitCast(BuiltinEmitter &e) {
  Value x = e.operand("x");
  if (x.getType() == e.resultType())
    return x;
  return tad::CastOp::create(e.builder, e.loc, e.resultType(), x);
}

bool checkAllReduce(BuiltinCall &c) {
  Expr &x = *c.expr("x");
  c.adaptWeak(x, ElemKind::f32);
  if (x.type.tensor.elem != ElemKind::f32 &&
      x.type.tensor.elem != ElemKind::f64)
    return c.error(x.getLoc(), "all_reduce reduces f32 and f64 tensors only, "
                               "not " +
                                   x.type.tensor.str() + "; cast to f32 first");
  return c.result(x.type.tensor);
}

Value emitAllReduce(BuiltinEmitter &e) {
  return tad::AllReduceOp::create(e.builder, e.loc,
                                  e.integer("op") == 1 ? tad::ReduceKind::mean
                                                       : tad::ReduceKind::sum,
                                  e.operand("x"));
}

} // namespace

std::vector<BuiltinDef> tad::lang::makeMathBuiltins() {
  auto unary = [](const char *name, Value (*emit)(BuiltinEmitter &),
                  const char *doc, const char *op) {
    return BuiltinDef{name, {floatTensor("x")}, checkSameAsX, emit, doc, op};
  };
  ParamSpec elemTo = ofKind("to", ParamKind::elemType);
  ParamSpec reduceOp = ofKind("op", ParamKind::choice).optional(0);
  reduceOp.choices = "sum|mean";
  return {
      unary("exp", emitUnary<tad::ExpOp>, "`e` to the power `x`", "`tad.exp`"),
      unary("log", emitUnary<tad::LogOp>, "natural logarithm", "`tad.log`"),
      unary("tanh", emitUnary<tad::TanhOp>, "hyperbolic tangent", "`tad.tanh`"),
      unary("sigmoid", emitUnary<tad::SigmoidOp>, "`1 / (1 + exp(-x))`",
            "`tad.sigmoid`"),
      unary("relu", emitUnary<tad::ReluOp>, "`max(x, 0)`", "`tad.relu`"),
      unary("sqrt", emitUnary<tad::SqrtOp>, "square root", "`tad.sqrt`"),
      unary("rsqrt", emitUnary<tad::RsqrtOp>, "`1 / sqrt(x)`", "`tad.rsqrt`"),
      unary(
          "log1p", emitUnary<tad::Log1pOp>,
          "`log(1 + x)`, accurate near 0 ([language.md](language.md#builtins))",
          "`tad.log1p`"),
      unary(
          "expm1", emitUnary<tad::Expm1Op>,
          "`exp(x) - 1`, accurate near 0 ([language.md](language.md#builtins))",
          "`tad.expm1`"),
      unary("softplus", emitUnary<tad::SoftplusOp>,
            "`log(1 + exp(x))`, finite for every finite `x` "
            "([language.md](language.md#builtins))",
            "`tad.softplus`"),
      unary("logsigmoid", emitUnary<tad::LogSigmoidOp>,
            "`log(sigmoid(x))`, finite for every finite `x` "
            "([language.md](language.md#builtins))",
            "`tad.logsigmoid`"),
      {"abs",
       {numeric("x")},
       checkSameAsX,
       emitUnary<tad::AbsOp>,
       "absolute value; integers too",
       "`tad.abs`"},
      {"neg",
       {numeric("x")},
       checkSameAsX,
       emitUnary<tad::NegOp>,
       "`-x`; integers too",
       "`tad.neg`"},
      {"pow",
       {floatTensor("x"), floatTensor("y")},
       checkPair<false, false>,
       emitPair<tad::PowOp>,
       "`x` to the power `y`, elementwise, broadcast",
       "`tad.pow`"},
      {"maximum",
       {numeric("x"), numeric("y")},
       checkPair<false, true>,
       emitPair<tad::MaxOp>,
       "the larger of `x` and `y`, elementwise, broadcast",
       "`tad.max`"},
      {"minimum",
       {numeric("x"), numeric("y")},
       checkPair<false, true>,
       emitPair<tad::MinOp>,
       "the smaller of `x` and `y`, elementwise, broadcast",
       "`tad.min`"},
      {"where",
       {ofKind("cond", ParamKind::condition), numeric("x"), numeric("y")},
       checkWhere,
       emitWhere,
       "`x` where `cond` holds, else `y`; broadcast",
       "`tad.select`"},
      {"matmul",
       {floatTensor("x"), floatTensor("y")},
       checkPair<true, false>,
       emitMatmul,
       "`x @ y`: matrix product, batched over leading dimensions",
       "`tad.matmul`"},
      {"cast",
       {numeric("x"), elemTo},
       checkCast,
       emitCast,
       "another element type: floats round to nearest even, a float to an "
       "integer rounds toward zero and saturates "
       "([language.md](language.md#integers))",
       "`tad.cast`"},
      {"stop_gradient",
       {numeric("x")},
       checkSameAsX,
       emitUnary<tad::StopGradientOp>,
       "`x`, with a zero derivative",
       "`tad.stop_gradient`"},
      {"zeros_like",
       {numeric("x")},
       checkSameAsX,
       emitLike<0>,
       "zeros of `x`'s type",
       "`tad.constant`"},
      {"ones_like",
       {numeric("x")},
       checkSameAsX,
       emitLike<1>,
       "ones of `x`'s type",
       "`tad.constant`"},
      {"all_reduce",
       {floatTensor("x"), reduceOp},
       checkAllReduce,
       emitAllReduce,
       "the elementwise sum (`op: sum`) or mean (`op: mean`) of `x` over the "
       "processes of an MPI run; `f32` and `f64` only; CPU target only "
       "([distributed.md](distributed.md))",
       "`tad.all_reduce`"},
  };
}
