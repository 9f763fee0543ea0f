//===- LaunchParameters.h - launch slots in the entry block -*- C++ -*-===//

#ifndef TAD_DRIVER_LAUNCHPARAMETERS_H
#define TAD_DRIVER_LAUNCHPARAMETERS_H

namespace llvm {
class Module;
} // namespace llvm

namespace tad::driver {

/// Moves the stack slots of each kernel launch's parameters into its
/// function's entry block, so that a launch inside a loop reuses them
/// instead of growing the stack every iteration
/// (lib/Driver/LaunchParameters.cpp).
void hoistLaunchParameters(llvm::Module &module);

} // namespace tad::driver

#endif // TAD_DRIVER_LAUNCHPARAMETERS_H
