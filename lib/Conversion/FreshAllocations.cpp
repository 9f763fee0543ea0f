//===- FreshAllocations.cpp - buffers that no other argument overlaps ----===//

#include "FreshAllocations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

Value tad::viewRoot(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

SmallVector<bool> tad::ownAllocations(ArrayRef<Value> values) {
  SmallVector<Value> roots;
  for (Value value : values)
    roots.push_back(isa<MemRefType>(value.getType()) ? viewRoot(value)
                                                     : Value());
  auto isFresh = [](Value root) {
    return root && root.getDefiningOp<memref::AllocOp>();
  };
  auto isInput = [](Value root) {
    auto input = dyn_cast_if_present<BlockArgument>(root);
    return input && input.getOwner()->isEntryBlock() &&
           isa<func::FuncOp>(input.getOwner()->getParentOp());
  };
  SmallVector<bool> own(values.size(), false);
  for (auto [i, root] : llvm::enumerate(roots)) {
    if (!isFresh(root))
      continue;
    own[i] = llvm::all_of(llvm::enumerate(roots), [&](auto other) {
      auto [j, otherRoot] = other;
      if (j == i || !otherRoot)
        return true;
      return otherRoot != root && (isFresh(otherRoot) || isInput(otherRoot));
    });
  }
  return own;
}

/// The positions of the aligned pointers of `values` for which `picked`
/// holds, in the memref descriptor convention; `count` receives the number
/// of LLVM arguments.
static SmallVector<int64_t> pointerPositions(ArrayRef<Value> values,
                                             ArrayRef<bool> picked,
                                             int64_t &count) {
  SmallVector<int64_t> pointers;
  count = 0;
  for (auto [value, pick] : llvm::zip(values, picked)) {
    auto memref = dyn_cast<MemRefType>(value.getType());
    if (pick)
      pointers.push_back(count + 1);
    count += memref ? 3 + 2 * memref.getRank() : 1;
  }
  return pointers;
}

SmallVector<int64_t> tad::noaliasPointers(ArrayRef<Value> values,
                                          int64_t &count) {
  return pointerPositions(values, ownAllocations(values), count);
}

/// Whether `memref` is an input of an entry point: an argument of a public
/// function that no function of the module calls, which only the runtime's
/// callers call (tad_rt_stage_input copies their inputs into allocations of
/// its own, Aot.cpp's wrappers and Runner.cpp).
static bool isStagedInput(Value memref) {
  auto input = dyn_cast<BlockArgument>(memref);
  if (!input || !input.getOwner()->isEntryBlock())
    return false;
  auto func = dyn_cast<func::FuncOp>(input.getOwner()->getParentOp());
  if (!func || !func.isPublic())
    return false;
  Operation *module = SymbolTable::getNearestSymbolTable(func);
  return module && SymbolTable::symbolKnownUseEmpty(func, module);
}

/// Whether `memref`'s aligned pointer is that of an allocation or of an
/// entry point's input, moved by multiples of `alignment` bytes only: the
/// views on the way keep it (their offsets are the descriptor's), but for
/// `memref.view`, which moves it by its byte shift.
static bool keepsAlignment(Value memref, int64_t alignment) {
  while (!memref.getDefiningOp<memref::AllocOp>() && !isStagedInput(memref)) {
    auto view = memref.getDefiningOp<ViewLikeOpInterface>();
    if (!view)
      return false;
    if (auto bytes = memref.getDefiningOp<memref::ViewOp>()) {
      std::optional<int64_t> shift = getConstantIntValue(bytes.getByteShift());
      if (!shift || *shift % alignment != 0)
        return false;
    }
    memref = view.getViewSource();
  }
  return true;
}

SmallVector<int64_t> tad::alignedPointers(ArrayRef<Value> values,
                                          int64_t alignment, int64_t &count) {
  SmallVector<bool> aligned;
  for (Value value : values)
    aligned.push_back(isa<MemRefType>(value.getType()) &&
                      keepsAlignment(value, alignment));
  return pointerPositions(values, aligned, count);
}
