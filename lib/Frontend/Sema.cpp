//===- Sema.cpp - declarations, statements and scopes ---------------------===//
//
// The checks of docs/language.md that concern names, statements and
// declarations. Variables are never shadowed: a `let` of a name that is
// visible already is a redefinition, which keeps every read of a name
// unambiguous for the reader and for MLIRGen.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <functional>

using namespace tad::lang;
using llvm::SMLoc;

bool tad::lang::checkModule(Module &module, DiagnosticEngine &diag,
                            llvm::ArrayRef<InstanceRequest> requests,
                            std::vector<std::string> *instanceNames) {
  return SemaImpl(diag).checkModule(module, requests, instanceNames);
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

SemaImpl::Variable *SemaImpl::lookupVariable(llvm::StringRef name) {
  for (auto &scope : llvm::reverse(scopes)) {
    auto it = scope.find(name);
    if (it != scope.end())
      return &it->second;
  }
  return nullptr;
}

bool SemaImpl::declareVariable(const Name &name, ValueType type) {
  if (Variable *previous = lookupVariable(name.name)) {
    diag.error(name.loc, "redefinition of '" + name.name +
                             "'; assign to it with " + name.name +
                             " = ... instead");
    diag.note(previous->loc, "'" + name.name + "' was defined here");
    return false;
  }
  type.weak = false; // a named value has a fixed element type
  scopes.back()[name.name] =
      Variable{name.loc, std::move(type), unsigned(scopes.size() - 1)};
  return true;
}

static void addOnce(std::vector<std::string> &list, llvm::StringRef name) {
  if (!llvm::is_contained(list, name))
    list.push_back(name.str());
}

void SemaImpl::recordRead(llvm::StringRef name, const Variable &var) {
  recordRead(name, var.type.getType(), var);
}

void SemaImpl::recordWrite(llvm::StringRef name, const Variable &var) {
  recordWrite(name, var.type.getType(), var);
}

void SemaImpl::recordRead(llvm::StringRef name, const Type &type,
                          const Variable &var) {
  for (EffectFrame &frame : frames)
    if (var.depth < frame.depth)
      for (const std::string &leaf : type.getLeafNames(name))
        addOnce(frame.effects->reads, leaf);
}

void SemaImpl::recordWrite(llvm::StringRef name, const Type &type,
                           const Variable &var) {
  for (EffectFrame &frame : frames)
    if (var.depth < frame.depth)
      for (const std::string &leaf : type.getLeafNames(name))
        addOnce(frame.effects->writes, leaf);
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

bool SemaImpl::checkModule(Module &module,
                           llvm::ArrayRef<InstanceRequest> requests,
                           std::vector<std::string> *instanceNames) {
  this->module = &module;
  if (!collectDecls(module) || !resolveStructs(module))
    return false;
  // By index: resolving a signature may instantiate generic structs, which
  // join the module.
  for (size_t i = 0; i < module.decls.size(); ++i)
    if (!resolveSignature(*module.decls[i]))
      return false;
  for (auto &decl : module.decls)
    if (auto *derivative = llvm::dyn_cast<DerivativeDecl>(decl.get()))
      if (!checkDerivative(*derivative))
        return false;
  for (auto &decl : module.decls)
    if (auto *rule = llvm::dyn_cast<RuleDecl>(decl.get()))
      if (!checkRuleSignature(*rule))
        return false;
  if (!instantiateRequests(requests, instanceNames))
    return false;
  // Instances join the module as calls need them: by index, since the
  // vector grows while it is walked. A generic function's body is checked
  // in each of its instances.
  for (size_t i = 0; i < module.decls.size(); ++i) {
    Decl *decl = module.decls[i].get();
    if (auto *fn = llvm::dyn_cast<FunctionDecl>(decl)) {
      if (fn->isGeneric())
        continue;
      if (!checkFunctionBody(*fn)) {
        if (fn->generic)
          diag.note(fn->instantiatedAt, "in '" + fn->generic->getName() +
                                            "' at " + describeInstance(*fn) +
                                            ", instantiated here");
        return false;
      }
    } else if (auto *rule = llvm::dyn_cast<RuleDecl>(decl)) {
      if (rule->isGeneric())
        continue;
      if (!checkRuleBodies(*rule)) {
        if (FunctionDecl *generic = rule->primalDecl->generic)
          diag.note(rule->primalDecl->instantiatedAt,
                    "in the rrule for '" + generic->getName() + "' at " +
                        describeInstance(*rule->primalDecl) +
                        ", instantiated here");
        return false;
      }
    }
  }
  return checkNoRecursion(module);
}

bool SemaImpl::collectDecls(Module &module) {
  for (auto &decl : module.decls) {
    const std::string &name = decl->getName();
    if (auto *record = llvm::dyn_cast<StructDecl>(decl.get())) {
      if (isBuiltinName(name))
        diag.remark(decl->getNameLoc(),
                    "struct '" + name + "' shadows the builtin function of "
                                        "that name in this program");
      auto [it, inserted] = structs.try_emplace(name, record);
      if (!inserted) {
        diag.error(decl->getNameLoc(), "redefinition of struct '" + name + "'");
        diag.note(it->second->getNameLoc(), "'" + name + "' was defined here");
        return false;
      }
      continue;
    }
    // A rule joins its function once every name is known
    // (checkRuleSignature), which also finds a second rule for it.
    if (llvm::isa<RuleDecl>(decl.get()))
      continue;
    // A function may take a builtin's name: calls in this program then
    // reach it, so that a new builtin never breaks a program that already
    // defined a function of that name.
    if (isBuiltinName(name))
      diag.remark(decl->getNameLoc(),
                  "'" + name + "' shadows the builtin function of that name "
                               "in this program");
    auto [it, inserted] = functions.try_emplace(name, decl.get());
    if (!inserted && shadowLibraryFunction(*it->second, *decl))
      inserted = true;
    if (!inserted) {
      diag.error(decl->getNameLoc(), "redefinition of function '" + name + "'");
      diag.note(it->second->getNameLoc(), "'" + name + "' was defined here");
      return false;
    }
    // Parameters are variables of the function's scope: no duplicates.
    if (auto *fn = llvm::dyn_cast<FunctionDecl>(decl.get())) {
      if (fn->isGeneric() && !checkGenericSignature(*fn))
        return false;
      llvm::StringMap<SMLoc> seen;
      for (const Param &param : fn->params) {
        auto [pit, fresh] = seen.try_emplace(param.name, param.loc);
        if (!fresh) {
          diag.error(param.loc, "parameter '" + param.name +
                                    "' appears twice in '" + name + "'");
          return false;
        }
      }
    }
  }
  // A struct's name is its constructor's: no function may take it.
  for (auto &entry : structs)
    if (Decl *fn = functions.lookup(entry.getKey())) {
      diag.error(fn->getNameLoc(), "'" + entry.getKey().str() +
                                       "' is the name of a struct; a "
                                       "function cannot take it");
      diag.note(entry.getValue()->getNameLoc(), "the struct is defined here");
      return false;
    }
  return true;
}

size_t SemaImpl::getSourceIndex(SMLoc loc) const {
  const char *p = loc.getPointer();
  auto it = llvm::find_if(module->sources, [&](llvm::StringRef text) {
    return text.begin() <= p && p < text.end();
  });
  return it - module->sources.begin();
}

bool SemaImpl::shadowLibraryFunction(Decl &library, Decl &program) {
  // The program's own file is the first source; an import's come after.
  size_t librarySource = getSourceIndex(library.getNameLoc());
  if (getSourceIndex(program.getNameLoc()) != 0 || librarySource == 0 ||
      librarySource >= module->sources.size() ||
      !llvm::isa<FunctionDecl>(library) || !llvm::isa<FunctionDecl>(program))
    return false;
  llvm::SourceMgr &sourceMgr = diag.getSourceMgr();
  llvm::StringRef file = llvm::sys::path::stem(
      sourceMgr
          .getMemoryBuffer(sourceMgr.FindBufferContainingLoc(library.getNameLoc()))
          ->getBufferIdentifier());
  std::string name = library.getName();
  // A dot is in no identifier: the hidden name cannot clash.
  std::string hidden = name + "." + file.str();
  library.rename(hidden);
  library.setShadowed();
  functions[name] = &program;
  functions[hidden] = &library;
  shadowedNames[{librarySource, name}] = hidden;
  diag.remark(program.getNameLoc(),
              "'" + name + "' shadows the function of that name in " +
                  file + ".tad in this program; calls in " + file +
                  ".tad keep theirs");
  return true;
}

llvm::StringRef SemaImpl::resolveCallee(SMLoc loc, llvm::StringRef name) {
  if (shadowedNames.empty())
    return name;
  auto it = shadowedNames.find({getSourceIndex(loc), name.str()});
  return it == shadowedNames.end() ? name : llvm::StringRef(it->second);
}

static std::string joinParamNames(const FunctionDecl &fn) {
  std::string names;
  for (const Param &param : fn.params)
    names += (names.empty() ? "" : ", ") + param.name;
  return names.empty() ? "none" : names;
}

bool SemaImpl::checkDerivative(DerivativeDecl &decl) {
  std::string kind = getRequestKindName(decl.kind).str();
  // A request in a library file names that file's function.
  decl.primal.name = resolveCallee(decl.primal.loc, decl.primal.name).str();
  auto it = functions.find(decl.primal.name);
  if (it == functions.end() && isBuiltinName(decl.primal.name))
    return diag.error(decl.primal.loc,
                      "'" + decl.primal.name + "' is a builtin; " + kind +
                          " takes a function written with fn");
  if (it == functions.end())
    return diag.error(decl.primal.loc,
                      "unknown function '" + decl.primal.name + "' in " +
                          kind + "(...)");
  auto *primal = llvm::dyn_cast<FunctionDecl>(it->second);
  if (!primal)
    return diag.error(decl.primal.loc,
                      "'" + decl.primal.name +
                          "' is itself a derivative request; tad "
                          "differentiates functions written with fn");
  decl.primalDecl = primal;

  if (primal->params.empty())
    return diag.error(decl.primal.loc, "'" + primal->getName() +
                                           "' has no parameters to "
                                           "differentiate");
  if (decl.explicitWrt && decl.wrt.empty())
    return diag.error(decl.kindLoc, "wrt lists no parameters; leave it out "
                                    "to differentiate with respect to all");
  // Integers have no derivative: an integer parameter (or a record with an
  // integer field) is a constant of the derivative.
  auto hasInteger = [](const Type &type) {
    return llvm::any_of(type.getLeafTypes(),
                        [](const TensorType &t) { return t.isInteger(); });
  };
  if (!decl.explicitWrt) {
    for (int64_t i = 0, e = primal->params.size(); i < e; ++i)
      if (!hasInteger(primal->params[i].getType()))
        decl.wrtPositions.push_back(i);
    if (decl.wrtPositions.empty())
      return diag.error(decl.primal.loc,
                        "'" + primal->getName() +
                            "' has no float parameters to differentiate; "
                            "integers have no derivative");
  }
  for (const Name &name : decl.wrt) {
    auto param = llvm::find_if(primal->params, [&](const Param &p) {
      return p.name == name.name;
    });
    if (param == primal->params.end())
      return diag.error(name.loc, "'" + name.name + "' is not a parameter of '" +
                                      primal->getName() +
                                      "'; its parameters are " +
                                      joinParamNames(*primal));
    int64_t position = param - primal->params.begin();
    if (llvm::is_contained(decl.wrtPositions, position))
      return diag.error(name.loc, "'" + name.name + "' appears twice in wrt");
    if (hasInteger(param->getType()))
      return diag.error(name.loc,
                        "'" + name.name + "' is " +
                            (param->getType().isRecord()
                                 ? "a record with an integer field"
                                 : "an " + param->getType().str() + " tensor") +
                            "; integers have no derivative, so it cannot be "
                            "in wrt");
    decl.wrtPositions.push_back(position);
  }

  std::vector<Type> primalResults = primal->getResultTypes();
  auto isScalarFloat = [](const Type &t) {
    return !t.isRecord() && t.tensor.isScalar() && t.tensor.isFloat();
  };
  if (decl.kind == RequestKind::grad &&
      (primalResults.size() != 1 || !isScalarFloat(primalResults.front())))
    return diag.error(decl.kindLoc,
                      "grad(" + primal->getName() + ") needs '" +
                          primal->getName() +
                          "' to return one scalar, but it returns " +
                          formatTypes(primalResults) +
                          "; use value_and_grad (which differentiates the "
                          "first result) or vjp");
  if (decl.kind == RequestKind::value_and_grad &&
      !isScalarFloat(primalResults.front()))
    return diag.error(decl.kindLoc,
                      "value_and_grad(" + primal->getName() + ") needs the "
                          "first result of '" + primal->getName() +
                          "' to be a scalar, but it is " +
                          primalResults.front().str() + "; use vjp");

  if (decl.kind == RequestKind::vjp)
    for (auto [i, result] : llvm::enumerate(primalResults))
      if (hasInteger(result))
        return diag.error(decl.kindLoc,
                          "vjp(" + primal->getName() + ") needs float "
                              "results, but result " + std::to_string(i) + " is " +
                              result.str() +
                              "; integers have no cotangent (return them "
                              "from another function)");

  decl.paramTypes = primal->getParamTypes();
  decl.paramDims = primal->getParamDims();
  decl.paramElemParams = primal->getParamElemParams();
  std::vector<Type> cotangents;
  std::vector<DimNames> cotangentDims;
  for (int64_t position : decl.wrtPositions) {
    cotangents.push_back(primal->params[position].getType());
    cotangentDims.push_back(primal->params[position].dims);
  }
  std::vector<DimNames> primalResultDims = primal->getResultDims();
  switch (decl.kind) {
  case RequestKind::grad:
    decl.resultTypes = cotangents;
    decl.resultDims = cotangentDims;
    break;
  case RequestKind::value_and_grad:
    decl.resultTypes = primalResults;
    llvm::append_range(decl.resultTypes, cotangents);
    decl.resultDims = primalResultDims;
    llvm::append_range(decl.resultDims, cotangentDims);
    break;
  case RequestKind::vjp:
    llvm::append_range(decl.paramTypes, primalResults);
    llvm::append_range(decl.paramDims, primalResultDims);
    for (const TypeWithLoc &result : primal->results)
      decl.paramElemParams.push_back(result.elemParam);
    decl.resultTypes = cotangents;
    decl.resultDims = cotangentDims;
    break;
  }
  return true;
}

bool SemaImpl::checkRuleSignature(RuleDecl &rule) {
  // A rule in a library file is for that file's function, which a
  // function of the program may shadow.
  rule.rename(resolveCallee(rule.getNameLoc(), rule.getName()).str());
  auto it = functions.find(rule.getName());
  auto *primal =
      it == functions.end() ? nullptr : llvm::dyn_cast<FunctionDecl>(it->second);
  if (!primal)
    return diag.error(rule.getNameLoc(),
                      "rrule for '" + rule.getName() +
                          "', which is not a function defined with fn");
  return linkRule(rule, *primal);
}

bool SemaImpl::linkRule(RuleDecl &rule, FunctionDecl &function) {
  FunctionDecl *primal = &function;
  if (primal->rule) {
    diag.error(rule.getNameLoc(),
               "a second rrule for '" + rule.getName() + "'");
    diag.note(primal->rule->getNameLoc(), "the first one is here");
    return false;
  }
  if (primal->checkpointAttr) {
    diag.error(rule.getNameLoc(),
               "'" + rule.getName() +
                   "' has an rrule and @checkpoint; the rrule decides what "
                   "is saved, so remove one of them");
    diag.note(*primal->checkpointAttr, "@checkpoint is here");
    return false;
  }
  // A generic function's rule declares the same generic parameters; its
  // types are checked in each instance (SemaImpl::instantiate).
  bool sameDims = primal->dims.size() == rule.dims.size();
  for (size_t i = 0; sameDims && i < rule.dims.size(); ++i)
    sameDims = rule.dims[i].name == primal->dims[i].name &&
               rule.dims[i].isType == primal->dims[i].isType &&
               rule.dims[i].isPack == primal->dims[i].isPack;
  if (!sameDims) {
    if (!primal->isGeneric())
      return diag.error(rule.getNameLoc(),
                        "'" + rule.getName() +
                            "' has no generic parameters; its rrule takes "
                            "none either");
    return diag.error(rule.getNameLoc(),
                      "'" + rule.getName() + "' is generic in " +
                          formatGenericParams(primal->dims) +
                          "; its rrule must declare the same: rrule " +
                          rule.getName() + formatGenericParams(primal->dims) +
                          "(...)");
  }
  rule.primalDecl = primal;
  primal->rule = &rule;
  if (rule.isGeneric())
    return true;
  const std::string &name = primal->getName();
  // A rule's signature is the primal's, tensor by tensor.
  auto firstRecord = [](auto &list) {
    return llvm::find_if(list, [](const auto &p) { return p.record; });
  };
  for (auto *list : {&primal->params, &rule.params, &rule.pullbackParams})
    if (auto it = firstRecord(*list); it != list->end())
      return diag.error(it->typeLoc,
                        "'" + it->name + "' is a record of type " +
                            it->record->name +
                            "; a function with an rrule takes and returns "
                            "tensors only");
  for (auto *list : {&primal->results, &rule.results, &rule.pullbackResults})
    if (auto it = firstRecord(*list); it != list->end())
      return diag.error(it->loc, "this result is a record of type " +
                                     it->record->name +
                                     "; a function with an rrule takes and "
                                     "returns tensors only");

  if (rule.params.size() != primal->params.size())
    return diag.error(rule.getNameLoc(),
                      "the rrule takes " +
                          countOf(rule.params.size(), "parameter") + " but '" +
                          name + "' takes " +
                          llvm::Twine(primal->params.size()));
  for (auto [i, param] : llvm::enumerate(rule.params))
    if (param.type != primal->params[i].type)
      return diag.error(param.typeLoc,
                        "the rrule's parameter '" + param.name + "' has type " +
                            param.type.str() + " but parameter " +
                            llvm::Twine(i + 1) + " of '" + name +
                            "' has type " + primal->params[i].type.str());
  std::vector<TensorType> results = flattenTypes(primal->getResultTypes());
  if (rule.results.size() != results.size())
    return diag.error(rule.results.front().loc,
                      "the rrule returns " +
                          countOf(rule.results.size(), "value") + " but '" +
                          name + "' returns " +
                          llvm::Twine(results.size()));
  for (auto [i, result] : llvm::enumerate(rule.results))
    if (result.type != results[i])
      return diag.error(result.loc, "the rrule's result " + llvm::Twine(i + 1) +
                                        " has type " + result.type.str() +
                                        " but '" + name + "' returns " +
                                        results[i].str());

  // The pullback maps one cotangent per result to one per parameter.
  if (rule.pullbackParams.size() != results.size())
    return diag.error(rule.pullbackLoc,
                      "the pullback takes " +
                          countOf(rule.pullbackParams.size(), "cotangent") +
                          " but '" + name + "' has " +
                          countOf(results.size(), "result") +
                          "; it takes one cotangent per result");
  for (auto [i, param] : llvm::enumerate(rule.pullbackParams))
    if (param.type != results[i])
      return diag.error(param.typeLoc,
                        "pullback parameter '" + param.name +
                            "' is the cotangent of result " +
                            llvm::Twine(i + 1) + " of '" + name +
                            "' and must have type " + results[i].str() +
                            ", not " + param.type.str());
  std::vector<TensorType> params = flattenTypes(primal->getParamTypes());
  bool resultsMatch = rule.pullbackResults.size() == params.size();
  for (size_t i = 0; resultsMatch && i < params.size(); ++i)
    resultsMatch = rule.pullbackResults[i].type == params[i];
  if (!resultsMatch) {
    std::vector<TensorType> declared;
    for (const TypeWithLoc &t : rule.pullbackResults)
      declared.push_back(t.type);
    return diag.error(rule.pullbackResults.front().loc,
                      "the pullback must return one cotangent per parameter "
                      "of '" + name + "', of types " + formatTypes(params) +
                          ", but it declares " + formatTypes(declared));
  }
  return true;
}

bool SemaImpl::checkFunctionBody(FunctionDecl &fn) {
  currentCalls = &calls[&fn];
  scopes.clear();
  pushScope();
  for (const Param &param : fn.params)
    if (!declareVariable(Name{param.loc, param.name},
                         ValueType::get(param.getType())))
      return false;
  BodyContext context;
  context.results = fn.getResultTypes();
  context.owner =
      "function '" + (fn.generic ? fn.generic->getName() : fn.getName()) + "'";
  return checkBody(fn.body, context, fn.getNameLoc());
}

bool SemaImpl::checkRuleBodies(RuleDecl &rule) {
  currentCalls = &calls[&rule];
  // Forward: the primal's parameters in, its results out, and a save.
  scopes.clear();
  pushScope();
  for (const Param &param : rule.params)
    if (!declareVariable(Name{param.loc, param.name},
                         ValueType::getTensor(param.type)))
      return false;
  BodyContext forward;
  forward.results = rule.primalDecl->getResultTypes();
  forward.owner = "the forward block of the rrule for '" + rule.getName() + "'";
  forward.allowSave = true;
  // The block's writes of the parameters: a parameter it saves as it came
  // is the call's own argument.
  BlockEffects effects;
  frames.push_back({unsigned(scopes.size()), &effects});
  bool checked = checkBody(rule.forward, forward, rule.forwardLoc);
  frames.pop_back();
  if (!checked)
    return false;
  if (!forward.save)
    return diag.error(rule.forwardLoc,
                      "the forward block must say what it keeps for the "
                      "pullback with a save statement (save; keeps nothing)");
  for (const Name &name : forward.save->names) {
    rule.saved.push_back(name);
    rule.savedTypes.push_back(lookupVariable(name.name)->type.tensor);
    auto param = llvm::find_if(
        rule.params, [&](const Param &p) { return p.name == name.name; });
    bool asCalled = param != rule.params.end() &&
                    !llvm::is_contained(effects.writes, name.name);
    rule.savedParams.push_back(asCalled ? param - rule.params.begin() : -1);
  }

  // Pullback: the saved values and the cotangents in, parameter cotangents
  // out. Nothing else of the forward block is visible.
  scopes.clear();
  pushScope();
  for (auto [name, type] : llvm::zip(rule.saved, rule.savedTypes))
    if (!declareVariable(name, ValueType::getTensor(type)))
      return false;
  for (const Param &param : rule.pullbackParams)
    if (!declareVariable(Name{param.loc, param.name},
                         ValueType::getTensor(param.type)))
      return false;
  BodyContext pullback;
  for (const TypeWithLoc &t : rule.pullbackResults)
    pullback.results.push_back(t.type);
  pullback.owner = "the pullback of the rrule for '" + rule.getName() + "'";
  return checkBody(rule.pullback, pullback, rule.pullbackLoc);
}

/// The longest chain of calls (a calls b calls c ...): AD inlines calls
/// recursively, one level per call, and this search recurses too; 7,500
/// levels overflowed an 8 MiB stack in AD.
static constexpr size_t kMaxCallDepth = 1000;

/// Reports the first cycle in the call graph, and chains of calls deeper
/// than kMaxCallDepth. Calling a function with a
/// custom rule may run the rule's forward and pullback; a derivative runs
/// its primal. A pullback that requests the derivative of its own primal is
/// therefore no cycle: the derivative differentiates the primal's body, not
/// the rule, and a rule's forward may call its primal as a plain function.
bool SemaImpl::checkNoRecursion(Module &module) {
  enum class State { unvisited, active, done };
  llvm::DenseMap<Decl *, State> state;
  std::vector<std::pair<Decl *, SMLoc>> stack;

  auto successors = [&](Decl *decl) {
    llvm::MapVector<Decl *, SMLoc> result;
    if (auto *derivative = llvm::dyn_cast<DerivativeDecl>(decl)) {
      result.insert({derivative->primalDecl, derivative->primal.loc});
      return result;
    }
    // A function may be differentiated, and then its calls run their
    // callees' rules. A rule's own calls are never differentiated: they run
    // the callee as it is (a derivative it calls is an edge of its own).
    bool differentiable = llvm::isa<FunctionDecl>(decl);
    for (auto [callee, loc] : calls[decl]) {
      result.insert({callee, loc});
      if (auto *fn = llvm::dyn_cast<FunctionDecl>(callee))
        if (fn->rule && differentiable)
          result.insert({fn->rule, loc});
    }
    return result;
  };

  // The longest chain of calls from each finished declaration.
  llvm::DenseMap<Decl *, size_t> chain;
  auto tooDeep = [&](SMLoc loc, Decl *from, Decl *to) {
    return diag.error(loc, "calls nest more than " +
                               llvm::Twine(kMaxCallDepth) +
                               " levels deep, from '" + from->getName() +
                               "' through '" + to->getName() +
                               "'; AD inlines every call, one level at a "
                               "time");
  };
  std::function<bool(Decl *)> visit = [&](Decl *decl) -> bool {
    state[decl] = State::active;
    size_t longest = 0;
    for (auto [callee, loc] : successors(decl)) {
      stack.push_back({decl, loc});
      if (state[callee] == State::active) {
        std::string path;
        auto start = llvm::find_if(
            stack, [&](const auto &frame) { return frame.first == callee; });
        for (auto it = start; it != stack.end(); ++it)
          path += "'" + it->first->getName() + "' calls ";
        path += "'" + callee->getName() + "'";
        return diag.error(loc, "recursion is not supported: " + path);
      }
      // The search itself recurses once per level.
      if (state[callee] == State::unvisited && stack.size() > kMaxCallDepth)
        return tooDeep(loc, stack.front().first, callee);
      if (state[callee] == State::unvisited && !visit(callee))
        return false;
      stack.pop_back();
      longest = std::max(longest, chain[callee]);
      if (longest + 1 > kMaxCallDepth)
        return tooDeep(loc, decl, callee);
    }
    chain[decl] = longest + 1;
    state[decl] = State::done;
    return true;
  };
  for (auto &decl : module.decls)
    if (state[decl.get()] == State::unvisited && !visit(decl.get()))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// A function body: statements, the last of which is the only return.
bool SemaImpl::checkBody(Block &block, BodyContext &context, SMLoc endLoc) {
  for (auto [i, stmt] : llvm::enumerate(block.stmts)) {
    if (auto *ret = llvm::dyn_cast<ReturnStmt>(stmt.get())) {
      if (i + 1 != block.stmts.size())
        return diag.error(block.stmts[i + 1]->getLoc(),
                          "statement after return; return must be the last "
                          "statement of " + context.owner);
      if (!checkReturn(*ret, context))
        return false;
      continue;
    }
    if (!checkStmt(*stmt, &context))
      return false;
  }
  if (block.stmts.empty() || !llvm::isa<ReturnStmt>(block.stmts.back().get()))
    return diag.error(endLoc, context.owner + " must end with a return "
                                              "statement");
  return true;
}

/// The body of a for, if or checkpoint: its own scope; no return or save.
bool SemaImpl::checkNestedBlock(Block &block, llvm::StringRef what) {
  pushScope();
  for (auto &stmt : block.stmts) {
    if (llvm::isa<ReturnStmt>(stmt.get()))
      return diag.error(stmt->getLoc(),
                        "return inside " + what +
                            "; a function returns once, at its end");
    if (!checkStmt(*stmt, nullptr))
      return false;
  }
  popScope();
  return true;
}

bool SemaImpl::checkStmt(Stmt &stmt, BodyContext *context) {
  switch (stmt.getKind()) {
  case Stmt::Kind::let:
    return checkLet(llvm::cast<LetStmt>(stmt));
  case Stmt::Kind::assign:
    return checkAssign(llvm::cast<AssignStmt>(stmt));
  case Stmt::Kind::forLoop:
    return checkFor(llvm::cast<ForStmt>(stmt));
  case Stmt::Kind::ifElse:
    return checkIf(llvm::cast<IfStmt>(stmt));
  case Stmt::Kind::checkpoint:
    return checkCheckpoint(llvm::cast<CheckpointStmt>(stmt));
  case Stmt::Kind::save:
    if (!context || !context->allowSave)
      return diag.error(stmt.getLoc(),
                        "save is only allowed at the top level of an "
                        "rrule's forward block");
    return checkSave(llvm::cast<SaveStmt>(stmt), *context);
  case Stmt::Kind::ret:
    break; // handled by checkBody and checkNestedBlock
  }
  return true;
}

bool SemaImpl::checkLet(LetStmt &stmt) {
  if (!checkExpr(*stmt.value))
    return false;
  const ValueType &type = stmt.value->type;
  if (!stmt.destructure) {
    if (type.kind == ValueType::Kind::tuple)
      return diag.error(stmt.value->getLoc(),
                        "this call returns " + llvm::Twine(type.tuple.size()) +
                            " values " + type.describe() +
                            "; bind them with let (a, b, ...) = ...");
    if (!checkValue(*stmt.value, "the value of a let"))
      return false;
    return declareVariable(stmt.names.front(), type);
  }
  if (type.kind != ValueType::Kind::tuple)
    return diag.error(stmt.value->getLoc(),
                      "let (...) destructures the results of a call that "
                      "returns several values, but this is " + type.describe());
  if (type.tuple.size() != stmt.names.size())
    return diag.error(stmt.getLoc(), "let binds " +
                                      countOf(stmt.names.size(), "name") +
                                      " but the call returns " +
                                      countOf(type.tuple.size(), "value") +
                                      " " + type.describe());
  for (auto [name, t] : llvm::zip(stmt.names, type.tuple))
    if (!declareVariable(name, ValueType::get(t)))
      return false;
  return true;
}

bool SemaImpl::checkAssign(AssignStmt &stmt) {
  Variable *var = lookupVariable(stmt.target.name);
  if (!var) {
    if (functions.count(stmt.target.name))
      return diag.error(stmt.target.loc, "cannot assign to function '" +
                                             stmt.target.name + "'");
    return diag.error(stmt.target.loc,
                      "assignment to unknown variable '" + stmt.target.name +
                          "'; define it first with let");
  }
  if (var->type.kind == ValueType::Kind::index)
    return diag.error(stmt.target.loc, "cannot assign to loop index '" +
                                           stmt.target.name + "'");
  // `p.l1.w = ...` assigns one field of a record variable.
  Type type = var->type.getType();
  stmt.path = stmt.target.name;
  for (const Name &field : stmt.fields) {
    if (!type.isRecord())
      return diag.error(field.loc, "'" + stmt.path + "' is " + type.str() +
                                       ", not a record; it has "
                                       "no field '" +
                                       field.name + "'");
    int index = type.record->getFieldIndex(field.name);
    if (index < 0)
      return diag.error(field.loc, type.record->name + " has no field '" +
                                       field.name + "'; its fields are " +
                                       type.record->listFields());
    type = type.record->fields[index].type;
    stmt.path += "." + field.name;
  }
  if (!checkExpr(*stmt.value) ||
      !checkValue(*stmt.value, "the value of an assignment") ||
      !checkAssignable(*stmt.value, type, "'" + stmt.path + "'"))
    return false;
  recordWrite(stmt.path, type, *var);
  return true;
}

bool SemaImpl::checkReturn(ReturnStmt &stmt, BodyContext &context) {
  // `return (a, b);` is the same as `return a, b;`.
  std::vector<Expr *> values;
  for (ExprPtr &value : stmt.values) {
    if (auto *tuple = llvm::dyn_cast<TupleExpr>(value.get()))
      for (ExprPtr &element : tuple->elements)
        values.push_back(element.get());
    else
      values.push_back(value.get());
  }
  // A call returning several values may be returned as it is.
  if (values.size() == 1 && context.results.size() > 1) {
    if (!checkExpr(*values.front()))
      return false;
    const ValueType &type = values.front()->type;
    if (type.kind == ValueType::Kind::tuple) {
      if (type.tuple == context.results)
        return true;
      return diag.error(values.front()->getLoc(),
                        context.owner + " returns " +
                            formatTypes(context.results) + ", but this call "
                            "returns " + type.describe());
    }
  }
  if (values.size() != context.results.size())
    return diag.error(stmt.getLoc(),
                      context.owner + " returns " +
                          llvm::Twine(context.results.size()) +
                          (context.results.size() == 1 ? " value" : " values") +
                          " " + formatTypes(context.results) + ", but " +
                          llvm::Twine(values.size()) +
                          (values.size() == 1 ? " is" : " are") + " returned");
  for (auto [i, value] : llvm::enumerate(values)) {
    if (value->type.kind == ValueType::Kind::none && !checkExpr(*value))
      return false;
    if (!checkValue(*value, "a returned value") ||
        !checkAssignable(*value, context.results[i],
                         "result " + llvm::Twine(i + 1) + " of " +
                             context.owner))
      return false;
  }
  return true;
}

/// A loop bound: an integer literal.
static bool getLoopBound(Expr &expr, int64_t &value) {
  auto *number = llvm::dyn_cast<NumberExpr>(&expr);
  return number && number->isInteger &&
         !llvm::StringRef(number->spelling).getAsInteger(10, value);
}

bool SemaImpl::checkFor(ForStmt &stmt) {
  for (Expr *bound : {stmt.low.get(), stmt.high.get()})
    if (!getLoopBound(*bound, bound == stmt.low.get() ? stmt.lowValue
                                                      : stmt.highValue))
      return diag.error(bound->getLoc(),
                        "the trip count of a for loop must be static: write "
                        "both bounds as integer literals, as in 0..48");
  if (stmt.lowValue > stmt.highValue)
    return diag.error(stmt.low->getLoc(),
                      "the loop range " + llvm::Twine(stmt.lowValue) + ".." +
                          llvm::Twine(stmt.highValue) + " is decreasing");
  // The loop runs high - low times, a count in 64 bits (scf.for's): a
  // range of 2^63 or more iterations would wrap to a negative count and
  // run zero times.
  int64_t trips;
  if (llvm::SubOverflow(stmt.highValue, stmt.lowValue, trips))
    return diag.error(
        stmt.low->getLoc(),
        "the loop range " + llvm::Twine(stmt.lowValue) + ".." +
            llvm::Twine(stmt.highValue) + " has " +
            llvm::Twine(uint64_t(stmt.highValue) - uint64_t(stmt.lowValue)) +
            " iterations; a loop runs at most 2^63 - 1 "
            "(9223372036854775807)");
  frames.push_back({unsigned(scopes.size()), &stmt.effects});
  pushScope();
  ValueType index;
  index.kind = ValueType::Kind::index;
  index.low = stmt.lowValue;
  index.high = stmt.highValue;
  if (!declareVariable(stmt.var, index) ||
      !checkNestedBlock(stmt.body, "a for loop"))
    return false;
  popScope();
  frames.pop_back();
  return true;
}

bool SemaImpl::checkIf(IfStmt &stmt) {
  if (!checkExpr(*stmt.cond) || !checkTensor(*stmt.cond, "the condition"))
    return false;
  const TensorType &cond = stmt.cond->type.tensor;
  if (cond.elem != ElemKind::i1 || !cond.isScalar())
    return diag.error(stmt.cond->getLoc(),
                      "the condition of if must be a scalar comparison, as "
                      "in mean(x) > 0.0, but it is " + cond.str());
  frames.push_back({unsigned(scopes.size()), &stmt.effects});
  if (!checkNestedBlock(stmt.thenBlock, "an if") ||
      (stmt.elseBlock && !checkNestedBlock(*stmt.elseBlock, "an else")))
    return false;
  frames.pop_back();
  return true;
}

bool SemaImpl::checkCheckpoint(CheckpointStmt &stmt) {
  frames.push_back({unsigned(scopes.size()), &stmt.effects});
  if (!checkNestedBlock(stmt.body, "a checkpoint"))
    return false;
  frames.pop_back();
  return true;
}

bool SemaImpl::checkSave(SaveStmt &stmt, BodyContext &context) {
  if (context.save) {
    diag.error(stmt.getLoc(), "a second save statement; list every saved "
                              "value in one save");
    diag.note(context.save->getLoc(), "the first save is here");
    return false;
  }
  context.save = &stmt;
  llvm::StringMap<SMLoc> seen;
  for (const Name &name : stmt.names) {
    Variable *var = lookupVariable(name.name);
    if (!var)
      return diag.error(name.loc, "save of unknown variable '" + name.name + "'");
    // Only tensors are visible at the top level of a forward block.
    if (!seen.try_emplace(name.name, name.loc).second)
      return diag.error(name.loc, "'" + name.name + "' is saved twice");
    if (var->type.isRecord())
      return diag.error(name.loc, "'" + name.name + "' is a record of type " +
                                      var->type.record->name +
                                      "; save its fields");
    recordRead(name.name, *var);
  }
  return true;
}
