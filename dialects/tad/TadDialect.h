//===- TadDialect.h - the tad dialect ---------------------------*- C++ -*-===//
//
// Declares the tad dialect class; include TadOps.h for its ops.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_DIALECTS_TAD_TADDIALECT_H
#define TAD_DIALECTS_TAD_TADDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/tad/TadDialect.h.inc"

#endif // TAD_DIALECTS_TAD_TADDIALECT_H
