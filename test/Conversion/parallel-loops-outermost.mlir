// RUN: tad-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tad-parallel-loops-outermost))' | FileCheck %s

// A sum split into lanes (tad-split-reductions) iterates over its rows, a
// reduction, outside its lanes: the lanes become the outer loop, and each
// lane still adds its rows in order.
// The maps are permuted with the loops: the input is read at (d0, d2, d1).
// CHECK:     #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK:     #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK:     func.func @lanes
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : memref<4x4x8xf32>) outs(%arg1 : memref<4x8xf64>)
func.func @lanes(%x: memref<4x4x8xf32>, %acc: memref<4x8xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : memref<4x4x8xf32>) outs(%acc : memref<4x8xf64>) {
  ^bb0(%in: f32, %out: f64):
    %e = arith.extf %in : f32 to f64
    %s = arith.addf %e, %out : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Two reduction loops keep their order after the parallel one; linalg.index
// follows its loop.
// CHECK:     #[[X:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK:     #[[THIRD:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK:     func.func @two_reductions
// CHECK:         indexing_maps = [#[[X]], {{.*}}], iterator_types = ["parallel", "reduction", "reduction"]
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK:           %[[I1:.*]] = linalg.index 1 : index
// CHECK:           %[[I2:.*]] = linalg.index 2 : index
// CHECK:           %[[I:.*]] = affine.apply #[[THIRD]](%[[I0]], %[[I1]], %[[I2]])
// CHECK:           arith.index_cast %[[I]]
func.func @two_reductions(%x: memref<3x5x7xf32>, %acc: memref<5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%x : memref<3x5x7xf32>) outs(%acc : memref<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %m = arith.mulf %in, %f : f32
    %s = arith.addf %m, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Parallel loops first already, and matmuls (named ops): unchanged.
// CHECK-LABEL: func.func @unchanged
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK:         linalg.matmul
func.func @unchanged(%x: memref<4x8xf32>, %acc: memref<4xf32>, %a: memref<2x3xf32>, %b: memref<3x2xf32>, %c: memref<2x2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x8xf32>) outs(%acc : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x2xf32>) outs(%c : memref<2x2xf32>)
  return
}
