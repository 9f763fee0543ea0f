//===- Types.h - the types of the .tad language -----------------*- C++ -*-===//
//
// Tensor types as the frontend checks them: an element type and a static
// shape. They map one to one onto builtin ranked tensor types. A record
// (`struct Mlp { w1: f32[4, 4], ... }`) groups tensors under field names;
// past the frontend it is gone: MLIRGen passes its leaves one by one.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_FRONTEND_TYPES_H
#define TAD_FRONTEND_TYPES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace tad::lang {

/// Float kinds, the integer kinds of token ids and counts (never
/// differentiated), and the booleans comparisons make.
enum class ElemKind { f32, f64, f16, bf16, i1, i32, i64 };

llvm::StringRef getElemKindName(ElemKind kind); // "f32", ..., "i64", "bool"
inline bool isFloatKind(ElemKind kind) {
  return kind == ElemKind::f32 || kind == ElemKind::f64 ||
         kind == ElemKind::f16 || kind == ElemKind::bf16;
}
inline bool isIntegerKind(ElemKind kind) {
  return kind == ElemKind::i32 || kind == ElemKind::i64;
}

struct TensorType {
  ElemKind elem = ElemKind::f32;
  llvm::SmallVector<int64_t, 4> shape;

  int64_t getRank() const { return shape.size(); }
  bool isScalar() const { return shape.empty(); }
  bool isFloat() const { return isFloatKind(elem); }
  bool isInteger() const { return isIntegerKind(elem); }
  int64_t getNumElements() const;
  bool operator==(const TensorType &other) const {
    return elem == other.elem && shape == other.shape;
  }
  bool operator!=(const TensorType &other) const { return !(*this == other); }
  /// `f32[64, 256]`, `f32` for a scalar, `bool[4]`.
  std::string str() const;
};

/// `(f32, f32[4])` or `f32[4]` for one type.
std::string formatTypes(llvm::ArrayRef<TensorType> types);

struct RecordType;

/// The type of a parameter, a result or a named value: a tensor, or a
/// record of them.
struct Type {
  TensorType tensor;                  // when `record` is null
  const RecordType *record = nullptr; // owned by its struct declaration

  Type() = default;
  Type(TensorType tensor) : tensor(std::move(tensor)) {}
  explicit Type(const RecordType *record) : record(record) {}
  bool isRecord() const { return record != nullptr; }
  bool operator==(const Type &other) const {
    return record == other.record && (record || tensor == other.tensor);
  }
  bool operator!=(const Type &other) const { return !(*this == other); }
  /// The tensor type, or the record's name.
  std::string str() const;
  /// The tensors a value of this type is made of, in field order (one for
  /// a tensor).
  std::vector<TensorType> getLeafTypes() const;
  unsigned getNumLeaves() const;
  /// The name of each leaf of a value named `name`: `p.w1`, `p.l1.b`; `name`
  /// itself for a tensor.
  std::vector<std::string> getLeafNames(llvm::StringRef name) const;
};

struct RecordField {
  std::string name;
  Type type;
};

/// The fields of a struct declaration, in order.
struct RecordType {
  std::string name;
  /// For an instance of a generic struct: the generic's name and the
  /// arguments (sizes, and element kinds as integers).
  std::string genericName;
  std::vector<int64_t> args;
  std::vector<RecordField> fields;
  /// The tensors it holds, and the levels of records (1 for tensors only).
  unsigned numLeaves = 0, depth = 1;
  /// The index of field `name`, or -1.
  int getFieldIndex(llvm::StringRef name) const;
  /// The leaves before field `index`.
  unsigned getLeafOffset(unsigned index) const;
  /// `w1, b1, w2`, for messages.
  std::string listFields() const;
};

std::string formatTypes(llvm::ArrayRef<Type> types);
/// The leaves of each type, one after another.
std::vector<TensorType> flattenTypes(llvm::ArrayRef<Type> types);

/// What an expression denotes once it is checked.
struct ValueType {
  enum class Kind {
    none,     // not checked yet, or an error
    tensor,   // a tensor value
    tuple,    // the several results of a call; only `let (a, b) = ...` takes it
    record,   // a record value: a parameter, a field, a call's result
    index,    // a loop index, which only indexes tensors (ws[i], s[:, i])
    intList,  // a constant list of integers: axes, shapes, permutations
    elemType, // an element type name, the target of cast()
    boolean,  // `true` or `false`, for keepdims
  };
  Kind kind = Kind::none;
  TensorType tensor;
  /// A tensor from a bare numeric literal: its element type adapts to the
  /// other operand of an arithmetic op (as JAX's weak types do).
  bool weak = false;
  std::vector<Type> tuple;
  const RecordType *record = nullptr;
  llvm::SmallVector<int64_t, 4> ints;
  ElemKind elemType = ElemKind::f32;
  bool boolValue = false;
  /// For an index: the values it takes lie in [low, high).
  int64_t low = 0, high = 0;

  static ValueType getTensor(TensorType type, bool weak = false) {
    ValueType v;
    v.kind = Kind::tensor;
    v.tensor = std::move(type);
    v.weak = weak;
    return v;
  }
  static ValueType get(const Type &type) {
    if (!type.isRecord())
      return getTensor(type.tensor);
    ValueType v;
    v.kind = Kind::record;
    v.record = type.record;
    return v;
  }
  bool isTensor() const { return kind == Kind::tensor; }
  bool isRecord() const { return kind == Kind::record; }
  /// The type of a tensor or record value.
  Type getType() const { return record ? Type(record) : Type(tensor); }
  /// A description for messages: the tensor type, "a loop index", ...
  std::string describe() const;
};

} // namespace tad::lang

#endif // TAD_FRONTEND_TYPES_H
