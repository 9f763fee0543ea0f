// RUN: tad-opt %s --tad-autodiff --tad-inline-rules | FileCheck %s

// tad-inline-rules inlines the calls of a rule's forward and pullback that
// AD made, and in them the calls of plain functions (the forward's call of
// its own primal), with the forward's ops marked as of the forward sweep;
// a call of a derivative (the pullback's @f_vjp) stays a call. A value of
// the inlined code that nothing reads is erased (@h's grad discards exp).
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32>
    attributes {tad.custom_rule = #tad.custom_rule<forward = @f_fwd, pullback = @f_pb, saved_params = [0]>} {
  %y = tad.exp %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @f_fwd(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = func.call @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @f_pb(%x: tensor<3xf32>, %dy: tensor<3xf32>) -> tensor<3xf32> {
  %d = func.call @f_vjp(%x, %dy) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %d : tensor<3xf32>
}
func.func private @f_vjp(tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    attributes {tad.derivative = #tad.derivative<vjp of @f wrt [0]>}
func.func @g(%x: tensor<3xf32>) -> tensor<f32> {
  %t = tad.tanh %x : tensor<3xf32>
  %y = func.call @f(%t) : (tensor<3xf32>) -> tensor<3xf32>
  %m = tad.mul %y, %t : tensor<3xf32>
  %s = tad.reduce_sum %m axes [0] : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @dg
// CHECK: %[[T:.*]] = tad.tanh %{{.*}} {tad.forward}
// CHECK-NOT: call @f_fwd
// CHECK: tad.exp %[[T]] {tad.forward}
// CHECK-NOT: call @f_pb
// CHECK: call @f_vjp(%[[T]], %{{.*}})
// CHECK: return
func.func private @dg(tensor<3xf32>) -> tensor<3xf32>
    attributes {tad.derivative = #tad.derivative<grad of @g wrt [0]>}

func.func @h(%x: tensor<3xf32>) -> tensor<f32> {
  %y = func.call @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %s = tad.reduce_sum %y axes [0] : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @dh
// CHECK-NOT: tad.exp
// CHECK: call @f_vjp
// CHECK-NOT: tad.exp
// CHECK: return
func.func private @dh(tensor<3xf32>) -> tensor<3xf32>
    attributes {tad.derivative = #tad.derivative<grad of @h wrt [0]>}
