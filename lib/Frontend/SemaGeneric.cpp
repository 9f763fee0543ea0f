//===- SemaGeneric.cpp - shape-generic functions --------------------------===//
//
// `fn layer[B, D](h: f32[B, D], w: f32[D, D]) -> f32[B, D]` is a template:
// each call binds B and D to the sizes of its arguments, and the function
// is instantiated once per set of sizes, as a function of static types of
// its own (`layer_B64_D128`). The instance is the generic declaration
// parsed again with its dimensions bound, so that everything after the
// frontend, and Sema for the body, sees static shapes only (the remat
// budget needs them). A request for the derivative of a generic function
// is generic too, and instantiated with its primal at the same sizes.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "tad/Frontend/Parser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace tad::lang;
using llvm::SMLoc;
using llvm::Twine;

/// Instances of one program at most: a guard against a program whose
/// instances would each need another (there is no arithmetic on
/// dimensions, so none can today), and against runaway compile times.
static constexpr size_t kMaxInstances = 10000;

std::string tad::lang::getInstanceName(llvm::StringRef function,
                                       llvm::ArrayRef<std::string> dims,
                                       llvm::ArrayRef<int64_t> sizes) {
  std::string name = function.str();
  for (auto [dim, size] : llvm::zip(dims, sizes))
    name += "_" + dim + std::to_string(size);
  return name;
}

/// The dimension parameters of a generic declaration.
static const std::vector<Name> &getDims(Decl &generic) {
  if (auto *request = llvm::dyn_cast<DerivativeDecl>(&generic))
    return request->primalDecl->dims;
  return llvm::cast<FunctionDecl>(generic).dims;
}

static std::vector<std::string> getDimNames(Decl &generic) {
  std::vector<std::string> names;
  for (const Name &dim : getDims(generic))
    names.push_back(dim.name);
  return names;
}

/// Every dimension parameter must be read off a parameter's type, so that
/// a call's arguments determine it; results may only use those.
bool SemaImpl::checkGenericSignature(FunctionDecl &fn) {
  llvm::StringSet<> inParams;
  for (const Param &param : fn.params)
    for (const std::string &dim : param.dims)
      if (!dim.empty())
        inParams.insert(dim);
  for (const Name &dim : fn.dims)
    if (!inParams.contains(dim.name))
      return diag.error(dim.loc, "dimension '" + dim.name + "' of '" +
                                     fn.getName() +
                                     "' appears in no parameter's type, so "
                                     "no call can determine it");
  return true;
}

bool SemaImpl::inferSizes(CallExpr &expr, Decl &generic,
                          std::vector<int64_t> &sizes) {
  const std::vector<Name> &dims = getDims(generic);
  std::vector<TensorType> params;
  std::vector<DimNames> paramDims;
  std::vector<std::string> paramNames;
  if (auto *fn = llvm::dyn_cast<FunctionDecl>(&generic)) {
    params = fn->getParamTypes();
    paramDims = fn->getParamDims();
    for (const Param &p : fn->params)
      paramNames.push_back(p.name);
  } else {
    auto *request = llvm::cast<DerivativeDecl>(&generic);
    params = request->paramTypes;
    paramDims = request->paramDims;
    paramNames.assign(params.size(), "");
  }
  sizes.assign(dims.size(), kSymbolicDim);
  std::vector<size_t> boundBy(dims.size());
  for (auto [i, arg] : llvm::enumerate(expr.args)) {
    std::string what = "argument " + std::to_string(i + 1) + " of '" +
                       expr.callee + "'";
    if (!paramNames[i].empty())
      what += " ('" + paramNames[i] + "')";
    if (!checkExpr(*arg.value) || !checkTensor(*arg.value, what))
      return false;
    const TensorType &type = arg.value->type.tensor;
    if (paramDims[i].empty())
      continue; // checkAssignable compares it with the instance's
    if (type.getRank() != params[i].getRank())
      return diag.error(arg.value->getLoc(),
                        what + " has type " + type.str() + " but '" +
                            expr.callee + "' takes " +
                            formatGenericType(params[i], paramDims[i]) +
                            " there");
    for (auto [d, dim] : llvm::enumerate(paramDims[i])) {
      if (dim.empty())
        continue;
      size_t k = llvm::find_if(dims, [&](const Name &n) {
                   return n.name == dim;
                 }) - dims.begin();
      int64_t size = type.shape[d];
      if (sizes[k] == kSymbolicDim) {
        sizes[k] = size;
        boundBy[k] = i;
        continue;
      }
      if (sizes[k] != size) {
        std::string first = "argument " + std::to_string(boundBy[k] + 1);
        if (!paramNames[boundBy[k]].empty())
          first += " ('" + paramNames[boundBy[k]] + "')";
        return diag.error(arg.value->getLoc(),
                          "dimension " + dim + " of '" + expr.callee +
                              "' is " + Twine(sizes[k]) + " in " + first +
                              " but " + Twine(size) + " in " + what + " (" +
                              type.str() + ")");
      }
    }
  }
  return true;
}

FunctionDecl *SemaImpl::instantiateFunction(FunctionDecl &generic,
                                            llvm::ArrayRef<int64_t> sizes,
                                            SMLoc at) {
  return llvm::cast_or_null<FunctionDecl>(instantiate(generic, sizes, at));
}

Decl *SemaImpl::instantiate(Decl &generic, llvm::ArrayRef<int64_t> sizes,
                            SMLoc at) {
  auto key = std::make_pair(&generic, sizes.vec());
  if (auto it = instances.find(key); it != instances.end())
    return it->second;
  if (instances.size() >= kMaxInstances) {
    diag.error(at, "more than " + Twine(kMaxInstances) +
                       " instances of generic functions");
    return nullptr;
  }
  std::string name =
      getInstanceName(generic.getName(), getDimNames(generic), sizes);
  if (Decl *other = functions.lookup(name)) {
    diag.error(at, "the instance of '" + generic.getName() +
                       "' at these sizes is named '" + name +
                       "', which the program defines too");
    diag.note(other->getNameLoc(), "'" + name + "' is defined here");
    return nullptr;
  }

  std::unique_ptr<Decl> instance;
  if (auto *request = llvm::dyn_cast<DerivativeDecl>(&generic)) {
    FunctionDecl *primal = instantiateFunction(*request->primalDecl, sizes, at);
    if (!primal)
      return nullptr;
    auto derivative = std::make_unique<DerivativeDecl>(
        request->getLoc(), Name{request->getNameLoc(), name}, request->kind,
        request->kindLoc, Name{request->primal.loc, primal->getName()},
        request->wrt, request->explicitWrt);
    derivative->generic = request;
    instance = std::move(derivative);
  } else {
    // The declaration parsed again from its first token, with its
    // dimensions bound: its locations are the generic one's.
    auto &fn = llvm::cast<FunctionDecl>(generic);
    llvm::StringMap<int64_t> bound;
    for (auto [dim, size] : llvm::zip(fn.dims, sizes))
      bound[dim.name] = size;
    const char *start = fn.getLoc().getPointer();
    llvm::StringRef text(start, module->source.end() - start);
    Parser parser(text, diag, &bound);
    instance = parser.parseOneDecl();
    if (!instance)
      return nullptr;
    auto *copy = llvm::cast<FunctionDecl>(instance.get());
    copy->rename(name);
    copy->generic = &fn;
    copy->sizes = sizes.vec();
    copy->instantiatedAt = at;
  }
  Decl *result = instance.get();
  functions[name] = result;
  instances[key] = result;
  module->decls.push_back(std::move(instance));
  if (auto *derivative = llvm::dyn_cast<DerivativeDecl>(result))
    if (!checkDerivative(*derivative))
      return nullptr;
  return result;
}

bool SemaImpl::instantiateRequests(llvm::ArrayRef<InstanceRequest> requests,
                                   std::vector<std::string> *instanceNames) {
  for (const InstanceRequest &request : requests) {
    Decl *generic = functions.lookup(request.function);
    // Requests come from the command line: their errors have no location.
    if (!generic)
      return diag.error(SMLoc(), "no function '" + request.function +
                                     "' to instantiate");
    if (!isGenericDecl(*generic))
      return diag.error(SMLoc(), "'" + request.function +
                                     "' has no dimension parameters to "
                                     "give sizes to");
    const std::vector<Name> &dims = getDims(*generic);
    std::vector<int64_t> sizes(dims.size(), kSymbolicDim);
    std::string all;
    for (const Name &dim : dims)
      all += (all.empty() ? "" : ", ") + dim.name;
    for (auto [dim, size] : request.sizes) {
      auto it = llvm::find_if(dims, [&](const Name &n) { return n.name == dim; });
      if (it == dims.end())
        return diag.error(SMLoc(), "'" + request.function +
                                       "' has no dimension '" + dim +
                                       "'; its dimensions are " + all);
      if (size < 1 || size > (int64_t(1) << 40))
        return diag.error(SMLoc(), "dimension " + dim + " = " + Twine(size) +
                                       " of '" + request.function +
                                       "' must be between 1 and 2^40");
      sizes[it - dims.begin()] = size;
    }
    for (auto [dim, size] : llvm::zip(dims, sizes))
      if (size == kSymbolicDim)
        return diag.error(SMLoc(), "'" + request.function + "' needs a size "
                                       "for each of its dimensions " + all +
                                       "; " + dim.name + " has none");
    Decl *instance = instantiate(*generic, sizes, generic->getNameLoc());
    if (!instance)
      return false;
    if (instanceNames)
      instanceNames->push_back(instance->getName());
  }
  return true;
}
