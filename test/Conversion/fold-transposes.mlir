// RUN: tad-opt %s --tad-fold-transposes-into-matmuls --split-input-file | FileCheck %s

// Attention's heads: q and k are reshaped projections, transposed into
// heads (k also into its transpose); the product reads them through its
// maps, and the copies go.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @heads
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<8x2x4xf32>, tensor<8x2x4xf32>) outs(%{{.*}} : tensor<2x8x8xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
#q = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#kt = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @heads(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %qx = tensor.expand_shape %x [[0], [1, 2]] output_shape [8, 2, 4] : tensor<8x8xf32> into tensor<8x2x4xf32>
  %kx = tensor.expand_shape %y [[0], [1, 2]] output_shape [8, 2, 4] : tensor<8x8xf32> into tensor<8x2x4xf32>
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %q = linalg.generic {indexing_maps = [#q, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qx : tensor<8x2x4xf32>) outs(%e0 : tensor<2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x4xf32>
  %e1 = tensor.empty() : tensor<2x4x8xf32>
  %kt = linalg.generic {indexing_maps = [#kt, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%kx : tensor<8x2x4xf32>) outs(%e1 : tensor<2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x8xf32>
  %e2 = tensor.empty() : tensor<2x8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x8x4xf32>, tensor<2x4x8xf32>) outs(%z : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %s : tensor<2x8x8xf32>
}

// -----

// Merging the heads: the product writes the (8, 2, 4) tensor through its
// map, from a fill of the permuted shape.
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @merge
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x2x4xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8x2x4xf32>)
// CHECK: %[[O:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[C]]], {{.*}} outs(%[[Z]] : tensor<8x2x4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %[[O]]
#perm = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @merge(%p: tensor<2x8x8xf32>, %v: tensor<2x8x4xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x8x8xf32>, tensor<2x8x4xf32>) outs(%z : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %e1 = tensor.empty() : tensor<8x2x4xf32>
  %t = linalg.generic {indexing_maps = [#perm, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%o : tensor<2x8x4xf32>) outs(%e1 : tensor<8x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x2x4xf32>
  %r = tensor.collapse_shape %t [[0], [1, 2]] : tensor<8x2x4xf32> into tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// The gradient of k^T, (2, 4, 8) = q^T dS, stored back as (8, 2, 4): the
// permuted output would have C's rows (4) last, which BLAS cannot write;
// C^T = dS^T q would do, but OpenBLAS rounds that otherwise, so the copy
// stays.
// CHECK-LABEL: func.func @rows_last
// CHECK: linalg.batch_matmul
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<2x4x8xf32>) outs(%{{.*}} : tensor<8x2x4xf32>)
#qt = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
#ds = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#back = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @rows_last(%q: tensor<2x8x4xf32>, %ds: tensor<2x8x8xf32>) -> tensor<8x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %g = linalg.batch_matmul indexing_maps = [#qt, #ds, #c]
      ins(%q, %ds : tensor<2x8x4xf32>, tensor<2x8x8xf32>) outs(%z : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %e1 = tensor.empty() : tensor<8x2x4xf32>
  %t = linalg.generic {indexing_maps = [#back, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g : tensor<2x4x8xf32>) outs(%e1 : tensor<8x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x2x4xf32>
  return %t : tensor<8x2x4xf32>
}

// -----

// What stays: a copy that something besides a matmul reads (here the
// caller); a copy of a slice (reading the slice later would keep its whole
// buffer alive); a permutation that would give the batch the unit stride.
// CHECK-LABEL: func.func @kept
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: linalg.batch_matmul
// CHECK: tensor.extract_slice
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: linalg.batch_matmul
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: linalg.batch_matmul
#q = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#last = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @kept(%x: tensor<8x2x4xf32>, %big: tensor<16x2x4xf32>, %w: tensor<2x4x4xf32>, %b: tensor<8x4x2xf32>)
    -> (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %t0 = linalg.generic {indexing_maps = [#q, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x2x4xf32>) outs(%e0 : tensor<2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x4xf32>
  %m0 = linalg.batch_matmul ins(%t0, %w : tensor<2x8x4xf32>, tensor<2x4x4xf32>) outs(%z : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %slice = tensor.extract_slice %big[0, 0, 0] [8, 2, 4] [1, 1, 1] : tensor<16x2x4xf32> to tensor<8x2x4xf32>
  %t1 = linalg.generic {indexing_maps = [#q, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%slice : tensor<8x2x4xf32>) outs(%e0 : tensor<2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x4xf32>
  %m1 = linalg.batch_matmul ins(%t1, %w : tensor<2x8x4xf32>, tensor<2x4x4xf32>) outs(%z : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %t2 = linalg.generic {indexing_maps = [#last, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : tensor<8x4x2xf32>) outs(%e0 : tensor<2x8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8x4xf32>
  %m2 = linalg.batch_matmul ins(%t2, %w : tensor<2x8x4xf32>, tensor<2x4x4xf32>) outs(%z : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %t0, %m0, %m1, %m2 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
}
