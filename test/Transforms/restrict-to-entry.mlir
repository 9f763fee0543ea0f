// RUN: tad-opt %s --tad-autodiff --tad-restrict-to-entry=entry=f_grad | FileCheck %s
// RUN: tad-opt %s --tad-autodiff --tad-restrict-to-entry=entry=g | FileCheck %s --check-prefix=G

// The gradient does not call its primal: with it as the entry, the primal
// goes, and the gradient keeps its tad.derivative (which names @f).
// CHECK-NOT:   func.func {{.*}}@f(
// CHECK:       func.func @f_grad({{.*}}) -> tensor<4xf32> attributes {tad.derivative = #tad.derivative<grad of @f wrt [0]>}
// CHECK-NOT:   func.func {{.*}}@f(
// CHECK-NOT:   func.func {{.*}}@g(

// A function that calls @f keeps it; the gradient goes.
// G:           func.func private @f(
// G-NOT:       func.func {{.*}}@f_grad
// G:           func.func @g(

func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %y = tad.mul %x, %x : tensor<4xf32>
  %s = tad.reduce_sum %y axes [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @f_grad(tensor<4xf32>) -> tensor<4xf32> attributes {tad.derivative = #tad.derivative<grad of @f wrt [0]>}
func.func @g(%x: tensor<4xf32>) -> tensor<f32> {
  %r = call @f(%x) : (tensor<4xf32>) -> tensor<f32>
  return %r : tensor<f32>
}
