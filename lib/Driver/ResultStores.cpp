//===- ResultStores.cpp - results stored where they are made -------------===//
//
// A C interface `_mlir_ciface_f` of a function with results writes their
// descriptors through its first argument, a pointer to memory of its
// caller's (a local array in the generated C wrapper, in the JIT runner).
// Once `f` is inlined into it, those stores all come at the end, after the
// last call: for a 100-layer MLP's gradient, 200 descriptors, 800 stores
// in a row, and the 400 pointers they store are live across every call
// before. LLVM's scheduler and register allocator take time superlinear in
// both: on a 200-layer MLP the stores cost more code-generation time than
// the rest of the program (llc: 3.0 s with them, 0.75 s without).
//
// The pointer is `noalias` (tad-annotate-llvm-functions): nothing but these
// stores touches that memory while the interface runs. Each store can
// then move up its block to just after what it stores is computed; the
// stores of constants (sizes, strides) follow the store before them, so
// that one descriptor's stores stay together.
//
//===----------------------------------------------------------------------===//

#include "tad/Driver/ResultStores.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

/// The stores through `out` in `function`, when `out` is only ever the
/// address of a store, directly or through constant-offset GEPs.
static bool collectResultStores(Argument &out,
                                SmallVectorImpl<StoreInst *> &stores) {
  SmallVector<Value *> worklist = {&out};
  while (!worklist.empty()) {
    Value *pointer = worklist.pop_back_val();
    for (User *user : pointer->users()) {
      if (auto *store = dyn_cast<StoreInst>(user)) {
        if (store->getPointerOperand() != pointer || store->isVolatile())
          return false;
        stores.push_back(store);
        continue;
      }
      auto *gep = dyn_cast<GetElementPtrInst>(user);
      if (!gep || gep->getPointerOperand() != pointer ||
          !gep->hasAllConstantIndices())
        return false;
      worklist.push_back(gep);
    }
  }
  return true;
}

/// Whether no two of `stores` write the same byte: then their order does
/// not matter.
static bool areDisjoint(ArrayRef<StoreInst *> stores, Argument &out) {
  const DataLayout &layout = out.getParent()->getDataLayout();
  SmallVector<std::pair<int64_t, int64_t>> ranges;
  for (StoreInst *store : stores) {
    APInt offset(layout.getIndexTypeSizeInBits(out.getType()), 0);
    Value *base = store->getPointerOperand()->stripAndAccumulateConstantOffsets(
        layout, offset, /*AllowNonInbounds=*/true);
    TypeSize size = layout.getTypeStoreSize(store->getValueOperand()->getType());
    if (base != &out || size.isScalable())
      return false;
    ranges.push_back({offset.getSExtValue(),
                      offset.getSExtValue() + int64_t(size.getFixedValue())});
  }
  llvm::sort(ranges);
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second)
      return false;
  return true;
}

/// The instruction of `block` that computes `value`, if any.
static Instruction *getLastDefinition(Value *value, BasicBlock *block) {
  auto *inst = dyn_cast<Instruction>(value);
  return inst && inst->getParent() == block ? inst : nullptr;
}

static void storeEarly(Function &function) {
  if (function.arg_empty() || !function.getArg(0)->hasNoAliasAttr() ||
      !function.getArg(0)->getType()->isPointerTy())
    return;
  SmallVector<StoreInst *> stores;
  if (!collectResultStores(*function.getArg(0), stores) ||
      !areDisjoint(stores, *function.getArg(0)))
    return;
  // In program order, block by block.
  SmallPtrSet<Instruction *, 32> results(stores.begin(), stores.end());
  DenseMap<BasicBlock *, SmallVector<StoreInst *>> byBlock;
  for (BasicBlock &block : function)
    for (Instruction &inst : block)
      if (results.contains(&inst))
        byBlock[&block].push_back(cast<StoreInst>(&inst));
  SetVector<GetElementPtrInst *> dead;
  for (auto &[block, blockStores] : byBlock) {
    Instruction *previous = nullptr;
    for (StoreInst *store : blockStores) {
      Instruction *after = getLastDefinition(store->getValueOperand(), block);
      // A constant follows the store before it (its descriptor's).
      if (!after)
        after = previous;
      BasicBlock::iterator at = after ? std::next(after->getIterator())
                                      : block->getFirstInsertionPt();
      if (isa<PHINode>(*at))
        at = block->getFirstInsertionPt();
      // The address is recomputed at the store's new place (a GEP of the
      // result pointer by constants); the old GEPs go once unused.
      SmallVector<GetElementPtrInst *> geps;
      for (Value *p = store->getPointerOperand();
           auto *gep = dyn_cast<GetElementPtrInst>(p);
           p = gep->getPointerOperand())
        geps.push_back(gep);
      Value *address = function.getArg(0);
      for (GetElementPtrInst *gep : llvm::reverse(geps)) {
        Instruction *copy = gep->clone();
        copy->takeName(gep);
        copy->setOperand(GetElementPtrInst::getPointerOperandIndex(), address);
        copy->insertBefore(*block, at);
        address = copy;
        dead.insert(gep);
      }
      store->setOperand(store->getPointerOperandIndex(), address);
      store->moveBefore(*block, at);
      previous = store;
    }
  }
  // Users first: a GEP of a GEP goes before its base.
  SmallVector<GetElementPtrInst *> unused = dead.takeVector();
  for (GetElementPtrInst *gep : llvm::reverse(unused))
    if (gep->use_empty())
      gep->eraseFromParent();
}

void tad::driver::storeResultsEarly(Module &module) {
  for (Function &function : module)
    if (!function.isDeclaration() &&
        function.getName().starts_with("_mlir_ciface_"))
      storeEarly(function);
}
