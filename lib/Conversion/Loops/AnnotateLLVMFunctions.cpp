//===- AnnotateLLVMFunctions.cpp - what LLVM should know of tad's code ----===//
//
// Facts about tad's functions that the conversion to the LLVM dialect
// drops, set on the `llvm.func`s it made:
//
//  - Every buffer comes from the runtime's `_mlir_memref_to_llvm_alloc`,
//    which LLVM sees as an unknown function: it cannot tell that the
//    pointer it returns aliases nothing else. Then an accumulator in a
//    buffer (a row sum, a row max) is loaded and stored on every iteration
//    of the inner loop, since the input might overlap it, and the loop
//    does not vectorize. The runtime returns fresh memory
//    (runtime/lib/Allocator.cpp), so the declaration's result is
//    `noalias`, as malloc's is.
//  - The loop nests that tad-outline-loop-nests made functions are
//    `noinline` (LLVM's inliner would put them back into one function)
//    and internal, and the pointers of their memref arguments that view an
//    allocation of their own (`tad.noalias_pointers`) are `noalias`.
//  - A function with a C interface (`_mlir_ciface_f`) is called from
//    outside through that interface only (the generated C wrappers and the
//    JIT call `_mlir_ciface_f`), so `f` itself is internal, and where
//    nothing else calls it, inlined into the interface. Otherwise the
//    interface loads every argument's descriptor into registers and
//    passes them all, then copies every result's descriptor: for a
//    100-layer MLP's gradient, 200 descriptors in and out, 5700
//    instructions in two blocks without a call, on which the machine
//    scheduler alone spent 0.65 s. Inlined, the loads of what the body
//    never reads (static sizes and strides) go away. The interface's
//    result pointer, where it has one, is `noalias`.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "dialects/tad/TadDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tad {
#define GEN_PASS_DEF_ANNOTATELLVMFUNCTIONS
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {
struct AnnotateLLVMFunctions
    : tad::impl::AnnotateLLVMFunctionsBase<AnnotateLLVMFunctions> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    StringRef noalias = LLVM::LLVMDialect::getNoAliasAttrName();
    SymbolTable symbols(getOperation());
    // How many calls and address-ofs name each function (what remains of
    // tad's code after conversion references functions only so).
    DenseMap<StringAttr, int> references;
    getOperation().walk([&](Operation *op) {
      if (auto call = dyn_cast<LLVM::CallOp>(op)) {
        if (FlatSymbolRefAttr callee = call.getCalleeAttr())
          ++references[callee.getAttr()];
      } else if (auto address = dyn_cast<LLVM::AddressOfOp>(op)) {
        ++references[address.getGlobalNameAttr().getAttr()];
      }
    });
    for (StringRef name : {"_mlir_memref_to_llvm_alloc",
                           "_mlir_memref_to_llvm_aligned_alloc"}) {
      auto function = symbols.lookup<LLVM::LLVMFuncOp>(name);
      if (function && function.isExternal())
        function.setResultAttr(0, noalias, UnitAttr::get(context));
    }
    for (auto function : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      auto interface = symbols.lookup<LLVM::LLVMFuncOp>(
          ("_mlir_ciface_" + function.getName()).str());
      if (!function.isExternal() && interface && !interface.isExternal()) {
        // With results, the interface's first argument points to where it
        // writes their descriptors: memory of its caller's that nothing
        // else touches while it runs (lib/Driver/ResultStores.cpp).
        if (interface.getFunctionType().getReturnType() !=
                function.getFunctionType().getReturnType() &&
            interface.getNumArguments() > 0 &&
            isa<LLVM::LLVMPointerType>(interface.getArgumentTypes()[0]))
          interface.setArgAttr(0, noalias, UnitAttr::get(context));
        function.setLinkage(LLVM::Linkage::Internal);
        if (references.lookup(function.getNameAttr()) == 1)
          function.setAlwaysInline(true);
      }
      if (!function->hasAttr(tad::TadDialect::kOutlinedAttrName))
        continue;
      function->removeAttr(tad::TadDialect::kOutlinedAttrName);
      function.setNoInline(true);
      function.setLinkage(LLVM::Linkage::Internal);
      function->removeAttr("sym_visibility");
      auto pointers =
          function->getAttrOfType<DenseI64ArrayAttr>(tad::TadDialect::kNoaliasPointersAttrName);
      if (!pointers)
        continue;
      function->removeAttr(tad::TadDialect::kNoaliasPointersAttrName);
      for (int64_t i : pointers.asArrayRef())
        function.setArgAttr(i, noalias, UnitAttr::get(context));
    }
  }
};
} // namespace
