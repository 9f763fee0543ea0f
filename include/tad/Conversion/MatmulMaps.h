//===- MatmulMaps.h - indexing maps of transposed matmuls -------*- C++ -*-===//
//
// tad.matmul's transpose flags become linalg indexing maps (TadToLinalg);
// tad-fold-transposes-into-matmuls folds permutations of operands and
// results into the maps; tad-matmul-to-runtime passes each operand whose map
// permutes its dimensions to BLAS as a permuted view. One definition of the
// layouts keeps the three in step.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_CONVERSION_MATMULMAPS_H
#define TAD_CONVERSION_MATMULMAPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <array>
#include <optional>

namespace tad {

/// Which operands of a matmul are read transposed.
struct MatmulTransposes {
  bool lhs = false;
  bool rhs = false;
};

/// The maps of C[b, m, n] += op(A)[b, m, k] op(B)[b, k, n] with `batch`
/// (0 or 1) batch dimensions: linalg.matmul's or batch_matmul's default maps
/// with a transposed operand's last two indices swapped.
mlir::ArrayAttr getMatmulMaps(mlir::MLIRContext *context, int64_t batch,
                              MatmulTransposes transposes);

/// A contraction C[b, m, n] += A[b, m, k] B[b, k, n] (with `batch` 0 or 1
/// batch dimensions) whose operands may store their dimensions in any
/// order: `permutations[o][i]` is the dimension of operand o (A, B, C) that
/// holds the i-th dimension of that canonical order.
struct ContractionLayout {
  int64_t batch = 0;
  std::array<llvm::SmallVector<int64_t, 3>, 3> permutations;
  /// The iteration dimensions b (if any), m, n, k.
  llvm::SmallVector<unsigned, 4> dims;
};

/// The layout of `op` if it is a float multiply-add contraction of two
/// inputs into one output with at most one batch dimension and one each of
/// m, n and k, and every indexing map permutes all of its operand's
/// dimensions (no broadcast).
std::optional<ContractionLayout> matchContraction(mlir::linalg::LinalgOp op);

} // namespace tad

#endif // TAD_CONVERSION_MATMULMAPS_H
