//===- TadDialect.cpp - the tad dialect -----------------------------------===//
//
// Registers the tad ops and materializes the constants that folding creates.
//
//===----------------------------------------------------------------------===//

#include "dialects/tad/TadDialect.h"
#include "dialects/tad/TadOps.h"

using namespace mlir;
using namespace tad;

#include "dialects/tad/TadDialect.cpp.inc"

void TadDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tad/TadOps.cpp.inc"
      >();
  registerAttributes();
}

Operation *TadDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  auto tensorType = dyn_cast<RankedTensorType>(type);
  // Float and integer folds become tad.constant; i1 folds stay
  // unmaterialized (tad.compare's users fold them away).
  if (!tensorType || tensorType.getElementType().isInteger(1))
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
