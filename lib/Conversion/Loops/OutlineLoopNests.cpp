//===- OutlineLoopNests.cpp - each loop nest and runtime call a function --===//
//
// After linalg becomes loops, a gradient of a deep network is one function
// holding thousands of loop nests, and LLVM's optimizer and code generator
// take time superlinear in a function's size: for a 100-layer MLP,
// IndVarSimplify alone took 2.5 s and the post-RA scheduler 4 s of the
// 14 s `--emit=lib` took. Here every loop nest that only computes (loads,
// stores, arithmetic and inner loops) becomes a private function, and the
// nests that are the same (same ops, shapes and constants: every layer of
// a network of equal layers) share one: LLVM then compiles a few small
// functions and one function of calls.
//
// Calls of the runtime with memref arguments (its GEMM) become functions
// the same way, one per callee and types: a call's C interface has the
// caller build a descriptor per memref on its stack, and a gradient's
// hundreds of GEMMs made that glue most of the function LLVM compiled.
//
// A nest whose outer loop's iterations are independent (`tad.parallel`,
// tad-linalg-to-loops) and that runs enough iterations takes the range of
// that loop as arguments: tad-parallelize-calls then has the runtime's
// threads each run part of it.
//
// A nest's captured constants are cloned into it (its trip counts stay
// known); every other captured value becomes an argument. A memref
// argument's pointers are to be `noalias` where it views an allocation of
// its own, which no other argument views: the allocation is fresh memory,
// so LLVM can keep a reduction's accumulator in a register (as it could
// with the allocation in sight; tad-annotate-llvm-functions sets it).
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "../FreshAllocations.h"
#include "ShareNestShapes.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace tad {
#define GEN_PASS_DEF_OUTLINELOOPNESTS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// Whether `op`, inside a nest, only computes: the nest may then run as a
/// call (no allocation, no call, no effect but its loads and stores).
bool onlyComputes(Operation *op) {
  if (isa<scf::ForOp, scf::IfOp, scf::YieldOp, memref::LoadOp,
          memref::StoreOp, affine::AffineApplyOp, affine::AffineMinOp,
          affine::AffineMaxOp>(op))
    return true;
  StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
  return (dialect == "arith" || dialect == "math") && op->getNumRegions() == 0;
}

bool isComputeNest(scf::ForOp loop) {
  return !loop
              ->walk([](Operation *op) {
                return onlyComputes(op) ? WalkResult::advance()
                                        : WalkResult::interrupt();
              })
              .wasInterrupted();
}

/// The constant trip count of `loop`, if it has one.
std::optional<int64_t> getTripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
}

/// How many iterations the innermost loops of `loop` run in all: its trip
/// count times the work of the loops in its body (of those in sequence, the
/// sum). A loop without a constant trip count counts as one iteration.
int64_t getWork(scf::ForOp loop) {
  int64_t inner = 0;
  loop.getBody()->walk<WalkOrder::PreOrder>([&](scf::ForOp nested) {
    inner += getWork(nested);
    return WalkResult::skip();
  });
  return getTripCount(loop).value_or(1) * std::max<int64_t>(inner, 1);
}

/// Passes each memref argument of a fully static layout on as a fresh
/// view of its base buffer (`memref.reinterpret_cast` with constant
/// offset, sizes and strides), so that the descriptor the call builds is
/// constants but for its two pointers: the argument's offset, sizes and
/// strides are then unused, LLVM drops them from every call of the
/// function, and its callers no longer load them from their own
/// arguments' descriptors.
void describeStatically(OpBuilder &b, Location loc, ArrayRef<Value> captured,
                        Block *entry, IRMapping &mapping) {
  for (auto [value, argument] : llvm::zip(captured, entry->getArguments())) {
    auto type = dyn_cast<MemRefType>(argument.getType());
    if (!type || !type.hasStaticShape())
      continue;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      continue;
    // From the base buffer: a cast of the argument itself would fold away.
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, argument);
    auto view = memref::ReinterpretCastOp::create(
        b, loc, type, metadata.getBaseBuffer(), offset, type.getShape(),
        strides);
    mapping.map(value, view.getResult());
  }
}

struct OutlineLoopNests
    : tad::impl::OutlineLoopNestsBase<OutlineLoopNests> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // The printed body (and noalias marks) of every outlined function.
    llvm::StringMap<func::FuncOp> outlined;
    // The distinct loop nests, for shareNestShapes.
    SmallVector<func::FuncOp> nestFunctions;
    unsigned count = 0;
    for (auto function : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (function.isExternal())
        continue;
      SmallVector<scf::ForOp> nests;
      function.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
        if (!isComputeNest(loop))
          return WalkResult::advance();
        nests.push_back(loop);
        return WalkResult::skip();
      });
      for (scf::ForOp loop : nests) {
        bool ranged = parallelWork > 0 &&
                      loop->hasAttr(tad::TadDialect::kParallelLoopAttrName) &&
                      loop->getNumResults() == 0 &&
                      getTripCount(loop).value_or(0) >= 2 &&
                      getWork(loop) >= parallelWork;
        if (func::FuncOp nest = outline(loop, "_loop", function, symbols,
                                        outlined, count, ranged))
          nestFunctions.push_back(nest);
      }
      // A call to the runtime whose arguments are memrefs: the caller
      // builds each memref's descriptor on its stack (the C interface), 7
      // stores for a matrix, and LLVM's code generator spends its time on
      // those stores in one function of hundreds of calls. A function per
      // kind of call (the same callee and types: every layer's GEMM of an
      // MLP of equal layers) builds them once.
      SmallVector<func::CallOp> calls;
      function.walk([&](func::CallOp call) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (callee && callee.isExternal() &&
            llvm::any_of(call.getOperandTypes(), llvm::IsaPred<MemRefType>))
          calls.push_back(call);
      });
      for (func::CallOp call : calls)
        outline(call, "_call", function, symbols, outlined, count,
                /*ranged=*/false);
    }
    tad::shareNestShapes(module, nestFunctions, shapeVariants);
  }

  /// Outlines `op`; where `ranged`, `op` is an scf.for whose range the
  /// function takes as its last two arguments. Returns the function where
  /// it is new, null where an equal one was outlined before.
  func::FuncOp outline(Operation *op, StringRef kind, func::FuncOp parent,
               SymbolTable &symbols, llvm::StringMap<func::FuncOp> &outlined,
               unsigned &count, bool ranged) {
    // What the nest uses from outside: constants are cloned in, the rest
    // are arguments.
    llvm::SetVector<Value> captured;
    for (Region &region : op->getRegions())
      getUsedValuesDefinedAbove(region, captured);
    // A call's operands cast to the callee's dynamic memref types are cast
    // inside the function instead: its arguments keep their static types.
    SmallVector<memref::CastOp> casts;
    for (Value operand : op->getOperands()) {
      auto cast = operand.getDefiningOp<memref::CastOp>();
      if (cast && isa<func::CallOp>(op)) {
        casts.push_back(cast);
        captured.insert(cast.getSource());
      } else {
        captured.insert(operand);
      }
    }
    SmallVector<Value> arguments;
    SmallVector<Operation *> constants;
    for (Value value : captured) {
      Operation *def = value.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        constants.push_back(def);
      else
        arguments.push_back(value);
    }

    OpBuilder b(parent);
    SmallVector<Type> argumentTypes(ValueRange(arguments).getTypes());
    if (ranged)
      argumentTypes.append(2, b.getIndexType());
    auto type = b.getFunctionType(argumentTypes, op->getResultTypes());
    auto function = func::FuncOp::create(b, op->getLoc(), "outlined", type);
    function.setPrivate();
    // tad-annotate-llvm-functions makes it internal and noinline (LLVM's
    // inliner would put the nests back into one function).
    function->setAttr(tad::TadDialect::kOutlinedAttrName, b.getUnitAttr());
    Block *entry = function.addEntryBlock();
    IRMapping mapping;
    for (auto [value, argument] :
         llvm::zip(arguments, entry->getArguments()))
      mapping.map(value, argument);
    b.setInsertionPointToStart(entry);
    for (Operation *constant : constants)
      mapping.map(constant->getResult(0), b.clone(*constant)->getResult(0));
    if (isa<func::CallOp>(op))
      describeStatically(b, op->getLoc(), arguments, entry, mapping);
    for (memref::CastOp cast : casts)
      if (!mapping.contains(cast.getResult()))
        b.clone(*cast, mapping);
    Operation *copy = b.clone(*op, mapping);
    if (ranged) {
      auto loop = cast<scf::ForOp>(copy);
      loop.setLowerBound(entry->getArgument(arguments.size()));
      loop.setUpperBound(entry->getArgument(arguments.size() + 1));
      function->setAttr(tad::TadDialect::kParallelRangeAttrName,
                        b.getUnitAttr());
    }
    func::ReturnOp::create(b, op->getLoc(), copy->getResults());

    // noalias for memrefs that view an allocation no other argument views.
    int64_t llvmArguments;
    SmallVector<int64_t> noalias =
        tad::noaliasPointers(arguments, llvmArguments);
    if (!noalias.empty())
      function->setAttr(tad::TadDialect::kNoaliasPointersAttrName,
                        b.getDenseI64ArrayAttr(noalias));

    // The same nest outlined before: call that one.
    std::string key;
    llvm::raw_string_ostream os(key);
    function->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
    auto [it, inserted] = outlined.try_emplace(key, function);
    func::FuncOp created;
    if (inserted) {
      std::string name = (parent.getName() + kind + Twine(count++)).str();
      function.setName(name);
      symbols.insert(function);
      created = function;
    } else {
      function.erase();
      function = it->second;
    }
    OpBuilder at(op);
    SmallVector<Value> operands(arguments);
    if (ranged) {
      auto loop = cast<scf::ForOp>(op);
      operands.append({loop.getLowerBound(), loop.getUpperBound()});
    }
    auto call = func::CallOp::create(at, op->getLoc(), function, operands);
    op->replaceAllUsesWith(call.getResults());
    op->erase();
    for (memref::CastOp cast : casts)
      if (cast->use_empty())
        cast->erase();
    return created;
  }
};

} // namespace
