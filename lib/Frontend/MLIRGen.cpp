//===- MLIRGen.cpp - .tad AST to the tad dialect --------------------------===//
//
// Emission follows Sema's annotations and cannot fail on a checked module.
// Variables are SSA values bound in a stack of scopes. A loop, a branch or a
// checkpoint that assigns enclosing variables first copies their current
// values into its own scope; what it leaves there flows out as scf.for
// iter_args, scf.if results or tad.checkpoint results.
//
//===----------------------------------------------------------------------===//

#include "tad/Frontend/MLIRGen.h"
#include "Builtins.h"
#include "tad/Frontend/Sema.h"

#include "dialects/tad/TadOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

using namespace tad::lang;
using mlir::OpBuilder;
using mlir::RankedTensorType;
using mlir::Value;

namespace {

class MLIRGenImpl {
  friend class Emitter;

public:
  MLIRGenImpl(mlir::MLIRContext &context, DiagnosticEngine &diag)
      : context(context), builder(&context), diag(diag),
        file(mlir::StringAttr::get(&context, diag.getFilename())) {}

  mlir::OwningOpRef<mlir::ModuleOp> emit(const Module &ast);

private:
  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  /// The location in the file that holds `smloc`: an imported file's
  /// code (the standard library's) is named after that file, so that the
  /// remat report and debug info point into it.
  mlir::Location loc(llvm::SMLoc smloc) {
    auto [line, col] = diag.getLineAndColumn(smloc);
    llvm::SourceMgr &sourceMgr = diag.getSourceMgr();
    unsigned buffer = sourceMgr.FindBufferContainingLoc(smloc);
    mlir::StringAttr name = file;
    if (buffer && buffer != sourceMgr.getMainFileID())
      name = mlir::StringAttr::get(
          &context, sourceMgr.getMemoryBuffer(buffer)->getBufferIdentifier());
    return mlir::FileLineColLoc::get(name, line, col);
  }

  mlir::Type getElementType(ElemKind elem) {
    switch (elem) {
    case ElemKind::f32: return builder.getF32Type();
    case ElemKind::f64: return builder.getF64Type();
    case ElemKind::f16: return builder.getF16Type();
    case ElemKind::bf16: return builder.getBF16Type();
    case ElemKind::i1: return builder.getI1Type();
    case ElemKind::i32: return builder.getI32Type();
    case ElemKind::i64: return builder.getI64Type();
    }
    return {};
  }

  RankedTensorType getType(const TensorType &type) {
    return RankedTensorType::get(type.shape, getElementType(type.elem));
  }

  /// A record passes as its leaves, one argument or result each.
  mlir::FunctionType getFunctionType(llvm::ArrayRef<Type> params,
                                     llvm::ArrayRef<Type> results) {
    llvm::SmallVector<mlir::Type> in, out;
    for (const TensorType &t : flattenTypes(params))
      in.push_back(getType(t));
    for (const TensorType &t : flattenTypes(results))
      out.push_back(getType(t));
    return builder.getFunctionType(in, out);
  }

  /// A splat float constant of `type`.
  /// `uniform < p`, true with probability p: uniforms of p's type.
  Value emitBernoulli(mlir::Location l, Value key, Value p,
                      llvm::ArrayRef<int64_t> shape) {
    auto pType = llvm::cast<RankedTensorType>(p.getType());
    auto uniformType = RankedTensorType::get(shape, pType.getElementType());
    Value u = tad::RandomOp::create(builder, l, uniformType, key,
                                    tad::Distribution::uniform);
    return tad::CompareOp::create(builder, l, tad::ComparePredicate::lt, u,
                                  broadcastTo(l, p, shape));
  }

  Value splat(mlir::Location l, RankedTensorType type, double value) {
    if (auto intType = llvm::dyn_cast<mlir::IntegerType>(type.getElementType()))
      return tad::ConstantOp::create(
          builder, l,
          mlir::DenseElementsAttr::get(
              type, mlir::IntegerAttr::get(intType, int64_t(value))));
    auto floatType = llvm::cast<mlir::FloatType>(type.getElementType());
    llvm::APFloat v(value);
    bool losesInfo;
    v.convert(floatType.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
              &losesInfo);
    return tad::ConstantOp::create(
        builder, l,
        mlir::DenseElementsAttr::get(type, mlir::FloatAttr::get(floatType, v)));
  }

  /// Broadcasts `value` to `shape` by NumPy's rules (trailing alignment).
  /// A splat constant is re-made at the target shape instead.
  Value broadcastTo(mlir::Location l, Value value,
                    llvm::ArrayRef<int64_t> shape) {
    auto type = llvm::cast<RankedTensorType>(value.getType());
    if (type.getShape() == shape)
      return value;
    auto target = RankedTensorType::get(shape, type.getElementType());
    if (auto constant = value.getDefiningOp<tad::ConstantOp>()) {
      if (auto dense = llvm::dyn_cast<mlir::SplatElementsAttr>(
              constant.getValue())) {
        Value result = tad::ConstantOp::create(
            builder, l,
            mlir::SplatElementsAttr::get(target,
                                         dense.getSplatValue<mlir::Attribute>()));
        if (constant->use_empty())
          constant->erase();
        return result;
      }
    }
    llvm::SmallVector<int64_t> dims;
    for (int64_t i = 0; i < type.getRank(); ++i)
      dims.push_back(int64_t(shape.size()) - type.getRank() + i);
    return tad::BroadcastOp::create(builder, l, target, value, dims);
  }

  //===--------------------------------------------------------------------===//
  // Scopes
  //===--------------------------------------------------------------------===//

  Value lookup(llvm::StringRef name) {
    for (auto &scope : llvm::reverse(scopes)) {
      auto it = scope.find(name);
      if (it != scope.end())
        return it->second;
    }
    llvm_unreachable("Sema resolved every name");
  }
  void bind(llvm::StringRef name, Value value) { scopes.back()[name] = value; }
  /// Rebinds an existing variable where it lives.
  void assign(llvm::StringRef name, Value value) {
    for (auto &scope : llvm::reverse(scopes)) {
      auto it = scope.find(name);
      if (it != scope.end()) {
        it->second = value;
        return;
      }
    }
    llvm_unreachable("Sema checked every assignment");
  }
  llvm::SmallVector<Value> lookupAll(llvm::ArrayRef<std::string> names) {
    llvm::SmallVector<Value> values;
    for (const std::string &name : names)
      values.push_back(lookup(name));
    return values;
  }
  /// A value of `type` named `name`, as its leaves: a record variable `p`
  /// lives in the scopes as `p.w1`, `p.b1`, ...
  void bindValue(llvm::StringRef name, const Type &type,
                 mlir::ValueRange values) {
    for (auto [leaf, value] : llvm::zip_equal(type.getLeafNames(name), values))
      bind(leaf, value);
  }
  void assignValue(llvm::StringRef name, const Type &type,
                   mlir::ValueRange values) {
    for (auto [leaf, value] : llvm::zip_equal(type.getLeafNames(name), values))
      assign(leaf, value);
  }
  /// `p`, `p.l1.w`: the name of the variable or field `expr` reads, when it
  /// is one (empty otherwise).
  static std::string getPath(const Expr &expr) {
    if (auto *var = llvm::dyn_cast<VarExpr>(&expr))
      return var->name;
    if (auto *field = llvm::dyn_cast<FieldExpr>(&expr)) {
      std::string base = getPath(*field->base);
      return base.empty() ? base : base + "." + field->field;
    }
    return "";
  }

  //===--------------------------------------------------------------------===//
  // Declarations, statements, expressions
  //===--------------------------------------------------------------------===//

  void declareFunctions(const Module &ast);
  void emitFunction(const FunctionDecl &fn);
  void emitRule(const RuleDecl &rule);
  void emitBody(const Block &block, llvm::SmallVectorImpl<Value> *saved,
                llvm::ArrayRef<int64_t> savedParams = {});
  void emitStmt(const Stmt &stmt);
  void emitFor(const ForStmt &stmt);
  void emitIf(const IfStmt &stmt);
  void emitCheckpoint(const CheckpointStmt &stmt);
  llvm::SmallVector<Value> emitReturnValues(const ReturnStmt &stmt);

  Value emitExpr(const Expr &expr);
  /// An expression that may have several values (a call).
  llvm::SmallVector<Value> emitValues(const Expr &expr);
  Value emitNumber(const NumberExpr &expr);
  Value emitBinary(const BinaryExpr &expr);
  Value emitMatmul(mlir::Location l, Value lhs, Value rhs,
                   const TensorType &result);
  llvm::SmallVector<Value> emitCall(const CallExpr &expr);
  Value emitBuiltin(const CallExpr &expr);
  Value emitIndex(const IndexExpr &expr);
  Value emitIndexTerm(mlir::Location l, const IndexEntry &entry);
  llvm::SmallVector<Value> emitCheckpointExpr(const CheckpointExpr &expr);
  /// Emits `body` inside a tad.checkpoint over the variables `captures`,
  /// yielding what `body` returns.
  tad::CheckpointOp
  emitCheckpointRegion(mlir::Location l, llvm::ArrayRef<std::string> captures,
                       mlir::TypeRange resultTypes,
                       llvm::function_ref<llvm::SmallVector<Value>()> body);

  mlir::MLIRContext &context;
  OpBuilder builder;
  DiagnosticEngine &diag;
  mlir::StringAttr file;
  mlir::ModuleOp module;
  llvm::StringMap<mlir::func::FuncOp> functions;
  std::vector<llvm::StringMap<Value>> scopes;
};

} // namespace

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

static std::string forwardName(llvm::StringRef primal) {
  return (primal + ".rule.forward").str();
}
static std::string pullbackName(llvm::StringRef primal) {
  return (primal + ".rule.pullback").str();
}

mlir::OwningOpRef<mlir::ModuleOp> MLIRGenImpl::emit(const Module &ast) {
  module = mlir::ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module.getBody());
  declareFunctions(ast);
  for (const auto &decl : ast.decls) {
    if (isGenericDecl(*decl))
      continue;
    if (auto *fn = llvm::dyn_cast<FunctionDecl>(decl.get()))
      emitFunction(*fn);
    else if (auto *rule = llvm::dyn_cast<RuleDecl>(decl.get()))
      emitRule(*rule);
  }
  mlir::OwningOpRef<mlir::ModuleOp> owned(module);
  if (mlir::failed(mlir::verify(*owned)))
    return nullptr;
  return owned;
}

/// Creates every func.func first, so that bodies can refer to functions
/// declared later in the file and derivative types can be computed from
/// their primals.
void MLIRGenImpl::declareFunctions(const Module &ast) {
  for (const auto &decl : ast.decls) {
    auto *fn = llvm::dyn_cast<FunctionDecl>(decl.get());
    if (!fn || fn->isGeneric())
      continue;
    auto op = mlir::func::FuncOp::create(
        builder, loc(fn->getLoc()), fn->getName(),
        getFunctionType(fn->getParamTypes(), fn->getResultTypes()));
    if (fn->checkpointAttr)
      op->setAttr(tad::TadDialect::kCheckpointedAttrName, builder.getUnitAttr());
    // A shadowed library function serves its own file's calls only.
    if (fn->isShadowed() || (fn->generic && fn->generic->isShadowed()))
      op.setPrivate();
    // A record result's leaves are named after their paths.
    std::vector<Type> results = fn->getResultTypes();
    // (Set at once: one setResultAttr per leaf makes an array of them all
    // each time, quadratic in the leaves: 200 MB at 5,000.)
    if (llvm::any_of(results, [](const Type &t) { return t.isRecord(); })) {
      llvm::SmallVector<mlir::DictionaryAttr> names;
      for (auto [k, type] : llvm::enumerate(results))
        for (const std::string &leaf :
             type.getLeafNames("result" + std::to_string(k)))
          names.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
              tad::TadDialect::kResultNameAttrName,
              builder.getStringAttr(leaf))));
      op.setAllResultAttrs(names);
    }
    functions[fn->getName()] = op;
  }
  for (const auto &decl : ast.decls) {
    if (auto *rule = llvm::dyn_cast<RuleDecl>(decl.get())) {
      if (rule->isGeneric())
        continue; // its instances are emitted
      const FunctionDecl &primal = *rule->primalDecl;
      // The forward returns the saved values it computes; the pullback
      // takes them, then the saved parameters (the call's arguments).
      std::vector<Type> forwardResults = primal.getResultTypes();
      std::vector<Type> pullbackParams;
      llvm::SmallVector<int64_t> savedParams;
      for (auto [type, param] : llvm::zip(rule->savedTypes, rule->savedParams))
        if (param < 0)
          forwardResults.push_back(type);
      llvm::append_range(pullbackParams,
                         llvm::ArrayRef(forwardResults)
                             .drop_front(primal.getResultTypes().size()));
      for (auto [type, param] : llvm::zip(rule->savedTypes, rule->savedParams))
        if (param >= 0) {
          pullbackParams.push_back(type);
          savedParams.push_back(param);
        }
      llvm::append_range(pullbackParams, primal.getResultTypes());
      auto forward = mlir::func::FuncOp::create(
          builder, loc(rule->forwardLoc), forwardName(rule->getName()),
          getFunctionType(primal.getParamTypes(), forwardResults));
      auto pullback = mlir::func::FuncOp::create(
          builder, loc(rule->pullbackLoc), pullbackName(rule->getName()),
          getFunctionType(pullbackParams, primal.getParamTypes()));
      forward.setPrivate();
      pullback.setPrivate();
      functions[forward.getName()] = forward;
      functions[pullback.getName()] = pullback;
      functions[rule->getName()]->setAttr(
          tad::TadDialect::kCustomRuleAttrName,
          tad::CustomRuleAttr::get(
              &context, mlir::FlatSymbolRefAttr::get(forward.getNameAttr()),
              mlir::FlatSymbolRefAttr::get(pullback.getNameAttr()),
              savedParams));
      continue;
    }
    auto *request = llvm::dyn_cast<DerivativeDecl>(decl.get());
    if (!request || request->isGeneric())
      continue;
    tad::DerivativeKind kind = request->kind == RequestKind::grad
                                   ? tad::DerivativeKind::grad
                               : request->kind == RequestKind::value_and_grad
                                   ? tad::DerivativeKind::value_and_grad
                                   : tad::DerivativeKind::vjp;
    mlir::func::FuncOp primal = functions[request->primal.name];
    // A record parameter is differentiated leaf by leaf.
    llvm::SmallVector<int64_t> wrt;
    std::vector<unsigned> firstLeaf;
    unsigned leaves = 0;
    for (const Param &param : request->primalDecl->params) {
      firstLeaf.push_back(leaves);
      leaves += param.getType().getNumLeaves();
    }
    for (int64_t position : request->wrtPositions) {
      const Param &param = request->primalDecl->params[position];
      for (unsigned k = 0; k < param.getType().getNumLeaves(); ++k)
        wrt.push_back(firstLeaf[position] + k);
    }
    mlir::FailureOr<mlir::FunctionType> type =
        tad::getDerivativeType(primal.getFunctionType(), kind, wrt, [&] {
          return mlir::emitError(loc(request->getLoc()));
        });
    if (mlir::failed(type))
      continue; // Sema's rules are the same; the verifier will say more
    auto op = mlir::func::FuncOp::create(builder, loc(request->getLoc()),
                                         request->getName(), *type);
    op.setPrivate();
    op->setAttr(tad::TadDialect::kDerivativeAttrName,
                tad::DerivativeAttr::get(
                    &context, kind,
                    mlir::FlatSymbolRefAttr::get(primal.getNameAttr()), wrt));
    functions[request->getName()] = op;
  }
}

void MLIRGenImpl::emitFunction(const FunctionDecl &fn) {
  mlir::func::FuncOp op = functions[fn.getName()];
  mlir::Block *entry = op.addEntryBlock();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(entry);
  scopes.clear();
  scopes.emplace_back();
  // The parameter's name is declared on it (tad.arg_name), so that the
  // driver can match parameters with .npy files and the generated C
  // header can name them; a record's leaves are named after their paths
  // (`p.w1`).
  // (Set at once, as the result names are.)
  unsigned next = 0;
  llvm::SmallVector<mlir::DictionaryAttr> names;
  for (const Param &param : fn.params) {
    Type type = param.getType();
    for (const std::string &leaf : type.getLeafNames(param.name)) {
      names.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
          tad::TadDialect::kArgNameAttrName, builder.getStringAttr(leaf))));
      mlir::BlockArgument arg = entry->getArgument(next++);
      arg.setLoc(loc(param.loc));
      bind(leaf, arg);
    }
  }
  op.setAllArgAttrs(names);
  emitBody(fn.body, nullptr);
}

void MLIRGenImpl::emitRule(const RuleDecl &rule) {
  OpBuilder::InsertionGuard guard(builder);
  // forward(params) -> (results..., saved...)
  mlir::func::FuncOp forward = functions[forwardName(rule.getName())];
  builder.setInsertionPointToStart(forward.addEntryBlock());
  scopes.clear();
  scopes.emplace_back();
  for (auto [param, arg] :
       llvm::zip(rule.params, forward.getBody().getArguments()))
    bind(param.name, arg);
  llvm::SmallVector<Value> saved;
  emitBody(rule.forward, &saved, rule.savedParams);

  // pullback(saved..., cotangents...) -> parameter cotangents
  mlir::func::FuncOp pullback = functions[pullbackName(rule.getName())];
  mlir::Block *entry = pullback.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  scopes.clear();
  scopes.emplace_back();
  unsigned i = 0;
  for (bool computed : {true, false})
    for (auto [name, param] : llvm::zip(rule.saved, rule.savedParams))
      if ((param < 0) == computed)
        bind(name.name, entry->getArgument(i++));
  for (const Param &param : rule.pullbackParams)
    bind(param.name, entry->getArgument(i++));
  emitBody(rule.pullback, nullptr);
}

/// A function body. With `saved`, this is an rrule's forward block: its
/// save statement fills `saved` with the values it computes (those whose
/// `savedParams` entry is -1), and the return appends them.
void MLIRGenImpl::emitBody(const Block &block,
                           llvm::SmallVectorImpl<Value> *saved,
                           llvm::ArrayRef<int64_t> savedParams) {
  for (const auto &stmt : block.stmts) {
    if (auto *save = llvm::dyn_cast<SaveStmt>(stmt.get())) {
      for (auto [name, param] : llvm::zip(save->names, savedParams))
        if (param < 0)
          saved->push_back(lookup(name.name));
      continue;
    }
    if (auto *ret = llvm::dyn_cast<ReturnStmt>(stmt.get())) {
      llvm::SmallVector<Value> values = emitReturnValues(*ret);
      if (saved)
        llvm::append_range(values, *saved);
      mlir::func::ReturnOp::create(builder, loc(ret->getLoc()), values);
      continue;
    }
    emitStmt(*stmt);
  }
}

llvm::SmallVector<Value> MLIRGenImpl::emitReturnValues(const ReturnStmt &stmt) {
  llvm::SmallVector<Value> values;
  for (const ExprPtr &value : stmt.values) {
    if (auto *tuple = llvm::dyn_cast<TupleExpr>(value.get())) {
      for (const ExprPtr &element : tuple->elements)
        llvm::append_range(values, emitValues(*element));
      continue;
    }
    llvm::append_range(values, emitValues(*value));
  }
  return values;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void MLIRGenImpl::emitStmt(const Stmt &stmt) {
  switch (stmt.getKind()) {
  case Stmt::Kind::let: {
    auto &let = llvm::cast<LetStmt>(stmt);
    llvm::SmallVector<Value> values = emitValues(*let.value);
    const ValueType &type = let.value->type;
    if (!let.destructure) {
      bindValue(let.names.front().name, type.getType(), values);
      return;
    }
    mlir::ValueRange rest(values);
    for (auto [name, t] : llvm::zip_equal(let.names, type.tuple)) {
      bindValue(name.name, t, rest.take_front(t.getNumLeaves()));
      rest = rest.drop_front(t.getNumLeaves());
    }
    return;
  }
  case Stmt::Kind::assign: {
    auto &assignment = llvm::cast<AssignStmt>(stmt);
    assignValue(assignment.path, assignment.value->type.getType(),
                emitValues(*assignment.value));
    return;
  }
  case Stmt::Kind::forLoop:
    return emitFor(llvm::cast<ForStmt>(stmt));
  case Stmt::Kind::ifElse:
    return emitIf(llvm::cast<IfStmt>(stmt));
  case Stmt::Kind::checkpoint:
    return emitCheckpoint(llvm::cast<CheckpointStmt>(stmt));
  case Stmt::Kind::ret:
  case Stmt::Kind::save:
    llvm_unreachable("handled by emitBody");
  }
}


void MLIRGenImpl::emitFor(const ForStmt &stmt) {
  mlir::Location l = loc(stmt.getLoc());
  const std::vector<std::string> &carried = stmt.effects.writes;
  auto index = [&](int64_t v) -> Value {
    return mlir::arith::ConstantIndexOp::create(builder, l, v);
  };
  Value low = index(stmt.lowValue), high = index(stmt.highValue),
        step = index(1);
  auto forOp = mlir::scf::ForOp::create(
      builder, l, low, high, step, lookupAll(carried),
      [&](OpBuilder &nested, mlir::Location, Value iv, mlir::ValueRange args) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPoint(nested.getInsertionBlock(),
                                  nested.getInsertionPoint());
        scopes.emplace_back();
        bind(stmt.var.name, iv);
        for (auto [name, arg] : llvm::zip(carried, args))
          bind(name, arg);
        for (const auto &inner : stmt.body.stmts)
          emitStmt(*inner);
        mlir::scf::YieldOp::create(builder, l, lookupAll(carried));
        scopes.pop_back();
      });
  for (auto [name, result] : llvm::zip(carried, forOp.getResults()))
    assign(name, result);
}

void MLIRGenImpl::emitIf(const IfStmt &stmt) {
  mlir::Location l = loc(stmt.getLoc());
  const std::vector<std::string> &carried = stmt.effects.writes;
  Value cond = mlir::tensor::ExtractOp::create(builder, l, emitExpr(*stmt.cond),
                                               mlir::ValueRange{});
  llvm::SmallVector<mlir::Type> types;
  for (Value v : lookupAll(carried))
    types.push_back(v.getType());
  auto ifOp = mlir::scf::IfOp::create(builder, l, types, cond,
                                      /*addThenBlock=*/true,
                                      /*addElseBlock=*/true);
  auto emitBranch = [&](mlir::Block *block, const Block *body) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(block);
    scopes.emplace_back();
    for (const std::string &name : carried)
      bind(name, lookup(name));
    if (body)
      for (const auto &inner : body->stmts)
        emitStmt(*inner);
    mlir::scf::YieldOp::create(builder, l, lookupAll(carried));
    scopes.pop_back();
  };
  emitBranch(ifOp.thenBlock(), &stmt.thenBlock);
  emitBranch(ifOp.elseBlock(), stmt.elseBlock ? &*stmt.elseBlock : nullptr);
  for (auto [name, result] : llvm::zip(carried, ifOp.getResults()))
    assign(name, result);
}

tad::CheckpointOp MLIRGenImpl::emitCheckpointRegion(
    mlir::Location l, llvm::ArrayRef<std::string> captures,
    mlir::TypeRange resultTypes,
    llvm::function_ref<llvm::SmallVector<Value>()> body) {
  llvm::SmallVector<Value> inputs;
  for (const std::string &name : captures)
    inputs.push_back(lookup(name));
  auto op = tad::CheckpointOp::create(builder, l, resultTypes, inputs);
  OpBuilder::InsertionGuard guard(builder);
  mlir::Block *block = builder.createBlock(&op.getBody());
  for (Value input : inputs)
    block->addArgument(input.getType(), l);
  // The region is isolated from above: inside it, only the captures exist.
  std::vector<llvm::StringMap<Value>> outer;
  std::swap(outer, scopes);
  scopes.emplace_back();
  for (auto [name, arg] : llvm::zip(captures, block->getArguments()))
    bind(name, arg);
  llvm::SmallVector<Value> results = body();
  tad::YieldOp::create(builder, l, results);
  std::swap(outer, scopes);
  return op;
}

void MLIRGenImpl::emitCheckpoint(const CheckpointStmt &stmt) {
  std::vector<std::string> captures = stmt.effects.reads;
  for (const std::string &name : stmt.effects.writes)
    if (!llvm::is_contained(captures, name))
      captures.push_back(name);
  llvm::SmallVector<mlir::Type> types;
  for (Value v : lookupAll(stmt.effects.writes))
    types.push_back(v.getType());
  tad::CheckpointOp op =
      emitCheckpointRegion(loc(stmt.getLoc()), captures, types, [&] {
        for (const auto &inner : stmt.body.stmts)
          emitStmt(*inner);
        return lookupAll(stmt.effects.writes);
      });
  for (auto [name, result] : llvm::zip(stmt.effects.writes, op.getResults()))
    assign(name, result);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Value MLIRGenImpl::emitExpr(const Expr &expr) {
  llvm::SmallVector<Value> values = emitValues(expr);
  assert(values.size() == 1 && "Sema allows one value here");
  return values.front();
}

llvm::SmallVector<Value> MLIRGenImpl::emitValues(const Expr &expr) {
  mlir::Location l = loc(expr.getLoc());
  switch (expr.getKind()) {
  case Expr::Kind::number:
    return {emitNumber(llvm::cast<NumberExpr>(expr))};
  case Expr::Kind::var:
    return lookupAll(
        expr.type.getType().getLeafNames(llvm::cast<VarExpr>(expr).name));
  case Expr::Kind::field: {
    // A field of a variable is read by name: in a loop or checkpoint,
    // only the leaves that are read are bound.
    auto &field = llvm::cast<FieldExpr>(expr);
    std::string path = getPath(field);
    if (!path.empty())
      return lookupAll(expr.type.getType().getLeafNames(path));
    llvm::SmallVector<Value> base = emitValues(*field.base);
    return llvm::SmallVector<Value>(
        llvm::ArrayRef<Value>(base).slice(field.leafOffset, field.numLeaves));
  }
  case Expr::Kind::unary: {
    Value operand = emitExpr(*llvm::cast<UnaryExpr>(expr).operand);
    return {tad::NegOp::create(builder, l, operand)};
  }
  case Expr::Kind::binary:
    return {emitBinary(llvm::cast<BinaryExpr>(expr))};
  case Expr::Kind::call:
    return emitCall(llvm::cast<CallExpr>(expr));
  case Expr::Kind::index:
    return {emitIndex(llvm::cast<IndexExpr>(expr))};
  case Expr::Kind::checkpoint:
    return emitCheckpointExpr(llvm::cast<CheckpointExpr>(expr));
  case Expr::Kind::boolean:
  case Expr::Kind::list:
  case Expr::Kind::elemType:
  case Expr::Kind::tuple:
    break;
  }
  llvm_unreachable("Sema rejects this expression as a value");
}

/// A literal, rounded once from its spelling to its final element type.
Value MLIRGenImpl::emitNumber(const NumberExpr &expr) {
  RankedTensorType type = getType(expr.type.tensor);
  if (auto intType = llvm::dyn_cast<mlir::IntegerType>(type.getElementType())) {
    // Sema admits only integer literals that the type holds.
    int64_t value = 0;
    (void)llvm::StringRef(expr.spelling).getAsInteger(10, value);
    return tad::ConstantOp::create(
        builder, loc(expr.getLoc()),
        mlir::DenseElementsAttr::get(
            type, mlir::IntegerAttr::get(intType, value)));
  }
  auto floatType = llvm::cast<mlir::FloatType>(type.getElementType());
  llvm::APFloat value(floatType.getFloatSemantics());
  // The lexer admits only valid spellings, so conversion cannot fail.
  llvm::consumeError(
      value.convertFromString(expr.spelling, llvm::APFloat::rmNearestTiesToEven)
          .takeError());
  return tad::ConstantOp::create(
      builder, loc(expr.getLoc()),
      mlir::DenseElementsAttr::get(type, mlir::FloatAttr::get(floatType, value)));
}

Value MLIRGenImpl::emitBinary(const BinaryExpr &expr) {
  mlir::Location l = loc(expr.getLoc());
  Value lhs = emitExpr(*expr.lhs), rhs = emitExpr(*expr.rhs);
  const TensorType &result = expr.type.tensor;
  if (expr.op == BinaryOp::matmul)
    return emitMatmul(l, lhs, rhs, result);
  lhs = broadcastTo(l, lhs, result.shape);
  rhs = broadcastTo(l, rhs, result.shape);
  auto compare = [&](tad::ComparePredicate p) -> Value {
    return tad::CompareOp::create(builder, l, p, lhs, rhs);
  };
  switch (expr.op) {
  case BinaryOp::add: return tad::AddOp::create(builder, l, lhs, rhs);
  case BinaryOp::sub: return tad::SubOp::create(builder, l, lhs, rhs);
  case BinaryOp::mul: return tad::MulOp::create(builder, l, lhs, rhs);
  case BinaryOp::div: return tad::DivOp::create(builder, l, lhs, rhs);
  case BinaryOp::lt: return compare(tad::ComparePredicate::lt);
  case BinaryOp::le: return compare(tad::ComparePredicate::le);
  case BinaryOp::gt: return compare(tad::ComparePredicate::gt);
  case BinaryOp::ge: return compare(tad::ComparePredicate::ge);
  case BinaryOp::eq: return compare(tad::ComparePredicate::eq);
  case BinaryOp::ne: return compare(tad::ComparePredicate::ne);
  case BinaryOp::matmul: break;
  }
  llvm_unreachable("handled above");
}

/// `lhs @ rhs` with NumPy batch broadcasting. A matrix on the right of a
/// batched left operand (the common `x @ w`) folds the batch into the rows
/// instead of broadcasting the weights, so that the weight gradient needs
/// no reduction over a broadcast copy.
Value MLIRGenImpl::emitMatmul(mlir::Location l, Value lhs, Value rhs,
                              const TensorType &result) {
  auto lhsType = llvm::cast<RankedTensorType>(lhs.getType());
  auto rhsType = llvm::cast<RankedTensorType>(rhs.getType());
  RankedTensorType resultType = getType(result);
  int64_t rank = result.getRank();
  if (rhsType.getRank() == 2 && lhsType.getRank() > 2) {
    int64_t rows = lhsType.getNumElements() / lhsType.getShape().back();
    auto flat = RankedTensorType::get({rows, lhsType.getShape().back()},
                                      lhsType.getElementType());
    Value flatLhs = tad::ReshapeOp::create(builder, l, flat, lhs);
    Value product = tad::MatmulOp::create(builder, l, flatLhs, rhs);
    return tad::ReshapeOp::create(builder, l, resultType, product);
  }
  llvm::SmallVector<int64_t> lhsShape(result.shape.begin(),
                                      result.shape.end() - 2);
  llvm::SmallVector<int64_t> rhsShape = lhsShape;
  lhsShape.push_back(lhsType.getShape()[lhsType.getRank() - 2]);
  lhsShape.push_back(lhsType.getShape().back());
  rhsShape.push_back(rhsType.getShape()[rhsType.getRank() - 2]);
  rhsShape.push_back(rhsType.getShape().back());
  (void)rank;
  lhs = broadcastTo(l, lhs, lhsShape);
  rhs = broadcastTo(l, rhs, rhsShape);
  return tad::MatmulOp::create(builder, l, lhs, rhs);
}

llvm::SmallVector<Value> MLIRGenImpl::emitCall(const CallExpr &expr) {
  if (expr.builtin)
    return {emitBuiltin(expr)};
  llvm::SmallVector<Value> args;
  if (expr.record) {
    // A record is its leaves: building one emits nothing.
    for (const Expr *value : expr.fieldValues)
      llvm::append_range(args, emitValues(*value));
    return args;
  }
  mlir::Location l = loc(expr.getLoc());
  for (const CallArg &arg : expr.args)
    llvm::append_range(args, emitValues(*arg.value));
  // The declaration Sema resolved: for a generic callee, its instance.
  mlir::func::FuncOp callee =
      functions[expr.function ? expr.function->getName()
                              : expr.derivative->getName()];
  mlir::TypeRange results = callee.getFunctionType().getResults();
  auto call = [&](mlir::ValueRange operands) {
    return mlir::func::CallOp::create(builder, l, callee, operands);
  };
  if (!expr.function || !expr.function->checkpointAttr)
    return llvm::SmallVector<Value>(call(args).getResults());

  // A call of a @checkpoint function is a checkpoint region around the call.
  // Its operands are the arguments, as values rather than named variables.
  auto op = tad::CheckpointOp::create(builder, l, results, args);
  OpBuilder::InsertionGuard guard(builder);
  mlir::Block *block = builder.createBlock(&op.getBody());
  for (Value arg : args)
    block->addArgument(arg.getType(), l);
  auto inner = call(block->getArguments());
  tad::YieldOp::create(builder, l, inner.getResults());
  return llvm::SmallVector<Value>(op.getResults());
}

namespace {
/// MLIRGen's side of a builtin's emission (Builtins.h).
class Emitter : public BuiltinEmitter {
public:
  Emitter(MLIRGenImpl &gen, const CallExpr &call, const mlir::Location &l)
      : BuiltinEmitter(call, gen.builder, l), gen(gen) {
    // The operands, in parameter order.
    for (auto [param, bound] : llvm::zip(def.params, call.builtinArgs))
      if (isValueKind(param.kind))
        for (const Expr *e : bound.exprs)
          values.push_back(gen.emitExpr(*e));
  }
  Value operand(llvm::StringRef name) override { return operands(name)[0]; }
  std::vector<Value> operands(llvm::StringRef name) override {
    size_t first = 0;
    for (auto [param, bound] : llvm::zip(def.params, callExpr.builtinArgs)) {
      if (!isValueKind(param.kind))
        continue;
      if (name == param.name)
        return std::vector<Value>(values.begin() + first,
                                  values.begin() + first + bound.exprs.size());
      first += bound.exprs.size();
    }
    llvm_unreachable("a builtin's emitter names one of its value parameters");
  }
  RankedTensorType resultType() override { return gen.getType(getResult()); }
  Value broadcastTo(Value value, llvm::ArrayRef<int64_t> shape) override {
    return gen.broadcastTo(loc, value, shape);
  }
  Value splat(RankedTensorType type, double value) override {
    return gen.splat(loc, type, value);
  }
  Value matmul(Value lhs, Value rhs) override {
    return gen.emitMatmul(loc, lhs, rhs, getResult());
  }

private:
  MLIRGenImpl &gen;
  llvm::SmallVector<Value> values;
};
} // namespace

Value MLIRGenImpl::emitBuiltin(const CallExpr &expr) {
  mlir::Location l = loc(expr.getLoc());
  Emitter emitter(*this, expr, l);
  return expr.builtin->emit(emitter);
}

/// `var + offset` as an index value (Sema resolved both).
Value MLIRGenImpl::emitIndexTerm(mlir::Location l, const IndexEntry &entry) {
  if (entry.var.empty())
    return mlir::arith::ConstantIndexOp::create(builder, l, entry.offset);
  Value index = lookup(entry.var);
  if (entry.offset == 0)
    return index;
  return mlir::arith::AddIOp::create(
      builder, l, index,
      mlir::arith::ConstantIndexOp::create(builder, l, entry.offset));
}

/// Leading positions take rows (`tad.take`, which loops differentiate one
/// row at a time); the other entries read one block, `tad.slice` where
/// every offset is static and `tad.dynamic_slice` where one is not, and a
/// reshape drops the dimensions of their positions.
Value MLIRGenImpl::emitIndex(const IndexExpr &expr) {
  mlir::Location l = loc(expr.getLoc());
  Value value = emitExpr(*expr.base);
  size_t leading = 0;
  for (; leading < expr.entries.size() && !expr.entries[leading].isRange;
       ++leading) {
    auto type = llvm::cast<RankedTensorType>(value.getType());
    auto row = RankedTensorType::get(type.getShape().drop_front(),
                                     type.getElementType());
    value = tad::TakeOp::create(builder, l, row, value,
                                emitIndexTerm(l, expr.entries[leading]));
  }
  llvm::ArrayRef<IndexEntry> rest =
      llvm::ArrayRef(expr.entries).drop_front(leading);
  if (rest.empty())
    return value;
  auto type = llvm::cast<RankedTensorType>(value.getType());
  llvm::SmallVector<int64_t> start, limit, blockShape, resultShape;
  bool dynamic = false;
  for (auto [d, size] : llvm::enumerate(type.getShape())) {
    int64_t first = 0, count = size;
    if (d < rest.size()) {
      first = rest[d].offset, count = rest[d].size;
      dynamic |= !rest[d].var.empty();
    }
    start.push_back(first);
    limit.push_back(first + count);
    blockShape.push_back(count);
    if (d >= rest.size() || rest[d].isRange)
      resultShape.push_back(count);
  }
  auto blockType = RankedTensorType::get(blockShape, type.getElementType());
  if (dynamic) {
    llvm::SmallVector<Value> offsets;
    for (size_t d = 0; d < blockShape.size(); ++d)
      offsets.push_back(
          d < rest.size() ? emitIndexTerm(l, rest[d])
                          : mlir::arith::ConstantIndexOp::create(builder, l, 0)
                                .getResult());
    value = tad::DynamicSliceOp::create(builder, l, blockType, value, offsets);
  } else if (blockType != type) {
    llvm::SmallVector<int64_t> step(blockShape.size(), 1);
    value =
        tad::SliceOp::create(builder, l, blockType, value, start, limit, step);
  }
  auto resultType = RankedTensorType::get(resultShape, type.getElementType());
  if (resultType != blockType)
    value = tad::ReshapeOp::create(builder, l, resultType, value);
  return value;
}

llvm::SmallVector<Value>
MLIRGenImpl::emitCheckpointExpr(const CheckpointExpr &expr) {
  llvm::SmallVector<mlir::Type> types;
  std::vector<Type> values = expr.type.kind == ValueType::Kind::tuple
                                 ? expr.type.tuple
                                 : std::vector<Type>{expr.type.getType()};
  for (const TensorType &t : flattenTypes(values))
    types.push_back(getType(t));
  tad::CheckpointOp op = emitCheckpointRegion(
      loc(expr.getLoc()), expr.captures, types,
      [&] { return emitValues(*expr.body); });
  return llvm::SmallVector<Value>(op.getResults());
}

mlir::OwningOpRef<mlir::ModuleOp>
tad::lang::emitModule(mlir::MLIRContext &context, const Module &module,
                      DiagnosticEngine &diag) {
  context.loadDialect<tad::TadDialect, mlir::func::FuncDialect,
                      mlir::scf::SCFDialect, mlir::arith::ArithDialect,
                      mlir::tensor::TensorDialect>();
  return MLIRGenImpl(context, diag).emit(module);
}
