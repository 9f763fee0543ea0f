// RUN: tad-opt %s --convert-tad-to-linalg --mlir-print-local-scope | FileCheck %s

// Transposed operands are read through the indexing maps, not copied.
// CHECK-LABEL: func.func @transposed_matmuls
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%{{.*}}, %{{.*}} : tensor<5x4xf32>, tensor<6x5xf32>) {{.*}} -> tensor<4x6xf32>
// CHECK: linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] {{.*}} -> tensor<6x4x6xf32>
func.func @transposed_matmuls(%a: tensor<5x4xf32>, %b: tensor<6x5xf32>, %c: tensor<2x3x4x5xf32>, %d: tensor<2x3x6x5xf32>) -> (tensor<4x6xf32>, tensor<2x3x4x6xf32>) {
  %0 = tad.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<5x4xf32>, tensor<6x5xf32> -> tensor<4x6xf32>
  %1 = tad.matmul %c, %d {transpose_rhs} : tensor<2x3x4x5xf32>, tensor<2x3x6x5xf32> -> tensor<2x3x4x6xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<2x3x4x6xf32>
}
