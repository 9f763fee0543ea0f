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

std::optional<ContractionLayout> tad::matchContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!isa<FloatType>(element))
    return std::nullopt;
  for (Value input : op.getDpsInputs())
    if (getElementTypeOrSelf(input.getType()) != element)
      return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->batch.size() > 1 || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1)
    return std::nullopt;
  ContractionLayout layout;
  layout.batch = dims->batch.size();
  if (layout.batch)
    layout.dims.push_back(dims->batch[0]);
  layout.dims.append({dims->m[0], dims->n[0], dims->k[0]});
  if (op.getNumLoops() != layout.dims.size())
    return std::nullopt;
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  std::array<SmallVector<unsigned, 3>, 3> canonical = {
      SmallVector<unsigned, 3>{m, k}, SmallVector<unsigned, 3>{k, n},
      SmallVector<unsigned, 3>{m, n}};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (int o = 0; o < 3; ++o) {
    if (layout.batch)
      canonical[o].insert(canonical[o].begin(), dims->batch[0]);
    AffineMap map = maps[o];
    if (map.getNumResults() != canonical[o].size())
      return std::nullopt;
    for (unsigned dim : canonical[o]) {
      std::optional<unsigned> position =
          map.getResultPosition(getAffineDimExpr(dim, op.getContext()));
      if (!position)
        return std::nullopt;
      layout.permutations[o].push_back(*position);
    }
  }
  return layout;
}
