//===- Signature.cpp - the tensor signature of an entry point -------------===//

#include "tad/Driver/Signature.h"

#include "dialects/tad/TadDialect.h"
#include "dialects/tad/TadOps.h"
#include "tad/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

#include <set>

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
  else if (element.isSignlessInteger(32))
    spec.dtype = tad::rt::DType::i32;
  else if (element.isSignlessInteger(64))
    spec.dtype = tad::rt::DType::i64;
  else
    return llvm::createStringError("function '" + function +
                                   "' has a tensor of an unsupported element "
                                   "type");
  spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return spec;
}

bool tad::driver::isEntryPoint(mlir::func::FuncOp fn) {
  // AD writes a derivative's body and makes it public.
  if (fn->hasAttr(tad::TadDialect::kDerivativeAttrName))
    return true;
  return fn.isPublic() && !fn.isDeclaration();
}

/// The name of parameter `i` of `fn`: the one the frontend declared
/// (tad.arg_name), or for a derivative that AD has yet to write, its
/// primal's (and d_result<k> for the cotangents of a vjp, as AD names them).
static std::string getParamName(mlir::func::FuncOp fn, unsigned i) {
  if (fn.isDeclaration())
    if (auto request = fn->getAttrOfType<tad::DerivativeAttr>(
            tad::TadDialect::kDerivativeAttrName)) {
      auto primal =
          mlir::SymbolTable::lookupNearestSymbolFrom<mlir::func::FuncOp>(
              fn, request.getPrimal());
      if (!primal || primal.isDeclaration())
        return "arg" + std::to_string(i);
      unsigned params = primal.getNumArguments();
      if (i >= params)
        return "d_" + tad::getResultName(primal, i - params);
      return tad::getArgName(primal, i);
    }
  return tad::getArgName(fn, i);
}

/// What each of a derivative's results is: for grad and value_and_grad,
/// `grad_W` for the gradient of parameter W, after value_and_grad's
/// `value` (the differentiated result) and `value1`, ... (the primal's
/// other results, `value1.l1.w` for a leaf of a record); for a vjp, `d_W`,
/// the cotangent of W. Empty for other functions, and where the results
/// are not laid out so.
static std::vector<std::string> getDerivativeResultNames(mlir::func::FuncOp fn) {
  auto request = fn->getAttrOfType<tad::DerivativeAttr>(
      tad::TadDialect::kDerivativeAttrName);
  if (!request)
    return {};
  auto primal = mlir::SymbolTable::lookupNearestSymbolFrom<mlir::func::FuncOp>(
      fn, request.getPrimal());
  if (!primal)
    return {};
  std::vector<std::string> names;
  if (request.getKind() == tad::DerivativeKind::value_and_grad)
    for (unsigned k = 0; k < primal.getNumResults(); ++k) {
      // `result2.l1.w` is `value2.l1.w`; result0 is `value`.
      std::string name = tad::getResultName(primal, k);
      name = "value" + name.substr(std::string("result").size());
      if (llvm::StringRef(name).starts_with("value0"))
        name.erase(5, 1);
      names.push_back(name);
    }
  const char *prefix =
      request.getKind() == tad::DerivativeKind::vjp ? "d_" : "grad_";
  for (int64_t position : request.getWrt()) {
    if (position < 0 || position >= int64_t(primal.getNumArguments()))
      return {};
    names.push_back(prefix + getParamName(primal, unsigned(position)));
  }
  if (names.size() != fn.getNumResults())
    return {};
  return names;
}

llvm::Expected<tad::rt::EntrySpec>
tad::driver::getSignature(const mlir::SymbolTable &symbols,
                          llvm::StringRef function) {
  auto fn = symbols.lookup<mlir::func::FuncOp>(function);
  if (!fn || !isEntryPoint(fn)) {
    auto module = llvm::cast<mlir::ModuleOp>(symbols.getOp());
    std::string names;
    for (auto f : module.getOps<mlir::func::FuncOp>())
      if (isEntryPoint(f))
        names += (names.empty() ? "" : ", ") + f.getName().str();
    return llvm::createStringError("no function '" + function.str() +
                                   "' to run; the functions are: " + names);
  }
  tad::rt::EntrySpec signature;
  signature.function = function.str();
  mlir::FunctionType type = fn.getFunctionType();
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    auto spec = getSpec(argType, getParamName(fn, i), function);
    if (!spec)
      return spec.takeError();
    signature.params.push_back(std::move(*spec));
  }
  // Results are named after what they are, where that is known; a name
  // that a parameter or another result has (the .npy files share a
  // folder, the C wrapper a parameter list) gets `_result`.
  std::vector<std::string> names = getDerivativeResultNames(fn);
  std::set<std::string> taken;
  for (const TensorSpec &param : signature.params)
    taken.insert(param.name);
  for (auto [i, resultType] : llvm::enumerate(type.getResults())) {
    std::string name = names.empty() ? tad::getResultName(fn, i) : names[i];
    while (!taken.insert(name).second)
      name += "_result";
    auto spec = getSpec(resultType, name, function);
    if (!spec)
      return spec.takeError();
    signature.results.push_back(std::move(*spec));
  }
  return signature;
}

void tad::driver::readPlannedPeaks(mlir::ModuleOp module,
                                   std::vector<rt::EntrySpec> &entries) {
  mlir::SymbolTable symbols(module);
  for (rt::EntrySpec &spec : entries) {
    // (Compiled outputs call it by its internal name.)
    mlir::Operation *fn = symbols.lookup(spec.function);
    if (!fn)
      fn = symbols.lookup(tad::getInternalName(spec.function));
    if (!fn)
      continue;
    if (auto peak = fn->getAttrOfType<mlir::IntegerAttr>(
            TadDialect::kBufferPeakAttrName))
      spec.plannedPeak = peak.getInt();
    spec.plannedPeakIsBound = fn->hasAttr(TadDialect::kBufferPeakBoundAttrName);
  }
}
