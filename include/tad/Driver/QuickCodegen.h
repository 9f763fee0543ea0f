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
/// So too, without a loop, every C interface that markManyEntries marked.
void generateLongEntriesQuickly(llvm::Module &module);

/// C interfaces from which all of a module's are generated as at -O0: a
/// library of instances of generic functions.
constexpr unsigned kManyEntries = 128;

/// Marks each C interface of `module` (`tad-many-entries`) for
/// generateLongEntriesQuickly where it has kManyEntries or more, before the
/// module is split into parts, so that its code is the same whatever the
/// split.
void markManyEntries(llvm::Module &module);

} // namespace tad::driver

#endif // TAD_DRIVER_QUICKCODEGEN_H
