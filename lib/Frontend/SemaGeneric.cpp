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
#include "llvm/ADT/StringSwitch.h"

using namespace tad::lang;
using llvm::SMLoc;
using llvm::Twine;

/// Instances of one program at most: a guard against a program whose
/// instances would each need another (there is no arithmetic on
/// dimensions, so none can today), and against runaway compile times.
static constexpr size_t kMaxInstances = 10000;

/// The sizes of the leading dimensions `...`, which follow the sizes of
/// the generic parameters (SemaImpl::inferSizes).
static llvm::ArrayRef<int64_t> getPack(llvm::ArrayRef<GenericParam> params,
                                       llvm::ArrayRef<int64_t> sizes) {
  return sizes.drop_front(std::min(sizes.size(), params.size()));
}

/// `2x16`, or `scalar` for no leading dimensions.
static std::string formatPack(llvm::ArrayRef<int64_t> pack) {
  if (pack.empty())
    return "scalar";
  std::string text;
  for (int64_t size : pack)
    text += (text.empty() ? "" : "x") + std::to_string(size);
  return text;
}

std::string tad::lang::getInstanceName(llvm::StringRef function,
                                       llvm::ArrayRef<GenericParam> params,
                                       llvm::ArrayRef<int64_t> sizes) {
  std::string name = function.str();
  for (auto [param, size] : llvm::zip(params, sizes))
    name += "_" + (param.isPack ? formatPack(getPack(params, sizes))
                   : param.isType ? getElemKindName(ElemKind(size)).str()
                                  : param.name + std::to_string(size));
  return name;
}

/// The generic parameters of a generic declaration.
static const std::vector<GenericParam> &getDims(Decl &generic) {
  if (auto *request = llvm::dyn_cast<DerivativeDecl>(&generic))
    return request->primalDecl->dims;
  return llvm::cast<FunctionDecl>(generic).dims;
}

/// `B = 64, E = f64`.
static std::string describeSizes(llvm::ArrayRef<GenericParam> params,
                                 llvm::ArrayRef<int64_t> sizes) {
  std::string text;
  for (auto [param, size] : llvm::zip(params, sizes)) {
    std::string value;
    if (param.isPack) {
      value = "[";
      for (int64_t d : getPack(params, sizes))
        value += (value.size() > 1 ? ", " : "") + std::to_string(d);
      value += "]";
    } else {
      value = param.isType ? getElemKindName(ElemKind(size)).str()
                           : std::to_string(size);
    }
    text += (text.empty() ? "" : ", ") + param.name + " = " + value;
  }
  return text;
}

std::string SemaImpl::describeInstance(const FunctionDecl &fn) {
  return describeSizes(fn.generic->dims, fn.sizes);
}

/// Every generic parameter must be read off a parameter's type, so that a
/// call's arguments determine it; results may only use those.
bool SemaImpl::checkGenericSignature(FunctionDecl &fn) {
  llvm::StringSet<> inParams;
  for (const Param &param : fn.params) {
    if (llvm::any_of(fn.dims, [&](const GenericParam &d) {
          return d.name == param.name;
        }))
      return diag.error(
          param.loc, "'" + param.name + "' is a generic parameter of '" +
                         fn.getName() + "'; a parameter cannot take its name");
    for (const std::string &dim : param.dims)
      if (!dim.empty())
        inParams.insert(dim);
    if (!param.elemParam.empty())
      inParams.insert(param.elemParam);
    for (const RecordArg &arg : param.recordArgs)
      if (!arg.name.empty())
        inParams.insert(arg.name);
  }
  for (const GenericParam &dim : fn.dims)
    if (!inParams.contains(dim.name))
      return diag.error(
          dim.loc, std::string(dim.isPack   ? "the leading dimensions '"
                               : dim.isType ? "element type '"
                                            : "dimension '") +
                       dim.name + "' of '" + fn.getName() +
                       (dim.isPack ? "' appear" : "' appears") +
                       " in no parameter's type, so no call can determine " +
                       (dim.isPack ? "them" : "it"));
  return true;
}

namespace {
/// The parameters of a generic function or derivative request, as
/// inferSizes matches arguments with them.
struct GenericSignature {
  std::vector<Type> params;
  std::vector<DimNames> paramDims;
  std::vector<std::string> paramElems, paramNames;
  // The declared parameters, for their generic record types.
  llvm::ArrayRef<Param> paramDecls;
};
} // namespace

static GenericSignature getGenericSignature(Decl &generic) {
  GenericSignature signature;
  if (auto *fn = llvm::dyn_cast<FunctionDecl>(&generic)) {
    signature.params = fn->getParamTypes();
    signature.paramDims = fn->getParamDims();
    signature.paramElems = fn->getParamElemParams();
    for (const Param &p : fn->params)
      signature.paramNames.push_back(p.name);
    signature.paramDecls = fn->params;
  } else {
    auto *request = llvm::cast<DerivativeDecl>(&generic);
    signature.params = request->paramTypes;
    signature.paramDims = request->paramDims;
    signature.paramElems = request->paramElemParams;
    signature.paramNames.assign(signature.params.size(), "");
    signature.paramDecls = request->primalDecl->params;
  }
  return signature;
}

/// The sizes after every argument bound what it could: an element type
/// that only literals give is f32, as a literal's is; the pack's entry is
/// its rank, and its sizes follow the parameters'.
static void completeSizes(llvm::ArrayRef<GenericParam> dims,
                          llvm::ArrayRef<int64_t> pack,
                          std::vector<int64_t> &sizes) {
  for (auto [k, dim] : llvm::enumerate(dims)) {
    if (dim.isType && sizes[k] == kSymbolicDim)
      sizes[k] = int64_t(ElemKind::f32);
    if (dim.isPack)
      sizes[k] = int64_t(pack.size());
  }
  llvm::append_range(sizes, pack);
}

bool SemaImpl::inferSizes(CallExpr &expr, Decl &generic,
                          std::vector<int64_t> &sizes) {
  const std::vector<GenericParam> &dims = getDims(generic);
  GenericSignature signature = getGenericSignature(generic);
  const std::vector<Type> &params = signature.params;
  const std::vector<DimNames> &paramDims = signature.paramDims;
  const std::vector<std::string> &paramElems = signature.paramElems;
  const std::vector<std::string> &paramNames = signature.paramNames;
  llvm::ArrayRef<Param> paramDecls = signature.paramDecls;
  sizes.assign(dims.size(), kSymbolicDim);
  std::vector<size_t> boundBy(dims.size());
  // The leading dimensions `...`, bound by the first argument with them.
  std::vector<int64_t> pack;
  bool packBound = false;
  size_t packBy = 0;
  auto indexOf = [&](llvm::StringRef name) {
    return size_t(
        llvm::find_if(dims,
                      [&](const GenericParam &p) { return p.name == name; }) -
        dims.begin());
  };
  auto describeArg = [&](size_t i) {
    std::string what = "argument " + std::to_string(i + 1);
    if (!paramNames[i].empty())
      what += " ('" + paramNames[i] + "')";
    return what;
  };
  // Binds generic parameter k to `value` from argument i, or reports the
  // argument that bound it otherwise.
  auto bind = [&](size_t k, int64_t value, size_t i, Expr &arg) {
    if (sizes[k] == kSymbolicDim) {
      sizes[k] = value, boundBy[k] = i;
      return true;
    }
    if (sizes[k] == value)
      return true;
    auto show = [&](int64_t v) {
      return dims[k].isType ? getElemKindName(ElemKind(v)).str()
                            : std::to_string(v);
    };
    return diag.error(
        arg.getLoc(),
        std::string(dims[k].isType ? "element type " : "dimension ") +
            dims[k].name + " of '" + expr.callee + "' is " + show(sizes[k]) +
            " in " + describeArg(boundBy[k]) + " but " + show(value) + " in " +
            describeArg(i) + " (" + arg.type.tensor.str() + ")");
  };
  for (auto [i, arg] : llvm::enumerate(expr.args)) {
    // As checkUserCall names an argument: "argument 1 of 'f' ('x')".
    std::string what =
        "argument " + std::to_string(i + 1) + " of '" + expr.callee + "'";
    if (!paramNames[i].empty())
      what += " ('" + paramNames[i] + "')";
    if (!checkExpr(*arg.value))
      return false;
    // A generic record type (`p: Linear[E, I, O]`) binds the parameters it
    // names from the argument's record instance.
    if (i < paramDecls.size() && !paramDecls[i].recordArgs.empty() &&
        !paramDecls[i].record) {
      const Param &decl = paramDecls[i];
      const RecordType *given = arg.value->type.record;
      if (!arg.value->type.isRecord() || given->genericName != decl.recordName)
        return diag.error(arg.value->getLoc(),
                          what + " must be a record " + decl.recordName +
                              "[...], but it is " + arg.value->type.describe());
      for (auto [j, recordArg] : llvm::enumerate(decl.recordArgs)) {
        if (recordArg.name.empty()) {
          if (recordArg.value != given->args[j])
            return diag.error(arg.value->getLoc(),
                              what + " is a " + given->name + " but '" +
                                  expr.callee + "' takes a " +
                                  decl.recordName + " of another argument " +
                                  Twine(j + 1) + " there");
          continue;
        }
        if (!bind(indexOf(recordArg.name), given->args[j], i, *arg.value))
          return false;
      }
      continue;
    }
    if (params[i].isRecord())
      continue; // a record of fixed type: checkAssignable compares it
    if (!checkTensor(*arg.value, what))
      return false;
    const TensorType &type = arg.value->type.tensor;
    if (!paramElems[i].empty()) {
      // A literal takes the element type another argument gives, or f32.
      if (!arg.value->type.weak && !type.isFloat())
        return diag.error(arg.value->getLoc(),
                          what + " has type " + type.str() +
                              "; an element type parameter stands for a "
                              "float type");
      if (!arg.value->type.weak &&
          !bind(indexOf(paramElems[i]), int64_t(type.elem), i, *arg.value))
        return false;
    }
    if (paramDims[i].empty())
      continue; // checkAssignable compares it with the instance's
    // With `...` first, the named dimensions are the argument's last ones
    // and the leading ones are the pack.
    bool packed = paramDims[i].front() == kPackName;
    int64_t named = params[i].tensor.getRank() - (packed ? 1 : 0);
    if (packed ? type.getRank() < named
               : type.getRank() != params[i].tensor.getRank())
      return diag.error(
          arg.value->getLoc(),
          what + " has type " + type.str() + " but '" + expr.callee +
              "' takes " +
              formatGenericType(params[i].tensor, paramDims[i], paramElems[i]) +
              " there");
    int64_t leading = packed ? type.getRank() - named : 0;
    if (packed) {
      llvm::ArrayRef<int64_t> given =
          llvm::ArrayRef<int64_t>(type.shape).take_front(leading);
      if (!packBound) {
        pack.assign(given.begin(), given.end());
        packBound = true;
        packBy = i;
      } else if (given != llvm::ArrayRef<int64_t>(pack)) {
        return diag.error(arg.value->getLoc(),
                          "the leading dimensions '...' of '" + expr.callee +
                              "' are [" + formatPack(pack) + "] in " +
                              describeArg(packBy) + " but [" +
                              formatPack(given) + "] in " + describeArg(i) +
                              " (" + type.str() + ")");
      }
    }
    for (auto [d, dim] : llvm::enumerate(paramDims[i]))
      if (!dim.empty() && dim != kPackName &&
          !bind(indexOf(dim), type.shape[leading + d - (packed ? 1 : 0)], i,
                *arg.value))
        return false;
  }
  completeSizes(dims, pack, sizes);
  return true;
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
      getInstanceName(generic.getName(), getDims(generic), sizes);
  if (Decl *other = functions.lookup(name)) {
    diag.error(at, "the instance of '" + generic.getName() +
                       "' at these sizes is named '" + name +
                       "', which the program defines too");
    diag.note(other->getNameLoc(), "'" + name + "' is defined here");
    return nullptr;
  }

  std::unique_ptr<Decl> instance;
  if (auto *request = llvm::dyn_cast<DerivativeDecl>(&generic)) {
    auto *primal = llvm::cast_or_null<FunctionDecl>(
        instantiate(*request->primalDecl, sizes, at));
    if (!primal)
      return nullptr;
    auto derivative = std::make_unique<DerivativeDecl>(
        request->getLoc(), Name{request->getNameLoc(), name}, request->kind,
        request->kindLoc, Name{request->primal.loc, primal->getName()},
        request->wrt, request->explicitWrt);
    derivative->generic = request;
    instance = std::move(derivative);
  } else {
    auto &fn = llvm::cast<FunctionDecl>(generic);
    instance = parseInstance(fn, fn, sizes);
    if (!instance)
      return nullptr;
    auto *copy = llvm::cast<FunctionDecl>(instance.get());
    copy->rename(name);
    copy->generic = &fn;
    if (!resolveSignature(*copy))
      return nullptr;
    copy->sizes = sizes.vec();
    copy->instantiatedAt = at;
  }
  Decl *result = instance.get();
  functions[name] = result;
  instances[key] = result;
  module->decls.push_back(std::move(instance));
  // A generic function's rule is instantiated with it, at the same sizes;
  // its bodies are checked after the function's (SemaImpl::checkModule).
  auto *fn = llvm::dyn_cast<FunctionDecl>(result);
  if (fn && fn->generic && fn->generic->rule) {
    std::unique_ptr<Decl> parsed =
        parseInstance(*fn->generic->rule, *fn->generic, sizes);
    if (!parsed)
      return nullptr;
    auto *rule = llvm::cast<RuleDecl>(parsed.get());
    rule->rename(name);
    module->decls.push_back(std::move(parsed));
    if (!resolveSignature(*rule) || !linkRule(*rule, *fn)) {
      diag.note(at, "in the rrule for '" + fn->generic->getName() + "' at " +
                        describeInstance(*fn) + ", instantiated here");
      return nullptr;
    }
  }
  if (auto *derivative = llvm::dyn_cast<DerivativeDecl>(result))
    if (!checkDerivative(*derivative))
      return nullptr;
  return result;
}

std::unique_ptr<Decl> SemaImpl::parseInstance(Decl &generic,
                                              const FunctionDecl &fn,
                                              llvm::ArrayRef<int64_t> sizes) {
  llvm::StringMap<int64_t> bound;
  llvm::StringMap<ElemKind> types;
  for (auto [dim, size] : llvm::zip(fn.dims, sizes)) {
    if (dim.isType)
      types[dim.name] = ElemKind(size);
    else if (!dim.isPack)
      bound[dim.name] = size;
  }
  std::vector<int64_t> pack(getPack(fn.dims, sizes).vec());
  bool hasPack =
      llvm::any_of(fn.dims, [](const GenericParam &d) { return d.isPack; });
  // Its locations are the generic declaration's.
  const char *start = generic.getLoc().getPointer();
  auto source = llvm::find_if(module->sources, [&](llvm::StringRef text) {
    return text.begin() <= start && start < text.end();
  });
  assert(source != module->sources.end() && "a declaration of no file");
  llvm::StringRef text(start, source->end() - start);
  Parser parser(text, diag, &bound, &types, hasPack ? &pack : nullptr);
  return parser.parseOneDecl();
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
    const std::vector<GenericParam> &dims = getDims(*generic);
    std::vector<int64_t> sizes(dims.size(), kSymbolicDim);
    std::vector<int64_t> pack;
    std::string all;
    for (const GenericParam &dim : dims)
      all += (all.empty() ? "" : ", ") + dim.name;
    for (const auto &[dim, text] : request.sizes) {
      auto it = llvm::find_if(dims, [&, &dim = dim](const GenericParam &p) {
        return p.name == dim;
      });
      if (it == dims.end())
        return diag.error(SMLoc(), "'" + request.function +
                                       "' has no dimension '" + dim +
                                       "'; its dimensions are " + all);
      int64_t value;
      if (it->isPack) {
        // `...=16x32`, or `...=scalar` for none.
        pack.clear();
        llvm::SmallVector<llvm::StringRef> parts;
        if (text != "scalar")
          llvm::StringRef(text).split(parts, 'x');
        for (llvm::StringRef part : parts) {
          int64_t d;
          if (part.getAsInteger(10, d) || d < 1 || d > (int64_t(1) << 40))
            return diag.error(SMLoc(), "the leading dimensions ... = " + text +
                                           " of '" + request.function +
                                           "' must be sizes joined by x, as "
                                           "in 16x32, or scalar for none");
          pack.push_back(d);
        }
        value = int64_t(pack.size());
      } else if (it->isType) {
        std::optional<ElemKind> elem =
            llvm::StringSwitch<std::optional<ElemKind>>(text)
                .Case("f32", ElemKind::f32)
                .Case("f64", ElemKind::f64)
                .Case("f16", ElemKind::f16)
                .Case("bf16", ElemKind::bf16)
                .Default(std::nullopt);
        if (!elem)
          return diag.error(SMLoc(), "element type " + dim + " of '" +
                                         request.function +
                                         "' is f32, f64, "
                                         "f16 or bf16, not '" +
                                         text + "'");
        value = int64_t(*elem);
      } else if (llvm::StringRef(text).getAsInteger(10, value) || value < 1 ||
                 value > (int64_t(1) << 40)) {
        return diag.error(SMLoc(), "dimension " + dim + " = " + text + " of '" +
                                       request.function +
                                       "' must be an integer between 1 and "
                                       "2^40");
      }
      sizes[it - dims.begin()] = value;
    }
    for (auto [dim, size] : llvm::zip(dims, sizes))
      if (size == kSymbolicDim)
        return diag.error(SMLoc(), "'" + request.function +
                                       "' needs a size "
                                       "for each of its dimensions " +
                                       all + "; " + dim.name + " has none");
    llvm::append_range(sizes, pack);
    Decl *instance = instantiate(*generic, sizes, generic->getNameLoc());
    if (!instance)
      return false;
    if (instanceNames)
      instanceNames->push_back(instance->getName());
  }
  return true;
}
