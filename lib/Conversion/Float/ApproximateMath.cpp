//===- ApproximateMath.cpp - f32 math functions as inline arithmetic ------===//
//
// A scalar libm call (tanhf, expf, logf) in a loop keeps LLVM from
// vectorizing the loop: on this CPU tanhf costs 35 fused adds an element.
// Written as arithmetic on the value (range reduction, a polynomial, bit
// manipulation of the exponent), the same function vectorizes with the
// rest of the loop body.
//
// Upstream's math-polynomial-approximation was measured first and is not
// used: its tanh is 4 ulp off, its exp flushes subnormal results to zero
// and its log returns -87.3 for subnormal inputs. The expansions here are
// Cephes's polynomials (S. Moshier) around range reductions that keep
// subnormals, each within 2 ulp of the correctly rounded result on every
// f32 input class (test/Execution/math-ulp.test).
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace tad {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// f32 values, or vectors of them, and the i32 of the same shape: the
/// expansions are written once for both.
class F32Math {
public:
  F32Math(ImplicitLocOpBuilder &b, Type type) : b(b), type(type) {
    intType = b.getI32Type();
    if (auto vector = dyn_cast<VectorType>(type))
      intType = vector.clone(intType);
  }

  Value f(double c) {
    return arith::ConstantOp::create(b, type,
                                     splat(b.getF32FloatAttr(float(c))));
  }
  Value i(int32_t c) {
    return arith::ConstantOp::create(b, intType,
                                     splat(b.getI32IntegerAttr(c)));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, x, y); }
  Value fma(Value x, Value y, Value z) { return math::FmaOp::create(b, x, y, z); }
  Value abs(Value x) { return math::AbsFOp::create(b, x); }
  /// NaN-propagating, so that a NaN input stays NaN through the clamps.
  Value min(Value x, Value y) { return arith::MinimumFOp::create(b, x, y); }
  Value max(Value x, Value y) { return arith::MaximumFOp::create(b, x, y); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value toInt(Value x) { return arith::FPToSIOp::create(b, intType, x); }
  Value toFloat(Value n) { return arith::SIToFPOp::create(b, type, n); }
  Value bits(Value x) { return arith::BitcastOp::create(b, intType, x); }
  Value fromBits(Value n) { return arith::BitcastOp::create(b, type, n); }

  /// c[0] x^(n-1) + ... + c[n-1], by Horner's rule with fused steps.
  Value polynomial(Value x, ArrayRef<double> c) {
    Value p = f(c.front());
    for (double next : c.drop_front())
      p = fma(p, x, f(next));
    return p;
  }

  /// 2^n for integer n in [-252, 254], as the product of two normal powers
  /// (one power of two would leave the normal range at either end).
  std::pair<Value, Value> powersOfTwo(Value n) {
    Value half = arith::ShRSIOp::create(b, n, i(1));
    Value rest = arith::SubIOp::create(b, n, half);
    auto power = [&](Value k) {
      return fromBits(arith::ShLIOp::create(
          b, arith::AddIOp::create(b, k, i(127)), i(23)));
    };
    return {power(half), power(rest)};
  }

  /// e^x: x = n ln2 + r with |r| <= ln2/2 (ln2 in two parts, so that n ln2
  /// is exact), e^r by a degree-7 polynomial, then scaled by 2^n in two
  /// steps so that subnormal results round once.
  Value exp(Value x) {
    // Beyond these, e^x is +inf or rounds to 0; the clamp keeps n in range.
    Value clamped = min(max(x, f(-104.0)), f(89.0));
    Value n = math::RoundEvenOp::create(b, mul(clamped, f(M_LOG2E)));
    Value r = fma(n, f(-0.693359375), clamped);
    r = fma(n, f(2.12194440e-4), r);
    Value p = polynomial(r, {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
                             4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1});
    p = add(fma(mul(r, r), p, r), f(1.0));
    auto [s1, s2] = powersOfTwo(toInt(n));
    Value result = mul(mul(p, s1), s2);
    // fptosi of NaN is poison: select the input's NaN instead.
    return select(cmp(arith::CmpFPredicate::UNO, x, x), x, result);
  }

  /// ln x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln(1+f) for f = m - 1
  /// by Cephes's logf polynomial, e ln2 added in two parts. Subnormal x are
  /// scaled by 2^23 first.
  Value log(Value x) {
    Value subnormal = cmp(arith::CmpFPredicate::OLT, x, f(0x1p-126));
    Value scaled = select(subnormal, mul(x, f(0x1p23)), x);
    Value exponentBias = select(subnormal, i(-127 - 23), i(-127));
    Value bitsOf = bits(scaled);
    Value e = arith::AddIOp::create(
        b, arith::ShRUIOp::create(b, bitsOf, i(23)), exponentBias);
    Value m = fromBits(arith::OrIOp::create(
        b, arith::AndIOp::create(b, bitsOf, i(0x007fffff)), i(0x3f800000)));
    Value above = cmp(arith::CmpFPredicate::OGT, m, f(M_SQRT2));
    // m/2 - 1 and m - 1 are exact (Sterbenz).
    Value fr = sub(select(above, mul(m, f(0.5)), m), f(1.0));
    Value fe = toFloat(select(above, arith::AddIOp::create(b, e, i(1)), e));
    Value z = mul(fr, fr);
    Value y = mul(fr, mul(z, polynomial(fr, {7.0376836292E-2, -1.1514610310E-1,
                                             1.1676998740E-1, -1.2420140846E-1,
                                             1.4249322787E-1, -1.6668057665E-1,
                                             2.0000714765E-1, -2.4999993993E-1,
                                             3.3333331174E-1})));
    y = fma(fe, f(-2.12194440e-4), y);
    y = fma(z, f(-0.5), y);
    Value result = fma(fe, f(0.693359375), add(fr, y));
    // ln(+inf) = +inf, ln(+-0) = -inf, ln(x < 0) = ln(NaN) = NaN.
    result = select(cmp(arith::CmpFPredicate::OEQ, x, f(INFINITY)), x, result);
    result = select(cmp(arith::CmpFPredicate::OEQ, x, f(0.0)), f(-INFINITY),
                    result);
    return select(cmp(arith::CmpFPredicate::ULT, x, f(0.0)), f(NAN), result);
  }

  /// tanh x: an odd polynomial below |x| = 0.625, 1 - 2 / (e^2|x| + 1)
  /// with x's sign above (where the subtraction loses no digit that
  /// matters); tanh rounds to +-1 beyond |x| = 9.01.
  Value tanh(Value x) {
    Value z = mul(x, x);
    Value small = fma(mul(x, z),
                      polynomial(z, {-5.70498872745E-3, 2.06390887954E-2,
                                     -5.37397155531E-2, 1.33314422036E-1,
                                     -3.33332819422E-1}),
                      x);
    Value a = min(abs(x), f(10.0));
    Value large = sub(f(1.0), div(f(2.0), add(exp(add(a, a)), f(1.0))));
    large = math::CopySignOp::create(b, large, x);
    return select(cmp(arith::CmpFPredicate::OLT, abs(x), f(0.625)), small,
                  large);
  }

private:
  TypedAttr splat(TypedAttr scalar) {
    if (auto vector = dyn_cast<VectorType>(type))
      return SplatElementsAttr::get(
          vector.cloneWith(std::nullopt, scalar.getType()), scalar);
    return scalar;
  }

  ImplicitLocOpBuilder &b;
  Type type;
  Type intType;
};

bool isF32(Type type) { return getElementTypeOrSelf(type).isF32(); }

template <typename OpT>
struct Approximate : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    if (!isF32(op.getType()))
      return rewriter.notifyMatchFailure(op, "only f32 is approximated");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    F32Math math(b, op.getType());
    Value x = op.getOperand();
    Value result;
    if constexpr (std::is_same_v<OpT, math::ExpOp>)
      result = math.exp(x);
    else if constexpr (std::is_same_v<OpT, math::LogOp>)
      result = math.log(x);
    else
      result = math.tanh(x);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ApproximateMath : tad::impl::ApproximateMathBase<ApproximateMath> {
  using Base::Base;
  void runOnOperation() override {
    // Only the math ops and what their rewrites create: a greedy rewrite of
    // the whole module would also fold and simplify everything else.
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::ExpOp, math::LogOp, math::TanhOp>(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<Approximate<math::ExpOp>, Approximate<math::LogOp>,
                 Approximate<math::TanhOp>>(&getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    config.enableFolding(false);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
