//===- Types.h - the types of the .tad language -----------------*- C++ -*-===//
//
// Tensor types as the frontend checks them: an element type and a static
// shape. They map one to one onto builtin ranked tensor types.
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

enum class ElemKind { f32, f64, f16, bf16, i1 };

llvm::StringRef getElemKindName(ElemKind kind); // "f32", ..., "bool"

struct TensorType {
  ElemKind elem = ElemKind::f32;
  llvm::SmallVector<int64_t, 4> shape;

  int64_t getRank() const { return shape.size(); }
  bool isScalar() const { return shape.empty(); }
  bool isFloat() const { return elem != ElemKind::i1; }
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

/// What an expression denotes once it is checked.
struct ValueType {
  enum class Kind {
    none,     // not checked yet, or an error
    tensor,   // a tensor value
    tuple,    // the several results of a call; only `let (a, b) = ...` takes it
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
  std::vector<TensorType> tuple;
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
  bool isTensor() const { return kind == Kind::tensor; }
  /// A description for messages: the tensor type, "a loop index", ...
  std::string describe() const;
};

} // namespace tad::lang

#endif // TAD_FRONTEND_TYPES_H
