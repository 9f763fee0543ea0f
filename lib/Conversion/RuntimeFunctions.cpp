//===- RuntimeFunctions.cpp - declarations of the runtime's functions -----===//

#include "tad/Conversion/RuntimeFunctions.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

func::FuncOp tad::getOrDeclareRuntimeFunction(ModuleOp module, StringRef name,
                                              FunctionType type) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

bool tad::isCudaGemmCall(StringRef callee) {
  return callee.starts_with("tad_rt_cuda_") &&
         (callee.ends_with("_f32") || callee.ends_with("_f64")) &&
         callee.contains("matmul");
}

bool tad::isScratchAllocation(Operation *op) {
  auto mark =
      dyn_cast_if_present<func::CallOp>(op ? op->getPrevNode() : nullptr);
  return isa_and_present<memref::AllocOp>(op) && mark &&
         mark.getCallee() == kMarkScratchFunction;
}
