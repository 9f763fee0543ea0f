// A loop over layers keeps the tape of its carried value in the gradient
// accumulator of the stacked weights it reads as ws[i] (Loops.cpp,
// findTapeHost): row i of the tape in the leading block of row i of the
// gradient, which the reverse step writes after its last read of the tape.
// The residuals that fit go into the rest of the row.
// RUN: tad-opt %s --tad-autodiff --split-input-file | FileCheck %s

func.func @layers(%x: tensor<2x4xf32>, %ws: tensor<3x4x4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %x) -> (tensor<2x4xf32>) {
    %w = tad.take %ws[%i] : tensor<3x4x4xf32> -> tensor<4x4xf32>
    %y = tad.matmul %c, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
    %t = tad.tanh %y : tensor<2x4xf32>
    scf.yield %t : tensor<2x4xf32>
  }
  %s = tad.reduce_sum %h axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @d_layers
// The host starts empty: the reverse step writes each of its rows whole.
// CHECK: %[[HOST:.*]] = tad.empty : tensor<3x4x4xf32>
// CHECK: %[[FWD:.*]]:2 = scf.for %[[I:.*]] = {{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[TAPE:.*]] = %[[HOST]]) -> (tensor<2x4xf32>, tensor<3x4x4xf32>)
// CHECK: tensor.insert_slice %[[H]] into %[[TAPE]][%{{.*}}, 0, 0] [1, 2, 4] [1, 1, 1] {tad.tape} : tensor<2x4xf32> into tensor<3x4x4xf32>
// The residual, tanh's result, fills the rest of the row (ResidualTapes.cpp).
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 2, 0] [1, 2, 4] [1, 1, 1] {tad.tape} : tensor<2x4xf32> into tensor<3x4x4xf32>
// The remat report counts the reverse sweep's steps of each iteration.
// CHECK: } {tad.forward, tad.reverse_reruns = 3 : i64}
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[ACC:.*]] = %[[FWD]]#1) -> (tensor<2x4xf32>, tensor<3x4x4xf32>)
// CHECK: %[[IN:.*]] = tensor.extract_slice %[[ACC]][%[[ROW:.*]], 0, 0] [1, 2, 4] [1, 1, 1] : tensor<3x4x4xf32> to tensor<2x4xf32>
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[ACC]][%[[ROW]], 2, 0] [1, 2, 4] [1, 1, 1] : tensor<3x4x4xf32> to tensor<2x4xf32>
// CHECK-NOT: tad.tanh
// CHECK: tad.mul %[[OUT]], %[[OUT]]
// CHECK: %[[G:.*]] = tad.matmul %[[IN]], %{{.*}} {transpose_lhs} : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
// CHECK: %[[NEW:.*]] = tad.update %[[G]] into %[[ACC]][%{{.*}}] : tensor<4x4xf32> into tensor<3x4x4xf32>
// CHECK: scf.yield %{{.*}}, %[[NEW]]
func.func private @d_layers(tensor<2x4xf32>, tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
    attributes {tad.derivative = #tad.derivative<grad of @layers wrt [1]>}

// Without the weights' gradient there is no accumulator: a tape of its own,
// with one more row for the last iteration's result, since the tanh that
// each iteration yields is a residual (docs/autodiff.md).
// CHECK-LABEL: func.func @dx_layers
// CHECK: scf.for {{.*}} -> (tensor<2x4xf32>, tensor<4x2x4xf32>)
// CHECK: tad.update %{{.*}} into %{{.*}}[%{{.*}}] {tad.tape} : tensor<2x4xf32> into tensor<4x2x4xf32>
// CHECK-NOT: insert_slice
// CHECK: return
func.func private @dx_layers(tensor<2x4xf32>, tensor<3x4x4xf32>) -> tensor<2x4xf32>
    attributes {tad.derivative = #tad.derivative<grad of @layers wrt [0]>}

// -----

// The body reads the weights twice (two cotangents for one row) and at
// another index than the induction value: no host; the weights' gradient
// accumulates from zeros, and the tapes are stacks of the carried value and
// of the residual y.
func.func @twice(%x: tensor<2x4xf32>, %ws: tensor<3x4x4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %x) -> (tensor<2x4xf32>) {
    %w = tad.take %ws[%i] : tensor<3x4x4xf32> -> tensor<4x4xf32>
    %y = tad.matmul %c, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
    %w0 = tad.take %ws[%c0] : tensor<3x4x4xf32> -> tensor<4x4xf32>
    %z = tad.matmul %y, %w0 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
    scf.yield %z : tensor<2x4xf32>
  }
  %s = tad.reduce_sum %h axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @d_twice
// CHECK: scf.for {{.*}} -> (tensor<2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x4xf32>)
// CHECK-NOT: insert_slice
// CHECK: return
func.func private @d_twice(tensor<2x4xf32>, tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
    attributes {tad.derivative = #tad.derivative<grad of @twice wrt [1]>}

// -----

// Every value the body reads as one row at the induction value (here the
// biases too, which cannot hold the tape) has its row's gradient written
// into the accumulator's row, not added to its zeros: the producer then
// writes straight into the row, with no buffer of its own.
func.func @biased(%x: tensor<2x4xf32>, %ws: tensor<3x4x4xf32>, %bs: tensor<3x4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %x) -> (tensor<2x4xf32>) {
    %w = tad.take %ws[%i] : tensor<3x4x4xf32> -> tensor<4x4xf32>
    %b = tad.take %bs[%i] : tensor<3x4xf32> -> tensor<4xf32>
    %y = tad.matmul %c, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
    %bb = tad.broadcast %b dims [1] : tensor<4xf32> -> tensor<2x4xf32>
    %z = tad.add %y, %bb : tensor<2x4xf32>
    %t = tad.tanh %z : tensor<2x4xf32>
    scf.yield %t : tensor<2x4xf32>
  }
  %s = tad.reduce_sum %h axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: func.func @d_biased
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[WACC:.*]] = %{{.*}}, %[[BACC:.*]] = %{{.*}}) -> (tensor<2x4xf32>, tensor<3x4x4xf32>, tensor<3x4xf32>)
// CHECK-NOT: tad.take %[[BACC]]
// CHECK: %[[DB:.*]] = tad.reduce_sum {{.*}} axes [0] : tensor<2x4xf32> -> tensor<4xf32>
// CHECK-NOT: tad.take %[[BACC]]
// CHECK: tad.update %[[DB]] into %[[BACC]][%{{.*}}] : tensor<4xf32> into tensor<3x4xf32>
// CHECK: scf.yield
func.func private @d_biased(tensor<2x4xf32>, tensor<3x4x4xf32>, tensor<3x4xf32>) -> (tensor<3x4x4xf32>, tensor<3x4xf32>)
    attributes {tad.derivative = #tad.derivative<grad of @biased wrt [1, 2]>}
