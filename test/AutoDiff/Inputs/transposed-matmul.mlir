// tad.matmul with transposed operands, as canonicalization makes them after
// AD: their VJPs (one flagged matmul per cotangent, no transpose) for all
// four flag combinations, rank 2 and with a batch dimension. MLIR input,
// since the frontend writes transposes and AD runs before they are folded.
func.func @f(%a: tensor<3x4xf64>, %b: tensor<5x4xf64>, %c: tensor<3x2xf64>,
             %d: tensor<2x4x3xf64>, %e: tensor<2x5x4xf64>) -> tensor<f64> {
  // a b^T: 3x5
  %ab = tad.matmul %a, %b {transpose_rhs} : tensor<3x4xf64>, tensor<5x4xf64> -> tensor<3x5xf64>
  %t = tad.tanh %ab : tensor<3x5xf64>
  // t^T c: 5x2
  %tc = tad.matmul %t, %c {transpose_lhs} : tensor<3x5xf64>, tensor<3x2xf64> -> tensor<5x2xf64>
  // ab tc: 3x2
  %p = tad.matmul %ab, %tc : tensor<3x5xf64>, tensor<5x2xf64> -> tensor<3x2xf64>
  // tc^T ab^T: 2x3
  %q = tad.matmul %tc, %ab {transpose_lhs, transpose_rhs} : tensor<5x2xf64>, tensor<3x5xf64> -> tensor<2x3xf64>
  %pp = tad.mul %p, %p : tensor<3x2xf64>
  %qq = tad.mul %q, %q : tensor<2x3xf64>
  %r1 = tad.reduce_sum %pp axes [0, 1] : tensor<3x2xf64> -> tensor<f64>
  %r2 = tad.reduce_sum %qq axes [0, 1] : tensor<2x3xf64> -> tensor<f64>
  // Per batch d^T e^T: (3x4)(4x5) = 3x5.
  %de = tad.matmul %d, %e {transpose_lhs, transpose_rhs} : tensor<2x4x3xf64>, tensor<2x5x4xf64> -> tensor<2x3x5xf64>
  %u = tad.tanh %de : tensor<2x3x5xf64>
  %r3 = tad.reduce_sum %u axes [0, 1, 2] : tensor<2x3x5xf64> -> tensor<f64>
  %r12 = tad.add %r1, %r2 : tensor<f64>
  %r = tad.add %r12, %r3 : tensor<f64>
  return %r : tensor<f64>
}
func.func private @df(tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x2xf64>, tensor<2x4x3xf64>, tensor<2x5x4xf64>) -> (tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x2xf64>, tensor<2x4x3xf64>, tensor<2x5x4xf64>)
    attributes {tad.derivative = #tad.derivative<grad of @f wrt [0, 1, 2, 3, 4]>}
