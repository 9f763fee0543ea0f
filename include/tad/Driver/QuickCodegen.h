//===- QuickCodegen.h - long entry functions through -O0 codegen -*- C++
//-*-===//

#ifndef TAD_DRIVER_QUICKCODEGEN_H
#define TAD_DRIVER_QUICKCODEGEN_H

namespace llvm {
class Module;
} // namespace llvm

namespace tad::driver {

/// Marks each C interface (`_mlir_ciface_f`, into which the optimizer has
/// inlined the program's function) of kLongFunctionInstructions or more
/// (Optimize.h) `optnone`, after the optimizer, and so every other function
/// of as many instructions without a loop: their code is then generated as
/// at -O0 (lib/Driver/QuickCodegen.cpp says why that costs no run time).
void generateLongEntriesQuickly(llvm::Module &module);

} // namespace tad::driver

#endif // TAD_DRIVER_QUICKCODEGEN_H
