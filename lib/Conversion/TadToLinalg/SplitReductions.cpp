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
  // Each input reads along the row (the reduced dimension its innermost
  // index), or is the same all along it and indexed by loop dimensions
  // only (a row's mean that a fused variance subtracts: unitReadsDropped).
  AffineExpr reduced = getAffineDimExpr(loops - 1, op.getContext());
  bool along = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(loops - 1) && map.isProjectedPermutation())
      continue;
    if (map.getNumResults() == 0 || map.getResults().back() != reduced)
      return false;
    along = true;
  }
  if (!along)
    return false;
  // A sum: the body ends adding into the accumulator.
  Operation *combiner = op.getBlock()->getTerminator()->getOperand(0).getDefiningOp();
  return combiner && isa<arith::AddFOp>(combiner) &&
         llvm::is_contained(combiner->getOperands(),
                            op.getBlock()->getArguments().back());
}

/// Makes the inputs of `op` that read a tensor expanded with unit
/// dimensions at constant 0 there (a row's mean as `[rows, 1]`, as a
/// variance that remat fused with its input reads it) read the tensor
/// before the expansion. A sum of such an input then splits into lanes as
/// one of a buffer of it does (isRowSum), so that recomputing a fused
/// value keeps the sum's order, and its bits.
void unitReadsDropped(linalg::GenericOp op, RewriterBase &rewriter) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>();
    if (!expand)
      continue;
    AffineMap map = maps[input->getOperandNumber()];
    RankedTensorType expanded = expand.getResultType();
    // Each group keeps its one dimension that is not a unit read.
    SmallVector<AffineExpr> kept;
    bool dropsUnits = true;
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      int64_t others = 0;
      for (int64_t d : group) {
        auto constant = dyn_cast<AffineConstantExpr>(map.getResult(d));
        if (expanded.getDimSize(d) == 1 && constant && constant.getValue() == 0)
          continue;
        kept.push_back(map.getResult(d));
        ++others;
      }
      dropsUnits &= others == 1;
    }
    if (!dropsUnits || kept.size() == map.getNumResults())
      continue;
    maps[input->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, kept, op.getContext());
    rewriter.modifyOpInPlace(op, [&] { input->set(expand.getSrc()); });
    changed = true;
  }
  if (changed)
    rewriter.modifyOpInPlace(op, [&] {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
}

struct SplitReductionsPass
    : tad::impl::SplitReductionsBase<SplitReductionsPass> {
  void runOnOperation() override { tad::splitReductions(getOperation()); }
};

} // namespace

void tad::splitReductions(Operation *root) {
  SmallVector<std::pair<linalg::GenericOp, int64_t>> sums;
  IRRewriter unitRewriter(root->getContext());
  root->walk([&](linalg::GenericOp op) {
    if (op.getNumReductionLoops() == 1)
      unitReadsDropped(op, unitRewriter);
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
