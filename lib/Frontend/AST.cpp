//===- AST.cpp - AST helpers and the --emit=ast printer -------------------===//

#include "tad/Frontend/AST.h"
#include "tad/Frontend/Sema.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tad::lang;

llvm::StringRef tad::lang::getBinaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::add: return "+";
  case BinaryOp::sub: return "-";
  case BinaryOp::mul: return "*";
  case BinaryOp::div: return "/";
  case BinaryOp::matmul: return "@";
  case BinaryOp::lt: return "<";
  case BinaryOp::le: return "<=";
  case BinaryOp::gt: return ">";
  case BinaryOp::ge: return ">=";
  case BinaryOp::eq: return "==";
  case BinaryOp::ne: return "!=";
  }
  return "?";
}

llvm::StringRef tad::lang::getRequestKindName(RequestKind kind) {
  switch (kind) {
  case RequestKind::grad: return "grad";
  case RequestKind::value_and_grad: return "value_and_grad";
  case RequestKind::vjp: return "vjp";
  }
  return "?";
}

std::vector<Type> FunctionDecl::getParamTypes() const {
  std::vector<Type> types;
  for (const Param &param : params)
    types.push_back(param.getType());
  return types;
}

std::vector<Type> FunctionDecl::getResultTypes() const {
  std::vector<Type> types;
  for (const TypeWithLoc &result : results)
    types.push_back(result.getType());
  return types;
}

std::vector<DimNames> FunctionDecl::getParamDims() const {
  std::vector<DimNames> dims;
  for (const Param &param : params)
    dims.push_back(param.dims);
  return dims;
}

std::vector<DimNames> FunctionDecl::getResultDims() const {
  std::vector<DimNames> dims;
  for (const TypeWithLoc &result : results)
    dims.push_back(result.dims);
  return dims;
}

std::vector<std::string> FunctionDecl::getParamElemParams() const {
  std::vector<std::string> names;
  for (const Param &param : params)
    names.push_back(param.elemParam);
  return names;
}

bool tad::lang::isGenericDecl(const Decl &decl) {
  if (auto *fn = llvm::dyn_cast<FunctionDecl>(&decl))
    return fn->isGeneric();
  if (auto *request = llvm::dyn_cast<DerivativeDecl>(&decl))
    return request->isGeneric();
  if (auto *rule = llvm::dyn_cast<RuleDecl>(&decl))
    return rule->isGeneric();
  return false;
}

std::string
tad::lang::formatGenericParams(llvm::ArrayRef<GenericParam> params) {
  std::string text;
  for (const GenericParam &p : params)
    text += (text.empty() ? "[" : ", ") + p.name + (p.isType ? ": type" : "");
  return text.empty() ? text : text + "]";
}

std::string tad::lang::formatGenericType(const TensorType &type,
                                         const DimNames &dims,
                                         const std::string &elemParam) {
  std::string elem =
      elemParam.empty() ? getElemKindName(type.elem).str() : elemParam;
  if (dims.empty())
    return elem + type.str().substr(getElemKindName(type.elem).size());
  std::string s = elem + "[";
  for (auto [i, size] : llvm::enumerate(type.shape))
    s += (i ? ", " : "") + (dims[i].empty() ? std::to_string(size) : dims[i]);
  return s + "]";
}

std::string tad::lang::formatGenericType(const Param &param) {
  if (!param.recordName.empty())
    return param.recordName;
  return formatGenericType(param.type, param.dims, param.elemParam);
}

namespace {
/// Prints one node per line, indented, as `Kind 'detail' : type @line:col`.
class ASTPrinter {
public:
  ASTPrinter(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os)
      : sourceMgr(sourceMgr), os(os) {}

  void print(const Module &module) {
    for (const auto &decl : module.decls)
      print(*decl);
  }

private:
  void line(llvm::SMLoc loc, const llvm::Twine &text) {
    os.indent(indent * 2) << text;
    auto [l, c] = sourceMgr.getLineAndColumn(loc);
    os << " @" << l << ":" << c << "\n";
  }
  struct Indent {
    ASTPrinter &p;
    explicit Indent(ASTPrinter &p) : p(p) { ++p.indent; }
    ~Indent() { --p.indent; }
  };
  static std::string typeSuffix(const Expr &e) {
    if (e.type.kind == ValueType::Kind::none)
      return "";
    return " : " + e.type.describe() + (e.type.weak ? " (literal)" : "");
  }

  void print(const Decl &decl) {
    if (auto *fn = llvm::dyn_cast<FunctionDecl>(&decl)) {
      std::string params, results;
      for (const Param &p : fn->params)
        params +=
            (params.empty() ? "" : ", ") + p.name + ": " + formatGenericType(p);
      for (const TypeWithLoc &r : fn->results)
        results += (results.empty() ? "" : ", ") +
                   (r.recordName.empty()
                        ? formatGenericType(r.type, r.dims, r.elemParam)
                        : r.recordName);
      if (fn->results.size() != 1)
        results = "(" + results + ")";
      line(fn->getLoc(), "Function " + fn->getName() +
                             formatGenericParams(fn->dims) + "(" + params +
                             ") -> " + results +
                             (fn->checkpointAttr ? " @checkpoint" : ""));
      Indent in(*this);
      print(fn->body);
    } else if (auto *d = llvm::dyn_cast<DerivativeDecl>(&decl)) {
      std::string wrt;
      for (const Name &n : d->wrt)
        wrt += (wrt.empty() ? "" : ", ") + n.name;
      line(d->getLoc(), "Derivative " + d->getName() + " = " +
                            getRequestKindName(d->kind) + "(" + d->primal.name +
                            (d->explicitWrt ? ", wrt: [" + wrt + "]" : "") +
                            ")");
    } else if (auto *st = llvm::dyn_cast<StructDecl>(&decl)) {
      std::string fields;
      for (const Param &f : st->fields)
        fields +=
            (fields.empty() ? "" : ", ") + f.name + ": " + formatGenericType(f);
      line(st->getLoc(), "Struct " + st->getName() + " {" + fields + "}");
    } else if (auto *r = llvm::dyn_cast<RuleDecl>(&decl)) {
      line(r->getLoc(), "Rule " + r->getName() + formatGenericParams(r->dims));
      Indent in(*this);
      line(r->forwardLoc, "Forward");
      {
        Indent in2(*this);
        print(r->forward);
      }
      std::string params;
      for (const Param &p : r->pullbackParams)
        params +=
            (params.empty() ? "" : ", ") + p.name + ": " + formatGenericType(p);
      line(r->pullbackLoc, "Pullback(" + params + ")");
      Indent in2(*this);
      print(r->pullback);
    }
  }

  void print(const Block &block) {
    for (const auto &stmt : block.stmts)
      print(*stmt);
  }

  void print(const Stmt &stmt) {
    switch (stmt.getKind()) {
    case Stmt::Kind::let: {
      auto &s = llvm::cast<LetStmt>(stmt);
      std::string names;
      for (const Name &n : s.names)
        names += (names.empty() ? "" : ", ") + n.name;
      line(s.getLoc(), "Let " + names);
      Indent in(*this);
      print(*s.value);
      return;
    }
    case Stmt::Kind::assign: {
      auto &s = llvm::cast<AssignStmt>(stmt);
      std::string target = s.target.name;
      for (const Name &f : s.fields)
        target += "." + f.name;
      line(s.getLoc(), "Assign " + target);
      Indent in(*this);
      print(*s.value);
      return;
    }
    case Stmt::Kind::ret: {
      auto &s = llvm::cast<ReturnStmt>(stmt);
      line(s.getLoc(), "Return");
      Indent in(*this);
      for (const auto &v : s.values)
        print(*v);
      return;
    }
    case Stmt::Kind::forLoop: {
      auto &s = llvm::cast<ForStmt>(stmt);
      line(s.getLoc(), "For " + s.var.name);
      Indent in(*this);
      print(*s.low);
      print(*s.high);
      print(s.body);
      return;
    }
    case Stmt::Kind::ifElse: {
      auto &s = llvm::cast<IfStmt>(stmt);
      line(s.getLoc(), "If");
      Indent in(*this);
      print(*s.cond);
      line(s.thenBlock.loc, "Then");
      {
        Indent in2(*this);
        print(s.thenBlock);
      }
      if (s.elseBlock) {
        line(s.elseBlock->loc, "Else");
        Indent in2(*this);
        print(*s.elseBlock);
      }
      return;
    }
    case Stmt::Kind::checkpoint: {
      auto &s = llvm::cast<CheckpointStmt>(stmt);
      line(s.getLoc(), "Checkpoint");
      Indent in(*this);
      print(s.body);
      return;
    }
    case Stmt::Kind::save: {
      auto &s = llvm::cast<SaveStmt>(stmt);
      std::string names;
      for (const Name &n : s.names)
        names += (names.empty() ? "" : ", ") + n.name;
      line(s.getLoc(), "Save " + names);
      return;
    }
    }
  }

  void print(const Expr &expr) {
    std::string suffix = typeSuffix(expr);
    switch (expr.getKind()) {
    case Expr::Kind::number:
      line(expr.getLoc(),
           "Number " + llvm::cast<NumberExpr>(expr).spelling + suffix);
      return;
    case Expr::Kind::boolean:
      line(expr.getLoc(), llvm::cast<BoolExpr>(expr).value ? "Bool true"
                                                           : "Bool false");
      return;
    case Expr::Kind::var:
      line(expr.getLoc(), "Var " + llvm::cast<VarExpr>(expr).name + suffix);
      return;
    case Expr::Kind::list: {
      line(expr.getLoc(), "List");
      Indent in(*this);
      for (const auto &e : llvm::cast<ListExpr>(expr).elements)
        print(*e);
      return;
    }
    case Expr::Kind::elemType:
      line(expr.getLoc(), "ElementType " +
                              getElemKindName(llvm::cast<ElemTypeExpr>(expr).elem));
      return;
    case Expr::Kind::unary: {
      line(expr.getLoc(), "Negate" + suffix);
      Indent in(*this);
      print(*llvm::cast<UnaryExpr>(expr).operand);
      return;
    }
    case Expr::Kind::binary: {
      auto &e = llvm::cast<BinaryExpr>(expr);
      line(expr.getLoc(), "Binary '" + getBinaryOpSpelling(e.op) + "'" + suffix);
      Indent in(*this);
      print(*e.lhs);
      print(*e.rhs);
      return;
    }
    case Expr::Kind::call: {
      auto &e = llvm::cast<CallExpr>(expr);
      line(expr.getLoc(), "Call " + e.callee + suffix);
      Indent in(*this);
      for (const CallArg &arg : e.args) {
        if (arg.name.empty()) {
          print(*arg.value);
          continue;
        }
        line(arg.loc, "Named " + arg.name);
        Indent in2(*this);
        print(*arg.value);
      }
      return;
    }
    case Expr::Kind::index: {
      auto &e = llvm::cast<IndexExpr>(expr);
      line(expr.getLoc(), "Index" + suffix);
      Indent in(*this);
      print(*e.base);
      for (const IndexEntry &entry : e.entries) {
        if (!entry.isRange) {
          print(*entry.start);
          continue;
        }
        line(entry.loc, "Range");
        Indent in2(*this);
        for (const ExprPtr &end :
             {std::cref(entry.start), std::cref(entry.end)})
          if (end.get())
            print(*end.get());
      }
      return;
    }
    case Expr::Kind::checkpoint: {
      line(expr.getLoc(), "CheckpointExpr" + suffix);
      Indent in(*this);
      print(*llvm::cast<CheckpointExpr>(expr).body);
      return;
    }
    case Expr::Kind::field: {
      auto &f = llvm::cast<FieldExpr>(expr);
      line(expr.getLoc(), "Field '" + f.field + "'" + suffix);
      Indent in(*this);
      print(*f.base);
      return;
    }
    case Expr::Kind::tuple: {
      line(expr.getLoc(), "Tuple");
      Indent in(*this);
      for (const auto &e : llvm::cast<TupleExpr>(expr).elements)
        print(*e);
      return;
    }
    }
  }

  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  unsigned indent = 0;
};
} // namespace

void tad::lang::dumpAST(const Module &module, llvm::SourceMgr &sourceMgr,
                        llvm::raw_ostream &os) {
  ASTPrinter(sourceMgr, os).print(module);
}
