// Derivative requests, custom rules and checkpointed functions round-trip.
// RUN: tad-opt %s | tad-opt | FileCheck %s

func.func @loss(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<f32> {
  %m = tad.mul %x, %w : tensor<4xf32>
  %s = tad.reduce_sum %m axes [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// CHECK: func.func private @loss_grad(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-SAME: attributes {tad.derivative = #tad.derivative<grad of @loss wrt [1]>}
func.func private @loss_grad(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    attributes {tad.derivative = #tad.derivative<grad of @loss wrt [1]>}

// CHECK: func.func private @loss_vg(tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-SAME: #tad.derivative<value_and_grad of @loss wrt [1, 0]>
func.func private @loss_vg(tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>)
    attributes {tad.derivative = #tad.derivative<value_and_grad of @loss wrt [1, 0]>}

// CHECK: func.func private @loss_vjp(tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-SAME: #tad.derivative<vjp of @loss wrt [0]>
func.func private @loss_vjp(tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    attributes {tad.derivative = #tad.derivative<vjp of @loss wrt [0]>}

// CHECK: func.func @layer(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-SAME: tad.checkpointed
// CHECK-SAME: tad.custom_rule = #tad.custom_rule<forward = @layer_fwd, pullback = @layer_pb>
func.func @layer(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {tad.checkpointed,
                tad.custom_rule = #tad.custom_rule<forward = @layer_fwd, pullback = @layer_pb>} {
  %t = tad.tanh %x : tensor<4xf32>
  return %t : tensor<4xf32>
}

func.func private @layer_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = tad.tanh %x : tensor<4xf32>
  return %t, %t : tensor<4xf32>, tensor<4xf32>
}

func.func private @layer_pb(%t: tensor<4xf32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
  %t2 = tad.mul %t, %t : tensor<4xf32>
  %one = tad.constant dense<1.0> : tensor<4xf32>
  %d = tad.sub %one, %t2 : tensor<4xf32>
  %dx = tad.mul %d, %dy : tensor<4xf32>
  return %dx : tensor<4xf32>
}

// A rule whose pullback also takes the primal's parameter 0.
// CHECK: func.func private @scaled(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-SAME: tad.custom_rule = #tad.custom_rule<forward = @layer_fwd, pullback = @scaled_pb, saved_params = [0]>
func.func private @scaled(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {tad.custom_rule = #tad.custom_rule<forward = @layer_fwd, pullback = @scaled_pb, saved_params = [0]>} {
  %t = tad.tanh %x : tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func private @scaled_pb(%t: tensor<4xf32>, %x: tensor<4xf32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
  %dx = tad.mul %x, %dy : tensor<4xf32>
  return %dx : tensor<4xf32>
}
