// RUN: tad-opt %s --tad-split-reductions | FileCheck %s

// A sum along the innermost dimension sums into 8 f64 lanes (lane l adds
// elements l, l + 8, ... in order), then adds the lanes in order into the
// original accumulator.
// CHECK-LABEL: func.func @rows
// CHECK:         %[[X:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [4, 4, 8] : tensor<4x32xf32> into tensor<4x4x8xf32>
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<4x8xf64>)
// CHECK:         %[[L:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<4x4x8xf32>) outs(%[[Z]] : tensor<4x8xf64>)
// CHECK:           arith.extf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[L]] : tensor<4x8xf64>) outs(%arg1 : tensor<4xf64>)
func.func @rows(%x: tensor<4x32xf32>, %acc: tensor<4xf64>) -> tensor<4xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x32xf32>) outs(%acc : tensor<4xf64>) {
  ^bb0(%in: f32, %out: f64):
    %e = arith.extf %in : f32 to f64
    %s = arith.addf %e, %out : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// f32 accumulators get 16 lanes.
// CHECK-LABEL: func.func @wide
// CHECK:         tensor.expand_shape %arg0 {{\[}}[0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
func.func @wide(%x: tensor<32xf32>, %acc: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<32xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// Left alone: a sum over an outer dimension (its loop already runs along
// contiguous elements of the result), a length that is no multiple of the
// lanes, one shorter than two lanes each, and a maximum.
// CHECK-LABEL: func.func @others
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return
func.func @others(%x: tensor<32x4xf32>, %y: tensor<4x12xf32>, %z: tensor<4x8xf64>, %w: tensor<4x32xf32>, %acc: tensor<4xf32>, %wide: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>) {
  %cols = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<32x4xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %odd = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<4x12xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %short = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%z : tensor<4x8xf64>) outs(%wide : tensor<4xf64>) {
  ^bb0(%in: f64, %out: f64):
    %s = arith.addf %in, %out : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%w : tensor<4x32xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.maximumf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %cols, %odd, %short, %max : tensor<4xf32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>
}

// A product of two operands summed over their innermost dimension is a
// GEMM (tad-fold-transposes-into-matmuls makes such generics), which
// tad-matmul-to-runtime hands to BLAS: it is not split.
// CHECK-LABEL: func.func @contraction
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @contraction(%a: tensor<8x2x64xf32>, %b: tensor<8x2x64xf32>, %c: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (m, b, k)>, affine_map<(b, m, n, k) -> (n, b, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x2x64xf32>, tensor<8x2x64xf32>) outs(%c : tensor<2x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}
