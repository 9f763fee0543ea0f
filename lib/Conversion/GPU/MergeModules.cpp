//===- MergeModules.cpp - one GPU module for all the kernels --------------===//
//
// gpu-kernel-outlining gives every kernel its own gpu.module, and each
// module becomes its own binary: one ptxas run per architecture and one
// fatbinary run per kernel, which made compiling the transformer example
// take 11 s, almost all of it spent starting those tools. Merged, the
// kernels compile in one run of each, and load as one CUDA module.
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace tad {
#define GEN_PASS_DEF_MERGEGPUMODULES
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {

/// Whether two symbols of different modules are the same constant global
/// (outlining copies a global into every module whose kernels read it).
bool isSameConstantGlobal(Operation *a, Operation *b) {
  auto ga = dyn_cast<memref::GlobalOp>(a);
  auto gb = dyn_cast<memref::GlobalOp>(b);
  return ga && gb && ga.getConstant() && gb.getConstant() &&
         ga.getType() == gb.getType() &&
         ga.getInitialValueAttr() == gb.getInitialValueAttr() &&
         ga.getAlignmentAttr() == gb.getAlignmentAttr();
}

/// Renames kernels whose names PTX cannot spell: outlining names a kernel
/// after its function (`f_kernel`), and tad's own functions may hold a '.'
/// (the rule of a call, `model.rule`), which ptxas rejects. Each character
/// outside [A-Za-z0-9_] becomes '_', with a suffix where that name is taken.
LogicalResult renameKernelsForPtx(ModuleOp module) {
  DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    SymbolTable table(gpuModule);
    for (auto kernel : llvm::to_vector(gpuModule.getOps<gpu::GPUFuncOp>())) {
      StringRef name = kernel.getName();
      std::string spelled = name.str();
      for (char &c : spelled)
        if (!llvm::isAlnum(c) && c != '_')
          c = '_';
      if (spelled == name)
        continue;
      std::string candidate = spelled;
      for (unsigned i = 0; table.lookup(candidate); ++i)
        candidate = spelled + "_" + std::to_string(i);
      StringAttr old = kernel.getNameAttr();
      if (failed(table.rename(kernel, candidate)))
        return kernel.emitError("cannot rename a kernel for PTX");
      renamed[{gpuModule.getNameAttr(), old}] = kernel.getNameAttr();
    }
  }
  module.walk([&](gpu::LaunchFuncOp launch) {
    auto it = renamed.find(
        {launch.getKernelModuleName(), launch.getKernelName()});
    if (it != renamed.end())
      launch.setKernelAttr(
          SymbolRefAttr::get(launch.getKernelModuleName(),
                             {FlatSymbolRefAttr::get(it->second)}));
  });
  return success();
}

struct MergeGpuModules
    : public tad::impl::MergeGpuModulesBase<MergeGpuModules> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(renameKernelsForPtx(module)))
      return signalPassFailure();
    auto modules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (modules.size() < 2)
      return;
    gpu::GPUModuleOp merged = modules.front();
    // Named for what it holds (the binary is @tad_kernels_binary), unless
    // a function has that name.
    SymbolTable moduleTable(module);
    if (!moduleTable.lookup("tad_kernels") &&
        failed(moduleTable.rename(merged, "tad_kernels"))) {
      merged.emitError("cannot rename a GPU module");
      return signalPassFailure();
    }
    SymbolTable mergedTable(merged);
    // (old module, old kernel) -> new kernel name, for the launches.
    DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> kernels;
    for (gpu::GPUModuleOp from : llvm::drop_begin(modules)) {
      SymbolTable fromTable(from);
      for (Operation &op : llvm::make_early_inc_range(*from.getBody())) {
        auto symbol = dyn_cast<SymbolOpInterface>(&op);
        if (!symbol) {
          op.emitError("cannot merge a GPU module op without a symbol");
          return signalPassFailure();
        }
        StringAttr name = symbol.getNameAttr();
        if (Operation *existing = mergedTable.lookup(name)) {
          if (isSameConstantGlobal(existing, &op)) {
            op.erase();
            continue;
          }
          // Renames the symbol and its uses in its own module first.
          if (failed(fromTable.renameToUnique(&op, {&mergedTable}))) {
            op.emitError("cannot rename a symbol of a GPU module");
            return signalPassFailure();
          }
        }
        fromTable.remove(&op);
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        mergedTable.insert(&op);
        if (isa<gpu::GPUFuncOp>(op))
          kernels[{from.getNameAttr(), name}] = symbol.getNameAttr();
      }
      from.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = kernels.find(
          {launch.getKernelModuleName(), launch.getKernelName()});
      if (it != kernels.end())
        launch.setKernelAttr(SymbolRefAttr::get(
            merged.getNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
  }
};

} // namespace
