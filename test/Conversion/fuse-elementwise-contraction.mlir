// RUN: tad-opt %s --tad-fold-transposes-into-matmuls --tad-fuse-elementwise | FileCheck %s

// tad-fuse-elementwise fuses an elementwise producer into its only reader,
// but not into a contraction: after tad-fold-transposes-into-matmuls made
// the product of attention's probabilities and values a generic, linalg
// would fuse the division that makes the probabilities into it, and the
// GEMM would become a loop nest (slower, and rounding otherwise than the
// BLAS call that remat's recomputation of it makes).
// CHECK-LABEL: func.func @probabilities_times_values
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[P]], %{{.*}} : tensor<2x8x8xf32>, tensor<8x2x4xf32>)
// CHECK-NOT: arith.divf
#perm = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @probabilities_times_values(%e: tensor<2x8x8xf32>, %s: tensor<2x8x8xf32>, %x: tensor<8x8xf32>) -> tensor<2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x8x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %s : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%e0 : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<2x8x8xf32>
  %vx = tensor.expand_shape %x [[0], [1, 2]] output_shape [8, 2, 4] : tensor<8x8xf32> into tensor<8x2x4xf32>
  %e1 = tensor.empty() : tensor<2x8x4xf32>
  %v = linalg.generic {indexing_maps = [#perm, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%vx : tensor<8x2x4xf32>) outs(%e1 : tensor<2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x4xf32>) outs(%z : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %o : tensor<2x8x4xf32>
}
