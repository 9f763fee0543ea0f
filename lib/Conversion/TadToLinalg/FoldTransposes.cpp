//===- FoldTransposes.cpp - matmuls that read and write permuted views ----===//
//
// Attention splits a projection into heads with a transpose (128 x 4 x 64
// to 4 x 128 x 64), multiplies per head, and merges the heads back with
// another; its gradient does the same in reverse. Lowered as written, each
// of those transposes is a loop that copies the whole tensor into a buffer
// of its own, with strided reads, only for a GEMM to read it. BLAS reads a
// matrix through any leading dimension, and the runtime's GEMM takes any
// strided view (runtime/lib/Matmul.cpp), so the copy is not needed: this
// pass folds a permutation into the indexing map of the contraction that
// reads its result (or whose result it permutes), and tad-matmul-to-runtime
// passes the operand as a permuted view.
//
// Memory: a folded operand's source is read where its permuted copy was, so
// it lives as long as the copy did, and the copy, as large, is gone. That
// holds only where the source is a buffer of its own (not a slice of a
// larger one, which would then live longer) and every use of the copy
// folds. Speed: the view must keep a unit stride in one of the matrix's two
// dimensions (the source's last dimension must not become the batch), and
// the output's in its columns, or the runtime would fall back to a loop.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/MatmulMaps.h"
#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tad {
#define GEN_PASS_DEF_FOLDTRANSPOSESINTOMATMULS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// A linalg.generic that copies its one input into its one output with
/// the dimensions permuted: out[outMap(i)] = in[inMap(i)].
struct Permutation {
  linalg::GenericOp op;
  Value source;
  AffineMap inMap, outMap;
};

std::optional<Permutation> matchPermutation(Operation *candidate) {
  auto op = dyn_cast_or_null<linalg::GenericOp>(candidate);
  if (!op || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[0].isPermutation() || !maps[1].isPermutation())
    return std::nullopt;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 ||
      yield.getValues()[0] != body.getArgument(0))
    return std::nullopt;
  return Permutation{op, op.getDpsInputs()[0], maps[0], maps[1]};
}

/// Whether every use of `value` only reads it: as a linalg op's input, the
/// source of a slice or a copy into one, a function's result, or through a
/// reshape whose uses only read it too. A later read of a tensor that
/// something overwrites in place (a tape that a slice is inserted into, an
/// op's destination) would make bufferization copy all of it.
bool isOnlyRead(Value value) {
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user))
      return linalgOp.isDpsInput(&use);
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
      return isOnlyRead(user->getResult(0));
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(user))
      return use.get() == insert.getSource() && use.get() != insert.getDest();
    return isa<tensor::ExtractSliceOp, func::ReturnOp>(user);
  });
}

/// Whether reading `value` later than its permuted copy would have keeps no
/// more memory alive and costs no copy: through reshapes, it is a function's
/// argument or a linalg op's result (not a slice of a larger buffer, not a
/// loop's carried value), and nothing overwrites it.
bool isWholeReadOnlyBuffer(Value value) {
  Value root = value;
  while (Operation *op = root.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      break;
    root = op->getOperand(0);
  }
  if (auto argument = dyn_cast<BlockArgument>(root)) {
    if (!isa<func::FuncOp>(argument.getOwner()->getParentOp()))
      return false;
  } else if (!isa<linalg::LinalgOp>(root.getDefiningOp())) {
    return false;
  }
  return isOnlyRead(root);
}

/// The contraction layout of `op` on tensors, if it has one.
std::optional<tad::ContractionLayout> tensorContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return std::nullopt;
  return tad::matchContraction(linalgOp);
}

/// Whether every use of `value` is an input of a contraction.
bool onlyContractionInputs(Value value) {
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return user && user.isDpsInput(&use) && tensorContraction(user).has_value();
  });
}

/// Whether the map's last result, the dimension with the unit stride in a
/// fresh tensor, is one of `dims`.
bool lastDimIsOneOf(AffineMap map, ArrayRef<unsigned> dims) {
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  return last && llvm::is_contained(dims, last.getPosition());
}

/// `op` as a linalg.generic (a named contraction is generalized).
linalg::GenericOp asGeneric(PatternRewriter &rewriter, linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, op);
  return succeeded(generic) ? *generic : linalg::GenericOp();
}

/// A contraction input that is a permuted copy reads the copy's source
/// through the composed map.
struct FoldInputPermutation : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<tad::ContractionLayout> layout =
        tensorContraction(op.getOperation());
    if (!layout)
      return failure();
    // The dimensions that may have the unit stride: A's rows or columns
    // (m, k), B's (k, n).
    unsigned m = layout->dims[layout->batch],
             n = layout->dims[layout->batch + 1],
             k = layout->dims[layout->batch + 2];
    for (int64_t i = 0; i < 2; ++i) {
      OpOperand *input = op.getDpsInputOperand(i);
      std::optional<Permutation> permutation =
          matchPermutation(input->get().getDefiningOp());
      if (!permutation || !isWholeReadOnlyBuffer(permutation->source) ||
          !onlyContractionInputs(input->get()))
        continue;
      AffineMap map =
          permutation->inMap.compose(inversePermutation(permutation->outMap))
              .compose(op.getMatchingIndexingMap(input));
      SmallVector<unsigned, 2> unitStride =
          i == 0 ? SmallVector<unsigned, 2>{m, k}
                 : SmallVector<unsigned, 2>{k, n};
      if (!lastDimIsOneOf(map, unitStride))
        continue;
      linalg::GenericOp generic = asGeneric(rewriter, op);
      if (!generic)
        return failure();
      SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
      maps[i] = map;
      rewriter.modifyOpInPlace(generic, [&] {
        generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
        generic->setOperand(i, permutation->source);
      });
      return success();
    }
    return failure();
  }
};

/// A contraction whose only use permutes its result into a fresh tensor
/// writes that tensor through the composed map instead. Its output must
/// start as a fill of an empty tensor, which is then made in the permuted
/// shape.
struct FoldResultPermutation : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<tad::ContractionLayout> layout =
        tensorContraction(op.getOperation());
    if (!layout || !op->getResult(0).hasOneUse())
      return failure();
    auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    if (!fill || !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      return failure();
    std::optional<Permutation> permutation =
        matchPermutation(*op->getResult(0).getUsers().begin());
    if (!permutation || permutation->source != op->getResult(0))
      return failure();
    AffineMap map =
        permutation->outMap.compose(inversePermutation(permutation->inMap))
            .compose(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
    // C's columns must have the unit stride. (Where the permuted output
    // stores C's rows last, computing C^T = B^T A^T instead would do, but
    // OpenBLAS's kernels round that differently: the same program would
    // then give other bits where remat recomputes a value than where it
    // keeps it.)
    unsigned n = layout->dims[layout->batch + 1];
    if (!lastDimIsOneOf(map, {n}))
      return failure();
    linalg::GenericOp generic = asGeneric(rewriter, op);
    if (!generic)
      return failure();
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    auto type = cast<RankedTensorType>(permutation->op->getResult(0).getType());
    Location loc = generic.getLoc();
    rewriter.setInsertionPoint(generic);
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    Value init =
        linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
            .getResult(0);
    maps.back() = map;
    auto folded = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, generic.getDpsInputs(),
        ValueRange{init}, maps, generic.getIteratorTypesArray());
    rewriter.inlineRegionBefore(generic.getRegion(), folded.getRegion(),
                                folded.getRegion().end());
    rewriter.replaceOp(permutation->op, folded->getResults());
    rewriter.eraseOp(generic);
    return success();
  }
};

struct FoldTransposesIntoMatmulsPass
    : tad::impl::FoldTransposesIntoMatmulsBase<FoldTransposesIntoMatmulsPass> {
  // Frozen once per pass manager: freezing a pattern set looks up its
  // roots among all registered operations.
  LogicalResult initialize(MLIRContext *context) override {
    patterns = tad::freezeFoldTransposesPatterns(context);
    return success();
  }

  void runOnOperation() override {
    if (failed(tad::foldTransposesIntoMatmuls(getOperation(), patterns)))
      return signalPassFailure();
  }

  FrozenRewritePatternSet patterns;
};

} // namespace

FrozenRewritePatternSet
tad::freezeFoldTransposesPatterns(MLIRContext *context) {
  RewritePatternSet set(context);
  set.add<FoldInputPermutation, FoldResultPermutation>(context);
  return FrozenRewritePatternSet(std::move(set));
}

LogicalResult
tad::foldTransposesIntoMatmuls(Operation *root,
                               const FrozenRewritePatternSet &patterns) {
  return applyPatternsGreedily(root, patterns,
                               tad::withoutRegionSimplification());
}
