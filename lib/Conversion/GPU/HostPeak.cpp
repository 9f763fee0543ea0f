//===- HostPeak.cpp - whether moving host operations keeps the peak -------===//

#include "HostPeak.h"

#include "dialects/tad/TadDialect.h"
#include "tad/Conversion/BufferBytes.h"
#include "tad/Conversion/RuntimeFunctions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"

#include <optional>

using namespace mlir;
using namespace tad;

SmallVector<Operation *> tad::orderOf(Block *block) {
  return llvm::map_to_vector(*block, [](Operation &op) { return &op; });
}

void tad::moveBefore(SmallVectorImpl<Operation *> &order, Operation *op,
                     Operation *anchor) {
  order.erase(llvm::find(order, op));
  order.insert(llvm::find(order, anchor), op);
}

void tad::moveAfter(SmallVectorImpl<Operation *> &order, Operation *op,
                    Operation *anchor) {
  order.erase(llvm::find(order, op));
  order.insert(std::next(llvm::find(order, anchor)), op);
}

/// What `op` adds to the live bytes once it has run, where that is known:
/// an allocation's or a free's size, as the buffer plan counts it, or
/// nothing for scratch and for an operation that neither calls the
/// program's functions nor allocates or frees inside.
static std::optional<int64_t> deltaOf(Operation *op) {
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    if (isScratchAllocation(op))
      return 0;
    int64_t bytes = getMemRefByteSize(alloc.getType());
    if (alloc.getAlignment() || bytes < 0)
      return std::nullopt;
    return bytes;
  }
  if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
    Value buffer = getViewedBuffer(dealloc.getMemref());
    if (isScratchAllocation(buffer.getDefiningOp()))
      return 0;
    int64_t bytes = getMemRefByteSize(buffer.getType());
    if (bytes < 0)
      return std::nullopt;
    return -bytes;
  }
  // The runtime's own functions (declarations: cuBLAS's GEMM, the test of
  // whether cuBLAS is there, the scratch mark) allocate nothing that the
  // allocator counts, as the buffer plan has it (traceBuffers); a function
  // of the program may.
  bool opaque =
      op->walk([](Operation *inner) {
          if (auto call = dyn_cast<func::CallOp>(inner)) {
            auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                call, call.getCalleeAttr());
            return callee && callee.isDeclaration() ? WalkResult::advance()
                                                    : WalkResult::interrupt();
          }
          return isa<memref::AllocOp, memref::DeallocOp, CallOpInterface>(inner)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        }).wasInterrupted();
  if (opaque)
    return std::nullopt;
  return 0;
}

/// The highest live total of `block`'s operations in their order, before
/// the first of an unknown count.
static int64_t highestOf(Block *block) {
  int64_t live = 0, highest = 0;
  for (Operation &op : *block) {
    std::optional<int64_t> delta = deltaOf(&op);
    if (!delta)
      break;
    live += *delta;
    highest = std::max(highest, live);
  }
  return highest;
}

int64_t tad::planPeakOf(Block *block) {
  Operation *parent = block->getParentOp();
  unsigned region = block->getParent()->getRegionNumber();
  SmallVector<int64_t> peaks(parent->getNumRegions(), -1);
  if (auto recorded = parent->getAttrOfType<DenseI64ArrayAttr>(
          TadDialect::kHostPeaksAttrName))
    peaks.assign(recorded.asArrayRef().begin(), recorded.asArrayRef().end());
  if (peaks[region] < 0) {
    peaks[region] = highestOf(block);
    parent->setAttr(TadDialect::kHostPeaksAttrName,
                    DenseI64ArrayAttr::get(parent->getContext(), peaks));
  }
  return peaks[region];
}

bool tad::keepsPeak(Block *block, ArrayRef<Operation *> order,
                    const SmallPtrSetImpl<Operation *> *vanish) {
  SmallVector<Operation *> own = orderOf(block);
  if (own.size() != order.size())
    return false;
  size_t first = 0, last = own.size();
  while (first < own.size() && own[first] == order[first])
    ++first;
  while (last > first && own[last - 1] == order[last - 1])
    --last;
  // The changed span lies before the first operation of an unknown count.
  for (size_t i = 0; i < last; ++i)
    if (!deltaOf(own[i]))
      return false;
  // The new order's totals, without the buffers that kernels keep: at
  // most the current order's where the two agree (an allocation and its
  // frees go together), which earlier steps kept within the plan's peak,
  // so only the changed span is checked.
  int64_t highest = planPeakOf(block), live = 0;
  for (size_t i = 0; i < last; ++i) {
    Operation *op = order[i];
    if (vanish && vanish->contains(op))
      continue;
    live += *deltaOf(op);
    if (i >= first && live > highest)
      return false;
  }
  return true;
}
