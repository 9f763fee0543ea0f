//===- OutlineLoopNests.cpp - each loop nest a function, once -------------===//
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
// A nest's captured constants are cloned into it (its trip counts stay
// known); every other captured value becomes an argument. A memref
// argument's pointers are to be `noalias` where it views an allocation of
// its own, which no other argument views: the allocation is fresh memory,
// so LLVM can keep a reduction's accumulator in a register (as it could
// with the allocation in sight; tad-annotate-llvm-functions sets it).
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
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

/// The value a memref views, through view-like ops.
Value viewRoot(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

struct OutlineLoopNests
    : tad::impl::OutlineLoopNestsBase<OutlineLoopNests> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // The printed body (and noalias marks) of every outlined function.
    llvm::StringMap<func::FuncOp> outlined;
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
      for (scf::ForOp loop : nests)
        outline(loop, function, symbols, outlined, count);
    }
  }

  void outline(scf::ForOp loop, func::FuncOp parent, SymbolTable &symbols,
               llvm::StringMap<func::FuncOp> &outlined, unsigned &count) {
    // What the nest uses from outside: constants are cloned in, the rest
    // are arguments.
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(loop.getRegion(), captured);
    for (Value operand : loop->getOperands())
      captured.insert(operand);
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
    auto type = b.getFunctionType(ValueRange(arguments).getTypes(),
                                  loop.getResultTypes());
    auto function = func::FuncOp::create(b, loop.getLoc(), "outlined", type);
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
    Operation *copy = b.clone(*loop, mapping);
    func::ReturnOp::create(b, loop.getLoc(), copy->getResults());

    // noalias for memrefs that view an allocation no other argument views:
    // the positions of their aligned pointers (through which they are read
    // and written) among the LLVM arguments (a memref of rank r is 3 + 2r
    // of them: two pointers, the offset, the sizes and the strides).
    SmallVector<int64_t> noalias;
    int64_t position = 0;
    for (Value value : arguments) {
      auto memref = dyn_cast<MemRefType>(value.getType());
      if (!memref) {
        ++position;
        continue;
      }
      // Every other buffer must be another allocation or one of the
      // function's inputs (which a fresh allocation cannot overlap): a
      // buffer chosen by a select, a branch or a loop might be this one.
      Value root = viewRoot(value);
      auto distinct = [&](Value other) {
        if (other == value || !isa<MemRefType>(other.getType()))
          return true;
        Value otherRoot = viewRoot(other);
        if (otherRoot == root)
          return false;
        auto input = dyn_cast<BlockArgument>(otherRoot);
        return otherRoot.getDefiningOp<memref::AllocOp>() ||
               (input && input.getOwner()->isEntryBlock() &&
                isa<func::FuncOp>(input.getOwner()->getParentOp()));
      };
      if (root.getDefiningOp<memref::AllocOp>() &&
          llvm::all_of(arguments, distinct))
        noalias.push_back(position + 1);
      position += 3 + 2 * memref.getRank();
    }
    if (!noalias.empty())
      function->setAttr(tad::TadDialect::kNoaliasPointersAttrName,
                        b.getDenseI64ArrayAttr(noalias));

    // The same nest outlined before: call that one.
    std::string key;
    llvm::raw_string_ostream os(key);
    function->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
    auto [it, inserted] = outlined.try_emplace(key, function);
    if (inserted) {
      std::string name = (parent.getName() + "_loop" + Twine(count++)).str();
      function.setName(name);
      symbols.insert(function);
    } else {
      function.erase();
      function = it->second;
    }
    OpBuilder at(loop);
    auto call = func::CallOp::create(at, loop.getLoc(), function, arguments);
    loop->replaceAllUsesWith(call.getResults());
    loop->erase();
  }
};

} // namespace
