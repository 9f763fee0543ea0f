//===- MatmulMaps.cpp - indexing maps of transposed linalg matmuls --------===//

#include "tad/Conversion/MatmulMaps.h"

#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace tad;

ArrayAttr tad::getMatmulMaps(MLIRContext *context, int64_t batch,
                             MatmulTransposes transposes) {
  SmallVector<AffineExpr> batchDims;
  for (int64_t d = 0; d < batch; ++d)
    batchDims.push_back(getAffineDimExpr(d, context));
  // linalg's dimension order: batch..., m, n, k.
  AffineExpr m = getAffineDimExpr(batch, context),
             n = getAffineDimExpr(batch + 1, context),
             k = getAffineDimExpr(batch + 2, context);
  auto map = [&](AffineExpr row, AffineExpr col) -> Attribute {
    SmallVector<AffineExpr> results(batchDims);
    results.append({row, col});
    return AffineMapAttr::get(AffineMap::get(batch + 3, 0, results, context));
  };
  return ArrayAttr::get(context,
                        {transposes.lhs ? map(k, m) : map(m, k),
                         transposes.rhs ? map(n, k) : map(k, n), map(m, n)});
}

std::optional<MatmulTransposes> tad::matchMatmulMaps(ArrayAttr maps,
                                                     int64_t batch) {
  for (bool lhs : {false, true})
    for (bool rhs : {false, true})
      if (maps == getMatmulMaps(maps.getContext(), batch, {lhs, rhs}))
        return MatmulTransposes{lhs, rhs};
  return std::nullopt;
}
