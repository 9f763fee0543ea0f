//===- SemaExpr.cpp - expressions, broadcasting and builtins --------------===//
//
// Types every expression. Broadcasting follows NumPy: shapes align at their
// last dimension, and each pair of dimensions is equal or one of them is 1.
// Element types never convert implicitly, except that a bare numeric literal
// takes the element type of the tensor it meets.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Error.h"

using namespace tad::lang;
using llvm::SMLoc;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Weak literals and broadcasting
//===----------------------------------------------------------------------===//

std::string tad::lang::countOf(int64_t n, llvm::StringRef noun,
                               llvm::StringRef pluralNoun) {
  std::string word = n == 1 ? noun.str()
                     : pluralNoun.empty() ? (noun + "s").str()
                                          : pluralNoun.str();
  return std::to_string(n) + " " + word;
}

void tad::lang::adaptWeak(Expr &expr, ElemKind elem) {
  if (!expr.type.weak)
    return;
  expr.type.tensor.elem = elem;
  expr.type.weak = false;
  if (auto *unary = llvm::dyn_cast<UnaryExpr>(&expr))
    adaptWeak(*unary->operand, elem);
  else if (auto *binary = llvm::dyn_cast<BinaryExpr>(&expr)) {
    adaptWeak(*binary->lhs, elem);
    adaptWeak(*binary->rhs, elem);
  }
}

/// The first part of the weak expression `expr` that cannot become an
/// integer of `width` bits: a literal that is no such integer (`0.5` in
/// `2 * 0.5`, or 2^40 for i32) or a division; null when there is none.
static const Expr *findNonIntegerLiteral(const Expr &expr, unsigned width) {
  if (!expr.type.weak)
    return nullptr;
  if (auto *number = llvm::dyn_cast<NumberExpr>(&expr)) {
    int64_t value;
    bool isInteger =
        number->isInteger &&
        !llvm::StringRef(number->spelling).getAsInteger(10, value) &&
        (width == 64 || llvm::isIntN(width, value));
    return isInteger ? nullptr : number;
  }
  if (auto *unary = llvm::dyn_cast<UnaryExpr>(&expr))
    return findNonIntegerLiteral(*unary->operand, width);
  if (auto *binary = llvm::dyn_cast<BinaryExpr>(&expr)) {
    if (binary->op == BinaryOp::div)
      return binary;
    if (const Expr *lhs = findNonIntegerLiteral(*binary->lhs, width))
      return lhs;
    return findNonIntegerLiteral(*binary->rhs, width);
  }
  return nullptr;
}

bool SemaImpl::adaptWeakTo(Expr &expr, ElemKind elem) {
  if (isIntegerKind(elem)) {
    unsigned width = elem == ElemKind::i32 ? 32 : 64;
    if (const Expr *misfit = findNonIntegerLiteral(expr, width)) {
      if (auto *number = llvm::dyn_cast<NumberExpr>(misfit))
        return diag.error(number->getLoc(),
                          "the literal " + number->spelling + " meets an " +
                              getElemKindName(elem) + " tensor, but it is no " +
                              getElemKindName(elem) + " value");
      return diag.error(misfit->getLoc(),
                        "a division meets an " + Twine(getElemKindName(elem)) +
                            " tensor; integers do not divide (cast to a "
                            "float type first)");
    }
  }
  adaptWeak(expr, elem);
  return true;
}

/// The NumPy broadcast of two shapes, or the first incompatible pair of
/// dimensions (as dimension indices of `a` and `b`).
bool tad::lang::broadcastShapes(llvm::ArrayRef<int64_t> a,
                            llvm::ArrayRef<int64_t> b,
                            llvm::SmallVectorImpl<int64_t> &result,
                            int64_t &badA, int64_t &badB) {
  int64_t rank = std::max(a.size(), b.size());
  result.assign(rank, 1);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t ia = int64_t(a.size()) - rank + i, ib = int64_t(b.size()) - rank + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      badA = ia;
      badB = ib;
      return false;
    }
    result[i] = std::max(da, db);
  }
  return true;
}

static std::string describeOperand(const Expr &expr) {
  if (auto *var = llvm::dyn_cast<VarExpr>(&expr))
    return "'" + var->name + "' (" + var->type.tensor.str() + ")";
  return expr.type.tensor.str();
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

bool SemaImpl::checkExpr(Expr &expr) {
  switch (expr.getKind()) {
  case Expr::Kind::number: {
    auto &number = llvm::cast<NumberExpr>(expr);
    llvm::APFloat value(llvm::APFloat::IEEEdouble());
    auto status = value.convertFromString(number.spelling,
                                          llvm::APFloat::rmNearestTiesToEven);
    if (!status || (*status & llvm::APFloat::opOverflow)) {
      if (!status)
        llvm::consumeError(status.takeError());
      return diag.error(expr.getLoc(), "number " + number.spelling +
                                           " is too large for any float type");
    }
    expr.type = ValueType::getTensor(TensorType{ElemKind::f32, {}}, true);
    return true;
  }
  case Expr::Kind::boolean:
    expr.type.kind = ValueType::Kind::boolean;
    expr.type.boolValue = llvm::cast<BoolExpr>(expr).value;
    return true;
  case Expr::Kind::var:
    return checkVar(llvm::cast<VarExpr>(expr));
  case Expr::Kind::list: {
    auto &list = llvm::cast<ListExpr>(expr);
    expr.type.kind = ValueType::Kind::intList;
    for (ExprPtr &element : list.elements) {
      auto *number = llvm::dyn_cast<NumberExpr>(element.get());
      int64_t value;
      if (!number || !number->isInteger ||
          llvm::StringRef(number->spelling).getAsInteger(10, value))
        return diag.error(element->getLoc(),
                          "list entries must be integer literals");
      expr.type.ints.push_back(value);
    }
    return true;
  }
  case Expr::Kind::elemType:
    expr.type.kind = ValueType::Kind::elemType;
    expr.type.elemType = llvm::cast<ElemTypeExpr>(expr).elem;
    return true;
  case Expr::Kind::unary:
    return checkUnary(llvm::cast<UnaryExpr>(expr));
  case Expr::Kind::binary:
    return checkBinary(llvm::cast<BinaryExpr>(expr));
  case Expr::Kind::call:
    return checkCall(llvm::cast<CallExpr>(expr));
  case Expr::Kind::index:
    return checkIndex(llvm::cast<IndexExpr>(expr));
  case Expr::Kind::checkpoint:
    return checkCheckpointExpr(llvm::cast<CheckpointExpr>(expr));
  case Expr::Kind::tuple:
    return diag.error(expr.getLoc(),
                      "a parenthesized list of values is only allowed after "
                      "return");
  case Expr::Kind::field:
    return checkField(llvm::cast<FieldExpr>(expr));
  }
  return false;
}

bool SemaImpl::checkValue(Expr &expr, llvm::StringRef what) {
  return expr.type.isRecord() || checkTensor(expr, what);
}

bool SemaImpl::checkTensor(Expr &expr, llvm::StringRef what) {
  const ValueType &type = expr.type;
  switch (type.kind) {
  case ValueType::Kind::tensor:
    return true;
  case ValueType::Kind::tuple:
    return diag.error(expr.getLoc(),
                      what + " must be one tensor, but this call returns " +
                          Twine(type.tuple.size()) + " values " +
                          type.describe() + "; bind them with let (a, b) = ...");
  case ValueType::Kind::record:
    return diag.error(expr.getLoc(),
                      what + " must be a tensor, but this is " +
                          type.describe() + "; read one of its fields (" +
                          type.record->listFields() + ") with '.'");
  case ValueType::Kind::index:
    return diag.error(expr.getLoc(),
                      "a loop index is not a tensor; it can only index "
                      "one, as in ws[i] or s[:, i:i+2]");
  case ValueType::Kind::intList:
    return diag.error(expr.getLoc(),
                      "a list is not a tensor; lists are only arguments such "
                      "as axes: [0, 1]");
  case ValueType::Kind::elemType:
    return diag.error(expr.getLoc(),
                      "an element type is not a value; it is only the target "
                      "of cast(x, f16)");
  case ValueType::Kind::boolean:
    return diag.error(expr.getLoc(),
                      "true and false are only arguments such as keepdims: "
                      "true; compare tensors to get a boolean tensor");
  case ValueType::Kind::none:
    return false;
  }
  return false;
}

/// Refuses a comparison's boolean where `what` must be a `kind` tensor.
static bool checkNotBoolean(DiagnosticEngine &diag, Expr &expr,
                            llvm::StringRef what, llvm::StringRef kind) {
  if (expr.type.tensor.elem != ElemKind::i1)
    return true;
  return diag.error(expr.getLoc(),
                    what + " must be a " + kind +
                        " tensor, but it is a comparison result " +
                        expr.type.tensor.str() +
                        "; use where(cond, x, y) to choose values");
}

bool SemaImpl::checkNumericTensor(Expr &expr, llvm::StringRef what) {
  return checkTensor(expr, what) &&
         checkNotBoolean(diag, expr, what, "float or integer");
}

bool SemaImpl::checkFloatTensor(Expr &expr, llvm::StringRef what) {
  if (!checkTensor(expr, what) || !checkNotBoolean(diag, expr, what, "float"))
    return false;
  if (expr.type.tensor.isInteger())
    return diag.error(expr.getLoc(),
                      what + " must be a float tensor, but it is " +
                          expr.type.tensor.str() +
                          "; convert it with cast(x, f32)");
  return true;
}

bool SemaImpl::checkAssignable(Expr &expr, const TensorType &expected,
                               const Twine &what) {
  if (expr.type.weak && expr.type.tensor.isScalar() && expected.isScalar()) {
    if (expected.isFloat())
      adaptWeak(expr, expected.elem);
    else if (expected.isInteger() && !adaptWeakTo(expr, expected.elem))
      return false;
  }
  if (expr.type.tensor == expected)
    return true;
  return diag.error(expr.getLoc(), what + " has type " + expected.str() +
                                       " but this value has type " +
                                       expr.type.tensor.str());
}

bool SemaImpl::checkAssignable(Expr &expr, const Type &expected,
                               const Twine &what) {
  if (!expected.isRecord() && !expr.type.isRecord())
    return checkAssignable(expr, expected.tensor, what);
  if (expr.type.getType() == expected)
    return true;
  return diag.error(expr.getLoc(),
                    what + " has type " + expected.str() + " but this value " +
                        (expr.type.isRecord() ? "is " : "has type ") +
                        expr.type.describe());
}

bool SemaImpl::checkVar(VarExpr &expr) {
  Variable *var = lookupVariable(expr.name);
  if (!var) {
    if (structs.count(expr.name))
      return diag.error(expr.getLoc(), "'" + expr.name +
                                           "' is a struct; build one as " +
                                           expr.name + "(field: value, ...)");
    if (functions.count(expr.name) || isBuiltinName(expr.name))
      return diag.error(expr.getLoc(), "'" + expr.name +
                                           "' is a function; call it as " +
                                           expr.name + "(...)");
    return diag.error(expr.getLoc(), "unknown variable '" + expr.name + "'");
  }
  expr.type = var->type;
  recordRead(expr.name, *var);
  return true;
}

bool SemaImpl::checkUnary(UnaryExpr &expr) {
  if (!checkExpr(*expr.operand) ||
      !checkNumericTensor(*expr.operand, "the operand of unary '-'"))
    return false;
  expr.type = expr.operand->type;
  return true;
}

bool SemaImpl::checkBinary(BinaryExpr &expr) {
  std::string op = ("'" + getBinaryOpSpelling(expr.op) + "'").str();
  if (!checkExpr(*expr.lhs) || !checkExpr(*expr.rhs))
    return false;
  bool isComparison = false;
  switch (expr.op) {
  case BinaryOp::lt: case BinaryOp::le: case BinaryOp::gt:
  case BinaryOp::ge: case BinaryOp::eq: case BinaryOp::ne:
    isComparison = true;
    break;
  default:
    break;
  }
  TensorType result;
  bool weak;
  // Integers add, subtract, multiply and compare; a division or a matmul
  // of integers is refused (cast to a float type first).
  bool allowInteger = expr.op != BinaryOp::div && expr.op != BinaryOp::matmul;
  if (!checkOperandPair(*expr.lhs, *expr.rhs, expr.getLoc(), op,
                        expr.op == BinaryOp::matmul, result, weak,
                        allowInteger))
    return false;
  if (isComparison) {
    // A comparison of two literals compares them as f32.
    adaptWeak(*expr.lhs, ElemKind::f32);
    adaptWeak(*expr.rhs, ElemKind::f32);
    result.elem = ElemKind::i1;
    weak = false;
  }
  expr.type = ValueType::getTensor(result, weak);
  return true;
}

bool SemaImpl::checkOperandPair(Expr &lhsExpr, Expr &rhsExpr, SMLoc loc,
                                llvm::StringRef op, bool isMatmul,
                                TensorType &result, bool &weak,
                                bool allowInteger) {
  auto check = [&](Expr &e, const char *side) {
    std::string what = ("the " + Twine(side) + " operand of " + op).str();
    return allowInteger ? checkNumericTensor(e, what)
                        : checkFloatTensor(e, what);
  };
  if (!check(lhsExpr, "left") || !check(rhsExpr, "right"))
    return false;
  // A weak side takes the other's element type.
  if (lhsExpr.type.weak && !rhsExpr.type.weak &&
      !adaptWeakTo(lhsExpr, rhsExpr.type.tensor.elem))
    return false;
  if (rhsExpr.type.weak && !lhsExpr.type.weak &&
      !adaptWeakTo(rhsExpr, lhsExpr.type.tensor.elem))
    return false;
  if (lhsExpr.type.tensor.elem != rhsExpr.type.tensor.elem) {
    // Suggest the float type to an integer operand, else the left's type.
    ElemKind target = lhsExpr.type.tensor.isInteger()
                          ? rhsExpr.type.tensor.elem
                          : lhsExpr.type.tensor.elem;
    return diag.error(loc, "the operands of " + op +
                               " have different element types: " +
                               describeOperand(lhsExpr) + " and " +
                               describeOperand(rhsExpr) +
                               "; convert one with cast(x, " +
                               getElemKindName(target) + ")");
  }
  const TensorType &lhs = lhsExpr.type.tensor, &rhs = rhsExpr.type.tensor;
  weak = lhsExpr.type.weak && rhsExpr.type.weak;
  result = TensorType{lhs.elem, {}};
  int64_t badA, badB;

  if (isMatmul) {
    if (lhs.getRank() < 2 || rhs.getRank() < 2)
      return diag.error(loc, op + " needs operands of rank 2 or more, but "
                                  "the " +
                                 Twine(lhs.getRank() < 2 ? "left" : "right") +
                                 " operand is " +
                                 (lhs.getRank() < 2 ? lhs : rhs).str() +
                                 "; reshape a vector to a matrix first");
    int64_t k = lhs.shape.back(), kr = rhs.shape[rhs.getRank() - 2];
    if (k != kr)
      return diag.error(loc, op + " contracts the last dimension of the left "
                                  "operand with the second-to-last of the "
                                  "right, but " +
                                 describeOperand(lhsExpr) + " has " + Twine(k) +
                                 " columns and " + describeOperand(rhsExpr) +
                                 " has " + Twine(kr) + " rows");
    auto lhsBatch = llvm::ArrayRef<int64_t>(lhs.shape).drop_back(2);
    auto rhsBatch = llvm::ArrayRef<int64_t>(rhs.shape).drop_back(2);
    if (!broadcastShapes(lhsBatch, rhsBatch, result.shape, badA, badB))
      return diag.error(loc, "the batch dimensions of " +
                                 describeOperand(lhsExpr) + " and " +
                                 describeOperand(rhsExpr) +
                                 " do not broadcast: dimension " + Twine(badA) +
                                 " has size " + Twine(lhs.shape[badA]) +
                                 " but dimension " + Twine(badB) +
                                 " has size " + Twine(rhs.shape[badB]));
    weak = false;
    result.shape.push_back(lhs.shape[lhs.getRank() - 2]);
    result.shape.push_back(rhs.shape.back());
    return true;
  }
  if (!broadcastShapes(lhs.shape, rhs.shape, result.shape, badA, badB))
    return diag.error(loc, "cannot broadcast the operands of " + op + ": " +
                               describeOperand(lhsExpr) + " and " +
                               describeOperand(rhsExpr) + "; dimension " +
                               Twine(badA) + " of the left has size " +
                               Twine(lhs.shape[badA]) + " but dimension " +
                               Twine(badB) + " of the right has size " +
                               Twine(rhs.shape[badB]));
  return true;
}

bool SemaImpl::checkCall(CallExpr &expr) {
  // The program's own functions and structs shadow the builtins.
  if (StructDecl *record = structs.lookup(expr.callee)) {
    // A generic struct's constructor instantiates it at its values' sizes.
    if (record->isGeneric()) {
      std::vector<int64_t> args;
      if (!inferStructArgs(expr, *record, args))
        return false;
      record = instantiateStruct(*record, args, expr.getLoc());
      if (!record)
        return false;
    }
    return checkConstructor(expr, *record);
  }
  if (!functions.count(expr.callee) &&
      isBuiltinName(expr.callee))
    return checkBuiltinCall(expr);
  return checkUserCall(expr);
}

bool SemaImpl::checkUserCall(CallExpr &expr) {
  auto it = functions.find(resolveCallee(expr.getLoc(), expr.callee));
  if (it == functions.end()) {
    std::string message = "unknown function '" + expr.callee + "'";
    // Suggest the closest known name for a likely typo.
    std::string best;
    unsigned bestDistance = 3;
    auto consider = [&](llvm::StringRef name) {
      unsigned d = llvm::StringRef(expr.callee).edit_distance(name);
      if (d < bestDistance) {
        bestDistance = d;
        best = name.str();
      }
    };
    for (const auto &entry : functions)
      consider(entry.getKey());
    for (const BuiltinDef &def : getBuiltins())
      consider(def.name);
    if (!best.empty())
      message += "; did you mean '" + best + "'?";
    return diag.error(expr.getLoc(), message);
  }
  Decl *decl = it->second;
  std::vector<Type> params, results;
  std::vector<std::string> paramNames;
  auto readSignature = [&](Decl *d) {
    paramNames.clear();
    if (auto *fn = llvm::dyn_cast<FunctionDecl>(d)) {
      expr.function = fn;
      params = fn->getParamTypes();
      results = fn->getResultTypes();
      for (const Param &p : fn->params)
        paramNames.push_back(p.name);
    } else {
      auto *derivative = llvm::cast<DerivativeDecl>(d);
      expr.derivative = derivative;
      params = derivative->paramTypes;
      results = derivative->resultTypes;
      paramNames.assign(params.size(), "");
    }
  };
  readSignature(decl);

  for (const CallArg &arg : expr.args)
    if (!arg.name.empty())
      return diag.error(arg.loc, "'" + expr.callee +
                                     "' takes positional arguments; named "
                                     "arguments are for builtins");
  if (expr.args.size() != params.size())
    return diag.error(expr.getLoc(),
                      "'" + expr.callee + "' takes " + Twine(params.size()) +
                          (params.size() == 1 ? " argument" : " arguments") +
                          " but " + Twine(expr.args.size()) +
                          (expr.args.size() == 1 ? " was" : " were") +
                          " given");
  // A generic callee: its instance at the sizes of the arguments.
  bool argsChecked = false;
  if (isGenericDecl(*decl)) {
    std::vector<int64_t> sizes;
    if (!inferSizes(expr, *decl, sizes))
      return false;
    decl = instantiate(*decl, sizes, expr.getLoc());
    if (!decl)
      return false;
    readSignature(decl);
    argsChecked = true;
  }
  if (currentCalls)
    currentCalls->insert({decl, expr.getLoc()});
  for (auto [i, arg] : llvm::enumerate(expr.args)) {
    std::string what = "argument " + std::to_string(i + 1) + " of '" +
                       expr.callee + "'";
    if (!paramNames[i].empty())
      what += " ('" + paramNames[i] + "')";
    if ((!argsChecked && !checkExpr(*arg.value)) ||
        !checkValue(*arg.value, what) ||
        !checkAssignable(*arg.value, params[i], what))
      return false;
  }
  if (results.size() == 1)
    expr.type = ValueType::get(results.front());
  else {
    expr.type.kind = ValueType::Kind::tuple;
    expr.type.tuple = results;
  }
  return true;
}

/// Reads an integer literal; false for anything else.
static bool getIntegerLiteral(Expr &expr, int64_t &value, bool &overflow) {
  auto *number = llvm::dyn_cast<NumberExpr>(&expr);
  if (!number || !number->isInteger)
    return false;
  overflow = llvm::StringRef(number->spelling).getAsInteger(10, value);
  return true;
}

/// Reads a position or a range end: an integer literal, a loop index `i`,
/// or `i + c`, `c + i`, `i - c` with an integer literal `c`. Sets `var`
/// (empty for a literal), `offset`, and for a loop index the values it
/// takes, [low, high).
bool SemaImpl::checkIndexTerm(Expr &expr, std::string &var, int64_t &offset,
                              int64_t &low, int64_t &high) {
  auto literal = [&](Expr &e, int64_t &value) -> std::optional<bool> {
    bool overflow = false;
    if (!getIntegerLiteral(e, value, overflow)) {
      if (auto *number = llvm::dyn_cast<NumberExpr>(&e); number)
        return diag.error(e.getLoc(), "an index must be an integer");
      return std::nullopt;
    }
    if (overflow)
      return diag.error(e.getLoc(), "index " +
                                        llvm::cast<NumberExpr>(e).spelling +
                                        " does not fit in 64 bits");
    return true;
  };
  auto loopIndex = [&](Expr &e) {
    if (llvm::isa<VarExpr>(e) && !checkExpr(e))
      return false;
    if (!llvm::isa<VarExpr>(e) || e.type.kind != ValueType::Kind::index)
      return diag.error(e.getLoc(),
                        "an index must be an integer literal, a loop "
                        "variable, or a loop variable plus or minus an "
                        "integer literal (i + 1)");
    var = llvm::cast<VarExpr>(e).name;
    low = e.type.low;
    high = e.type.high;
    return true;
  };
  var.clear();
  offset = 0;
  if (std::optional<bool> ok = literal(expr, offset))
    return *ok;
  auto *binary = llvm::dyn_cast<BinaryExpr>(&expr);
  if (binary && (binary->op == BinaryOp::add || binary->op == BinaryOp::sub)) {
    int64_t c = 0;
    Expr *indexSide = binary->lhs.get();
    std::optional<bool> ok = literal(*binary->rhs, c);
    if (!ok && binary->op == BinaryOp::add) {
      ok = literal(*binary->lhs, c);
      indexSide = binary->rhs.get();
    }
    if (ok) {
      if (!*ok || !loopIndex(*indexSide))
        return false;
      // Far beyond any dimension (at most 2^40), and so that the range
      // checks' sums cannot overflow.
      constexpr int64_t kMaxOffset = int64_t(1) << 41;
      if (c > kMaxOffset || c < -kMaxOffset)
        return diag.error(binary->rhs->getLoc(),
                          "index offset " + Twine(c) + " is out of range");
      offset = binary->op == BinaryOp::sub ? -c : c;
      return true;
    }
  }
  return loopIndex(expr);
}

namespace {
/// Loop-index arithmetic in the range checks: a loop's bounds may be
/// anywhere in int64, and an index plus its offset must not wrap there.
using Wide = __int128;
} // namespace

static std::string formatWide(Wide value) {
  // |value| < 2^65 here: an int64 plus an offset of at most 2^41.
  bool negative = value < 0;
  unsigned __int128 magnitude = negative ? -value : value;
  std::string digits;
  do {
    digits.insert(digits.begin(), char('0' + int(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude);
  return negative ? "-" + digits : digits;
}

bool SemaImpl::checkIndex(IndexExpr &expr) {
  if (!checkExpr(*expr.base) || !checkTensor(*expr.base, "an indexed value"))
    return false;
  TensorType type = expr.base->type.tensor;
  if (expr.entries.size() > size_t(type.getRank()))
    return diag.error(
        expr.getLoc(),
        describeOperand(*expr.base) + " has rank " + Twine(type.getRank()) +
            " but " + countOf(expr.entries.size(), "index", "indices") +
            (expr.entries.size() == 1 ? " is" : " are") + " given");
  // A loop index's values lie in [low, high) and the index reads
  // [low + offset, high - 1 + offset + size); an empty loop reads nothing.
  auto describeTerm = [](const std::string &var, int64_t offset) {
    if (var.empty())
      return std::to_string(offset);
    if (offset == 0)
      return var;
    return var + (offset < 0 ? "-" : "+") +
           std::to_string(offset < 0 ? -uint64_t(offset) : uint64_t(offset));
  };
  for (auto [dim, entry] : llvm::enumerate(expr.entries)) {
    int64_t size = type.shape[dim];
    std::string dimension = "dimension " + std::to_string(dim) + " of " +
                            describeOperand(*expr.base);
    if (!entry.isRange) {
      int64_t low = 0, high = 0;
      if (!checkIndexTerm(*entry.start, entry.var, entry.offset, low, high))
        return false;
      entry.size = 1;
      if (entry.var.empty()) {
        if (entry.offset < -size || entry.offset >= size)
          return diag.error(entry.loc, "index " + Twine(entry.offset) +
                                           " is out of range for " + dimension);
        if (entry.offset < 0)
          entry.offset += size;
        continue;
      }
      // In 128 bits: a loop index near the ends of int64 plus an offset
      // would wrap in 64.
      Wide first = Wide(low) + entry.offset, end = Wide(high) + entry.offset;
      if (low < high && (first < 0 || end - 1 >= size))
        return diag.error(entry.loc, describeTerm(entry.var, entry.offset) +
                                         " ranges over " + formatWide(first) +
                                         ".." + formatWide(end) + " but " +
                                         dimension + " has size " +
                                         Twine(size));
      continue;
    }
    // A range: each end defaults to its end of the dimension.
    std::string startVar, endVar;
    int64_t start = 0, end = size, low = 0, high = 0, endLow, endHigh;
    if (entry.start &&
        !checkIndexTerm(*entry.start, startVar, start, low, high))
      return false;
    if (entry.end && !checkIndexTerm(*entry.end, endVar, end, endLow, endHigh))
      return false;
    if (startVar != endVar)
      return diag.error(entry.loc,
                        "a range with a loop index needs both ends relative "
                        "to the same index, as in k:k+2, so that its size "
                        "is known at compile time");
    if (startVar.empty()) {
      // Negative ends count from the end of the dimension.
      if (start < 0)
        start += size;
      if (end < 0)
        end += size;
      if (start < 0 || end > size || start >= end)
        return diag.error(entry.loc,
                          "range " + Twine(start) + ":" + Twine(end) + " is " +
                              (start >= end && start >= 0 && end <= size
                                   ? "empty"
                                   : "out of range") +
                              " for " + dimension);
    } else if (end <= start) {
      return diag.error(entry.loc, "range " + describeTerm(startVar, start) +
                                       ":" + describeTerm(endVar, end) +
                                       " is empty");
    } else if (low < high && (Wide(low) + start < 0 ||
                              Wide(high) - 1 + end > size)) {
      return diag.error(entry.loc, "range " + describeTerm(startVar, start) +
                                       ":" + describeTerm(endVar, end) +
                                       " reads " +
                                       formatWide(Wide(low) + start) + ".." +
                                       formatWide(Wide(high) - 1 + end) +
                                       " over the loop but " + dimension +
                                       " has size " + Twine(size));
    }
    entry.var = startVar;
    entry.offset = start;
    entry.size = end - start;
  }
  // The result: ranges keep their dimension, positions drop theirs.
  std::vector<int64_t> result;
  for (auto [dim, size] : llvm::enumerate(type.shape))
    if (dim >= expr.entries.size())
      result.push_back(size);
    else if (expr.entries[dim].isRange)
      result.push_back(expr.entries[dim].size);
  type.shape.assign(result.begin(), result.end());
  expr.type = ValueType::getTensor(type);
  return true;
}

bool SemaImpl::checkCheckpointExpr(CheckpointExpr &expr) {
  BlockEffects effects;
  frames.push_back({unsigned(scopes.size()), &effects});
  pushScope(); // the body reads outer variables through the region
  bool ok = checkExpr(*expr.body);
  popScope();
  frames.pop_back();
  if (!ok)
    return false;
  if (expr.body->type.kind != ValueType::Kind::tuple &&
      !checkValue(*expr.body, "the value of checkpoint(...)"))
    return false;
  expr.captures = effects.reads;
  expr.type = expr.body->type;
  if (expr.type.weak)
    adaptWeak(*expr.body, ElemKind::f32), expr.type = expr.body->type;
  return true;
}
