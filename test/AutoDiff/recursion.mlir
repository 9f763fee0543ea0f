// Recursion in IR input is diagnosed, never followed.
// RUN: tad-opt %s --tad-autodiff -verify-diagnostics

func.func @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{recursion is not supported: @f calls itself}}
  %y = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}
func.func private @df(tensor<f32>) -> tensor<f32>
    attributes {tad.derivative = #tad.derivative<grad of @f wrt [0]>}
