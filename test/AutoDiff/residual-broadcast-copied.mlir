// Two rules of a loop's residual tapes (ResidualTapes.cpp,
// docs/autodiff.md#loops-and-branches):
// - a broadcast is not taped: its source is, and the reverse step
//   broadcasts it again (the broadcast fuses into its reader, so it costs
//   no buffer, where a tape of it would hold the repeated elements);
// - a residual in a gradient's row that the reverse step writes before it
//   last reads the residual (so the step copies it out) costs memory, and
//   tad.loop_residual_recompute counts it with the tapes of their own.
// RUN: tad-opt %s --tad-autodiff --canonicalize --cse --split-input-file | FileCheck %s
// RUN: sed 's/recompute = 0/recompute = 100/' %s | tad-opt --tad-autodiff --canonicalize --cse --split-input-file | FileCheck %s --check-prefix=AGAIN

func.func @bcast(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %x) -> (tensor<2x4xf32>) {
    %y = tad.matmul %c, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
    %r = tad.reduce_max %y axes [1] keepdims : tensor<2x4xf32> -> tensor<2x1xf32>
    %b = tad.broadcast %r dims [0, 1] : tensor<2x1xf32> -> tensor<2x4xf32>
    %z = tad.mul %y, %b : tensor<2x4xf32>
    scf.yield %z : tensor<2x4xf32>
  }
  %s = tad.reduce_sum %h axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @d_bcast(tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    attributes {tad.derivative = #tad.derivative<grad of @bcast wrt [0]>}
// The tapes: the carried value, y, and the maximum r (2 x 1), not its
// broadcast (2 x 4).
// CHECK-LABEL: func.func @d_bcast
// CHECK: scf.for {{.*}} -> (tensor<2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x1xf32>)
// CHECK: %[[R:.*]] = tad.reduce_max
// CHECK: tad.update %[[R]] into %{{.*}} {tad.tape} : tensor<2x1xf32> into tensor<3x2x1xf32>
// CHECK-NOT: {tad.tape}
// CHECK: } {tad.forward
// CHECK: scf.for
// CHECK: %[[RT:.*]] = tad.take %{{.*}} : tensor<3x2x1xf32> -> tensor<2x1xf32>
// CHECK: tad.broadcast %[[RT]] dims [0, 1] : tensor<2x1xf32> -> tensor<2x4xf32>
// CHECK-NOT: tad.matmul %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<2x4xf32>, tensor<4x4xf32>
// CHECK: return

// -----

// exp's result e goes into the row of ws's gradient after the carried
// value; the body reads ws[i] after computing e, so the reverse step
// writes that row (the matmul's weight gradient) before its last read of
// e: at 0% it reads e from the row, at 100% it computes e again from the
// carried value and the row holds only that.
func.func @late(%x: tensor<2x4xf32>, %ws: tensor<3x4x4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %x) -> (tensor<2x4xf32>) {
    %e = tad.exp %c : tensor<2x4xf32>
    %w = tad.take %ws[%i] : tensor<3x4x4xf32> -> tensor<4x4xf32>
    %y = tad.matmul %e, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
    scf.yield %y : tensor<2x4xf32>
  } {tad.loop_residual_recompute = 0 : i64}
  %s = tad.reduce_sum %h axes [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @d_late(tensor<2x4xf32>, tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
    attributes {tad.derivative = #tad.derivative<grad of @late wrt [1]>}
// CHECK-LABEL: func.func @d_late
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0, 0] [1, 2, 4] [1, 1, 1] {tad.tape}
// CHECK: %[[E:.*]] = tad.exp
// CHECK: tensor.insert_slice %[[E]] into %{{.*}}[%{{.*}}, 2, 0] [1, 2, 4] [1, 1, 1] {tad.tape}
// CHECK: } {tad.forward
// CHECK: %[[ET:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 2, 0] [1, 2, 4] [1, 1, 1]
// CHECK-NOT: tad.exp
// CHECK: tad.matmul %[[ET]], %{{.*}} {transpose_lhs}
// CHECK: return
// AGAIN-LABEL: func.func @d_late
// AGAIN: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0, 0] [1, 2, 4] [1, 1, 1] {tad.tape}
// AGAIN-NOT: {tad.tape}
// AGAIN: } {tad.forward
// AGAIN: %[[C:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0, 0] [1, 2, 4] [1, 1, 1]
// AGAIN: %[[E:.*]] = tad.exp %[[C]]
// AGAIN: tad.matmul %[[E]], %{{.*}} {transpose_lhs}
// AGAIN: return
