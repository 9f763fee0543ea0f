//===- Builtins.h - the builtin functions, as data --------------*- C++ -*-===//
//
// Every builtin of the language is one BuiltinDef: its parameters (name,
// kind, default), a check that computes its result type from the bound
// arguments, an emitter that builds its tad ops, and the line that
// documents it. Binding (positional or named arguments, defaults, and the
// checks that a parameter's kind implies: a float tensor, a list of axes, a
// key, ...) is done once for all builtins in BuiltinCall.cpp, so that every
// builtin reports its misuse in the same words, and a new builtin is one
// entry in one of the Builtins*.cpp files (the elementwise math, the
// reductions, the shape builtins, indexing, random numbers).
//
// docs/builtins.md is generated from these entries (`tadc
// --print-builtins`), so the reference cannot drift from the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_FRONTEND_BUILTINS_H
#define TAD_LIB_FRONTEND_BUILTINS_H

#include "tad/Frontend/AST.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace mlir {
class OpBuilder;
class RankedTensorType;
} // namespace mlir

namespace tad::lang {

class SemaImpl;

/// What a parameter takes. The value kinds are the builtin's operands (in
/// parameter order); the others are static and bound at compile time.
enum class ParamKind {
  // Values.
  floatTensor,    // a float tensor
  numeric,        // a float or integer tensor
  numerics,       // any number of them, positionally (concat)
  condition,      // a comparison's boolean tensor
  indices,        // an integer tensor (a literal is an i32)
  key,            // a random key: an i64 scalar (a literal seed too)
  probability,    // a float scalar
  indexOrInteger, // a loop index or an integer scalar (a literal is an i64)
  // Static arguments.
  integer,     // an integer literal, within [min, max]
  integers,    // a list of integer literals
  shape,       // a list of positive sizes
  axis,        // an integer literal, an axis of `rankOf`
  axes,        // distinct axes of `rankOf` (default: all of them)
  permutation, // a permutation of the axes of `rankOf` (default: reversed)
  boolean,     // true or false
  elemType,    // an element type: f32, i64, ...
  choice,      // one of the names in `choices` ("sum|mean")
};

/// True for the kinds whose arguments are operands of the builtin's ops.
bool isValueKind(ParamKind kind);

struct ParamSpec {
  const char *name;
  ParamKind kind;
  bool required = true;
  /// The default of an optional axis, integer, boolean (0 or 1) or element
  /// type (an ElemKind), and the index of a choice.
  int64_t defaultValue = 0;
  /// The parameter whose rank an axis, axes or permutation refers to: a
  /// tensor (its rank) or a shape (its length). It comes before this one.
  const char *rankOf = nullptr;
  /// An integer's range, and a choice's names ("sum|mean").
  int64_t min = INT64_MIN, max = INT64_MAX;
  const char *choices = nullptr;
  /// A tensor's least rank.
  int64_t minRank = 0;
  /// A probability whose literal takes this tensor's element type, and
  /// must then have it.
  const char *typeOf = nullptr;
  /// How the documentation shows a default that is not a value ("all").
  const char *defaultText = nullptr;

  // Readable constructors for the tables.
  static ParamSpec value(const char *name, ParamKind kind,
                         int64_t minRank = 0) {
    ParamSpec p{name, kind};
    p.minRank = minRank;
    return p;
  }
  ParamSpec optional(int64_t value = 0, const char *text = nullptr) const {
    ParamSpec p = *this;
    p.required = false;
    p.defaultValue = value;
    p.defaultText = text;
    return p;
  }
};

// The parameter kinds, as the tables write them.
inline ParamSpec floatTensor(const char *name, int64_t minRank = 0) {
  return ParamSpec::value(name, ParamKind::floatTensor, minRank);
}
inline ParamSpec numeric(const char *name, int64_t minRank = 0) {
  return ParamSpec::value(name, ParamKind::numeric, minRank);
}
inline ParamSpec integer(const char *name, int64_t min, int64_t max) {
  ParamSpec p{name, ParamKind::integer};
  p.min = min;
  p.max = max;
  return p;
}
inline ParamSpec ofKind(const char *name, ParamKind kind) {
  return ParamSpec{name, kind};
}
/// An axis, axes or a permutation of the tensor or shape `rankOf`.
inline ParamSpec axisOf(const char *name, ParamKind kind, const char *rankOf) {
  ParamSpec p{name, kind};
  p.rankOf = rankOf;
  return p;
}

class BuiltinCall;
class BuiltinEmitter;

/// One builtin.
struct BuiltinDef {
  const char *name;
  std::vector<ParamSpec> params;
  /// Computes the result type from the bound arguments (and may normalize
  /// them, as reshape resolves its -1); false after a located error.
  bool (*check)(BuiltinCall &call);
  /// Builds the ops of a checked call.
  mlir::Value (*emit)(BuiltinEmitter &emitter);
  /// The reference's two columns: what it computes, and the ops it makes.
  const char *doc;
  const char *ops;

  const ParamSpec *findParam(llvm::StringRef name) const;
  unsigned getParamIndex(llvm::StringRef name) const;
  /// "x, axis, keepdims", for messages.
  std::string listParams() const;
  /// "sum(x, axes: all, keepdims: false)", for the reference.
  std::string signature() const;
};

/// Every builtin; the families are defined in Builtins*.cpp.
llvm::ArrayRef<BuiltinDef> getBuiltins();
const BuiltinDef *findBuiltin(llvm::StringRef name);

std::vector<BuiltinDef> makeMathBuiltins();
std::vector<BuiltinDef> makeReductionBuiltins();
std::vector<BuiltinDef> makeShapeBuiltins();
std::vector<BuiltinDef> makeIndexingBuiltins();
std::vector<BuiltinDef> makeRandomBuiltins();

/// The bound arguments of a builtin call, by parameter name: what both the
/// check and the emitter read.
class BuiltinArgs {
public:
  BuiltinArgs(const CallExpr &call) : callExpr(call), def(*call.builtin) {}

  /// Whether the argument was given (else its default holds).
  bool given(llvm::StringRef name) const { return arg(name).given; }
  /// The argument's expression: null for an optional one not given.
  Expr *expr(llvm::StringRef name) const {
    const BuiltinArg &a = arg(name);
    return a.exprs.empty() ? nullptr : a.exprs.front();
  }
  llvm::ArrayRef<Expr *> exprs(llvm::StringRef name) const {
    return arg(name).exprs;
  }
  const TensorType &tensor(llvm::StringRef name) const {
    return expr(name)->type.tensor;
  }
  int64_t integer(llvm::StringRef name) const { return arg(name).integer; }
  bool flag(llvm::StringRef name) const { return arg(name).integer != 0; }
  ElemKind elem(llvm::StringRef name) const {
    return ElemKind(arg(name).integer);
  }
  llvm::ArrayRef<int64_t> ints(llvm::StringRef name) const {
    return arg(name).ints;
  }
  /// Where the argument is written, or the call for a default.
  llvm::SMLoc loc(llvm::StringRef name) const { return arg(name).loc; }
  const CallExpr &getCall() const { return callExpr; }
  const TensorType &getResult() const { return callExpr.type.tensor; }

protected:
  const BuiltinArg &arg(llvm::StringRef name) const {
    return callExpr.builtinArgs[def.getParamIndex(name)];
  }
  const CallExpr &callExpr;
  const BuiltinDef &def;
};

/// A builtin call being checked: its bound arguments, and the services of
/// Sema a check needs.
class BuiltinCall : public BuiltinArgs {
public:
  BuiltinCall(SemaImpl &sema, CallExpr &call)
      : BuiltinArgs(call), sema(sema), call(call) {}

  llvm::StringRef name() const { return def.name; }
  /// An error at `loc`; returns false.
  bool error(llvm::SMLoc loc, const llvm::Twine &message);
  bool error(const llvm::Twine &message) {
    return error(call.getLoc(), message);
  }
  /// Sets the result type; returns true.
  bool result(TensorType type);

  /// Replaces a static argument with its normalized value.
  void setInts(llvm::StringRef name, llvm::ArrayRef<int64_t> ints);

  // Sema's services.
  void adaptWeak(Expr &expr, ElemKind elem);
  bool adaptWeakTo(Expr &expr, ElemKind elem);
  bool checkElementCount(const TensorType &type, llvm::SMLoc loc);
  /// The rules of the infix operators (SemaImpl::checkOperandPair) for
  /// arguments x and y.
  bool checkOperandPair(bool isMatmul, bool allowInteger, TensorType &result);

private:
  SemaImpl &sema;
  CallExpr &call;
};

/// A checked builtin call being emitted: its operands (the value
/// arguments, emitted), static arguments and result type, and the
/// emission helpers of MLIRGen.
class BuiltinEmitter : public BuiltinArgs {
public:
  BuiltinEmitter(const CallExpr &call, mlir::OpBuilder &builder,
                 const mlir::Location &loc)
      : BuiltinArgs(call), builder(builder), loc(loc) {}
  virtual ~BuiltinEmitter() = default;

  /// The emitted value of the value argument `name`.
  virtual mlir::Value operand(llvm::StringRef name) = 0;
  /// Those of a variadic parameter.
  virtual std::vector<mlir::Value> operands(llvm::StringRef name) = 0;
  /// The result's type.
  virtual mlir::RankedTensorType resultType() = 0;
  /// `value` broadcast to `shape` by NumPy's rules.
  virtual mlir::Value broadcastTo(mlir::Value value,
                                  llvm::ArrayRef<int64_t> shape) = 0;
  /// `value` broadcast to the result's shape.
  mlir::Value elementwise(mlir::Value value) {
    return broadcastTo(value, getResult().shape);
  }
  /// A constant of `type` with every element `value`.
  virtual mlir::Value splat(mlir::RankedTensorType type, double value) = 0;
  /// `lhs @ rhs` with NumPy's batch broadcast, of the result's type.
  virtual mlir::Value matmul(mlir::Value lhs, mlir::Value rhs) = 0;

  mlir::OpBuilder &builder;
  const mlir::Location &loc;
};

} // namespace tad::lang

#endif // TAD_LIB_FRONTEND_BUILTINS_H
