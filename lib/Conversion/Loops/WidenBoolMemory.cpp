//===- WidenBoolMemory.cpp - i1 loads and stores as bytes -----------------===//
//
// A buffer of i1 (a mask: a compare's result, dropout's bernoulli draws)
// holds one byte an element, 0 or 1, and the conversion to the LLVM
// dialect reads and writes it as `load i1` and `store i1`. LLVM's loop
// vectorizer does not widen an access whose type is smaller than its
// store size (i1 is 1 bit in 8), so a loop that reads or writes a mask
// still vectorizes its arithmetic but moves the mask a byte at a time:
// 16 scalar loads (or stores), their addresses extracted from a vector,
// and a chain of mask-register shifts and ors to gather them, for every
// 16 elements. Each such access here becomes the same byte through i8:
// `load i8` and `trunc` to i1 (what LLVM's own lowering of a `load i1`
// does: the low bit), and `zext` to i8 and `store i8` (what a `store i1`
// writes). The bytes in memory are the same, and the loops vectorize
// their masks as 16 consecutive bytes.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace tad {
#define GEN_PASS_DEF_WIDENBOOLMEMORY
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {
struct WidenBoolMemory : tad::impl::WidenBoolMemoryBase<WidenBoolMemory> {
  void runOnOperation() override {
    SmallVector<LLVM::LoadOp> loads;
    SmallVector<LLVM::StoreOp> stores;
    getOperation().walk([&](Operation *op) {
      // Atomic accesses keep their type (an atomic i1 is not valid LLVM).
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        if (load.getType().isInteger(1) &&
            load.getOrdering() == LLVM::AtomicOrdering::not_atomic)
          loads.push_back(load);
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        if (store.getValue().getType().isInteger(1) &&
            store.getOrdering() == LLVM::AtomicOrdering::not_atomic)
          stores.push_back(store);
      }
    });
    OpBuilder b(&getContext());
    Type i8 = b.getI8Type(), i1 = b.getI1Type();
    for (LLVM::LoadOp load : loads) {
      b.setInsertionPoint(load);
      auto wide = LLVM::LoadOp::create(b, load.getLoc(), TypeRange{i8},
                                       load->getOperands(), load->getAttrs());
      Value bit = LLVM::TruncOp::create(b, load.getLoc(), i1, wide);
      load.getResult().replaceAllUsesWith(bit);
      load.erase();
    }
    for (LLVM::StoreOp store : stores) {
      b.setInsertionPoint(store);
      Value byte =
          LLVM::ZExtOp::create(b, store.getLoc(), i8, store.getValue());
      store.getValueMutable().assign(byte);
    }
  }
};
} // namespace
