// A loop's tad.loop_snapshots attribute overrides the pass's loop-snapshots
// option (tadc sets it per loop under a budget): the first loop keeps a
// tape of 2 snapshots, the second one of the option's 3, each of 8 trips.
// RUN: tad-opt %s --tad-autodiff=loop-snapshots=3 | FileCheck %s

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %a = scf.for %i = %c0 to %c8 step %c1 iter_args(%h = %x) -> (tensor<4xf32>) {
    %t = tad.tanh %h : tensor<4xf32>
    scf.yield %t : tensor<4xf32>
  } {tad.loop_snapshots = 2 : i64}
  %b = scf.for %i = %c0 to %c8 step %c1 iter_args(%h = %a) -> (tensor<4xf32>) {
    %t = tad.tanh %h : tensor<4xf32>
    scf.yield %t : tensor<4xf32>
  }
  return %b : tensor<4xf32>
}
func.func private @df(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    attributes {tad.derivative = #tad.derivative<vjp of @f wrt [0]>}

// CHECK-LABEL: func.func @df
// CHECK: scf.for {{.*}} -> (tensor<4xf32>, tensor<2x4xf32>
// CHECK: scf.for {{.*}} -> (tensor<4xf32>, tensor<3x4xf32>
