//===- Passes.td - tad conversion passes -------------------*- tablegen -*-===//
//
// Every conversion out of the tad dialect, in one file (as CIRCT does).
//
//===----------------------------------------------------------------------===//

#ifndef TAD_CONVERSION_PASSES_TD
#define TAD_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTadToLinalg : Pass<"convert-tad-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lowers the tad dialect to linalg, tensor, arith and math";
  let description = [{
    Rewrites every tad op on tensors: elementwise ops, broadcasts and
    transposes become `linalg.generic` ops (so that chains of them fuse into
    one loop nest), reductions become `linalg.generic` reductions, matmuls
    become `linalg.matmul` / `linalg.batch_matmul` on zero-filled outputs,
    shape ops become `tensor` ops, and softmax and logsumexp become the
    numerically stable max-subtracted form. `tad.checkpoint` regions are
    inlined: by this point AD and remat have given them their meaning.

    ```mlir
    %z = tad.add %x, %y : tensor<4xf32>
    ```
    becomes
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel"]}
        ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::tensor::TensorDialect"
  ];
}

def FuseElementwise : Pass<"tad-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuses elementwise linalg ops as the remat memory model assumes";
  let description = [{
    Fuses an all-parallel `linalg.generic` into its consumer when it is the
    producer's only use (after duplicate operands of one consumer are merged),
    and nothing else: unlike upstream `linalg-fuse-elementwise-ops`, it does
    not propagate reshapes through generics. The remat pass predicts the
    peak bytes of the code this pipeline generates (docs/memory.md); which
    values get a buffer is decided here, by the same rule it models.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ConvertMatmulToRuntime : Pass<"tad-matmul-to-runtime", "mlir::ModuleOp"> {
  let summary = "Calls the runtime's BLAS-backed GEMM for matmuls on buffers";
  let description = [{
    After bufferization, replaces `linalg.matmul` and `linalg.batch_matmul`
    on f32 and f64 memrefs by calls of `tad_rt_matmul_f32` /
    `tad_rt_matmul_f64` (C interface; the runtime calls cblas_sgemm or
    cblas_dgemm, with C += A B semantics). docs/performance.md records the
    measurement that chose a BLAS call over generated loops. f16 and bf16
    matmuls stay linalg ops.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

#endif // TAD_CONVERSION_PASSES_TD
