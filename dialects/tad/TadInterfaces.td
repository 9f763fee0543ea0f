//===- TadInterfaces.td - the differentiation interface ----*- tablegen -*-===//

#ifndef TAD_INTERFACES_TD
#define TAD_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tad_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::tad";
  let description = [{
    The reverse-mode derivative of an op: its vector-Jacobian product. Every
    tad op with a derivative implements it in TadVJPs.cpp, grouped by op
    family; the AD pass (lib/Transforms/AutoDiff) knows no op by name.
  }];
  let methods = [
    InterfaceMethod<[{
        Emits, at the builder's insertion point, the cotangents of the
        operands given the cotangents of the results. A null result
        cotangent is zero; a null operand cotangent means zero (or no
        derivative, as for an index operand). The op's operands and results
        are the forward values the product may read.
      }],
      "void", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultCotangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>,
    InterfaceMethod<[{
        Appends the forward values that buildVJP reads (its residuals):
        what the backward sweep needs kept or recomputed.
      }],
      "void", "getResiduals",
      (ins "::llvm::SmallVectorImpl<::mlir::Value> &":$residuals)>
  ];
}

#endif // TAD_INTERFACES_TD
