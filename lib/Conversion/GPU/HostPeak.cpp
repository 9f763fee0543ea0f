//===- HostPeak.cpp - whether moving host operations keeps the peak -------===//

#include "HostPeak.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include <optional>

using namespace mlir;

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

/// The bytes of a buffer of `type`, as the runtime's allocator counts them
/// (its elements' sizes), where its shape is static.
static std::optional<int64_t> bytesOf(Operation *at, Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity())
    return std::nullopt;
  int64_t size = DataLayout::closest(at)
                     .getTypeSize(memref.getElementType())
                     .getFixedValue();
  return memref.getNumElements() * size;
}

/// Whether `op` calls `tad_rt_mark_scratch`, which marks the next
/// allocation as scratch (a long reduction's partial results), which the
/// runtime counts apart from the plan's buffers.
static bool marksScratch(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && call.getCallee() == "tad_rt_mark_scratch";
}

/// The scratch buffers that `block` allocates.
static DenseSet<Value> scratchOf(Block *block) {
  DenseSet<Value> scratch;
  for (Operation &op : *block)
    if (marksScratch(&op))
      if (auto alloc = dyn_cast_or_null<memref::AllocOp>(op.getNextNode()))
        scratch.insert(alloc);
  return scratch;
}

/// What `op` adds to the live bytes once it has run, where that is known:
/// an allocation's or a free's size, or nothing for scratch and for an
/// operation that neither calls the program's functions nor allocates or
/// frees inside.
static std::optional<int64_t> deltaOf(Operation *op,
                                      const DenseSet<Value> &scratch) {
  if (marksScratch(op))
    return 0;
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    if (scratch.contains(alloc))
      return 0;
    if (alloc.getAlignment() || !alloc.getOperands().empty())
      return std::nullopt;
    return bytesOf(op, alloc.getType());
  }
  if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
    if (scratch.contains(dealloc.getMemref()))
      return 0;
    std::optional<int64_t> bytes = bytesOf(op, dealloc.getMemref().getType());
    if (!bytes)
      return std::nullopt;
    return -*bytes;
  }
  // The runtime's own functions (declarations: cuBLAS's GEMM, the test of
  // whether cuBLAS is there) allocate nothing that the allocator counts,
  // as the buffer plan has it (traceBuffers); a function of the program
  // may.
  bool opaque =
      op->walk([](Operation *inner) {
          auto call = dyn_cast<func::CallOp>(inner);
          if (call) {
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

bool tad::keepsPeak(Block *block, ArrayRef<Operation *> order) {
  SmallVector<Operation *> own = orderOf(block);
  if (own.size() != order.size())
    return false;
  size_t first = 0, last = own.size();
  while (first < own.size() && own[first] == order[first])
    ++first;
  if (first == own.size())
    return true;
  while (last > first && own[last - 1] == order[last - 1])
    --last;
  DenseSet<Value> scratch = scratchOf(block);
  // The block's own highest total before an unknown count, and its total
  // where the moved span begins.
  int64_t live = 0, highest = 0, atSpan = 0;
  for (size_t i = 0; i < own.size(); ++i) {
    if (i == first)
      atSpan = live;
    std::optional<int64_t> delta = deltaOf(own[i], scratch);
    if (!delta) {
      if (i < last)
        return false;
      break;
    }
    live += *delta;
    highest = std::max(highest, live);
  }
  live = atSpan;
  for (size_t i = first; i < last; ++i) {
    live += *deltaOf(order[i], scratch);
    if (live > highest)
      return false;
  }
  return true;
}
