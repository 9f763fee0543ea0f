//===- ShareNestShapes.cpp - one outlined nest for many shapes ------------===//
//
// tad-outline-loop-nests lets equal nests share a function, but nests that
// compute the same thing on other shapes are not equal: their trip counts
// are constants and their memrefs' types static. A module of 2,000
// instances of a generic gradient (`--instantiate=scale[B=1..2000]`) held
// 4,000 nests, two per instance, each the same `tanh` loop but for its
// trip count, and LLVM optimized and compiled each: most of the module's
// 36 s compile.
//
// Here the nests that differ only in index constants and in the sizes,
// strides and offsets of their memref arguments share one function where
// there are at least `minVariants` of them: each constant that differs
// becomes an argument (after the nest's own, before a parallel range),
// each memref argument whose type differs gets the type with those sizes,
// strides and offset dynamic (a `memref.cast` at each call), and the rest
// stay constants. A loop whose trip count LLVM no longer knows is still
// vectorized (with a remainder); below that many variants each keeps its
// own code, as a model's few layer widths do.
//
// The shape-erased form that groups them is the nest printed with every
// index constant 0 and every memref argument fully dynamic: equal forms
// have the same ops in the same order, so their index constants and
// arguments correspond by position.
//
//===----------------------------------------------------------------------===//

#include "ShareNestShapes.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

/// An outlined nest and the values of its index constants, in walk order.
struct Variant {
  func::FuncOp function;
  SmallVector<int64_t> constants;
};

/// The index constants of `function`, in walk order.
SmallVector<arith::ConstantIndexOp> indexConstants(func::FuncOp function) {
  SmallVector<arith::ConstantIndexOp> constants;
  function.walk([&](arith::ConstantIndexOp c) { constants.push_back(c); });
  return constants;
}

/// `type` with its sizes, strides and offset dynamic.
MemRefType eraseShape(MemRefType type) {
  SmallVector<int64_t> dynamic(type.getRank(), ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, type.getElementType(), layout,
                         type.getMemorySpace());
}

/// `function` printed with its name, its index constants and its memref
/// arguments' shapes erased (as a copy): the key of the nests that differ
/// only in those.
std::string shapeErasedForm(func::FuncOp function) {
  OpBuilder b(function.getContext());
  auto copy = cast<func::FuncOp>(function->clone());
  copy.setName("nest");
  for (arith::ConstantIndexOp c : indexConstants(copy))
    c.setValueAttr(b.getIndexAttr(0));
  SmallVector<Type> inputs(copy.getArgumentTypes());
  for (auto [type, argument] : llvm::zip(inputs, copy.getArguments()))
    if (auto memref = dyn_cast<MemRefType>(type)) {
      type = eraseShape(memref);
      argument.setType(type);
    }
  copy.setType(b.getFunctionType(inputs, copy.getResultTypes()));
  std::string form;
  llvm::raw_string_ostream os(form);
  copy->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  copy.erase();
  return form;
}

/// The one type that the memref argument `i` of every nest of `group`
/// (memrefs of one rank and element type) casts to: each size, stride and
/// the offset static where all agree and dynamic where not. Null where one
/// has no strided form.
MemRefType joinShapes(MutableArrayRef<Variant> group, unsigned i) {
  SmallVector<MemRefType> types;
  for (Variant &variant : group)
    types.push_back(
        cast<MemRefType>(variant.function.getFunctionType().getInput(i)));
  MemRefType first = types.front();
  if (llvm::all_equal(types))
    return first;
  SmallVector<int64_t> shape(first.getShape());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(first.getStridesAndOffset(strides, offset)))
    return {};
  bool identity = true;
  for (MemRefType type : types) {
    SmallVector<int64_t> otherStrides;
    int64_t otherOffset;
    if (failed(type.getStridesAndOffset(otherStrides, otherOffset)))
      return {};
    identity &= type.getLayout().isIdentity();
    for (auto [size, other] : llvm::zip(shape, type.getShape()))
      if (size != other)
        size = ShapedType::kDynamic;
    for (auto [stride, other] : llvm::zip(strides, otherStrides))
      if (stride != other)
        stride = ShapedType::kDynamic;
    if (offset != otherOffset)
      offset = ShapedType::kDynamic;
  }
  // Row-major buffers of other sizes stay row-major: their strides follow
  // from the (dynamic) sizes.
  MemRefType joined =
      identity
          ? MemRefType::get(shape, first.getElementType(),
                            MemRefLayoutAttrInterface(), first.getMemorySpace())
          : MemRefType::get(
                shape, first.getElementType(),
                StridedLayoutAttr::get(first.getContext(), offset, strides),
                first.getMemorySpace());
  for (MemRefType type : types)
    if (!memref::CastOp::areCastCompatible(type, joined))
      return {};
  return joined;
}

/// Makes `group`'s first function the one they all call, with
/// `argumentTypes` and the constants at `varying` (positions among its
/// index constants) as arguments; erases the others. `calls` are each
/// function's calls.
void share(MutableArrayRef<Variant> group, ArrayRef<Type> argumentTypes,
           ArrayRef<unsigned> varying,
           DenseMap<Operation *, SmallVector<func::CallOp>> &calls) {
  func::FuncOp shared = group.front().function;
  MLIRContext *context = shared.getContext();
  // A parallel range stays the last two arguments (tad-parallelize-calls).
  unsigned ranged =
      shared->hasAttr(tad::TadDialect::kParallelRangeAttrName) ? 2 : 0;
  unsigned at = shared.getNumArguments() - ranged;
  for (auto [argument, type] : llvm::zip(shared.getArguments(), argumentTypes))
    argument.setType(type);
  SmallVector<Type> inputs(argumentTypes);
  shared.setType(FunctionType::get(context, inputs, shared.getResultTypes()));
  SmallVector<arith::ConstantIndexOp> constants = indexConstants(shared);
  IndexType index = IndexType::get(context);
  for (auto [i, position] : llvm::enumerate(varying)) {
    arith::ConstantIndexOp constant = constants[position];
    (void)shared.insertArgument(at + i, index, DictionaryAttr(),
                                constant.getLoc());
    constant.replaceAllUsesWith(shared.getArgument(at + i));
    constant.erase();
  }

  for (Variant &variant : group) {
    for (func::CallOp call : calls.lookup(variant.function)) {
      OpBuilder b(call);
      SmallVector<Value> operands;
      for (auto [operand, type] :
           llvm::zip(call.getOperands().take_front(at), argumentTypes))
        operands.push_back(
            operand.getType() == type
                ? operand
                : memref::CastOp::create(b, call.getLoc(), type, operand)
                      .getResult());
      for (unsigned position : varying)
        operands.push_back(arith::ConstantIndexOp::create(
            b, call.getLoc(), variant.constants[position]));
      llvm::append_range(operands, call.getOperands().drop_front(at));
      auto replacement =
          func::CallOp::create(b, call.getLoc(), shared, operands);
      call.replaceAllUsesWith(replacement.getResults());
      call.erase();
    }
    if (variant.function != shared)
      variant.function.erase();
  }
}

/// Whether an affine op uses one of `variant`'s index constants at
/// `varying` (its group's others have the same users): an argument there
/// might be no valid affine symbol.
bool feedsAffine(Variant &variant, ArrayRef<unsigned> varying) {
  SmallVector<arith::ConstantIndexOp> constants =
      indexConstants(variant.function);
  return llvm::any_of(varying, [&](unsigned position) {
    return llvm::any_of(constants[position]->getUsers(), [](Operation *user) {
      return user->getDialect()->getNamespace() == "affine";
    });
  });
}

} // namespace

void tad::shareNestShapes(ModuleOp module, ArrayRef<func::FuncOp> nests,
                          unsigned minVariants) {
  if (minVariants < 2 || nests.size() < minVariants)
    return;
  // The groups in the order of their first nests (the output's order).
  llvm::StringMap<unsigned> groupOf;
  SmallVector<SmallVector<Variant>> groups;
  for (func::FuncOp nest : nests) {
    Variant variant{nest, {}};
    for (arith::ConstantIndexOp c : indexConstants(nest))
      variant.constants.push_back(c.value());
    auto [it, inserted] =
        groupOf.try_emplace(shapeErasedForm(nest), groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].push_back(std::move(variant));
  }
  DenseMap<Operation *, SmallVector<func::CallOp>> calls;
  bool any = llvm::any_of(groups, [&](const SmallVector<Variant> &group) {
    return group.size() >= minVariants;
  });
  if (!any)
    return;
  SymbolTable symbols(module);
  module.walk([&](func::CallOp call) {
    if (auto callee = symbols.lookup<func::FuncOp>(call.getCallee()))
      calls[callee].push_back(call);
  });
  for (SmallVector<Variant> &group : groups) {
    if (group.size() < minVariants)
      continue;
    func::FuncOp first = group.front().function;
    SmallVector<unsigned> varying;
    for (unsigned position = 0, e = group.front().constants.size();
         position < e; ++position)
      if (llvm::any_of(group, [&](const Variant &v) {
            return v.constants[position] != group.front().constants[position];
          }))
        varying.push_back(position);
    SmallVector<Type> argumentTypes;
    bool joined = true;
    for (unsigned i = 0, e = first.getNumArguments(); i < e && joined; ++i) {
      if (!isa<MemRefType>(first.getArgumentTypes()[i])) {
        argumentTypes.push_back(first.getArgumentTypes()[i]);
        continue;
      }
      MemRefType type = joinShapes(group, i);
      joined = bool(type);
      argumentTypes.push_back(type);
    }
    if (!joined || feedsAffine(group.front(), varying))
      continue;
    share(group, argumentTypes, varying, calls);
  }
}
