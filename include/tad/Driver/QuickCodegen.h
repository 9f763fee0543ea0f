//===- QuickCodegen.h - long entry functions through -O0 codegen -*- C++
//-*-===//

#ifndef TAD_DRIVER_QUICKCODEGEN_H
#define TAD_DRIVER_QUICKCODEGEN_H

namespace llvm {
class Module;
} // namespace llvm

namespace tad::driver {

/// Instructions from which an entry point's code is generated as at -O0.
constexpr unsigned kQuickCodegenInstructions = 2000;

/// Marks each C interface (`_mlir_ciface_f`, into which the optimizer has
/// inlined the program's function) of at least `minInstructions`
/// instructions `optnone`, after the optimizer: its code is then generated
/// as at -O0 (lib/Driver/QuickCodegen.cpp says why that costs no run time).
void generateLongEntriesQuickly(
    llvm::Module &module, unsigned minInstructions = kQuickCodegenInstructions);

} // namespace tad::driver

#endif // TAD_DRIVER_QUICKCODEGEN_H
