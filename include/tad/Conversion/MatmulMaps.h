//===- MatmulMaps.h - indexing maps of transposed matmuls -------*- C++ -*-===//
//
// tad.matmul's transpose flags become linalg indexing maps (TadToLinalg), and
// tad-matmul-to-runtime recognizes exactly those maps to pass the operand to
// BLAS as a transposed view. One definition keeps the two in step.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_CONVERSION_MATMULMAPS_H
#define TAD_CONVERSION_MATMULMAPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

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

/// The transposes `maps` encode, if they are one of `getMatmulMaps`'s four.
std::optional<MatmulTransposes> matchMatmulMaps(mlir::ArrayAttr maps,
                                                int64_t batch);

} // namespace tad

#endif // TAD_CONVERSION_MATMULMAPS_H
