//===- SemaBuiltins.cpp - the builtin functions ---------------------------===//
//
// Binds the arguments of a builtin call to its parameters (positionally or
// by name), checks the static ones (axes, shapes, permutations), and
// records them normalized on the CallExpr for MLIRGen.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace tad::lang;
using llvm::SMLoc;
using llvm::Twine;

namespace {
/// The arguments of one builtin call, by parameter name.
struct BoundArgs {
  llvm::StringMap<Expr *> byName;
  std::vector<Expr *> variadic; // concat's tensors
  Expr *get(llvm::StringRef name) const { return byName.lookup(name); }
};
} // namespace

llvm::ArrayRef<BuiltinSignature> tad::lang::getBuiltinSignatures() {
  static const BuiltinSignature builtins[] = {
      {"exp", Builtin::exp, {"x"}, 1},
      {"log", Builtin::log, {"x"}, 1},
      {"tanh", Builtin::tanh, {"x"}, 1},
      {"sigmoid", Builtin::sigmoid, {"x"}, 1},
      {"relu", Builtin::relu, {"x"}, 1},
      {"sqrt", Builtin::sqrt, {"x"}, 1},
      {"rsqrt", Builtin::rsqrt, {"x"}, 1},
      {"abs", Builtin::abs, {"x"}, 1},
      {"neg", Builtin::neg, {"x"}, 1},
      {"log1p", Builtin::log1p, {"x"}, 1},
      {"expm1", Builtin::expm1, {"x"}, 1},
      {"softplus", Builtin::softplus, {"x"}, 1},
      {"logsigmoid", Builtin::logsigmoid, {"x"}, 1},
      {"pow", Builtin::pow, {"x", "y"}, 2},
      {"maximum", Builtin::maximum, {"x", "y"}, 2},
      {"minimum", Builtin::minimum, {"x", "y"}, 2},
      {"where", Builtin::where, {"cond", "x", "y"}, 3},
      {"sum", Builtin::sum, {"x", "axes", "keepdims"}, 1},
      {"mean", Builtin::mean, {"x", "axes", "keepdims"}, 1},
      {"max", Builtin::max, {"x", "axes", "keepdims"}, 1},
      {"softmax", Builtin::softmax, {"x", "axis"}, 1},
      {"logsumexp", Builtin::logsumexp, {"x", "axis", "keepdims"}, 1},
      {"matmul", Builtin::matmul, {"x", "y"}, 2},
      {"transpose", Builtin::transpose, {"x", "perm"}, 1},
      {"reshape", Builtin::reshape, {"x", "shape"}, 2},
      {"broadcast_to", Builtin::broadcast_to, {"x", "shape"}, 2},
      {"broadcast", Builtin::broadcast, {"x", "shape", "dims"}, 3},
      {"slice", Builtin::slice, {"x", "start", "limit", "step"}, 3},
      {"concat", Builtin::concat, {"axis"}, 0, /*variadic=*/true},
      {"cast", Builtin::cast, {"x", "to"}, 2},
      {"stop_gradient", Builtin::stop_gradient, {"x"}, 1},
      {"zeros_like", Builtin::zeros_like, {"x"}, 1},
      {"ones_like", Builtin::ones_like, {"x"}, 1},
      {"all_reduce", Builtin::all_reduce, {"x", "op"}, 1},
      {"take", Builtin::take, {"x", "indices", "axis"}, 2},
      {"one_hot", Builtin::one_hot, {"indices", "depth", "to"}, 2},
      {"iota", Builtin::iota, {"shape", "axis", "to"}, 1},
      {"argmax", Builtin::argmax, {"x", "axis", "keepdims"}, 2},
      {"argmin", Builtin::argmin, {"x", "axis", "keepdims"}, 2},
      {"random_uniform", Builtin::random_uniform, {"key", "shape", "to"}, 2},
      {"random_normal", Builtin::random_normal, {"key", "shape", "to"}, 2},
      {"bernoulli", Builtin::bernoulli, {"key", "p", "shape"}, 3},
      {"split", Builtin::split, {"key", "n"}, 2},
      {"fold_in", Builtin::fold_in, {"key", "data"}, 2},
      {"dropout", Builtin::dropout, {"x", "p", "key"}, 3},
      {"swapaxes", Builtin::swapaxes, {"x", "axis1", "axis2"}, 3},
  };
  return builtins;
}

Builtin tad::lang::lookupBuiltin(llvm::StringRef name) {
  for (const BuiltinSignature &sig : getBuiltinSignatures())
    if (name == sig.name)
      return sig.id;
  return Builtin::none;
}

/// Reads `expr` as one integer literal.
static bool getInteger(Expr *expr, int64_t &value) {
  auto *number = llvm::dyn_cast<NumberExpr>(expr);
  return number && number->isInteger &&
         !llvm::StringRef(number->spelling).getAsInteger(10, value);
}

bool SemaImpl::checkBuiltinCall(CallExpr &call) {
  Builtin id = lookupBuiltin(call.callee);
  call.builtin = id;
  const BuiltinSignature *sig = llvm::find_if(
      getBuiltinSignatures(),
      [&](const BuiltinSignature &s) { return s.id == id; });
  std::string paramList;
  for (const char *p : sig->params)
    paramList += (paramList.empty() ? "" : ", ") + std::string(p);
  if (sig->variadic)
    paramList = "x, ..., axis";

  // Bind.
  BoundArgs args;
  size_t positional = 0;
  bool sawNamed = false;
  for (CallArg &arg : call.args) {
    if (arg.name.empty()) {
      if (sawNamed)
        return diag.error(arg.loc, "a positional argument of " + call.callee +
                                       " follows a named one");
      if (sig->variadic) {
        args.variadic.push_back(arg.value.get());
        continue;
      }
      if (positional >= sig->params.size())
        return diag.error(arg.loc, call.callee + " takes at most " +
                                       countOf(sig->params.size(), "argument") +
                                       " (" + paramList + ")");
      args.byName[sig->params[positional++]] = arg.value.get();
      continue;
    }
    sawNamed = true;
    if (sig->variadic && arg.name != "axis")
      return diag.error(arg.loc, call.callee + " takes its tensors as "
                                               "positional arguments; its only "
                                               "named argument is axis");
    if (!llvm::is_contained(llvm::map_range(sig->params,
                                            [](const char *p) {
                                              return llvm::StringRef(p);
                                            }),
                            arg.name))
      return diag.error(arg.loc, call.callee + " has no argument '" + arg.name +
                                     "'; its arguments are " + paramList);
    if (args.byName.count(arg.name))
      return diag.error(arg.loc, "argument '" + arg.name + "' of " +
                                     call.callee + " is given twice");
    args.byName[arg.name] = arg.value.get();
  }
  for (unsigned i = 0; i < sig->required; ++i)
    if (!args.get(sig->params[i]))
      return diag.error(call.getLoc(), call.callee + " needs argument '" +
                                           Twine(sig->params[i]) +
                                           "' (its arguments are " + paramList +
                                           ")");
  if (sig->variadic && args.variadic.empty())
    return diag.error(call.getLoc(), call.callee + " needs at least one tensor");

  // Check every argument once, in source order. all_reduce's `op` names
  // the reduction (sum, mean), which is no value.
  for (CallArg &arg : call.args)
    if (arg.value.get() !=
            (id == Builtin::all_reduce ? args.get("op") : nullptr) &&
        !checkExpr(*arg.value))
      return false;

  auto tensorArg = [&](llvm::StringRef name) -> Expr * {
    Expr *e = args.get(name);
    if (!checkFloatTensor(*e, ("argument '" + name + "' of " + call.callee).str()))
      return nullptr;
    return e;
  };
  // An argument that may also be an integer tensor (token ids, counts):
  // the builtins that move, select, compare or add values take them.
  auto numericArg = [&](llvm::StringRef name) -> Expr * {
    Expr *e = args.get(name);
    if (!checkNumericTensor(*e,
                            ("argument '" + name + "' of " + call.callee).str()))
      return nullptr;
    return e;
  };
  auto intListArg = [&](llvm::StringRef name,
                        llvm::SmallVectorImpl<int64_t> &out) -> bool {
    Expr *e = args.get(name);
    if (e->type.kind != ValueType::Kind::intList)
      return diag.error(e->getLoc(), "argument '" + name + "' of " +
                                         call.callee +
                                         " must be a list of integers, as in [0, 1]");
    out.assign(e->type.ints.begin(), e->type.ints.end());
    return true;
  };
  auto intArg = [&](llvm::StringRef name, int64_t &out) -> bool {
    Expr *e = args.get(name);
    if (!getInteger(e, out))
      return diag.error(e->getLoc(), "argument '" + name + "' of " +
                                         call.callee +
                                         " must be an integer literal");
    return true;
  };
  // An optional element type argument (`to: i64`).
  auto elemTypeArg = [&](llvm::StringRef name, ElemKind &out) -> bool {
    Expr *e = args.get(name);
    if (!e)
      return true;
    if (e->type.kind != ValueType::Kind::elemType)
      return diag.error(e->getLoc(), "argument '" + name + "' of " +
                                         call.callee +
                                         " must be an element type, as in "
                                         "f32 or i64");
    out = e->type.elemType;
    return true;
  };
  auto boolArg = [&](llvm::StringRef name, bool &out) -> bool {
    Expr *e = args.get(name);
    if (!e)
      return true;
    if (e->type.kind != ValueType::Kind::boolean)
      return diag.error(e->getLoc(), "argument '" + name + "' of " +
                                         call.callee + " must be true or false");
    out = e->type.boolValue;
    return true;
  };
  /// Resolves a possibly negative axis of a tensor of rank `rank`.
  auto normalizeAxis = [&](int64_t &axis, int64_t rank, SMLoc loc,
                           llvm::StringRef what) -> bool {
    if (axis < -rank || axis >= rank)
      return diag.error(loc, what + " " + Twine(axis) + " is out of range for " +
                                 "a tensor of rank " + Twine(rank));
    if (axis < 0)
      axis += rank;
    return true;
  };
  /// The optional argument `axis` (else `axis` keeps its default),
  /// normalized for a tensor of rank `rank`; errors at the argument, or at
  /// the call when it is left out.
  auto axisArg = [&](int64_t &axis, int64_t rank) -> bool {
    Expr *e = args.get("axis");
    if (e && !intArg("axis", axis))
      return false;
    return normalizeAxis(axis, rank, e ? e->getLoc() : call.getLoc(), "axis");
  };
  /// The list argument `name` as a shape of positive sizes.
  auto shapeArg = [&](llvm::StringRef name,
                      llvm::SmallVectorImpl<int64_t> &shape) -> bool {
    if (!intListArg(name, shape))
      return false;
    for (int64_t d : shape)
      if (d <= 0)
        return diag.error(args.get(name)->getLoc(),
                          "dimension sizes must be positive, got " + Twine(d));
    return true;
  };
  auto setResult = [&](TensorType type, bool weak = false) {
    call.type = ValueType::getTensor(std::move(type), weak);
    return true;
  };

  switch (id) {
  case Builtin::exp: case Builtin::log: case Builtin::tanh:
  case Builtin::sigmoid: case Builtin::relu: case Builtin::sqrt:
  case Builtin::rsqrt: case Builtin::abs: case Builtin::neg:
  case Builtin::log1p:
  case Builtin::expm1:
  case Builtin::softplus:
  case Builtin::logsigmoid:
  case Builtin::stop_gradient: case Builtin::zeros_like:
  case Builtin::ones_like: {
    bool takesIntegers = id == Builtin::abs || id == Builtin::neg ||
                         id == Builtin::stop_gradient ||
                         id == Builtin::zeros_like || id == Builtin::ones_like;
    Expr *x = takesIntegers ? numericArg("x") : tensorArg("x");
    if (!x)
      return false;
    adaptWeak(*x, ElemKind::f32);
    call.operands = {x};
    return setResult(x->type.tensor);
  }
  case Builtin::pow: case Builtin::maximum: case Builtin::minimum:
  case Builtin::matmul: {
    Expr *x = args.get("x"), *y = args.get("y");
    TensorType result;
    bool weak;
    if (!checkOperandPair(*x, *y, call.getLoc(), call.callee,
                          id == Builtin::matmul, result, weak,
                          /*allowInteger=*/id == Builtin::maximum ||
                              id == Builtin::minimum))
      return false;
    adaptWeak(*x, ElemKind::f32);
    adaptWeak(*y, ElemKind::f32);
    call.operands = {x, y};
    return setResult(result);
  }
  case Builtin::where: {
    Expr *cond = args.get("cond");
    if (!checkTensor(*cond, "the condition of where"))
      return false;
    if (cond->type.tensor.elem != ElemKind::i1)
      return diag.error(cond->getLoc(),
                        "the condition of where must be a comparison such as "
                        "x > 0.0, but it is " + cond->type.tensor.str());
    Expr *x = numericArg("x"), *y = x ? numericArg("y") : nullptr;
    if (!x || !y)
      return false;
    if (x->type.weak && !y->type.weak) {
      if (!adaptWeakTo(*x, y->type.tensor.elem))
        return false;
    } else if (y->type.weak && !x->type.weak) {
      if (!adaptWeakTo(*y, x->type.tensor.elem))
        return false;
    } else if (x->type.weak) {
      adaptWeak(*x, ElemKind::f32);
      adaptWeak(*y, ElemKind::f32);
    }
    if (x->type.tensor.elem != y->type.tensor.elem)
      return diag.error(call.getLoc(), "the values of where have different "
                                       "element types: " +
                                           x->type.tensor.str() + " and " +
                                           y->type.tensor.str());
    TensorType result{x->type.tensor.elem, {}};
    llvm::SmallVector<int64_t, 4> values;
    int64_t badA, badB;
    if (!broadcastShapes(x->type.tensor.shape, y->type.tensor.shape, values,
                         badA, badB) ||
        !broadcastShapes(cond->type.tensor.shape, values, result.shape, badA,
                         badB))
      return diag.error(call.getLoc(),
                        "cannot broadcast the arguments of where: " +
                            cond->type.tensor.str() + ", " +
                            x->type.tensor.str() + " and " +
                            y->type.tensor.str());
    call.operands = {cond, x, y};
    return setResult(result);
  }
  case Builtin::sum: case Builtin::mean: case Builtin::max: {
    // A sum or maximum of integers stays in their type (as in JAX); a mean
    // is a float.
    Expr *x = id == Builtin::mean ? tensorArg("x") : numericArg("x");
    if (!x)
      return false;
    adaptWeak(*x, ElemKind::f32);
    const TensorType &t = x->type.tensor;
    llvm::SmallVector<int64_t, 4> axes;
    if (args.get("axes")) {
      if (!intListArg("axes", axes))
        return false;
    } else {
      for (int64_t i = 0; i < t.getRank(); ++i)
        axes.push_back(i);
    }
    llvm::SmallBitVector seen(t.getRank());
    SMLoc axesLoc = args.get("axes") ? args.get("axes")->getLoc() : call.getLoc();
    for (int64_t &axis : axes) {
      if (!normalizeAxis(axis, t.getRank(), axesLoc, "axis"))
        return false;
      if (seen.test(axis))
        return diag.error(axesLoc,
                          "axis " + Twine(axis) + " appears twice");
      seen.set(axis);
    }
    if (!boolArg("keepdims", call.keepdims))
      return false;
    call.ints0.assign(axes.begin(), axes.end());
    call.operands = {x};
    TensorType result{t.elem, {}};
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (!seen.test(i))
        result.shape.push_back(t.shape[i]);
      else if (call.keepdims)
        result.shape.push_back(1);
    }
    return setResult(result);
  }
  case Builtin::softmax: case Builtin::logsumexp: {
    Expr *x = tensorArg("x");
    if (!x)
      return false;
    adaptWeak(*x, ElemKind::f32);
    const TensorType &t = x->type.tensor;
    if (t.isScalar())
      return diag.error(x->getLoc(), call.callee + " needs a tensor of rank 1 "
                                                   "or more, got " + t.str());
    int64_t axis = -1;
    if (!axisArg(axis, t.getRank()) || !boolArg("keepdims", call.keepdims))
      return false;
    call.axis = axis;
    call.operands = {x};
    if (id == Builtin::softmax)
      return setResult(t);
    TensorType result = t;
    if (call.keepdims)
      result.shape[axis] = 1;
    else
      result.shape.erase(result.shape.begin() + axis);
    return setResult(result);
  }
  case Builtin::transpose: {
    Expr *x = numericArg("x");
    if (!x)
      return false;
    const TensorType &t = x->type.tensor;
    llvm::SmallVector<int64_t, 4> perm;
    if (args.get("perm")) {
      if (!intListArg("perm", perm))
        return false;
      if (int64_t(perm.size()) != t.getRank())
        return diag.error(args.get("perm")->getLoc(),
                          "perm has " + countOf(perm.size(), "entry", "entries") +
                              " but " +
                              t.str() + " has rank " + Twine(t.getRank()));
      llvm::SmallBitVector seen(t.getRank());
      for (int64_t &p : perm) {
        if (!normalizeAxis(p, t.getRank(), args.get("perm")->getLoc(),
                           "perm entry"))
          return false;
        if (seen.test(p))
          return diag.error(args.get("perm")->getLoc(),
                            "perm entry " + Twine(p) + " appears twice");
        seen.set(p);
      }
    } else {
      for (int64_t i = t.getRank() - 1; i >= 0; --i)
        perm.push_back(i);
    }
    call.ints0.assign(perm.begin(), perm.end());
    call.operands = {x};
    TensorType result{t.elem, {}};
    for (int64_t p : perm)
      result.shape.push_back(t.shape[p]);
    return setResult(result);
  }
  case Builtin::reshape: case Builtin::broadcast_to: case Builtin::broadcast: {
    Expr *x = numericArg("x");
    if (!x)
      return false;
    adaptWeak(*x, ElemKind::f32);
    const TensorType &t = x->type.tensor;
    llvm::SmallVector<int64_t, 4> shape;
    if (!intListArg("shape", shape))
      return false;
    SMLoc shapeLoc = args.get("shape")->getLoc();
    if (id == Builtin::reshape) {
      int64_t inferred = -1, known = 1;
      for (auto [i, d] : llvm::enumerate(shape)) {
        if (d == -1) {
          if (inferred >= 0)
            return diag.error(shapeLoc, "only one dimension of a reshape can "
                                        "be -1");
          inferred = i;
        } else if (d <= 0) {
          return diag.error(shapeLoc, "dimension sizes must be positive, got " +
                                          Twine(d));
        } else {
          if (d > (int64_t(1) << 40) / known)
            return diag.error(shapeLoc, "the shape has more than 2^40 elements");
          known *= d;
        }
      }
      if (inferred >= 0) {
        if (t.getNumElements() % known != 0)
          return diag.error(shapeLoc, "cannot reshape " + t.str() + " (" +
                                          countOf(t.getNumElements(), "element") +
                                          ") with -1: " +
                                          Twine(known) + " does not divide it");
        shape[inferred] = t.getNumElements() / known;
      }
      TensorType result{t.elem, shape};
      if (result.getNumElements() != t.getNumElements())
        return diag.error(shapeLoc, "cannot reshape " + t.str() + " (" +
                                        countOf(t.getNumElements(), "element") +
                                        ") to " + result.str() + " (" +
                                        countOf(result.getNumElements(),
                                                "element") +
                                        ")");
      call.ints0.assign(shape.begin(), shape.end());
      call.operands = {x};
      return setResult(result);
    }
    int64_t elements = 1;
    for (int64_t d : shape) {
      if (d <= 0)
        return diag.error(shapeLoc, "dimension sizes must be positive, got " +
                                        Twine(d));
      if (d > (int64_t(1) << 40) / elements)
        return diag.error(shapeLoc, "the shape has more than 2^40 elements");
      elements *= d;
    }
    TensorType result{t.elem, shape};
    llvm::SmallVector<int64_t, 4> dims;
    if (id == Builtin::broadcast_to) {
      if (t.getRank() > result.getRank())
        return diag.error(shapeLoc, "cannot broadcast " + t.str() + " to the "
                                    "lower rank " + result.str());
      for (int64_t i = 0; i < t.getRank(); ++i)
        dims.push_back(result.getRank() - t.getRank() + i);
    } else {
      if (!intListArg("dims", dims))
        return false;
      SMLoc dimsLoc = args.get("dims")->getLoc();
      if (int64_t(dims.size()) != t.getRank())
        return diag.error(dimsLoc, "dims has " +
                                       countOf(dims.size(), "entry", "entries") +
                                       " but " + t.str() + " has rank " +
                                       Twine(t.getRank()));
      for (auto [i, d] : llvm::enumerate(dims)) {
        if (!normalizeAxis(d, result.getRank(), dimsLoc, "dims entry"))
          return false;
        if (i > 0 && d <= dims[i - 1])
          return diag.error(dimsLoc, "dims must be strictly increasing");
      }
    }
    for (auto [i, d] : llvm::enumerate(dims))
      if (t.shape[i] != 1 && t.shape[i] != result.shape[d])
        return diag.error(shapeLoc,
                          "cannot broadcast " + t.str() + " to " +
                              result.str() + ": dimension " + Twine(i) +
                              " has size " + Twine(t.shape[i]) +
                              " but the target dimension " + Twine(d) +
                              " has size " + Twine(result.shape[d]));
    call.ints0.assign(dims.begin(), dims.end());
    call.operands = {x};
    return setResult(result);
  }
  case Builtin::slice: {
    Expr *x = numericArg("x");
    if (!x)
      return false;
    const TensorType &t = x->type.tensor;
    llvm::SmallVector<int64_t, 4> start, limit, step;
    if (!intListArg("start", start) || !intListArg("limit", limit))
      return false;
    if (args.get("step")) {
      if (!intListArg("step", step))
        return false;
    } else {
      step.assign(t.getRank(), 1);
    }
    if (int64_t(start.size()) != t.getRank() ||
        int64_t(limit.size()) != t.getRank() ||
        int64_t(step.size()) != t.getRank())
      return diag.error(call.getLoc(), "slice of " + t.str() +
                                           " needs start, limit and step with " +
                                           countOf(t.getRank(), "entry", "entries") +
                                           " each");
    TensorType result{t.elem, {}};
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (start[d] < 0 || start[d] >= limit[d] || limit[d] > t.shape[d])
        return diag.error(call.getLoc(),
                          "slice dimension " + Twine(d) + ": need 0 <= start < "
                          "limit <= " + Twine(t.shape[d]) + ", got start " +
                              Twine(start[d]) + " and limit " + Twine(limit[d]));
      if (step[d] < 1)
        return diag.error(call.getLoc(), "slice dimension " + Twine(d) +
                                             ": step must be positive, got " +
                                             Twine(step[d]));
      result.shape.push_back((limit[d] - start[d] + step[d] - 1) / step[d]);
    }
    call.ints0.assign(start.begin(), start.end());
    call.ints1.assign(limit.begin(), limit.end());
    call.ints2.assign(step.begin(), step.end());
    call.operands = {x};
    return setResult(result);
  }
  case Builtin::concat: {
    for (Expr *e : args.variadic)
      if (!checkNumericTensor(*e, "an argument of concat"))
        return false;
    const TensorType &first = args.variadic.front()->type.tensor;
    if (first.isScalar())
      return diag.error(args.variadic.front()->getLoc(),
                        "concat needs tensors of rank 1 or more");
    int64_t axis = 0;
    if (!axisArg(axis, first.getRank()))
      return false;
    TensorType result = first;
    for (Expr *e : llvm::drop_begin(args.variadic)) {
      const TensorType &t = e->type.tensor;
      bool compatible = t.elem == first.elem && t.getRank() == first.getRank();
      for (int64_t d = 0; compatible && d < t.getRank(); ++d)
        compatible = d == axis || t.shape[d] == first.shape[d];
      if (!compatible)
        return diag.error(e->getLoc(),
                          "cannot concatenate " + t.str() + " with " +
                              first.str() + " along axis " + Twine(axis) +
                              ": element types, ranks and the other "
                              "dimensions must agree");
      result.shape[axis] += t.shape[axis];
    }
    call.axis = axis;
    call.operands = args.variadic;
    return setResult(result);
  }
  case Builtin::cast: {
    Expr *x = numericArg("x");
    if (!x)
      return false;
    Expr *to = args.get("to");
    if (to->type.kind != ValueType::Kind::elemType)
      return diag.error(to->getLoc(), "the target of cast must be an element "
                                      "type: f32, f64, f16, bf16, i32 or i64");
    // A literal cast to an integer type converts from f64, rounding
    // toward zero as every float-to-integer cast does.
    adaptWeak(*x, isIntegerKind(to->type.elemType) ? ElemKind::f64
                                                   : to->type.elemType);
    call.castTo = to->type.elemType;
    call.operands = {x};
    return setResult(TensorType{call.castTo, x->type.tensor.shape});
  }
  case Builtin::all_reduce: {
    Expr *x = tensorArg("x");
    if (!x)
      return false;
    adaptWeak(*x, ElemKind::f32);
    if (x->type.tensor.elem != ElemKind::f32 &&
        x->type.tensor.elem != ElemKind::f64)
      return diag.error(x->getLoc(), "all_reduce reduces f32 and f64 tensors "
                                     "only, not " +
                                         x->type.tensor.str() +
                                         "; cast to f32 first");
    if (Expr *op = args.get("op")) {
      auto *name = llvm::dyn_cast<VarExpr>(op);
      if (!name || (name->name != "sum" && name->name != "mean"))
        return diag.error(op->getLoc(), "argument 'op' of all_reduce must be "
                                        "sum or mean");
      call.reduceMean = name->name == "mean";
    }
    call.operands = {x};
    return setResult(x->type.tensor);
  }
  case Builtin::swapaxes: {
    // The transpose that swaps two axes: at any rank, as in k^T of a batch
    // of matrices, swapaxes(k, -1, -2).
    Expr *x = numericArg("x");
    if (!x)
      return false;
    const TensorType &t = x->type.tensor;
    int64_t a, b;
    if (!intArg("axis1", a) ||
        !normalizeAxis(a, t.getRank(), args.get("axis1")->getLoc(), "axis") ||
        !intArg("axis2", b) ||
        !normalizeAxis(b, t.getRank(), args.get("axis2")->getLoc(), "axis"))
      return false;
    llvm::SmallVector<int64_t, 4> perm;
    for (int64_t d = 0; d < t.getRank(); ++d)
      perm.push_back(d == a ? b : d == b ? a : d);
    call.ints0.assign(perm.begin(), perm.end());
    call.operands = {x};
    TensorType result{t.elem, {}};
    for (int64_t p : perm)
      result.shape.push_back(t.shape[p]);
    return setResult(result);
  }
  case Builtin::take: {
    Expr *x = numericArg("x");
    if (!x)
      return false;
    const TensorType &t = x->type.tensor;
    if (t.isScalar())
      return diag.error(x->getLoc(), "take needs a tensor of rank 1 or more, "
                                     "got " + t.str());
    Expr *indices = args.get("indices");
    if (!checkIntegerIndices(*indices, "argument 'indices' of take"))
      return false;
    int64_t axis = 0;
    if (!axisArg(axis, t.getRank()))
      return false;
    // A literal index is checked here; others are clamped at run time.
    int64_t literal;
    if (getInteger(indices, literal) &&
        (literal < 0 || literal >= t.shape[axis]))
      return diag.error(indices->getLoc(),
                        "index " + Twine(literal) + " is out of range for "
                        "dimension " + Twine(axis) + " of " + t.str());
    call.axis = axis;
    call.operands = {x, indices};
    TensorType result{t.elem, {}};
    result.shape.append(t.shape.begin(), t.shape.begin() + axis);
    result.shape.append(indices->type.tensor.shape.begin(),
                        indices->type.tensor.shape.end());
    result.shape.append(t.shape.begin() + axis + 1, t.shape.end());
    return setResult(result);
  }
  case Builtin::one_hot: {
    Expr *indices = args.get("indices");
    if (!checkIntegerIndices(*indices, "argument 'indices' of one_hot"))
      return false;
    int64_t depth;
    if (!intArg("depth", depth))
      return false;
    if (depth < 1 || depth > (int64_t(1) << 31))
      return diag.error(args.get("depth")->getLoc(),
                        "depth must lie in [1, 2^31], got " + Twine(depth));
    ElemKind elem = ElemKind::f32;
    if (!elemTypeArg("to", elem))
      return false;
    call.castTo = elem;
    call.operands = {indices};
    TensorType result{elem, indices->type.tensor.shape};
    result.shape.push_back(depth);
    if (!checkElementCount(result, args.get("depth")->getLoc()))
      return false;
    return setResult(result);
  }
  case Builtin::iota: {
    llvm::SmallVector<int64_t, 4> shape;
    if (!shapeArg("shape", shape))
      return false;
    SMLoc shapeLoc = args.get("shape")->getLoc();
    if (shape.empty())
      return diag.error(shapeLoc, "iota needs a shape of rank 1 or more");
    ElemKind elem = ElemKind::i32;
    if (!elemTypeArg("to", elem))
      return false;
    TensorType result{elem, shape};
    if (!checkElementCount(result, shapeLoc))
      return false;
    int64_t axis = 0;
    if (!axisArg(axis, result.getRank()))
      return false;
    if (result.shape[axis] > (int64_t(1) << 31))
      return diag.error(shapeLoc, "the indices along axis " + Twine(axis) +
                                      " do not fit in i32");
    call.axis = axis;
    call.castTo = elem;
    return setResult(result);
  }
  case Builtin::argmax: case Builtin::argmin: {
    Expr *x = numericArg("x");
    if (!x)
      return false;
    adaptWeak(*x, ElemKind::f32);
    const TensorType &t = x->type.tensor;
    if (t.isScalar())
      return diag.error(x->getLoc(), call.callee + " needs a tensor of rank 1 "
                                                   "or more, got " + t.str());
    int64_t axis;
    if (!intArg("axis", axis) ||
        !normalizeAxis(axis, t.getRank(), args.get("axis")->getLoc(), "axis") ||
        !boolArg("keepdims", call.keepdims))
      return false;
    if (t.shape[axis] > (int64_t(1) << 31))
      return diag.error(x->getLoc(), "the indices along axis " + Twine(axis) +
                                         " do not fit in i32");
    call.axis = axis;
    call.operands = {x};
    TensorType result{ElemKind::i32, t.shape};
    if (call.keepdims)
      result.shape[axis] = 1;
    else
      result.shape.erase(result.shape.begin() + axis);
    return setResult(result);
  }
  case Builtin::random_uniform: case Builtin::random_normal:
  case Builtin::bernoulli: {
    Expr *key = args.get("key");
    if (!checkKey(*key, "argument 'key' of " + call.callee))
      return false;
    llvm::SmallVector<int64_t, 4> shape;
    if (!shapeArg("shape", shape))
      return false;
    SMLoc shapeLoc = args.get("shape")->getLoc();
    if (id == Builtin::bernoulli) {
      // The probability: a float scalar (a literal is an f32); the uniform
      // draws are of its type.
      Expr *p = args.get("p");
      if (!checkProbability(*p, "argument 'p' of bernoulli"))
        return false;
      call.operands = {key, p};
      TensorType result{ElemKind::i1, shape};
      return checkElementCount(result, shapeLoc) && setResult(result);
    }
    ElemKind elem = ElemKind::f32;
    if (!elemTypeArg("to", elem))
      return false;
    if (!isFloatKind(elem))
      return diag.error(args.get("to")->getLoc(),
                        call.callee + " draws floats: 'to' must be f32, f64, "
                                      "f16 or bf16");
    call.operands = {key};
    TensorType result{elem, shape};
    return checkElementCount(result, shapeLoc) && setResult(result);
  }
  case Builtin::dropout: {
    // Zeroes each element with probability p and scales the others by
    // 1 / (1 - p): the mask is a function of the key alone.
    Expr *x = tensorArg("x");
    if (!x)
      return false;
    adaptWeak(*x, ElemKind::f32);
    Expr *p = args.get("p"), *key = args.get("key");
    if (p->type.weak)
      adaptWeak(*p, x->type.tensor.elem);
    if (!checkProbability(*p, "argument 'p' of dropout") ||
        !checkKey(*key, "argument 'key' of dropout"))
      return false;
    if (p->type.tensor.elem != x->type.tensor.elem)
      return diag.error(p->getLoc(), "argument 'p' of dropout has type " +
                                         p->type.tensor.str() + " but x is " +
                                         x->type.tensor.str());
    if (auto *literal = llvm::dyn_cast<NumberExpr>(p)) {
      double value = std::strtod(literal->spelling.c_str(), nullptr);
      if (!(value >= 0 && value < 1))
        return diag.error(p->getLoc(), "the probability of dropout must lie in "
                                       "[0, 1), got " + literal->spelling);
    }
    call.operands = {x, p, key};
    return setResult(x->type.tensor);
  }
  case Builtin::split: {
    Expr *key = args.get("key");
    if (!checkKey(*key, "argument 'key' of split"))
      return false;
    int64_t n;
    if (!intArg("n", n))
      return false;
    if (n < 1 || n > (int64_t(1) << 40))
      return diag.error(args.get("n")->getLoc(),
                        "split makes between 1 and 2^40 keys, not " + Twine(n));
    call.operands = {key};
    return setResult(TensorType{ElemKind::i64, {n}});
  }
  case Builtin::fold_in: {
    Expr *key = args.get("key");
    if (!checkKey(*key, "argument 'key' of fold_in"))
      return false;
    Expr *data = args.get("data");
    // A loop index, or an integer scalar (a literal is an i64).
    if (data->type.kind != ValueType::Kind::index) {
      if (data->type.weak && !adaptWeakTo(*data, ElemKind::i64))
        return false;
      if (!checkNumericTensor(*data, "argument 'data' of fold_in"))
        return false;
      if (!data->type.tensor.isInteger() || !data->type.tensor.isScalar())
        return diag.error(data->getLoc(),
                          "argument 'data' of fold_in must be a loop index "
                          "or an integer scalar, but it is " +
                              data->type.tensor.str());
    }
    call.operands = {key, data};
    return setResult(TensorType{ElemKind::i64, {}});
  }
  case Builtin::none:
    break;
  }
  return false;
}

bool SemaImpl::checkProbability(Expr &expr, llvm::StringRef what) {
  adaptWeak(expr, ElemKind::f32);
  if (!checkFloatTensor(expr, what))
    return false;
  if (!expr.type.tensor.isScalar())
    return diag.error(expr.getLoc(), what + " must be a float scalar, but "
                                            "it is " + expr.type.tensor.str());
  return true;
}

bool SemaImpl::checkKey(Expr &expr, llvm::StringRef what) {
  // A literal seed is an i64: random_uniform(42, [4]).
  if (expr.type.weak && !adaptWeakTo(expr, ElemKind::i64))
    return false;
  if (!checkTensor(expr, what))
    return false;
  if (expr.type.tensor != TensorType{ElemKind::i64, {}})
    return diag.error(expr.getLoc(),
                      what + " must be a key, an i64 scalar (a seed, or "
                             "what split or fold_in returns), but it is " +
                          expr.type.describe());
  return true;
}

bool SemaImpl::checkIntegerIndices(Expr &expr, llvm::StringRef what) {
  // A literal index is an i32; a float literal is refused below.
  if (expr.type.weak && !adaptWeakTo(expr, ElemKind::i32))
    return false;
  if (!checkNumericTensor(expr, what))
    return false;
  if (!expr.type.tensor.isInteger())
    return diag.error(expr.getLoc(),
                      what + " must be an integer tensor (i32 or i64), but "
                             "it is " + expr.type.tensor.str() +
                             "; convert it with cast(x, i32)");
  return true;
}

bool SemaImpl::checkElementCount(const TensorType &type, SMLoc loc) {
  int64_t elements = 1;
  for (int64_t d : type.shape) {
    if (d > (int64_t(1) << 40) / elements)
      return diag.error(loc, "the shape has more than 2^40 elements");
    elements *= d;
  }
  return true;
}
