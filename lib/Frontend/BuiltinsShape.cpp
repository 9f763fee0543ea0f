//===- BuiltinsShape.cpp - builtins that move elements --------------------===//
//
// transpose, swapaxes, reshape, broadcast_to, broadcast, slice, concat:
// static shapes in, a static shape out, every element moved unchanged.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "SemaImpl.h"

#include "dialects/tad/TadOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace tad::lang;
using llvm::Twine;
using mlir::Value;

namespace {

TensorType permuted(const TensorType &t, llvm::ArrayRef<int64_t> perm) {
  TensorType result{t.elem, {}};
  for (int64_t p : perm)
    result.shape.push_back(t.shape[p]);
  return result;
}

bool checkTranspose(BuiltinCall &c) {
  return c.result(permuted(c.tensor("x"), c.ints("perm")));
}

Value emitTranspose(BuiltinEmitter &e) {
  return tad::TransposeOp::create(e.builder, e.loc, e.operand("x"),
                                  e.ints("perm"));
}

/// The transpose that swaps two axes: at any rank, as in k^T of a batch of
/// matrices, swapaxes(k, -1, -2).
llvm::SmallVector<int64_t, 4> swapPerm(const BuiltinArgs &args) {
  int64_t a = args.integer("axis1"), b = args.integer("axis2");
  llvm::SmallVector<int64_t, 4> perm;
  for (int64_t d = 0; d < args.tensor("x").getRank(); ++d)
    perm.push_back(d == a ? b : d == b ? a : d);
  return perm;
}

bool checkSwapAxes(BuiltinCall &c) {
  return c.result(permuted(c.tensor("x"), swapPerm(c)));
}

Value emitSwapAxes(BuiltinEmitter &e) {
  return tad::TransposeOp::create(e.builder, e.loc, e.operand("x"),
                                  swapPerm(e));
}

bool checkReshape(BuiltinCall &c) {
  Expr &x = *c.expr("x");
  c.adaptWeak(x, ElemKind::f32);
  const TensorType &t = x.type.tensor;
  llvm::SmallVector<int64_t, 4> shape(c.ints("shape"));
  llvm::SMLoc loc = c.loc("shape");
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferred >= 0)
        return c.error(loc, "only one dimension of a reshape can be -1");
      inferred = i;
    } else if (d <= 0) {
      return c.error(loc, "dimension sizes must be positive, got " + Twine(d));
    } else {
      if (d > (int64_t(1) << 40) / known)
        return c.error(loc, "the shape has more than 2^40 elements");
      known *= d;
    }
  }
  if (inferred >= 0) {
    if (t.getNumElements() % known != 0)
      return c.error(loc, "cannot reshape " + t.str() + " (" +
                              countOf(t.getNumElements(), "element") +
                              ") with -1: " + Twine(known) +
                              " does not divide it");
    shape[inferred] = t.getNumElements() / known;
  }
  TensorType result{t.elem, shape};
  if (result.getNumElements() != t.getNumElements())
    return c.error(loc, "cannot reshape " + t.str() + " (" +
                            countOf(t.getNumElements(), "element") + ") to " +
                            result.str() + " (" +
                            countOf(result.getNumElements(), "element") + ")");
  c.setInts("shape", shape);
  return c.result(result);
}

Value emitReshape(BuiltinEmitter &e) {
  return tad::ReshapeOp::create(e.builder, e.loc, e.resultType(),
                                e.operand("x"));
}

/// broadcast_to aligns x's dimensions with the trailing ones of the shape
/// (NumPy); broadcast maps dimension i to dims[i].
llvm::SmallVector<int64_t, 4> broadcastDims(const BuiltinArgs &args) {
  if (args.getCall().builtin->findParam("dims"))
    return llvm::SmallVector<int64_t, 4>(args.ints("dims"));
  int64_t rank = args.tensor("x").getRank();
  int64_t target = args.ints("shape").size();
  llvm::SmallVector<int64_t, 4> dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(target - rank + i);
  return dims;
}

bool checkBroadcast(BuiltinCall &c) {
  Expr &x = *c.expr("x");
  c.adaptWeak(x, ElemKind::f32);
  const TensorType &t = x.type.tensor;
  TensorType result{t.elem, llvm::SmallVector<int64_t, 4>(c.ints("shape"))};
  llvm::SMLoc shapeLoc = c.loc("shape");
  bool isBroadcastTo = !c.getCall().builtin->findParam("dims");
  if (isBroadcastTo && t.getRank() > result.getRank())
    return c.error(shapeLoc, "cannot broadcast " + t.str() +
                                 " to the lower rank " + result.str());
  llvm::SmallVector<int64_t, 4> dims = broadcastDims(c);
  if (!isBroadcastTo) {
    if (int64_t(dims.size()) != t.getRank())
      return c.error(c.loc("dims"),
                     "dims has " + countOf(dims.size(), "entry", "entries") +
                         " but " + t.str() + " has rank " + Twine(t.getRank()));
    for (size_t i = 1; i < dims.size(); ++i)
      if (dims[i] <= dims[i - 1])
        return c.error(c.loc("dims"), "dims must be strictly increasing");
  }
  for (auto [i, d] : llvm::enumerate(dims))
    if (t.shape[i] != 1 && t.shape[i] != result.shape[d])
      return c.error(shapeLoc, "cannot broadcast " + t.str() + " to " +
                                   result.str() + ": dimension " + Twine(i) +
                                   " has size " + Twine(t.shape[i]) +
                                   " but the target dimension " + Twine(d) +
                                   " has size " + Twine(result.shape[d]));
  return c.result(result);
}

Value emitBroadcast(BuiltinEmitter &e) {
  return tad::BroadcastOp::create(e.builder, e.loc, e.resultType(),
                                  e.operand("x"), broadcastDims(e));
}

bool checkSlice(BuiltinCall &c) {
  const TensorType &t = c.tensor("x");
  llvm::SmallVector<int64_t, 4> start(c.ints("start")), limit(c.ints("limit")),
      step(c.ints("step"));
  if (!c.given("step"))
    step.assign(t.getRank(), 1);
  if (int64_t(start.size()) != t.getRank() ||
      int64_t(limit.size()) != t.getRank() ||
      int64_t(step.size()) != t.getRank())
    return c.error("slice of " + t.str() +
                   " needs start, limit and step with " +
                   countOf(t.getRank(), "entry", "entries") + " each");
  TensorType result{t.elem, {}};
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (start[d] < 0 || start[d] >= limit[d] || limit[d] > t.shape[d])
      return c.error("slice dimension " + Twine(d) +
                     ": need 0 <= start < limit <= " + Twine(t.shape[d]) +
                     ", got start " + Twine(start[d]) + " and limit " +
                     Twine(limit[d]));
    if (step[d] < 1)
      return c.error("slice dimension " + Twine(d) +
                     ": step must be positive, got " + Twine(step[d]));
    result.shape.push_back((limit[d] - start[d] + step[d] - 1) / step[d]);
  }
  c.setInts("step", step);
  return c.result(result);
}

Value emitSlice(BuiltinEmitter &e) {
  return tad::SliceOp::create(e.builder, e.loc, e.resultType(), e.operand("x"),
                              e.ints("start"), e.ints("limit"), e.ints("step"));
}

bool checkConcat(BuiltinCall &c) {
  llvm::ArrayRef<Expr *> tensors = c.exprs("x");
  const TensorType &first = tensors.front()->type.tensor;
  int64_t axis = c.integer("axis");
  TensorType result = first;
  for (Expr *e : llvm::drop_begin(tensors)) {
    const TensorType &t = e->type.tensor;
    bool compatible = t.elem == first.elem && t.getRank() == first.getRank();
    for (int64_t d = 0; compatible && d < t.getRank(); ++d)
      compatible = d == axis || t.shape[d] == first.shape[d];
    if (!compatible)
      return c.error(e->getLoc(), "cannot concatenate " + t.str() + " with " +
                                      first.str() + " along axis " +
                                      Twine(axis) +
                                      ": element types, ranks and the other "
                                      "dimensions must agree");
    result.shape[axis] += t.shape[axis];
  }
  return c.result(result);
}

Value emitConcat(BuiltinEmitter &e) {
  return tad::ConcatOp::create(e.builder, e.loc, e.resultType(),
                               e.operands("x"),
                               e.builder.getI64IntegerAttr(e.integer("axis")));
}

} // namespace

std::vector<BuiltinDef> tad::lang::makeShapeBuiltins() {
  ParamSpec shape = ofKind("shape", ParamKind::shape);
  return {
      {"transpose",
       {numeric("x"),
        axisOf("perm", ParamKind::permutation, "x").optional(0, "reversed")},
       checkTranspose,
       emitTranspose,
       "dimensions permuted",
       "`tad.transpose`"},
      {"swapaxes",
       {numeric("x"), axisOf("axis1", ParamKind::axis, "x"),
        axisOf("axis2", ParamKind::axis, "x")},
       checkSwapAxes,
       emitSwapAxes,
       "`x` with two axes swapped, at any rank: `swapaxes(k, -1, -2)` is "
       "`k`'s batch of matrices transposed",
       "`tad.transpose`"},
      {"reshape",
       {numeric("x"), ofKind("shape", ParamKind::integers)},
       checkReshape,
       emitReshape,
       "same elements, new shape; one entry may be -1",
       "`tad.reshape`"},
      {"broadcast_to",
       {numeric("x"), shape},
       checkBroadcast,
       emitBroadcast,
       "NumPy broadcast to a shape",
       "`tad.broadcast`"},
      {"broadcast",
       {numeric("x"), shape, axisOf("dims", ParamKind::axes, "shape")},
       checkBroadcast,
       emitBroadcast,
       "operand dimension `i` to result dimension `dims[i]`",
       "`tad.broadcast`"},
      {"slice",
       {numeric("x"), ofKind("start", ParamKind::integers),
        ofKind("limit", ParamKind::integers),
        ofKind("step", ParamKind::integers).optional(0, "[1, ...]")},
       checkSlice,
       emitSlice,
       "`start <= index < limit` by `step`",
       "`tad.slice`"},
      {"concat",
       {ParamSpec::value("x", ParamKind::numerics, 1),
        axisOf("axis", ParamKind::axis, "x").optional(0)},
       checkConcat,
       emitConcat,
       "concatenation along `axis`",
       "`tad.concat`"},
  };
}
