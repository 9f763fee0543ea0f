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

bool SemaImpl::resolveStructs(Module &module) {
  std::vector<StructDecl *> decls;
  for (auto &decl : module.decls)
    if (auto *record = llvm::dyn_cast<StructDecl>(decl.get()))
      decls.push_back(record);
  for (StructDecl *decl : decls) {
    if (decl->fields.empty())
      return diag.error(decl->getNameLoc(),
                        "struct '" + decl->getName() +
                            "' has no fields; a record groups tensors");
    llvm::StringMap<SMLoc> seen;
    decl->record.name = decl->getName();
    for (Param &field : decl->fields) {
      if (!seen.try_emplace(field.name, field.loc).second)
        return diag.error(field.loc, "field '" + field.name +
                                         "' appears twice in '" +
                                         decl->getName() + "'");
      if (!field.recordName.empty() &&
          !resolveRecordName(field.recordName, field.record, field.typeLoc))
        return false;
      decl->record.fields.push_back({field.name, field.getType()});
    }
  }

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
  auto resolve = [&](auto &list) {
    for (auto &entry : list)
      if (!entry.recordName.empty() &&
          !resolveRecordName(entry.recordName, entry.record, getTypeLoc(entry)))
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
