// The joint functions that tad-autodiff writes, for representative cases.
// RUN: tad-opt %s --tad-autodiff --split-input-file | FileCheck %s
// RUN: tad-opt %s --tad-autodiff="loop-residuals=false" --split-input-file | FileCheck %s --check-prefix=CARRIED

func.func @square(%x: tensor<f32>) -> tensor<f32> {
  %y = tad.mul %x, %x : tensor<f32>
  return %y : tensor<f32>
}
// The forward sweep, the seed, and the fan-out of %x added up.
// CHECK-LABEL: func.func @d_square
// CHECK-SAME: (%[[X:.*]]: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK: %[[Y:.*]] = tad.mul %[[X]], %[[X]]
// CHECK: %[[ONE:.*]] = tad.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[A:.*]] = tad.mul %[[ONE]], %[[X]]
// CHECK: %[[B:.*]] = tad.mul %[[ONE]], %[[X]]
// CHECK: %[[S:.*]] = tad.add %[[A]], %[[B]]
// CHECK: return %[[Y]], %[[S]]
func.func private @d_square(tensor<f32>) -> (tensor<f32>, tensor<f32>)
    attributes {tad.derivative = #tad.derivative<value_and_grad of @square wrt [0]>}

// A grad needs no value: dead forward ops are erased.
// CHECK-LABEL: func.func @g_square
// CHECK-NEXT: tad.constant dense<1.000000e+00>
func.func private @g_square(tensor<f32>) -> tensor<f32>
    attributes {tad.derivative = #tad.derivative<grad of @square wrt [0]>}

// -----

// Activity: the data %x needs no cotangent, so only dW = x^T dY is built
// (and, for a grad, not even the forward matmul), x read transposed in place.
func.func @linear(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>) -> tensor<f32> {
  %y = tad.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %s = tad.reduce_sum %y axes [0, 1] : tensor<4x2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @d_linear
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>,
// CHECK-NOT: tad.transpose
// CHECK: tad.matmul %[[X]], %{{.*}} {transpose_lhs} : tensor<4x3xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
// CHECK-NOT: tad.matmul
// CHECK: return
func.func private @d_linear(tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    attributes {tad.derivative = #tad.derivative<grad of @linear wrt [1]>}

// -----

// A checkpoint runs in the forward sweep and again, from its operands,
// before its adjoint: the backward sweep reads only the recomputed tanh.
func.func @ckpt(%x: tensor<3xf32>) -> tensor<f32> {
  %c = tad.checkpoint(%x) : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3xf32>):
    %t = tad.tanh %a : tensor<3xf32>
    tad.yield %t : tensor<3xf32>
  }
  %s = tad.reduce_sum %c axes [0] : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @d_ckpt
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: tad.checkpoint(%[[X]])
// CHECK: tad.tanh
// CHECK: tad.yield
// CHECK: %[[RE:.*]] = tad.tanh %[[X]] {tad.recomputed} : tensor<3xf32>
// CHECK: tad.mul %[[RE]], %[[RE]]
func.func private @d_ckpt(tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
    attributes {tad.derivative = #tad.derivative<value_and_grad of @ckpt wrt [0]>}

// -----

// The forward loop writes the carried value of each iteration into a tape.
// The residual that tanh's adjoint reads, its result, is the next
// iteration's carried value: row i + 1 of that tape, which gets one more row
// for the last iteration's result, so the reverse loop recomputes nothing.
// With loop-residuals=false (CARRIED) the reverse loop reads the carried
// value back, recomputes the body and runs its adjoint.
func.func @loop(%x: tensor<2xf32>) -> tensor<f32> {
  %lo = arith.constant 0 : index
  %hi = arith.constant 5 : index
  %one = arith.constant 1 : index
  %h = scf.for %i = %lo to %hi step %one iter_args(%c = %x) -> (tensor<2xf32>) {
    %t = tad.tanh %c : tensor<2xf32>
    scf.yield %t : tensor<2xf32>
  }
  %s = tad.reduce_sum %h axes [0] : tensor<2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @d_loop
// A full tape starts empty: every row is written before it is read.
// CHECK: %[[TAPE0:.*]] = tad.empty : tensor<6x2xf32>
// CHECK: %[[FWD:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[TAPE0]])
// CHECK: tad.update %{{.*}} into %{{.*}}[%{{.*}}] {tad.tape} : tensor<2xf32> into tensor<6x2xf32>
// CHECK: %[[FULL:.*]] = tad.update %[[FWD]]#0 into %[[FWD]]#1[%{{.*}}] {tad.forward, tad.tape}
// CHECK: scf.for
// CHECK: %[[NEXT:.*]] = arith.addi
// CHECK: %[[OUT:.*]] = tad.take %[[FULL]][%[[NEXT]]] : tensor<6x2xf32> -> tensor<2xf32>
// CHECK-NOT: tad.tanh
// CHECK: tad.mul %[[OUT]], %[[OUT]]
// CARRIED-LABEL: func.func @d_loop
// CARRIED: %[[TAPE0:.*]] = tad.empty : tensor<5x2xf32>
// CARRIED: %[[FWD:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[TAPE0]])
// CARRIED: tad.update %{{.*}} into %{{.*}}[%{{.*}}] {tad.tape} : tensor<2xf32> into tensor<5x2xf32>
// CARRIED: scf.for
// CARRIED: %[[IN:.*]] = tad.take %[[FWD]]#1[%{{.*}}] : tensor<5x2xf32> -> tensor<2xf32>
// CARRIED: tad.tanh %[[IN]]
func.func private @d_loop(tensor<2xf32>) -> tensor<2xf32>
    attributes {tad.derivative = #tad.derivative<grad of @loop wrt [0]>}

// -----

// A call of a function with a custom rule runs the rule's forward; the
// backward sweep calls its pullback with the saved values.
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32>
    attributes {tad.custom_rule = #tad.custom_rule<forward = @f_fwd, pullback = @f_pb>} {
  %y = tad.exp %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func private @f_fwd(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = tad.exp %x : tensor<3xf32>
  return %y, %y : tensor<3xf32>, tensor<3xf32>
}
func.func private @f_pb(%y: tensor<3xf32>, %dy: tensor<3xf32>) -> tensor<3xf32> {
  %d = tad.mul %y, %dy : tensor<3xf32>
  return %d : tensor<3xf32>
}
func.func @g(%x: tensor<3xf32>) -> tensor<f32> {
  %y = func.call @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %s = tad.reduce_sum %y axes [0] : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @d_g
// CHECK: %[[F:.*]]:2 = call @f_fwd(%{{.*}})
// CHECK: %[[D:.*]] = call @f_pb(%[[F]]#1, %{{.*}})
// CHECK: return %[[D]]
func.func private @d_g(tensor<3xf32>) -> tensor<3xf32>
    attributes {tad.derivative = #tad.derivative<grad of @g wrt [0]>}

// -----

// A rule that saves a parameter does not return it: the pullback takes the
// call's argument after the forward's saved results (saved_params).
func.func @f(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32>
    attributes {tad.custom_rule = #tad.custom_rule<forward = @f_fwd, pullback = @f_pb, saved_params = [1]>} {
  %y = tad.mul %x, %w : tensor<3xf32>
  %z = tad.exp %y : tensor<3xf32>
  return %z : tensor<3xf32>
}
func.func private @f_fwd(%x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = tad.mul %x, %w : tensor<3xf32>
  %z = tad.exp %y : tensor<3xf32>
  return %z, %z : tensor<3xf32>, tensor<3xf32>
}
func.func private @f_pb(%z: tensor<3xf32>, %w: tensor<3xf32>, %dz: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %d = tad.mul %z, %dz : tensor<3xf32>
  %dx = tad.mul %d, %w : tensor<3xf32>
  return %dx, %d : tensor<3xf32>, tensor<3xf32>
}
func.func @g(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %v = tad.tanh %w : tensor<3xf32>
  %y = func.call @f(%x, %v) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = tad.reduce_sum %y axes [0] : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @d_g
// CHECK: %[[V:.*]] = tad.tanh
// CHECK: %[[F:.*]]:2 = call @f_fwd(%{{.*}}, %[[V]])
// CHECK: %[[D:.*]]:2 = call @f_pb(%[[F]]#1, %[[V]], %{{.*}})
func.func private @d_g(tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    attributes {tad.derivative = #tad.derivative<grad of @g wrt [0, 1]>}

// -----

// stop_gradient sends nothing back: the gradient of x * sg(x) is sg(x).
func.func @sg(%x: tensor<f32>) -> tensor<f32> {
  %s = tad.stop_gradient %x : tensor<f32>
  %y = tad.mul %x, %s : tensor<f32>
  return %y : tensor<f32>
}
// CHECK-LABEL: func.func @d_sg
// CHECK: %[[S:.*]] = tad.stop_gradient %[[X:.*]] : tensor<f32>
// CHECK: %[[ONE:.*]] = tad.constant dense<1.000000e+00>
// CHECK: %[[D:.*]] = tad.mul %[[ONE]], %[[S]]
// CHECK-NEXT: return %[[D]]
func.func private @d_sg(tensor<f32>) -> tensor<f32>
    attributes {tad.derivative = #tad.derivative<grad of @sg wrt [0]>}
