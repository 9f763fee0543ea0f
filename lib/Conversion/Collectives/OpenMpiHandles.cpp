//===- OpenMpiHandles.cpp - Open MPI's names for its reduction ops --------===//
//
// MPIToLLVM (MLIR 22) declares Open MPI's MPI_SUM as the external global
// `ompi_mpi_sum`; Open MPI's mpi.h defines MPI_SUM as `&ompi_mpi_op_sum`,
// the symbol libmpi exports. Renaming the globals after the conversion
// makes programs with collectives link (docs/distributed.md).
//
//===----------------------------------------------------------------------===//

#include "tad/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace tad {
#define GEN_PASS_DEF_OPENMPIHANDLES
#include "tad/Conversion/Passes.h.inc"
} // namespace tad

using namespace mlir;

namespace {
struct OpenMpiHandlesPass : tad::impl::OpenMpiHandlesBase<OpenMpiHandlesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The reduction operations of mpi.allreduce (MPI_OpClassEnum), as
    // MPIToLLVM names them.
    static const char *const kOps[] = {
        "no_op", "max", "min",  "sum",  "prod",   "land",   "band",
        "lor",   "bor", "lxor", "bxor", "minloc", "maxloc", "replace"};
    for (const char *op : kOps) {
      std::string wrong = std::string("ompi_mpi_") + op;
      auto global = module.lookupSymbol<LLVM::GlobalOp>(wrong);
      if (!global)
        continue;
      std::string right = std::string("ompi_mpi_op_") + op;
      if (failed(SymbolTable::replaceAllSymbolUses(
              global, StringAttr::get(&getContext(), right), module))) {
        global.emitError() << "cannot rename " << wrong << " to " << right;
        return signalPassFailure();
      }
      SymbolTable::setSymbolName(global, right);
    }
  }
};
} // namespace
