//===- BufferBytes.cpp - what an allocation or a free counts --------------===//

#include "tad/Conversion/BufferBytes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>

using namespace mlir;

int64_t tad::getMemRefByteSize(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return -1;
  Type element = memref.getElementType();
  int64_t bits =
      element.isIntOrIndexOrFloat()
          ? (element.isIndex() ? 64 : element.getIntOrFloatBitWidth())
          : 64;
  return memref.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

Value tad::getViewedBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewSource() == v)
      break;
    v = view.getViewSource();
  }
  return v;
}
