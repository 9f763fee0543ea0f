//===- RandomLowering.cpp - tad.random and tad.fold_in to arith ----------===//
//
// Philox 4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers:
// as easy as 1, 2, 3", SC 2011; the constants of Random123): a bijection of
// a 128-bit counter under a 64-bit key, ten rounds of 32-bit multiplies and
// xors. Element i of a random tensor is Philox of the counter (i, domain)
// under the key, so it depends on nothing but the key and i: the lowering
// is one all-parallel generic over the result, the same arith on every
// target, and a recomputation draws the same bits.
//
// The counter's third word separates the streams: samples (0), the keys of
// split (1) and fold_in (2).
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <array>
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tad;

namespace {

enum class Stream : uint32_t { samples = 0, splitKeys = 1, foldIn = 2 };

using Words = std::array<Value, 4>;

Value i32Constant(OpBuilder &b, Location loc, uint32_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

/// The low and high 32 bits of a 64-bit value.
std::pair<Value, Value> split64(OpBuilder &b, Location loc, Value v) {
  Value lo = arith::TruncIOp::create(b, loc, b.getI32Type(), v);
  Value shifted = arith::ShRUIOp::create(
      b, loc, v,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32)));
  Value hi = arith::TruncIOp::create(b, loc, b.getI32Type(), shifted);
  return {lo, hi};
}

/// `hi << 32 | lo` of two 32-bit words.
Value join64(OpBuilder &b, Location loc, Value lo, Value hi) {
  Value wideLo = arith::ExtUIOp::create(b, loc, b.getI64Type(), lo);
  Value wideHi = arith::ExtUIOp::create(b, loc, b.getI64Type(), hi);
  Value shifted = arith::ShLIOp::create(
      b, loc, wideHi,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32)));
  return arith::OrIOp::create(b, loc, shifted, wideLo);
}

/// Philox 4x32-10 of `counter` under `key`.
Words philox(OpBuilder &b, Location loc, Words counter,
             std::array<Value, 2> key) {
  // The round multipliers and the Weyl sequence that bumps the key.
  Value m0 = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0xD2511F53));
  Value m1 = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0xCD9E8D57));
  Value w0 = i32Constant(b, loc, 0x9E3779B9), w1 = i32Constant(b, loc, 0xBB67AE85);
  auto mulHiLo = [&](Value m, Value x) {
    Value product = arith::MulIOp::create(
        b, loc, m, arith::ExtUIOp::create(b, loc, b.getI64Type(), x));
    return split64(b, loc, product);
  };
  Words c = counter;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] = arith::AddIOp::create(b, loc, key[0], w0);
      key[1] = arith::AddIOp::create(b, loc, key[1], w1);
    }
    auto [lo0, hi0] = mulHiLo(m0, c[0]);
    auto [lo1, hi1] = mulHiLo(m1, c[2]);
    Value x0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi1, c[1]), key[0]);
    Value x2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi0, c[3]), key[1]);
    c = {x0, lo1, x2, lo0};
  }
  return c;
}

/// The key's two words, read from its tensor before the generic.
std::array<Value, 2> keyWords(OpBuilder &b, Location loc, Value keyTensor) {
  Value key = tensor::ExtractOp::create(b, loc, keyTensor, ValueRange{});
  auto [lo, hi] = split64(b, loc, key);
  return {lo, hi};
}

/// Philox of (index, stream) under `key`: the counter's words are the
/// 64-bit index's halves, the stream, and 0.
Words draw(OpBuilder &b, Location loc, Value index64, Stream stream,
           std::array<Value, 2> key) {
  auto [lo, hi] = split64(b, loc, index64);
  return philox(b, loc,
                {lo, hi, i32Constant(b, loc, uint32_t(stream)),
                 i32Constant(b, loc, 0)},
                key);
}

/// The top 24 bits of `word` as an f32 in [0, 1): exact, as an f32 holds
/// 24 bits.
Value unitFloat32(OpBuilder &b, Location loc, Value word) {
  Value top = arith::ShRUIOp::create(b, loc, word, i32Constant(b, loc, 8));
  Value f = arith::UIToFPOp::create(b, loc, b.getF32Type(), top);
  Value scale = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0x1p-24f));
  return arith::MulFOp::create(b, loc, f, scale);
}

/// 53 random bits (the top 26 of `hi`, 27 of `lo`) as an f64 in [0, 1).
Value unitFloat64(OpBuilder &b, Location loc, Value lo, Value hi) {
  Value a = arith::ShRUIOp::create(b, loc, hi, i32Constant(b, loc, 6));
  Value c = arith::ShRUIOp::create(b, loc, lo, i32Constant(b, loc, 5));
  Value wide = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), a),
          arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(27))),
      arith::ExtUIOp::create(b, loc, b.getI64Type(), c));
  Value f = arith::UIToFPOp::create(b, loc, b.getF64Type(), wide);
  Value scale = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0x1p-53));
  return arith::MulFOp::create(b, loc, f, scale);
}

/// A standard normal by Box-Muller from two uniforms in [0, 1): the first
/// is turned into (0, 1] so that its logarithm is finite.
Value boxMuller(OpBuilder &b, Location loc, Value u1, Value u2) {
  auto type = cast<FloatType>(u1.getType());
  auto constant = [&](double v) {
    return arith::ConstantOp::create(b, loc, type, FloatAttr::get(type, v));
  };
  Value positive = arith::SubFOp::create(b, loc, constant(1.0), u1);
  Value radius = math::SqrtOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, constant(-2.0),
                            math::LogOp::create(b, loc, positive)));
  Value angle = arith::MulFOp::create(b, loc, constant(2 * llvm::numbers::pi), u2);
  return arith::MulFOp::create(b, loc, radius,
                               math::CosOp::create(b, loc, angle));
}

/// The row-major index of the current element of a generic over `shape`,
/// as an i64.
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value index = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, size] : llvm::enumerate(shape)) {
    Value scaled = arith::MulIOp::create(
        b, loc, index, arith::ConstantIndexOp::create(b, loc, size));
    index = arith::AddIOp::create(b, loc, scaled,
                                  linalg::IndexOp::create(b, loc, d));
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

struct RandomLowering : OpConversionPattern<RandomOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandomOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    Distribution distribution = op.getDistribution();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), element);
    int64_t rank = type.getRank();
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, type, ValueRange(), init, maps, iterators,
            [&](OpBuilder &b, Location l, ValueRange) {
              // The key is read in the body (LLVM hoists the load): its
              // buffer lives while the op makes its result, as the memory
              // model has every operand do, and no producer of it is
              // fused in.
              std::array<Value, 2> key = keyWords(b, l, adaptor.getKey());
              Value index = linearIndex(b, l, type.getShape());
              Stream stream = distribution == Distribution::keys
                                  ? Stream::splitKeys
                                  : Stream::samples;
              Words w = draw(b, l, index, stream, key);
              Value v;
              if (distribution == Distribution::keys) {
                v = join64(b, l, w[0], w[1]);
              } else if (element.isF64()) {
                Value u1 = unitFloat64(b, l, w[0], w[1]);
                v = distribution == Distribution::uniform
                        ? u1
                        : boxMuller(b, l, u1, unitFloat64(b, l, w[2], w[3]));
              } else {
                // f16 and bf16 draw in f32 and round once.
                Value u1 = unitFloat32(b, l, w[0]);
                v = distribution == Distribution::uniform
                        ? u1
                        : boxMuller(b, l, u1, unitFloat32(b, l, w[1]));
                if (element != v.getType())
                  v = arith::TruncFOp::create(b, l, element, v);
              }
              linalg::YieldOp::create(b, l, v);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct FoldInLowering : OpConversionPattern<FoldInOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FoldInOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The data as an i64, read in the body as the key is.
    auto readData = [&](OpBuilder &b, Location l) {
      Value data = adaptor.getData();
      if (isa<RankedTensorType>(data.getType()))
        data = tensor::ExtractOp::create(b, l, data, ValueRange{});
      if (data.getType().isIndex())
        return Value(
            arith::IndexCastOp::create(b, l, b.getI64Type(), data));
      if (!data.getType().isInteger(64))
        return Value(arith::ExtSIOp::create(b, l, b.getI64Type(), data));
      return data;
    };
    // A generic of rank 0 writes the key into a buffer of its own, as the
    // memory model says (a tensor.from_elements would fold away into its
    // readers' extracts, or not, depending on them).
    auto type = cast<RankedTensorType>(op.getType());
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, type, ValueRange(), init,
            SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(0)},
            SmallVector<utils::IteratorType>(),
            [&](OpBuilder &b, Location l, ValueRange) {
              Words w = draw(b, l, readData(b, l), Stream::foldIn,
                             keyWords(b, l, adaptor.getKey()));
              linalg::YieldOp::create(b, l, join64(b, l, w[0], w[1]));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tad::populateRandomLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<RandomLowering, FoldInLowering>(patterns.getContext());
}
