//===- LoopAccesses.cpp - the element accesses of a loop nest -------------===//

#include "LoopAccesses.h"

#include "tad/Conversion/BufferBytes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

std::optional<SmallVector<tad::Access>> tad::accessesOf(Operation *root) {
  SmallVector<Access> accesses;
  WalkResult walk = root->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      accesses.push_back({load.getMemRef(), load.getIndices(), false});
      return WalkResult::advance();
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      accesses.push_back({store.getMemRef(), store.getIndices(), true});
      return WalkResult::advance();
    }
    if (isMemoryEffectFree(op) || isa<scf::ForOp, scf::ParallelOp, scf::IfOp,
                                      scf::YieldOp, scf::ReduceOp>(op))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return accesses;
}

bool tad::sameIndex(Value a, Value b) {
  if (a == b)
    return true;
  APInt x, y;
  return matchPattern(a, m_ConstantInt(&x)) &&
         matchPattern(b, m_ConstantInt(&y)) && x == y;
}

bool tad::sameIndices(ValueRange a, ValueRange b) {
  return a.size() == b.size() && llvm::all_of(llvm::zip(a, b), [](auto pair) {
           return sameIndex(std::get<0>(pair), std::get<1>(pair));
         });
}

bool tad::readOnlyGlobal(Value memref) {
  auto get = getViewedBuffer(memref).getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return false;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  return global && global.getConstant();
}

bool tad::shareWritten(ArrayRef<Access> a, ArrayRef<Access> b,
                       AliasAnalysis &alias) {
  for (const Access &x : a)
    for (const Access &y : b)
      if ((x.write || y.write) && !readOnlyGlobal(x.memref) &&
          !readOnlyGlobal(y.memref) && !alias.alias(x.memref, y.memref).isNo())
        return true;
  return false;
}
