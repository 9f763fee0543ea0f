//===- SemaImpl.h - the state of the semantic checker -----------*- C++ -*-===//
//
// Private to lib/Frontend: Sema.cpp checks declarations and statements,
// SemaExpr.cpp expressions and builtins.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_LIB_FRONTEND_SEMAIMPL_H
#define TAD_LIB_FRONTEND_SEMAIMPL_H

#include "Builtins.h"
#include "tad/Frontend/Sema.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

#include <deque>
#include <map>

namespace tad::lang {

class SemaImpl {
public:
  explicit SemaImpl(DiagnosticEngine &diag) : diag(diag) {}
  bool checkModule(Module &module, llvm::ArrayRef<InstanceRequest> requests,
                   std::vector<std::string> *instanceNames);

private:

  //===--------------------------------------------------------------------===//
  // Scopes
  //===--------------------------------------------------------------------===//

  struct Variable {
    llvm::SMLoc loc;
    ValueType type; // a tensor, a record or an index
    unsigned depth; // the scope it lives in
  };

  /// A block whose reads and writes of enclosing variables are recorded:
  /// a loop body, the branches of an if, a checkpoint.
  struct EffectFrame {
    unsigned depth; // scopes at this depth or deeper are inside the block
    BlockEffects *effects;
  };

  Variable *lookupVariable(llvm::StringRef name);
  bool declareVariable(const Name &name, ValueType type);
  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }
  /// Records that `name` (a variable, or a field path `p.l1` below it) of
  /// type `type` is read or written by the enclosing blocks: each of its
  /// leaves, since MLIRGen passes a record's leaves one by one.
  void recordRead(llvm::StringRef name, const Variable &var);
  void recordWrite(llvm::StringRef name, const Variable &var);
  void recordRead(llvm::StringRef name, const Type &type, const Variable &var);
  void recordWrite(llvm::StringRef name, const Type &type, const Variable &var);

  //===--------------------------------------------------------------------===//
  // Records (SemaRecord.cpp)
  //===--------------------------------------------------------------------===//

  /// Resolves the fields of every struct, rejecting cycles.
  bool resolveStructs(Module &module);
  /// Resolves the struct names of a function's or rule's signature.
  bool resolveSignature(Decl &decl);
  /// Resolves a record type with its arguments (`Linear[f32, 64, 32]`):
  /// an instance of a generic struct. With `allowSymbolic` (a generic
  /// function's signature), arguments that name the function's generic
  /// parameters leave `record` null until an instance binds them.
  bool resolveRecordType(const std::string &name,
                         const std::vector<RecordArg> &args,
                         const RecordType *&record, llvm::SMLoc loc,
                         bool allowSymbolic);
  /// The instance of generic struct `generic` at `args`, parsed again with
  /// its parameters bound and resolved; null after an error.
  StructDecl *instantiateStruct(StructDecl &generic,
                                llvm::ArrayRef<int64_t> args, llvm::SMLoc at);
  /// Resolves the fields of a (concrete) struct into its record type.
  bool resolveFields(StructDecl &decl);
  /// Infers a generic struct's arguments from a constructor's values.
  bool inferStructArgs(CallExpr &expr, StructDecl &generic,
                       std::vector<int64_t> &args);
  bool resolveRecordName(const std::string &name, const RecordType *&record,
                         llvm::SMLoc loc);
  bool checkField(FieldExpr &expr);
  /// `Mlp(w1: a, b1: b)` or `Mlp(a, b)`.
  bool checkConstructor(CallExpr &expr, StructDecl &decl);
  /// The variable and field path `p.l1.w` that `expr` names, if it is one.
  bool getFieldPath(Expr &expr, std::string &path, Variable *&var);

  //===--------------------------------------------------------------------===//
  // Declarations and statements (Sema.cpp)
  //===--------------------------------------------------------------------===//

  bool collectDecls(Module &module);
  /// The index in module->sources of the file that holds `loc`.
  size_t getSourceIndex(llvm::SMLoc loc) const;
  /// When `program` (a function of the program's own file) takes the name
  /// of `library` (a function of an imported file), hides `library` under
  /// `name.file` for the calls of its file and returns true.
  bool shadowLibraryFunction(Decl &library, Decl &program);
  /// The function a call at `loc` of `name` reaches: a shadowed library
  /// function from within its own file, else `name`.
  llvm::StringRef resolveCallee(llvm::SMLoc loc, llvm::StringRef name);
  bool checkDerivative(DerivativeDecl &decl);
  /// Finds the function a rule is for and links them (linkRule).
  bool checkRuleSignature(RuleDecl &rule);
  /// Makes `rule` the custom rule of `function` after checking that its
  /// signature is the function's (for a generic one: its generic
  /// parameters; each instance checks the types).
  bool linkRule(RuleDecl &rule, FunctionDecl &function);
  bool checkFunctionBody(FunctionDecl &fn);
  bool checkRuleBodies(RuleDecl &rule);
  bool checkNoRecursion(Module &module);

  /// What the statements of a body may do.
  struct BodyContext {
    std::vector<Type> results;       // what `return` must return
    std::string owner;               // "function 'f'", for messages
    bool allowSave = false;          // in an rrule's forward block
    SaveStmt *save = nullptr;        // the save statement, once seen
  };
  bool checkBody(Block &block, BodyContext &context, llvm::SMLoc endLoc);
  bool checkNestedBlock(Block &block, llvm::StringRef what);
  bool checkStmt(Stmt &stmt, BodyContext *context);
  bool checkLet(LetStmt &stmt);
  bool checkAssign(AssignStmt &stmt);
  bool checkReturn(ReturnStmt &stmt, BodyContext &context);
  bool checkFor(ForStmt &stmt);
  bool checkIf(IfStmt &stmt);
  bool checkCheckpoint(CheckpointStmt &stmt);
  bool checkSave(SaveStmt &stmt, BodyContext &context);

  //===--------------------------------------------------------------------===//
  // Generic functions (SemaGeneric.cpp)
  //===--------------------------------------------------------------------===//

  bool checkGenericSignature(FunctionDecl &fn);
  /// The instance of a generic function or derivative request at `sizes`
  /// (one per dimension parameter), made at its first use (`at`).
  Decl *instantiate(Decl &generic, llvm::ArrayRef<int64_t> sizes,
                    llvm::SMLoc at);
  /// `generic` (a function or its rule) parsed again from its first token
  /// with the generic parameters of `fn` bound to `sizes`.
  std::unique_ptr<Decl> parseInstance(Decl &generic, const FunctionDecl &fn,
                                      llvm::ArrayRef<int64_t> sizes);
  /// `B = 64, D = 128` for an instance, in messages.
  static std::string describeInstance(const FunctionDecl &fn);
  /// The sizes of a call's dimension parameters, from its checked
  /// arguments' types; false after a located error naming the conflict.
  bool inferSizes(CallExpr &expr, Decl &generic, std::vector<int64_t> &sizes);
  bool instantiateRequests(llvm::ArrayRef<InstanceRequest> requests,
                           std::vector<std::string> *instanceNames);

  //===--------------------------------------------------------------------===//
  // Expressions (SemaExpr.cpp)
  //===--------------------------------------------------------------------===//

  bool checkExpr(Expr &expr);
  /// Checks `expr` and requires a tensor (not a tuple, index or list);
  /// `what` names the expression's role in messages.
  bool checkTensor(Expr &expr, llvm::StringRef what);
  /// Checks that `expr` is a tensor or a record: what a variable, an
  /// argument or a result may hold.
  bool checkValue(Expr &expr, llvm::StringRef what);
  bool checkFloatTensor(Expr &expr, llvm::StringRef what);
  /// A float or integer tensor: not a comparison's boolean.
  bool checkNumericTensor(Expr &expr, llvm::StringRef what);
  /// A random key: an i64 scalar.
  bool checkKey(Expr &expr, llvm::StringRef what);
  /// An integer tensor of indices (a literal becomes an i32).
  bool checkIntegerIndices(Expr &expr, llvm::StringRef what);
  /// At most 2^40 elements in `type`, else an error at `loc`.
  bool checkElementCount(const TensorType &type, llvm::SMLoc loc);
  /// Adapts a weak literal (or an expression of literals) to `elem`; an
  /// integer type takes only integer literals.
  bool adaptWeakTo(Expr &expr, ElemKind elem);
  bool checkVar(VarExpr &expr);
  bool checkUnary(UnaryExpr &expr);
  bool checkBinary(BinaryExpr &expr);
  /// The rules shared by the infix operators and pow, maximum, minimum and
  /// matmul: float operands (integer ones too where `allowInteger`) of one
  /// element type (adapting a literal), and a NumPy broadcast of their
  /// shapes (of the batch dimensions for matmul).
  bool checkOperandPair(Expr &lhs, Expr &rhs, llvm::SMLoc loc,
                        llvm::StringRef op, bool isMatmul, TensorType &result,
                        bool &weak, bool allowInteger = false);
  bool checkCall(CallExpr &expr);
  bool checkUserCall(CallExpr &expr);
  /// Binds a builtin call's arguments (BuiltinCall.cpp) and runs its check.
  bool checkBuiltinCall(CallExpr &expr);
  bool bindBuiltinArg(CallExpr &call, const BuiltinDef &def,
                      const ParamSpec &param, BuiltinArg &bound);
  bool bindProbability(CallExpr &call, const BuiltinDef &def,
                       const ParamSpec &param, Expr &expr,
                       const std::string &what);
  bool bindAxisList(CallExpr &call, const BuiltinDef &def,
                    const ParamSpec &param, BuiltinArg &bound, llvm::SMLoc loc);
  int64_t getBuiltinRank(const CallExpr &call, const BuiltinDef &def,
                         const ParamSpec &param);
  bool normalizeBuiltinAxis(const CallExpr &call, const BuiltinDef &def,
                            const ParamSpec &param, int64_t &axis,
                            llvm::SMLoc loc);
  bool checkIndex(IndexExpr &expr);
  bool checkIndexTerm(Expr &expr, std::string &var, int64_t &offset,
                      int64_t &low, int64_t &high);
  bool checkCheckpointExpr(CheckpointExpr &expr);
  /// Checks that a value of type `actual` (the expression `expr`) can be
  /// used where `expected` is required, adapting a weak literal.
  bool checkAssignable(Expr &expr, const TensorType &expected,
                       const llvm::Twine &what);
  bool checkAssignable(Expr &expr, const Type &expected,
                       const llvm::Twine &what);

  friend class BuiltinCall;

  DiagnosticEngine &diag;
  Module *module = nullptr;
  llvm::StringMap<Decl *> functions; // fn and derivative declarations
  /// The hidden name of each shadowed library function, by the index of
  /// its file in module->sources and its name (shadowLibraryFunction).
  std::map<std::pair<size_t, std::string>, std::string> shadowedNames;
  /// The instances made so far, by generic declaration and sizes.
  std::map<std::pair<Decl *, std::vector<int64_t>>, Decl *> instances;
  std::map<std::pair<StructDecl *, std::vector<int64_t>>, StructDecl *>
      structInstances;
  /// How deep instances of generic structs are nested now (a struct whose
  /// fields instantiate it again at other sizes would never end).
  unsigned structNesting = 0;
  llvm::StringMap<StructDecl *> structs;
  /// A deque: pushing a scope must not move the others, since Variable
  /// pointers into them stay in use while nested expressions are checked.
  std::deque<llvm::StringMap<Variable>> scopes;
  std::vector<EffectFrame> frames;

  /// The callees of the body being checked, with the first call's location:
  /// the edges of the call graph that checkNoRecursion walks.
  llvm::MapVector<Decl *, llvm::SMLoc> *currentCalls = nullptr;
  llvm::DenseMap<Decl *, llvm::MapVector<Decl *, llvm::SMLoc>> calls;
};

/// The NumPy broadcast of two shapes, or false with the first incompatible
/// pair of dimensions (as dimension indices of `a` and `b`).
bool broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                     llvm::SmallVectorImpl<int64_t> &result, int64_t &badA,
                     int64_t &badB);

/// "1 argument", "2 arguments": a count with its noun.
std::string countOf(int64_t n, llvm::StringRef noun,
                    llvm::StringRef pluralNoun = "");

/// Rewrites a weak (literal-only) expression to element type `elem`.
void adaptWeak(Expr &expr, ElemKind elem);

} // namespace tad::lang

#endif // TAD_LIB_FRONTEND_SEMAIMPL_H
