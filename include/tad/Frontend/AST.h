//===- AST.h - the .tad abstract syntax tree --------------------*- C++ -*-===//
//
// The parser builds this tree; Sema checks it and fills in the types and
// resolutions that MLIRGen reads. Nodes use LLVM-style RTTI (a kind and
// classof), as Toy's AST does. Every node carries the location of its first
// token.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_FRONTEND_AST_H
#define TAD_FRONTEND_AST_H

#include "tad/Frontend/Types.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace tad::lang {

class FunctionDecl;
class DerivativeDecl;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind {
    number,
    boolean,
    var,
    list,
    elemType,
    unary,
    binary,
    call,
    index,
    checkpoint,
    tuple,
    field
  };
  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;

  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

  /// Set by Sema.
  ValueType type;
  /// The levels of the tree from here down (1 for a leaf), set by the
  /// parser, which bounds it: Sema, MLIRGen and the destructor recurse once
  /// per level.
  unsigned height = 1;

private:
  const Kind kind;
  llvm::SMLoc loc;
};

using ExprPtr = std::unique_ptr<Expr>;

/// `42`, `-3`, `0.5`, `1e-3`. Integers stay integers until Sema decides
/// whether they are indices, list entries or (weak) scalars.
class NumberExpr : public Expr {
public:
  NumberExpr(llvm::SMLoc loc, std::string spelling, bool isInteger)
      : Expr(Kind::number, loc), spelling(std::move(spelling)),
        isInteger(isInteger) {}
  std::string spelling; // with a leading '-' when negated
  bool isInteger;
  static bool classof(const Expr *e) { return e->getKind() == Kind::number; }
};

class BoolExpr : public Expr {
public:
  BoolExpr(llvm::SMLoc loc, bool value) : Expr(Kind::boolean, loc), value(value) {}
  bool value;
  static bool classof(const Expr *e) { return e->getKind() == Kind::boolean; }
};

class VarExpr : public Expr {
public:
  VarExpr(llvm::SMLoc loc, std::string name)
      : Expr(Kind::var, loc), name(std::move(name)) {}
  std::string name;
  static bool classof(const Expr *e) { return e->getKind() == Kind::var; }
};

/// `[0, 1]`: axes, shapes and permutations.
class ListExpr : public Expr {
public:
  ListExpr(llvm::SMLoc loc, std::vector<ExprPtr> elements)
      : Expr(Kind::list, loc), elements(std::move(elements)) {}
  std::vector<ExprPtr> elements;
  static bool classof(const Expr *e) { return e->getKind() == Kind::list; }
};

/// `f16` in `cast(x, f16)`.
class ElemTypeExpr : public Expr {
public:
  ElemTypeExpr(llvm::SMLoc loc, ElemKind elem)
      : Expr(Kind::elemType, loc), elem(elem) {}
  ElemKind elem;
  static bool classof(const Expr *e) { return e->getKind() == Kind::elemType; }
};

class UnaryExpr : public Expr {
public:
  UnaryExpr(llvm::SMLoc loc, ExprPtr operand)
      : Expr(Kind::unary, loc), operand(std::move(operand)) {}
  ExprPtr operand; // the operator is always '-'
  static bool classof(const Expr *e) { return e->getKind() == Kind::unary; }
};

enum class BinaryOp { add, sub, mul, div, matmul, lt, le, gt, ge, eq, ne };
llvm::StringRef getBinaryOpSpelling(BinaryOp op);

class BinaryExpr : public Expr {
public:
  BinaryExpr(llvm::SMLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::binary, loc), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  BinaryOp op;
  ExprPtr lhs, rhs;
  static bool classof(const Expr *e) { return e->getKind() == Kind::binary; }
};

struct BuiltinDef;

/// One bound argument of a builtin call (Builtins.h): its expressions (one,
/// or a variadic parameter's), and a static argument's value, normalized:
/// an integer, axis, boolean or element type in `integer`, a list (axes
/// and permutations with negative entries resolved, reshape targets with
/// -1 resolved) in `ints`.
struct BuiltinArg {
  llvm::SmallVector<Expr *, 1> exprs;
  llvm::SMLoc loc; // the argument, or the call for a default
  bool given = false;
  int64_t integer = 0;
  llvm::SmallVector<int64_t, 4> ints;
};

struct CallArg {
  llvm::SMLoc loc;
  std::string name; // empty for a positional argument
  ExprPtr value;
};

class CallExpr : public Expr {
public:
  CallExpr(llvm::SMLoc loc, std::string callee, std::vector<CallArg> args)
      : Expr(Kind::call, loc), callee(std::move(callee)),
        args(std::move(args)) {}
  std::string callee;
  std::vector<CallArg> args;

  /// Set by Sema: exactly one of these names the callee.
  const BuiltinDef *builtin = nullptr;
  FunctionDecl *function = nullptr;
  DerivativeDecl *derivative = nullptr;
  /// Set by Sema for `Mlp(w1: a, b1: b)`: the record it builds, and the
  /// value of each field in field order.
  const RecordType *record = nullptr;
  std::vector<Expr *> fieldValues;
  /// Set by Sema for builtins: the arguments, one per parameter.
  std::vector<BuiltinArg> builtinArgs;
  static bool classof(const Expr *e) { return e->getKind() == Kind::call; }
};

/// One dimension's entry of an index: a position `i` (the dimension is
/// dropped) or a range `start:end` (either end may be left out; `:` is
/// the whole dimension). Positions and range ends are integer literals,
/// loop indices, or a loop index plus or minus an integer literal.
struct IndexEntry {
  llvm::SMLoc loc;
  bool isRange = false;
  ExprPtr start, end; // a position is `start`; a range's may be null
  /// Set by Sema: the first element read is `var + offset` (`offset` alone
  /// where `var` is empty), and `size` elements are read.
  std::string var;
  int64_t offset = 0, size = 1;
};

/// `ws[i]`, `x[0, j]`, `s[:, k:k+2]`: positions and ranges of dimensions.
class IndexExpr : public Expr {
public:
  IndexExpr(llvm::SMLoc loc, ExprPtr base, std::vector<IndexEntry> entries)
      : Expr(Kind::index, loc), base(std::move(base)),
        entries(std::move(entries)) {}
  ExprPtr base;
  std::vector<IndexEntry> entries;
  static bool classof(const Expr *e) { return e->getKind() == Kind::index; }
};

/// `checkpoint(expr)`: the values computed inside are recomputed, not kept.
class CheckpointExpr : public Expr {
public:
  CheckpointExpr(llvm::SMLoc loc, ExprPtr body)
      : Expr(Kind::checkpoint, loc), body(std::move(body)) {}
  ExprPtr body;
  /// Set by Sema: the variables the body reads, in first-use order.
  std::vector<std::string> captures;
  static bool classof(const Expr *e) {
    return e->getKind() == Kind::checkpoint;
  }
};

/// `p.w1`: a field of a record.
class FieldExpr : public Expr {
public:
  FieldExpr(llvm::SMLoc loc, ExprPtr base, std::string field,
            llvm::SMLoc fieldLoc)
      : Expr(Kind::field, loc), base(std::move(base)), field(std::move(field)),
        fieldLoc(fieldLoc) {}
  ExprPtr base;
  std::string field;
  llvm::SMLoc fieldLoc;
  /// Set by Sema: the field's leaves among the base's.
  unsigned leafOffset = 0, numLeaves = 0;
  static bool classof(const Expr *e) { return e->getKind() == Kind::field; }
};

/// `(a, b)`: only as the value of a return statement.
class TupleExpr : public Expr {
public:
  TupleExpr(llvm::SMLoc loc, std::vector<ExprPtr> elements)
      : Expr(Kind::tuple, loc), elements(std::move(elements)) {}
  std::vector<ExprPtr> elements;
  static bool classof(const Expr *e) { return e->getKind() == Kind::tuple; }
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Block {
  llvm::SMLoc loc;
  std::vector<StmtPtr> stmts;
};

class Stmt {
public:
  enum class Kind { let, assign, ret, forLoop, ifElse, checkpoint, save };
  Stmt(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

private:
  const Kind kind;
  llvm::SMLoc loc;
};

struct Name {
  llvm::SMLoc loc;
  std::string name;
};

/// `let x = e;` or `let (a, b) = f(x);`
class LetStmt : public Stmt {
public:
  LetStmt(llvm::SMLoc loc, std::vector<Name> names, bool destructure,
          ExprPtr value)
      : Stmt(Kind::let, loc), names(std::move(names)),
        destructure(destructure), value(std::move(value)) {}
  std::vector<Name> names;
  bool destructure;
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::let; }
};

/// `x = e;`, or `p.w1 = e;` for a field of a record variable.
class AssignStmt : public Stmt {
public:
  AssignStmt(llvm::SMLoc loc, Name target, std::vector<Name> fields,
             ExprPtr value)
      : Stmt(Kind::assign, loc), target(std::move(target)),
        fields(std::move(fields)), value(std::move(value)) {}
  Name target;
  std::vector<Name> fields; // the path below `target`, if any
  ExprPtr value;
  /// Set by Sema: `p.w1`, the name of what is assigned.
  std::string path;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::assign; }
};

/// `return e;` or `return (a, b);`
class ReturnStmt : public Stmt {
public:
  ReturnStmt(llvm::SMLoc loc, std::vector<ExprPtr> values)
      : Stmt(Kind::ret, loc), values(std::move(values)) {}
  std::vector<ExprPtr> values;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::ret; }
};

/// The variables of enclosing scopes that a nested block assigns (they flow
/// out of it) and reads; set by Sema, in first-use order.
struct BlockEffects {
  std::vector<std::string> writes;
  std::vector<std::string> reads;
};

/// `for i in 0..48 { ... }`
class ForStmt : public Stmt {
public:
  ForStmt(llvm::SMLoc loc, Name var, ExprPtr low, ExprPtr high, Block body)
      : Stmt(Kind::forLoop, loc), var(std::move(var)), low(std::move(low)),
        high(std::move(high)), body(std::move(body)) {}
  Name var;
  ExprPtr low, high;
  Block body;
  /// Set by Sema.
  int64_t lowValue = 0, highValue = 0;
  BlockEffects effects;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::forLoop; }
};

/// `if c { ... } else { ... }`
class IfStmt : public Stmt {
public:
  IfStmt(llvm::SMLoc loc, ExprPtr cond, Block thenBlock,
         std::optional<Block> elseBlock)
      : Stmt(Kind::ifElse, loc), cond(std::move(cond)),
        thenBlock(std::move(thenBlock)), elseBlock(std::move(elseBlock)) {}
  ExprPtr cond;
  Block thenBlock;
  std::optional<Block> elseBlock;
  BlockEffects effects; // of both branches together
  static bool classof(const Stmt *s) { return s->getKind() == Kind::ifElse; }
};

/// `checkpoint { ... }`
class CheckpointStmt : public Stmt {
public:
  CheckpointStmt(llvm::SMLoc loc, Block body)
      : Stmt(Kind::checkpoint, loc), body(std::move(body)) {}
  Block body;
  BlockEffects effects;
  static bool classof(const Stmt *s) {
    return s->getKind() == Kind::checkpoint;
  }
};

/// `save a, b;` in the forward block of an rrule.
class SaveStmt : public Stmt {
public:
  SaveStmt(llvm::SMLoc loc, std::vector<Name> names)
      : Stmt(Kind::save, loc), names(std::move(names)) {}
  std::vector<Name> names;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::save; }
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

/// The dimension parameters each dimension of a type names, in a generic
/// function's signature: `f32[B, 16]` is {"B", ""}. Empty for a type
/// without any; its shape holds kSymbolicDim in their places.
using DimNames = std::vector<std::string>;
inline constexpr int64_t kSymbolicDim = -1;
/// The place of the leading dimensions `...` in a generic signature's
/// shape (its DimNames entry is "..."): any number of dimensions, the same
/// in every type of the signature, bound by a call's arguments.
inline constexpr int64_t kPackDim = -2;
inline constexpr llvm::StringLiteral kPackName = "...";

/// A parameter of a generic function: a dimension (`B`), or an element
/// type (`E: type`).
struct GenericParam {
  llvm::SMLoc loc;
  std::string name;
  bool isType = false;
  /// `...`: the leading dimensions, of any number (kPackDim).
  bool isPack = false;
};

/// An argument of a generic struct's type, `Linear[f32, 64, O]`: an element
/// type, a size, or the name of a generic parameter of the enclosing
/// function (bound at each of its instances).
struct RecordArg {
  llvm::SMLoc loc;
  std::string name; // a generic parameter's name, or empty for a literal
  int64_t value = 0; // a size, or an ElemKind for an element type
  bool isType = false;
};

struct Param {
  llvm::SMLoc loc;
  std::string name;
  TensorType type;
  llvm::SMLoc typeLoc;
  DimNames dims;
  /// The element type parameter its type names (`E[B, 4]`), if any; its
  /// element type is then a placeholder.
  std::string elemParam;
  /// A record type, by name as written, and its arguments for a generic
  /// struct; Sema resolves it.
  std::string recordName;
  std::vector<RecordArg> recordArgs;
  const RecordType *record = nullptr;
  Type getType() const { return record ? Type(record) : Type(type); }
};

struct TypeWithLoc {
  llvm::SMLoc loc;
  TensorType type;
  DimNames dims;
  std::string elemParam;
  std::string recordName;
  std::vector<RecordArg> recordArgs;
  const RecordType *record = nullptr;
  Type getType() const { return record ? Type(record) : Type(type); }
};

class Decl {
public:
  enum class Kind { function, derivative, rule, record };
  Decl(Kind kind, llvm::SMLoc loc, Name name)
      : kind(kind), loc(loc), name(std::move(name)) {}
  virtual ~Decl() = default;
  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }
  const std::string &getName() const { return name.name; }
  llvm::SMLoc getNameLoc() const { return name.loc; }
  /// An instance of a generic declaration takes the name of its sizes.
  void rename(std::string newName) { name.name = std::move(newName); }
  /// A library function that a function of the program shadows: renamed
  /// `name.file`, it serves the calls of its own file only and is never
  /// exported.
  bool isShadowed() const { return shadowed; }
  void setShadowed() { shadowed = true; }

private:
  const Kind kind;
  llvm::SMLoc loc;
  Name name;
  bool shadowed = false;
};

class RuleDecl;

/// `@checkpoint fn name(params) -> results { body }`
class FunctionDecl : public Decl {
public:
  FunctionDecl(llvm::SMLoc loc, Name name, std::vector<Param> params,
               std::vector<TypeWithLoc> results, Block body,
               std::optional<llvm::SMLoc> checkpointAttr)
      : Decl(Kind::function, loc, std::move(name)), params(std::move(params)),
        results(std::move(results)), body(std::move(body)),
        checkpointAttr(checkpointAttr) {}
  std::vector<Param> params;
  std::vector<TypeWithLoc> results;
  Block body;
  /// Where `@checkpoint` was written, when it was.
  std::optional<llvm::SMLoc> checkpointAttr;
  /// `fn f[B, D](...)`, `fn f[E: type, B](...)`: the parameters of a
  /// generic function, which Sema instantiates at the sizes and element
  /// types of each call (an instance is a FunctionDecl of its own, parsed
  /// again with them bound, whose `dims` are empty).
  std::vector<GenericParam> dims;
  /// Set by Sema: the custom rule of this function, if any.
  RuleDecl *rule = nullptr;
  /// Set by Sema on an instance: the generic function, its sizes (in the
  /// order of its dims; an element type as its ElemKind) and the call that
  /// first needed it.
  FunctionDecl *generic = nullptr;
  std::vector<int64_t> sizes;
  llvm::SMLoc instantiatedAt;

  bool isGeneric() const { return !dims.empty(); }

  std::vector<Type> getParamTypes() const;
  std::vector<Type> getResultTypes() const;
  std::vector<DimNames> getParamDims() const;
  std::vector<DimNames> getResultDims() const;
  std::vector<std::string> getParamElemParams() const;
  static bool classof(const Decl *d) { return d->getKind() == Kind::function; }
};

enum class RequestKind { grad, value_and_grad, vjp };
llvm::StringRef getRequestKindName(RequestKind kind);

/// `fn loss_grad = grad(loss, wrt: [w1, b1]);`
class DerivativeDecl : public Decl {
public:
  DerivativeDecl(llvm::SMLoc loc, Name name, RequestKind kind,
                 llvm::SMLoc kindLoc, Name primal, std::vector<Name> wrt,
                 bool explicitWrt)
      : Decl(Kind::derivative, loc, std::move(name)), kind(kind),
        kindLoc(kindLoc), primal(std::move(primal)), wrt(std::move(wrt)),
        explicitWrt(explicitWrt) {}
  RequestKind kind;
  llvm::SMLoc kindLoc;
  Name primal;
  std::vector<Name> wrt;
  bool explicitWrt;
  /// Set by Sema.
  FunctionDecl *primalDecl = nullptr;
  std::vector<int64_t> wrtPositions;
  std::vector<Type> paramTypes, resultTypes;
  /// The symbolic dimensions of paramTypes and resultTypes, where the
  /// primal is generic (then the request is generic too, and instantiated
  /// at the sizes of each call as its primal is).
  std::vector<DimNames> paramDims, resultDims;
  std::vector<std::string> paramElemParams;
  /// Set on an instance: the generic request.
  DerivativeDecl *generic = nullptr;
  bool isGeneric() const { return primalDecl && primalDecl->isGeneric(); }
  static bool classof(const Decl *d) {
    return d->getKind() == Kind::derivative;
  }
};

/// rrule name dims? (params) -> results {
///   forward { ...; save a, b; return y; }
///   pullback(dy: T) -> (Tx, Tw) { ... }
/// }
class RuleDecl : public Decl {
public:
  RuleDecl(llvm::SMLoc loc, Name name, std::vector<Param> params,
           std::vector<TypeWithLoc> results, llvm::SMLoc forwardLoc,
           Block forward, llvm::SMLoc pullbackLoc,
           std::vector<Param> pullbackParams,
           std::vector<TypeWithLoc> pullbackResults, Block pullback)
      : Decl(Kind::rule, loc, std::move(name)), params(std::move(params)),
        results(std::move(results)), forwardLoc(forwardLoc),
        forward(std::move(forward)), pullbackLoc(pullbackLoc),
        pullbackParams(std::move(pullbackParams)),
        pullbackResults(std::move(pullbackResults)),
        pullback(std::move(pullback)) {}
  std::vector<Param> params;
  std::vector<TypeWithLoc> results;
  llvm::SMLoc forwardLoc;
  Block forward;
  llvm::SMLoc pullbackLoc;
  std::vector<Param> pullbackParams;
  std::vector<TypeWithLoc> pullbackResults;
  Block pullback;
  /// `rrule gelu[E: type, ...](...)`: the rule of a generic function
  /// declares the function's generic parameters. Sema instantiates it with
  /// each instance of the function, parsed again with them bound (an
  /// instance's `dims` are empty).
  std::vector<GenericParam> dims;
  bool isGeneric() const { return !dims.empty(); }
  /// Set by Sema.
  FunctionDecl *primalDecl = nullptr;
  std::vector<Name> saved;
  std::vector<TensorType> savedTypes;
  /// For each saved value: the index of the parameter it is, when the
  /// forward block saves a parameter it does not assign, else -1. The
  /// forward does not return those; the pullback takes the call's argument
  /// (CustomRuleAttr's saved_params).
  std::vector<int64_t> savedParams;
  static bool classof(const Decl *d) { return d->getKind() == Kind::rule; }
};

/// `struct Mlp { w1: f32[256, 128], b1: f32[128] }`: a record type. Its
/// fields are tensors or records declared elsewhere in the program.
class StructDecl : public Decl {
public:
  StructDecl(llvm::SMLoc loc, Name name, std::vector<Param> fields)
      : Decl(Kind::record, loc, std::move(name)), fields(std::move(fields)) {}
  std::vector<Param> fields;
  /// `struct Linear[E: type, I, O] { ... }`: a template of records, one per
  /// set of arguments (Linear[f32, 64, 32]), parsed again with them bound.
  std::vector<GenericParam> dims;
  bool isGeneric() const { return !dims.empty(); }
  /// For an instance: its generic struct and arguments.
  StructDecl *generic = nullptr;
  std::vector<int64_t> sizes;
  /// Set by Sema once every field's type is resolved.
  RecordType record;
  static bool classof(const Decl *d) { return d->getKind() == Kind::record; }
};

/// `import "nn.tad";`: the path as written, at the location of its string.
struct Import {
  llvm::SMLoc loc;
  std::string path;
};

class Module {
public:
  std::vector<std::unique_ptr<Decl>> decls;
  std::vector<Import> imports;
  /// The source text of the file and of each file it imports, which Sema
  /// parses again to instantiate a generic function.
  std::vector<llvm::StringRef> sources;
};

/// Whether `decl` is a generic function or a request for the derivative
/// of one: a template of instances, which MLIRGen does not emit.
bool isGenericDecl(const Decl &decl);

/// `[E: type, ..., D]`: a declaration's generic parameters as written;
/// empty for none.
std::string formatGenericParams(llvm::ArrayRef<GenericParam> params);

/// `f32[B, 16]`, `E[B]`: a type of a generic signature with its parameters.
std::string formatGenericType(const TensorType &type, const DimNames &dims,
                              const std::string &elemParam = "");
std::string formatGenericType(const Param &param);

/// Prints the tree with types (when checked) and line:col locations.
void dumpAST(const Module &module, llvm::SourceMgr &sourceMgr,
             llvm::raw_ostream &os);

} // namespace tad::lang

#endif // TAD_FRONTEND_AST_H
