//===- BufferizeWideSignatures.cpp - memref boundaries of wide functions --===//
//
// One-Shot Bufferize's function-boundary analysis (upstream's
// aliasingFuncOpBBArgsAnalysis) compares every tensor result of a function
// with every tensor argument: a record of 5,000 fields in and out is 25
// million queries, in each of the lowering's analyses and each plan of the
// remat pass. A function that nothing in the module calls needs none of
// that information (it serves only callers), so its boundary is
// bufferized here, as One-Shot would: arguments are writable buffers of
// identity layout that no other tensor aliases (to_tensor restrict
// writable), and results are the buffers of the returned tensors.
// tad-plan-buffers then copies a returned argument as it does any.
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace tad {
#define GEN_PASS_DEF_BUFFERIZEWIDESIGNATURES
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

MemRefType bufferTypeOf(RankedTensorType type) {
  return MemRefType::get(type.getShape(), type.getElementType());
}

int64_t countRanked(TypeRange types) {
  return llvm::count_if(types, llvm::IsaPred<RankedTensorType>);
}

void bufferizeSignature(func::FuncOp func) {
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  for (BlockArgument arg : entry.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    arg.setType(bufferTypeOf(type));
    auto tensor = bufferization::ToTensorOp::create(
        b, arg.getLoc(), type, arg, b.getUnitAttr(), b.getUnitAttr());
    arg.replaceAllUsesExcept(tensor, tensor);
  }
  SmallVector<Type> results;
  for (Type type : func.getResultTypes()) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    results.push_back(ranked ? Type(bufferTypeOf(ranked)) : type);
  }
  func.walk([&](func::ReturnOp ret) {
    b.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands())
      if (auto type = dyn_cast<RankedTensorType>(operand.get().getType()))
        operand.set(bufferization::ToBufferOp::create(
            b, ret.getLoc(), bufferTypeOf(type), operand.get()));
  });
  func.setType(
      FunctionType::get(func.getContext(), entry.getArgumentTypes(), results));
}

struct BufferizeWideSignatures
    : tad::impl::BufferizeWideSignaturesBase<BufferizeWideSignatures> {
  using Base::Base;

  void runOnOperation() override {
    tad::bufferizeWideSignatures(getOperation(), pairs);
  }
};

} // namespace

void tad::bufferizeWideSignatures(ModuleOp module, int64_t pairs) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || countRanked(func.getArgumentTypes()) *
                                     countRanked(func.getResultTypes()) <=
                                 pairs)
      continue;
    // A callee's boundary informs its callers' analysis: leave it to
    // One-Shot.
    if (!SymbolTable::symbolKnownUseEmpty(func, module))
      continue;
    bufferizeSignature(func);
  }
}
