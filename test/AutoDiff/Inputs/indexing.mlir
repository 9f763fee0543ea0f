// The VJPs of tad.take, tad.update and tad.insert_slice, which the language
// reaches through loops and AD rather than directly: MLIR input.
func.func @f(%x: tensor<3x4xf64>, %v: tensor<4xf64>, %s: tensor<2x2xf64>) -> tensor<f64> {
  %i = arith.constant 1 : index
  %j = arith.constant 2 : index
  %row = tad.take %x[%i] : tensor<3x4xf64> -> tensor<4xf64>
  %a = tad.mul %row, %v : tensor<4xf64>
  %u = tad.update %a into %x[%j] : tensor<4xf64> into tensor<3x4xf64>
  %p = tad.insert_slice %s into %u start [0, 1] step [2, 2] : tensor<2x2xf64> into tensor<3x4xf64>
  %t = tad.tanh %p : tensor<3x4xf64>
  %q = tad.mul %t, %p : tensor<3x4xf64>
  %r = tad.reduce_sum %q axes [0, 1] : tensor<3x4xf64> -> tensor<f64>
  return %r : tensor<f64>
}
func.func private @df(tensor<3x4xf64>, tensor<4xf64>, tensor<2x2xf64>) -> (tensor<3x4xf64>, tensor<4xf64>, tensor<2x2xf64>)
    attributes {tad.derivative = #tad.derivative<grad of @f wrt [0, 1, 2]>}
