//===- TadOpsTest.cpp - builders and folds of the tad ops -----------------===//
//
// The C++ API that the frontend and the AD pass build IR with: builders that
// infer result types, and folds reached through createOrFold.
//
//===----------------------------------------------------------------------===//

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

class TadOpsTest : public ::testing::Test {
protected:
  TadOpsTest() : builder(&context) {
    context.loadDialect<tad::TadDialect, func::FuncDialect>();
    loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  /// Starts a function with arguments of `types` and returns its arguments.
  Block::BlockArgListType startFunction(TypeRange types) {
    auto fn = func::FuncOp::create(builder, loc, "f",
                                   builder.getFunctionType(types, {}));
    Block *entry = fn.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    return entry->getArguments();
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module;
};

TEST_F(TadOpsTest, MatmulBuilderInfersBatchedResult) {
  auto args = startFunction({f32({8, 4, 3}), f32({8, 3, 5})});
  auto mm = tad::MatmulOp::create(builder, loc, args[0], args[1]);
  EXPECT_EQ(mm.getType(), f32({8, 4, 5}));
  EXPECT_TRUE(succeeded(verify(mm)));
}

TEST_F(TadOpsTest, TransposeBuilderPermutesShape) {
  auto args = startFunction({f32({2, 3, 4})});
  auto t = tad::TransposeOp::create(builder, loc, args[0],
                                    ArrayRef<int64_t>{2, 0, 1});
  EXPECT_EQ(t.getType(), f32({4, 2, 3}));
}

TEST_F(TadOpsTest, ReduceBuildersHonourKeepdims) {
  auto args = startFunction({f32({2, 3, 4})});
  auto dropped = tad::ReduceSumOp::create(builder, loc, args[0],
                                          ArrayRef<int64_t>{0, 2}, false);
  auto kept = tad::ReduceMaxOp::create(builder, loc, args[0],
                                       ArrayRef<int64_t>{0, 2}, true);
  EXPECT_EQ(dropped.getType(), f32({3}));
  EXPECT_EQ(kept.getType(), f32({1, 3, 1}));
  EXPECT_EQ(dropped.getReductionSize(), 8);
}

TEST_F(TadOpsTest, GetReducedTypeOfScalarReduction) {
  EXPECT_EQ(tad::getReducedType(f32({5}), {0}, false), f32({}));
  EXPECT_EQ(tad::getReducedType(f32({5}), {0}, true), f32({1}));
  EXPECT_EQ(tad::getReducedType(f32({5}), {}, false), f32({5}));
}

TEST_F(TadOpsTest, BoolTensorLikeKeepsShape) {
  Type b = tad::getBoolTensorLike(f32({2, 7}));
  EXPECT_EQ(b, RankedTensorType::get({2, 7}, builder.getI1Type()));
}

TEST_F(TadOpsTest, ConstantOperandsFoldThroughCreateOrFold) {
  startFunction({});
  auto two = tad::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(f32({3}), builder.getF32FloatAttr(2)));
  auto three = tad::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(f32({3}), builder.getF32FloatAttr(3)));
  Value product = builder.createOrFold<tad::MulOp>(loc, two, three);
  auto folded = product.getDefiningOp<tad::ConstantOp>();
  ASSERT_TRUE(folded);
  auto value = cast<DenseElementsAttr>(folded.getValue());
  ASSERT_TRUE(value.isSplat());
  EXPECT_EQ(value.getSplatValue<APFloat>().convertToFloat(), 6.0f);
}

TEST_F(TadOpsTest, MulByOneFoldsToOperandButAddZeroDoesNot) {
  auto args = startFunction({f32({3})});
  auto one = tad::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(f32({3}), builder.getF32FloatAttr(1)));
  auto zero = tad::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(f32({3}), builder.getF32FloatAttr(0)));
  EXPECT_EQ(builder.createOrFold<tad::MulOp>(loc, args[0], one), args[0]);
  // -0.0 + 0.0 is +0.0, so x + 0 is not x.
  EXPECT_NE(builder.createOrFold<tad::AddOp>(loc, args[0], zero), args[0]);
}

TEST_F(TadOpsTest, CastFoldRoundsToNearestEven) {
  startFunction({});
  // 1 + 2^-11 lies halfway between two f16 values; ties go to the even 1.0.
  auto c = tad::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(f32({1}),
                             builder.getF32FloatAttr(1.0f + 0.00048828125f)));
  Value h = builder.createOrFold<tad::CastOp>(
      loc, RankedTensorType::get({1}, builder.getF16Type()), c);
  auto folded = h.getDefiningOp<tad::ConstantOp>();
  ASSERT_TRUE(folded);
  auto value = cast<DenseElementsAttr>(folded.getValue());
  EXPECT_EQ(value.getSplatValue<APFloat>().convertToDouble(), 1.0);
}

} // namespace

namespace {

class VJPTest : public TadOpsTest {};

// Each rule lists the forward values it reads, for the remat pass.
TEST_F(VJPTest, ResidualsNameTheForwardValuesARuleReads) {
  auto args = startFunction({f32({4, 3}), f32({3, 2}), f32({4, 3})});
  auto mm = tad::MatmulOp::create(builder, loc, args[0], args[1]);
  auto add = tad::AddOp::create(builder, loc, args[0], args[2]);
  auto exp = tad::ExpOp::create(builder, loc, args[0]);
  SmallVector<Value> residuals;
  cast<tad::DifferentiableOpInterface>(mm.getOperation())
      .getResiduals(residuals);
  EXPECT_EQ(residuals, (SmallVector<Value>{args[0], args[1]}));
  residuals.clear();
  cast<tad::DifferentiableOpInterface>(add.getOperation())
      .getResiduals(residuals);
  EXPECT_TRUE(residuals.empty()); // the sum's rule reads nothing
  residuals.clear();
  cast<tad::DifferentiableOpInterface>(exp.getOperation())
      .getResiduals(residuals);
  EXPECT_EQ(residuals, (SmallVector<Value>{exp.getResult()}));
}

// The VJP of a matmul is two matmuls against transposes.
TEST_F(VJPTest, MatmulRuleBuildsTwoProducts) {
  auto args = startFunction({f32({4, 3}), f32({3, 2}), f32({4, 2})});
  auto mm = tad::MatmulOp::create(builder, loc, args[0], args[1]);
  SmallVector<Value> cotangents;
  cast<tad::DifferentiableOpInterface>(mm.getOperation())
      .buildVJP(builder, ValueRange{args[2]}, cotangents);
  ASSERT_EQ(cotangents.size(), 2u);
  EXPECT_EQ(cotangents[0].getType(), f32({4, 3}));
  EXPECT_EQ(cotangents[1].getType(), f32({3, 2}));
  EXPECT_TRUE(cotangents[0].getDefiningOp<tad::MatmulOp>());
  EXPECT_TRUE(cotangents[1].getDefiningOp<tad::MatmulOp>());
}

} // namespace

// The remat graph reads every tad op's memory behavior from the op: each op
// that computes a value declares it (constants are globals, and a
// checkpoint is a region that the graph descends into).
TEST_F(TadOpsTest, EveryComputingOpDeclaresItsMemoryModel) {
  auto *dialect = context.getLoadedDialect<tad::TadDialect>();
  int declared = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (&name.getDialect() != dialect)
      continue;
    bool exempt = name.getStringRef() == "tad.constant" ||
                  name.getStringRef() == "tad.checkpoint" ||
                  name.getStringRef() == "tad.yield";
    EXPECT_EQ(name.hasInterface<tad::MemoryModelOpInterface>(), !exempt)
        << name.getStringRef().str();
    declared += !exempt;
  }
  EXPECT_GT(declared, 30);
}
