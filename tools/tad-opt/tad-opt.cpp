//===- tad-opt.cpp - the mlir-opt of tad ----------------------------------===//
//
// Parses MLIR with the tad dialect, runs passes, and prints the result:
// `tad-opt --canonicalize in.mlir`, `tad-opt -verify-diagnostics ...`.
//
//===----------------------------------------------------------------------===//

#include "tad/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tad::registerAllDialects(registry);
  tad::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tad modular optimizer driver\n", registry));
}
