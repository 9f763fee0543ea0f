//===- SemaRecord.cpp - structs, fields and record values -----------------===//
//
// `struct Mlp { w1: f32[256, 128], b1: f32[128], out: Layer }` declares a
// record type: a group of tensors (and records) under field names. Records
// are values like tensors (parameters, results, variables, arguments), are
// read with `p.w1`, built with `Mlp(w1: a, b1: b, out: l)` and differentiated
// as a whole: `grad(f, wrt: [p])` returns the gradient as an Mlp.
//
// A record exists only in the frontend. Its leaves are named after their
// paths (`p.out.w`): the reads and writes that Sema records for loops,
// branches and checkpoints list leaves, and MLIRGen passes them one by one,
// so that nothing after the frontend knows records.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "tad/Frontend/Parser.h"

#include "llvm/ADT/STLExtras.h"

#include <functional>

using namespace tad::lang;
using llvm::SMLoc;
using llvm::Twine;

/// Bounds on what a struct may hold, so that nesting cannot make a record
/// of astronomically many leaves (each level may double them) or recursion
/// deep enough to exhaust the stack.
static constexpr unsigned kMaxRecordLeaves = 100000;
static constexpr unsigned kMaxRecordDepth = 64;

static SMLoc getTypeLoc(const Param &param) { return param.typeLoc; }
static SMLoc getTypeLoc(const TypeWithLoc &result) { return result.loc; }

bool SemaImpl::resolveRecordName(const std::string &name,
                                 const RecordType *&record, SMLoc loc) {
  if (StructDecl *decl = structs.lookup(name)) {
    record = &decl->record;
    return true;
  }
  std::string message = "unknown type '" + name + "'";
  std::string best;
  unsigned bestDistance = 3;
  for (const auto &entry : structs) {
    unsigned d = llvm::StringRef(name).edit_distance(entry.getKey());
    if (d < bestDistance)
      bestDistance = d, best = entry.getKey().str();
  }
  if (!best.empty())
    message += "; did you mean the struct '" + best + "'?";
  else
    message += "; a type is a tensor type such as f32[64, 256], or the name "
               "of a struct";
  return diag.error(loc, message);
}

bool SemaImpl::resolveRecordType(const std::string &name,
                                 const std::vector<RecordArg> &args,
                                 const RecordType *&record, SMLoc loc,
                                 bool allowSymbolic) {
  StructDecl *decl = structs.lookup(name);
  if (!decl || (!decl->isGeneric() && args.empty()))
    return resolveRecordName(name, record, loc);
  if (!decl->isGeneric())
    return diag.error(loc, "struct '" + name + "' has no parameters; write "
                           "its name alone");
  std::string params;
  for (const GenericParam &p : decl->dims)
    params += (params.empty() ? "" : ", ") + p.name + (p.isType ? ": type" : "");
  if (args.size() != decl->dims.size())
    return diag.error(loc, "struct '" + name + "' takes " +
                               countOf(decl->dims.size(), "argument") + " (" +
                               params + "), got " + Twine(args.size()));
  std::vector<int64_t> values;
  for (auto [arg, param] : llvm::zip(args, decl->dims)) {
    if (arg.isType != param.isType)
      return diag.error(arg.loc, "argument '" + param.name + "' of '" + name +
                                     "' is " +
                                     (param.isType ? "an element type"
                                                   : "a size") +
                                     " (its parameters are " + params + ")");
    if (!arg.name.empty()) {
      if (allowSymbolic) {
        record = nullptr;
        return true;
      }
      return diag.error(arg.loc, "unknown parameter '" + arg.name + "'");
    }
    if (param.isType && !isFloatKind(ElemKind(arg.value)))
      return diag.error(arg.loc, "argument '" + param.name + "' of '" + name +
                                     "' is an element type parameter, which "
                                     "stands for a float type");
    values.push_back(arg.value);
  }
  StructDecl *instance = instantiateStruct(*decl, values, loc);
  if (!instance)
    return false;
  record = &instance->record;
  return true;
}

bool SemaImpl::resolveFields(StructDecl &decl) {
  if (decl.fields.empty())
    return diag.error(decl.getNameLoc(),
                      "struct '" + decl.getName() +
                          "' has no fields; a record groups tensors");
  llvm::StringMap<SMLoc> seen;
  if (decl.record.name.empty())
    decl.record.name = decl.getName();
  for (Param &field : decl.fields) {
    if (!seen.try_emplace(field.name, field.loc).second)
      return diag.error(field.loc, "field '" + field.name +
                                       "' appears twice in '" +
                                       decl.getName() + "'");
    if (!field.recordName.empty() &&
        !resolveRecordType(field.recordName, field.recordArgs, field.record,
                           field.typeLoc, /*allowSymbolic=*/false))
      return false;
    decl.record.fields.push_back({field.name, field.getType()});
  }
  return true;
}

StructDecl *SemaImpl::instantiateStruct(StructDecl &generic,
                                        llvm::ArrayRef<int64_t> args,
                                        SMLoc at) {
  auto key = std::make_pair(&generic, args.vec());
  if (auto it = structInstances.find(key); it != structInstances.end())
    return it->second;
  if (structNesting >= kMaxRecordDepth) {
    diag.error(at, "structs nest more than " + Twine(kMaxRecordDepth) +
                       " levels deep in instances of '" + generic.getName() +
                       "'");
    return nullptr;
  }
  // `Linear[f32, 64, 32]`: the name messages show.
  std::string display = generic.getName() + "[";
  llvm::StringMap<int64_t> bound;
  llvm::StringMap<ElemKind> types;
  for (auto [i, param] : llvm::enumerate(generic.dims)) {
    display += (i ? ", " : "") +
               (param.isType ? getElemKindName(ElemKind(args[i])).str()
                             : std::to_string(args[i]));
    if (param.isType)
      types[param.name] = ElemKind(args[i]);
    else
      bound[param.name] = args[i];
  }
  display += "]";
  // The declaration parsed again from its first token, its parameters
  // bound: its locations are the generic one's.
  const char *start = generic.getLoc().getPointer();
  auto source = llvm::find_if(module->sources, [&](llvm::StringRef text) {
    return text.begin() <= start && start < text.end();
  });
  assert(source != module->sources.end() && "a declaration of no file");
  Parser parser(llvm::StringRef(start, source->end() - start), diag, &bound,
                &types);
  std::unique_ptr<Decl> parsed = parser.parseOneDecl();
  if (!parsed)
    return nullptr;
  auto *instance = llvm::cast<StructDecl>(parsed.get());
  instance->rename(display);
  instance->generic = &generic;
  instance->sizes = args.vec();
  instance->record.name = display;
  instance->record.genericName = generic.getName();
  instance->record.args = args.vec();
  structInstances[key] = instance;
  structs[display] = instance;
  module->decls.push_back(std::move(parsed));
  ++structNesting;
  bool resolved = resolveFields(*instance);
  --structNesting;
  if (!resolved)
    return nullptr;
  unsigned leaves = 0, depth = 1;
  for (const Param &field : instance->fields) {
    leaves += field.record ? field.record->numLeaves : 1;
    if (field.record)
      depth = std::max(depth, field.record->depth + 1);
  }
  if (leaves > kMaxRecordLeaves) {
    diag.error(at, "struct " + display + " holds " + Twine(leaves) +
                       " tensors; the limit is " + Twine(kMaxRecordLeaves));
    return nullptr;
  }
  instance->record.numLeaves = leaves;
  instance->record.depth = depth;
  return instance;
}

bool SemaImpl::resolveStructs(Module &module) {
  std::vector<StructDecl *> decls;
  for (auto &decl : module.decls)
    if (auto *record = llvm::dyn_cast<StructDecl>(decl.get()))
      if (!record->isGeneric())
        decls.push_back(record);
  for (StructDecl *decl : decls)
    if (!resolveFields(*decl))
      return false;

  // A struct may not contain itself; count leaves and depth bottom-up.
  enum class State { unvisited, active, done };
  llvm::DenseMap<StructDecl *, State> state;
  std::function<bool(StructDecl *)> visit = [&](StructDecl *decl) -> bool {
    state[decl] = State::active;
    uint64_t leaves = 0;
    unsigned depth = 1;
    for (const Param &field : decl->fields) {
      if (!field.record) {
        ++leaves;
        continue;
      }
      StructDecl *inner = structs.lookup(field.record->name);
      if (state[inner] == State::active)
        return diag.error(field.typeLoc,
                          "struct '" + decl->getName() +
                              "' contains itself "
                              "through field '" +
                              field.name + "' of type " + inner->getName() +
                              "; a record holds a fixed set of tensors");
      if (state[inner] == State::unvisited && !visit(inner))
        return false;
      leaves += inner->record.numLeaves;
      depth = std::max(depth, inner->record.depth + 1);
    }
    if (leaves > kMaxRecordLeaves)
      return diag.error(decl->getNameLoc(), "struct '" + decl->getName() +
                                                "' holds " + Twine(leaves) +
                                                " tensors; the limit is " +
                                                Twine(kMaxRecordLeaves));
    if (depth > kMaxRecordDepth)
      return diag.error(decl->getNameLoc(),
                        "structs nest more than " + Twine(kMaxRecordDepth) +
                            " levels deep in '" + decl->getName() + "'");
    decl->record.numLeaves = unsigned(leaves);
    decl->record.depth = depth;
    state[decl] = State::done;
    return true;
  };
  for (StructDecl *decl : decls)
    if (state[decl] == State::unvisited && !visit(decl))
      return false;
  return true;
}

bool SemaImpl::resolveSignature(Decl &decl) {
  // A generic function's (or rule's) record types may name its
  // parameters; its instances resolve them.
  bool symbolic = isGenericDecl(decl);
  auto resolve = [&](auto &list) {
    for (auto &entry : list)
      if (!entry.recordName.empty() &&
          !resolveRecordType(entry.recordName, entry.recordArgs, entry.record,
                             getTypeLoc(entry), symbolic))
        return false;
    return true;
  };
  if (auto *fn = llvm::dyn_cast<FunctionDecl>(&decl))
    return resolve(fn->params) && resolve(fn->results);
  if (auto *rule = llvm::dyn_cast<RuleDecl>(&decl))
    return resolve(rule->params) && resolve(rule->results) &&
           resolve(rule->pullbackParams) && resolve(rule->pullbackResults);
  return true;
}

bool SemaImpl::getFieldPath(Expr &expr, std::string &path, Variable *&var) {
  if (auto *ref = llvm::dyn_cast<VarExpr>(&expr)) {
    Variable *found = lookupVariable(ref->name);
    if (!found || !found->type.isRecord())
      return false;
    ref->type = found->type;
    path = ref->name;
    var = found;
    return true;
  }
  auto *field = llvm::dyn_cast<FieldExpr>(&expr);
  if (!field || !getFieldPath(*field->base, path, var))
    return false;
  const ValueType &base = field->base->type;
  int index = base.record->getFieldIndex(field->field);
  if (index < 0)
    return false;
  const Type &type = base.record->fields[index].type;
  field->leafOffset = base.record->getLeafOffset(index);
  field->numLeaves = type.getNumLeaves();
  field->type = ValueType::get(type);
  path += "." + field->field;
  return type.isRecord();
}

bool SemaImpl::checkField(FieldExpr &expr) {
  // A field of a variable (`p.l1.w`) reads that field's leaves only, so
  // that a loop or checkpoint that reads one field does not carry them all.
  std::string path;
  Variable *var = nullptr;
  bool named = getFieldPath(*expr.base, path, var);
  if (!named && !checkExpr(*expr.base))
    return false;
  const ValueType &base = expr.base->type;
  if (!base.isRecord())
    return diag.error(expr.fieldLoc, "'." + expr.field +
                                         "' reads a field of a record, but "
                                         "this is " +
                                         base.describe());
  int index = base.record->getFieldIndex(expr.field);
  if (index < 0)
    return diag.error(expr.fieldLoc, base.record->name + " has no field '" +
                                         expr.field + "'; its fields are " +
                                         base.record->listFields());
  const Type &type = base.record->fields[index].type;
  expr.leafOffset = base.record->getLeafOffset(index);
  expr.numLeaves = type.getNumLeaves();
  expr.type = ValueType::get(type);
  if (named)
    recordRead(path + "." + expr.field, type, *var);
  return true;
}

bool SemaImpl::inferStructArgs(CallExpr &expr, StructDecl &generic,
                               std::vector<int64_t> &args) {
  const std::vector<GenericParam> &dims = generic.dims;
  args.assign(dims.size(), kSymbolicDim);
  auto indexOf = [&](llvm::StringRef name) {
    return size_t(llvm::find_if(dims, [&](const GenericParam &p) {
                    return p.name == name;
                  }) - dims.begin());
  };
  auto bind = [&](llvm::StringRef name, int64_t value, const Param &field,
                  Expr &value_expr) {
    size_t k = indexOf(name);
    if (args[k] == kSymbolicDim || args[k] == value) {
      args[k] = value;
      return true;
    }
    auto show = [&](int64_t v) {
      return dims[k].isType ? getElemKindName(ElemKind(v)).str()
                            : std::to_string(v);
    };
    return diag.error(value_expr.getLoc(),
                      std::string(dims[k].isType ? "element type " : "dimension ") +
                          dims[k].name + " of '" + generic.getName() + "' is " +
                          show(args[k]) + " by an earlier field but " +
                          show(value) + " by field '" + field.name + "'");
  };
  for (auto [i, arg] : llvm::enumerate(expr.args)) {
    const Param *field = nullptr;
    if (arg.name.empty()) {
      if (i < generic.fields.size())
        field = &generic.fields[i];
    } else {
      for (const Param &f : generic.fields)
        if (f.name == arg.name)
          field = &f;
    }
    // checkConstructor reports a missing or unknown field.
    if (!field || !checkExpr(*arg.value))
      continue;
    const ValueType &given = arg.value->type;
    if (!field->recordArgs.empty()) {
      if (!given.isRecord() || given.record->genericName != field->recordName)
        continue; // checkConstructor reports the type
      for (auto [j, recordArg] : llvm::enumerate(field->recordArgs))
        if (!recordArg.name.empty() &&
            !bind(recordArg.name, given.record->args[j], *field, *arg.value))
          return false;
      continue;
    }
    if (!given.isTensor() || given.weak)
      continue;
    if (!field->elemParam.empty() &&
        !bind(field->elemParam, int64_t(given.tensor.elem), *field, *arg.value))
      return false;
    if (field->dims.empty() ||
        given.tensor.getRank() != field->type.getRank())
      continue;
    for (auto [d, name] : llvm::enumerate(field->dims))
      if (!name.empty() &&
          !bind(name, given.tensor.shape[d], *field, *arg.value))
        return false;
  }
  for (auto [k, dim] : llvm::enumerate(dims))
    if (args[k] == kSymbolicDim)
      return diag.error(expr.getLoc(),
                        std::string(dim.isType ? "element type " : "dimension ") +
                            dim.name + " of '" + generic.getName() +
                            "' is given by no field of this constructor");
  return true;
}

bool SemaImpl::checkConstructor(CallExpr &expr, StructDecl &decl) {
  const RecordType &record = decl.record;
  std::vector<Expr *> values(record.fields.size(), nullptr);
  bool named = !expr.args.empty() && !expr.args.front().name.empty();
  for (CallArg &arg : expr.args)
    if (arg.name.empty() == named)
      return diag.error(arg.loc, "give every field of " + record.name +
                                     " by name (" + record.name +
                                     "(w: a, b: c)) or none (" + record.name +
                                     "(a, c))");
  if (named) {
    for (CallArg &arg : expr.args) {
      int index = record.getFieldIndex(arg.name);
      if (index < 0)
        return diag.error(arg.loc, record.name + " has no field '" + arg.name +
                                       "'; its fields are " +
                                       record.listFields());
      if (values[index])
        return diag.error(arg.loc, "field '" + arg.name + "' is given twice");
      values[index] = arg.value.get();
    }
    std::string missing;
    for (auto [field, value] : llvm::zip(record.fields, values))
      if (!value)
        missing += (missing.empty() ? "" : ", ") + field.name;
    if (!missing.empty())
      return diag.error(expr.getLoc(),
                        record.name + "(...) gives no value to " + missing);
  } else {
    if (expr.args.size() != record.fields.size())
      return diag.error(
          expr.getLoc(),
          record.name + " has " + countOf(record.fields.size(), "field") +
              " (" + record.listFields() + ") but " +
              countOf(expr.args.size(), "value") +
              (expr.args.size() == 1 ? " was" : " were") + " given");
    for (auto [i, arg] : llvm::enumerate(expr.args))
      values[i] = arg.value.get();
  }
  for (auto [field, value] : llvm::zip(record.fields, values)) {
    std::string what = "field '" + field.name + "' of " + record.name;
    if (!checkExpr(*value) || !checkValue(*value, what) ||
        !checkAssignable(*value, field.type, what))
      return false;
  }
  expr.record = &record;
  expr.fieldValues = std::move(values);
  expr.type = ValueType::get(Type(&record));
  return true;
}
