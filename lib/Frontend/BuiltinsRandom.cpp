//===- BuiltinsRandom.cpp - counter-based random numbers ------------------===//
//
// Draws from a key (docs/language.md, Random numbers): every draw is a
// function of the key and of each element's position, so a recomputation
// draws the same bits.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "dialects/tad/TadOps.h"

#include "mlir/IR/Builders.h"

using namespace tad::lang;
using mlir::RankedTensorType;
using mlir::Value;

namespace {

bool checkDraw(BuiltinCall &c) {
  ElemKind elem = c.elem("to");
  if (!isFloatKind(elem))
    return c.error(c.loc("to"), c.name() + " draws floats: 'to' must be f32, "
                                           "f64, f16 or bf16");
  return c.result(
      TensorType{elem, llvm::SmallVector<int64_t, 4>(c.ints("shape"))});
}

template <tad::Distribution distribution> Value emitDraw(BuiltinEmitter &e) {
  return tad::RandomOp::create(e.builder, e.loc, e.resultType(),
                               e.operand("key"), distribution);
}

/// `random_uniform(key, shape) < p`, the uniform draws of p's type.
Value emitBernoulliOf(BuiltinEmitter &e, Value key, Value p,
                      llvm::ArrayRef<int64_t> shape) {
  auto pType = llvm::cast<RankedTensorType>(p.getType());
  auto uniformType = RankedTensorType::get(shape, pType.getElementType());
  Value u = tad::RandomOp::create(e.builder, e.loc, uniformType, key,
                                  tad::Distribution::uniform);
  return tad::CompareOp::create(e.builder, e.loc, tad::ComparePredicate::lt, u,
                                e.broadcastTo(p, shape));
}

bool checkBernoulli(BuiltinCall &c) {
  return c.result(
      TensorType{ElemKind::i1, llvm::SmallVector<int64_t, 4>(c.ints("shape"))});
}

Value emitBernoulli(BuiltinEmitter &e) {
  return emitBernoulliOf(e, e.operand("key"), e.operand("p"),
                         e.resultType().getShape());
}

bool checkSplit(BuiltinCall &c) {
  return c.result(TensorType{ElemKind::i64, {c.integer("n")}});
}

bool checkFoldIn(BuiltinCall &c) {
  return c.result(TensorType{ElemKind::i64, {}});
}

Value emitFoldIn(BuiltinEmitter &e) {
  return tad::FoldInOp::create(e.builder, e.loc, e.operand("key"),
                               e.operand("data"));
}

/// Zeroes each element with probability p and scales the others by
/// 1 / (1 - p): the mask is a function of the key alone.
bool checkDropout(BuiltinCall &c) {
  Expr &x = *c.expr("x");
  c.adaptWeak(x, ElemKind::f32);
  if (auto *literal = llvm::dyn_cast<NumberExpr>(c.expr("p"))) {
    double value = std::strtod(literal->spelling.c_str(), nullptr);
    if (!(value >= 0 && value < 1))
      return c.error(literal->getLoc(), "the probability of dropout must lie "
                                        "in [0, 1), got " +
                                            literal->spelling);
  }
  return c.result(x.type.tensor);
}

/// where(bernoulli(key, p), 0, x / (1 - p)).
Value emitDropout(BuiltinEmitter &e) {
  Value x = e.operand("x"), p = e.operand("p");
  auto xType = llvm::cast<RankedTensorType>(x.getType());
  auto scalar = RankedTensorType::get({}, xType.getElementType());
  // 1 - p first: broadcastTo erases a literal p that it re-makes.
  Value keep = tad::SubOp::create(e.builder, e.loc, e.splat(scalar, 1.0), p);
  Value drop = emitBernoulliOf(e, e.operand("key"), p, xType.getShape());
  Value scaled = tad::DivOp::create(e.builder, e.loc, x,
                                    e.broadcastTo(keep, xType.getShape()));
  return tad::SelectOp::create(e.builder, e.loc, drop, e.splat(xType, 0.0),
                               scaled);
}

} // namespace

std::vector<BuiltinDef> tad::lang::makeRandomBuiltins() {
  ParamSpec key = ofKind("key", ParamKind::key);
  ParamSpec shape = ofKind("shape", ParamKind::shape);
  ParamSpec to =
      ofKind("to", ParamKind::elemType).optional(int64_t(ElemKind::f32));
  ParamSpec p = ofKind("p", ParamKind::probability);
  ParamSpec dropP = p;
  dropP.typeOf = "x";
  return {
      {"random_uniform",
       {key, shape, to},
       checkDraw,
       emitDraw<tad::Distribution::uniform>,
       "floats in [0, 1) drawn from the key "
       "([language.md](language.md#random-numbers))",
       "`tad.random uniform`"},
      {"random_normal",
       {key, shape, to},
       checkDraw,
       emitDraw<tad::Distribution::normal>,
       "standard normal floats (Box-Muller)",
       "`tad.random normal`"},
      {"bernoulli",
       {key, p, shape},
       checkBernoulli,
       emitBernoulli,
       "booleans, true with probability `p` (a float scalar): "
       "`random_uniform(key, shape) < p` in `p`'s type",
       "`tad.random`, `tad.compare`"},
      {"split",
       {key, integer("n", 1, int64_t(1) << 40)},
       checkSplit,
       emitDraw<tad::Distribution::keys>,
       "`n` new keys (`i64[n]`)",
       "`tad.random keys`"},
      {"fold_in",
       {key, ofKind("data", ParamKind::indexOrInteger)},
       checkFoldIn,
       emitFoldIn,
       "a new key from a key and a loop index or an integer scalar",
       "`tad.fold_in`"},
      {"dropout",
       {floatTensor("x"), dropP, key},
       checkDropout,
       emitDropout,
       "`x` with each element zeroed with probability `p` and the others "
       "scaled by `1 / (1 - p)`",
       "`tad.random`, `tad.select`, `tad.div`"},
  };
}
