//===- OrderConstantGlobals.cpp - One-Shot's globals in a stable order ----===//
//
// One-Shot Bufferize creates a private constant memref.global per distinct
// constant tensor, named `__constant_<type>` and uniqued with `_0`, `_1`,
// ... in the order it bufferizes functions. That order comes from a map
// keyed by pointers (upstream's getFuncOpsOrderedByCalls), so it differed
// between runs, and with it the names and the order of the globals in the
// LLVM module and the object. Here both follow the module instead: the
// order in which the globals are first used.
//
// The renaming is one walk over the module (a symbol-table rename per
// global would walk the module once per constant: 2,000 instances of a
// generic function hold thousands).
//
//===----------------------------------------------------------------------===//

#include "tad/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace tad {
#define GEN_PASS_DEF_ORDERCONSTANTGLOBALS
#include "tad/Transforms/Passes.h.inc"
} // namespace tad

using namespace mlir;

/// The prefix of the globals that One-Shot Bufferize makes of constants.
static constexpr llvm::StringLiteral kConstantPrefix = "__constant_";

/// `name` without One-Shot's uniquing suffix (`_0`, `_12`): what it names
/// a constant of its type.
static StringRef typeStem(StringRef name) {
  auto [stem, suffix] = name.rsplit('_');
  if (!suffix.empty() && stem.size() > kConstantPrefix.size() &&
      llvm::all_of(suffix, llvm::isDigit))
    return stem;
  return name;
}

namespace {
struct OrderConstantGlobals
    : tad::impl::OrderConstantGlobalsBase<OrderConstantGlobals> {
  void runOnOperation() override { tad::orderConstantGlobals(getOperation()); }
};
} // namespace

void tad::orderConstantGlobals(ModuleOp module) {
  llvm::DenseMap<StringAttr, memref::GlobalOp> constants;
  for (auto global : module.getOps<memref::GlobalOp>())
    if (global.isPrivate() && global.getConstant() &&
        global.getSymName().starts_with(kConstantPrefix))
      constants[global.getSymNameAttr()] = global;
  if (constants.empty())
    return;
  // First uses, in module order.
  llvm::MapVector<memref::GlobalOp, SmallVector<memref::GetGlobalOp>> uses;
  module.walk([&](memref::GetGlobalOp get) {
    auto it = constants.find(get.getNameAttr().getAttr());
    if (it != constants.end())
      uses[it->second].push_back(get);
  });
  // Unused ones (canonicalization drops them) keep their relative order,
  // after the used ones.
  for (auto global : module.getOps<memref::GlobalOp>())
    if (constants.count(global.getSymNameAttr()))
      uses.insert({global, {}});
  MLIRContext *context = module.getContext();
  llvm::StringMap<unsigned> seen;
  Block &body = *module.getBody();
  Block::iterator insertAt = body.begin();
  for (auto &[global, gets] : uses) {
    StringRef stem = typeStem(global.getSymName());
    unsigned n = seen[stem]++;
    std::string name =
        n == 0 ? stem.str() : (stem + "_" + llvm::Twine(n)).str();
    auto attr = StringAttr::get(context, name);
    global.setSymNameAttr(attr);
    for (memref::GetGlobalOp get : gets)
      get.setNameAttr(FlatSymbolRefAttr::get(attr));
    if (insertAt != global->getIterator())
      global->moveBefore(&body, insertAt);
    insertAt = std::next(global->getIterator());
  }
}
