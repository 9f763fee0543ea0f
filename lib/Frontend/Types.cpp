//===- Types.cpp - the types of the .tad language -------------------------===//

#include "tad/Frontend/Types.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace tad::lang;

llvm::StringRef tad::lang::getElemKindName(ElemKind kind) {
  switch (kind) {
  case ElemKind::f32: return "f32";
  case ElemKind::f64: return "f64";
  case ElemKind::f16: return "f16";
  case ElemKind::bf16: return "bf16";
  case ElemKind::i1: return "bool";
  case ElemKind::i32: return "i32";
  case ElemKind::i64: return "i64";
  }
  return "?";
}

int64_t TensorType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string TensorType::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << getElemKindName(elem);
  if (!shape.empty()) {
    os << '[';
    llvm::interleaveComma(shape, os);
    os << ']';
  }
  return s;
}

std::string tad::lang::formatTypes(llvm::ArrayRef<TensorType> types) {
  return formatTypes(std::vector<Type>(types.begin(), types.end()));
}

std::string Type::str() const { return record ? record->name : tensor.str(); }

std::vector<TensorType> Type::getLeafTypes() const {
  if (!record)
    return {tensor};
  std::vector<TensorType> leaves;
  for (const RecordField &field : record->fields)
    llvm::append_range(leaves, field.type.getLeafTypes());
  return leaves;
}

unsigned Type::getNumLeaves() const { return record ? record->numLeaves : 1; }

std::vector<std::string> Type::getLeafNames(llvm::StringRef name) const {
  if (!record)
    return {name.str()};
  std::vector<std::string> names;
  for (const RecordField &field : record->fields)
    llvm::append_range(names,
                       field.type.getLeafNames(name.str() + "." + field.name));
  return names;
}

int RecordType::getFieldIndex(llvm::StringRef fieldName) const {
  for (auto [i, field] : llvm::enumerate(fields))
    if (field.name == fieldName)
      return int(i);
  return -1;
}

unsigned RecordType::getLeafOffset(unsigned index) const {
  unsigned offset = 0;
  for (unsigned i = 0; i < index; ++i)
    offset += fields[i].type.getNumLeaves();
  return offset;
}

std::string RecordType::listFields() const {
  std::string s;
  for (const RecordField &field : fields)
    s += (s.empty() ? "" : ", ") + field.name;
  return s;
}

std::string tad::lang::formatTypes(llvm::ArrayRef<Type> types) {
  if (types.size() == 1)
    return types.front().str();
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i)
    s += (i ? ", " : "") + types[i].str();
  return s + ")";
}

std::vector<TensorType> tad::lang::flattenTypes(llvm::ArrayRef<Type> types) {
  std::vector<TensorType> leaves;
  for (const Type &type : types)
    llvm::append_range(leaves, type.getLeafTypes());
  return leaves;
}

std::string ValueType::describe() const {
  switch (kind) {
  case Kind::none: return "an invalid value";
  case Kind::tensor: return tensor.str();
  case Kind::tuple: return formatTypes(tuple);
  case Kind::record:
    return "a record of type " + record->name;
  case Kind::index: return "a loop index";
  case Kind::intList: return "a list of integers";
  case Kind::elemType: return "an element type";
  case Kind::boolean: return "a boolean constant";
  }
  return "a value";
}
