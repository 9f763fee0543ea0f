//===- Signature.cpp - the tensor signature of an entry point -------------===//

#include "tad/Driver/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

using namespace tad::driver;
using tad::rt::TensorSpec;

static llvm::Expected<TensorSpec> getSpec(mlir::Type type, std::string name,
                                          llvm::StringRef function) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  TensorSpec spec;
  spec.name = std::move(name);
  if (!tensor || !tensor.hasStaticShape())
    return llvm::createStringError("function '" + function +
                                   "' has a non-tensor parameter or result");
  mlir::Type element = tensor.getElementType();
  if (element.isF32())
    spec.dtype = tad::rt::DType::f32;
  else if (element.isF64())
    spec.dtype = tad::rt::DType::f64;
  else if (element.isF16())
    spec.dtype = tad::rt::DType::f16;
  else if (element.isBF16())
    spec.dtype = tad::rt::DType::bf16;
  else
    return llvm::createStringError("function '" + function +
                                   "' has a tensor of an unsupported element "
                                   "type");
  spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return spec;
}

llvm::Expected<tad::rt::EntrySpec> tad::driver::getSignature(mlir::ModuleOp module,
                                                    llvm::StringRef function) {
  auto fn = module.lookupSymbol<mlir::func::FuncOp>(function);
  if (!fn || fn.isDeclaration()) {
    std::string names;
    for (auto f : module.getOps<mlir::func::FuncOp>())
      if (!f.isDeclaration() && f.isPublic())
        names += (names.empty() ? "" : ", ") + f.getName().str();
    return llvm::createStringError("no function '" + function.str() +
                                   "' to run; the functions are: " + names);
  }
  tad::rt::EntrySpec signature;
  signature.function = function.str();
  for (auto [i, arg] : llvm::enumerate(fn.getArguments())) {
    std::string name = "arg" + std::to_string(i);
    if (auto named = llvm::dyn_cast<mlir::NameLoc>(arg.getLoc()))
      name = named.getName().str();
    auto spec = getSpec(arg.getType(), name, function);
    if (!spec)
      return spec.takeError();
    signature.params.push_back(std::move(*spec));
  }
  for (auto [i, type] : llvm::enumerate(fn.getResultTypes())) {
    auto spec = getSpec(type, "result" + std::to_string(i), function);
    if (!spec)
      return spec.takeError();
    signature.results.push_back(std::move(*spec));
  }
  return signature;
}
