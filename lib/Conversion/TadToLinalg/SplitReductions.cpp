//===- SplitReductions.cpp - sums along rows in vector lanes --------------===//
//
// A sum along the innermost dimension (LayerNorm's mean and variance, a
// softmax's denominator and their gradients) adds each element to one
// accumulator: a chain of dependent additions that no vector unit can
// shorten, since reordering them would change the result. Here the sum
// is split into a fixed number of lanes: lane l sums the elements l, l +
// L, l + 2L, ... in order, and then the lanes are added in order into the
// result. That order is part of the program (linalg's split reduction,
// before bufferization), so the CPU and the GPU (and its emulator) add
// in the same order and get the same bits, while the CPU's inner loop
// over lanes is a vector: 8 f64 or 16 f32 lanes, one AVX-512 register.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/MatmulMaps.h"
#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace tad {
#define GEN_PASS_DEF_SPLITREDUCTIONS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// The lanes of a sum whose accumulator has `type`: a 512-bit vector's.
int64_t getLanes(Type type) {
  if (type.isF64())
    return 8;
  if (type.isF32())
    return 16;
  return 0;
}

/// Whether `op` is a sum over one dimension, the innermost of its
/// iteration space and of every input it reads (so that the lanes read
/// consecutive elements), long enough for several elements per lane.
bool isRowSum(linalg::GenericOp op, int64_t lanes) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1 ||
      !op.hasPureTensorSemantics() || lanes == 0)
    return false;
  // A product of two operands is a GEMM (tad-matmul-to-runtime), also as a
  // generic (tad-fold-transposes-into-matmuls makes those).
  if (tad::matchContraction(op))
    return false;
  unsigned loops = op.getNumLoops();
  if (!linalg::isReductionIterator(op.getIteratorTypesArray()[loops - 1]))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t length = ranges[loops - 1];
  if (ShapedType::isDynamic(length) || length % lanes != 0 ||
      length < 2 * lanes)
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 0 ||
        map.getResults().back() != getAffineDimExpr(loops - 1, op.getContext()))
      return false;
  }
  // A sum: the body ends adding into the accumulator.
  Operation *combiner = op.getBlock()->getTerminator()->getOperand(0).getDefiningOp();
  return combiner && isa<arith::AddFOp>(combiner) &&
         llvm::is_contained(combiner->getOperands(),
                            op.getBlock()->getArguments().back());
}

struct SplitReductionsPass
    : tad::impl::SplitReductionsBase<SplitReductionsPass> {
  void runOnOperation() override { tad::splitReductions(getOperation()); }
};

} // namespace

void tad::splitReductions(Operation *root) {
  SmallVector<std::pair<linalg::GenericOp, int64_t>> sums;
  root->walk([&](linalg::GenericOp op) {
    int64_t lanes =
        getLanes(getElementTypeOrSelf(op.getDpsInits()[0].getType()));
    if (isRowSum(op, lanes))
      sums.push_back({op, lanes});
  });
  IRRewriter rewriter(root->getContext());
  for (auto [op, lanes] : sums) {
    unsigned outputRank =
        cast<ShapedType>(op.getDpsInits()[0].getType()).getRank();
    rewriter.setInsertionPoint(op);
    // The lanes are the innermost (parallel) dimension, after the
    // output's.
    auto control = [&](linalg::LinalgOp) {
      return linalg::SplitReductionOptions{lanes, outputRank,
                                           /*innerParallel=*/true};
    };
    (void)linalg::splitReduction(rewriter, op, control);
  }
}
