//===- PrecompiledHeaders.h - the MLIR headers most of tad includes -------===//
//
// Compiled once per build (TAD_PRECOMPILED_HEADERS, CMakeLists.txt) and
// loaded by the sources of tad's libraries: parsing these was most of a
// short source's compile (docs/testing.md, "How long it takes"). Only
// headers from outside the checkout belong here, so that no change in the
// checkout rebuilds it; a source that includes none of them opts out
// (WITHOUT_MLIR in tad_add_library), since loading the precompiled headers
// costs it more than it saves.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>
