// RUN: tad-opt %s --tad-matmul-to-runtime | FileCheck %s

// CHECK-LABEL: func.func @gemm
// CHECK: %[[A:.*]] = memref.cast %{{.*}} : memref<4x5xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @tad_rt_matmul_f32(%[[A]], %{{.*}}, %{{.*}})
// CHECK: call @tad_rt_batch_matmul_f64
// f16 stays a linalg op.
// CHECK: linalg.matmul ins({{.*}} : memref<2x2xf16>
func.func @gemm(%a: memref<4x5xf32>, %b: memref<5x6xf32>, %c: memref<4x6xf32>,
                %d: memref<2x3x3xf64>, %h: memref<2x2xf16>) {
  linalg.matmul ins(%a, %b : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  linalg.batch_matmul ins(%d, %d : memref<2x3x3xf64>, memref<2x3x3xf64>) outs(%d : memref<2x3x3xf64>)
  linalg.matmul ins(%h, %h : memref<2x2xf16>, memref<2x2xf16>) outs(%h : memref<2x2xf16>)
  return
}

// A transposed operand (tad.matmul's flag) goes to the runtime as a
// transposed view, which it passes to BLAS as such; maps that are not a
// transpose (a broadcast) stay a linalg op.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[AT:.*]] = memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<5x4xf32> to memref<4x5xf32, strided<[1, 4]>>
// CHECK: %[[A:.*]] = memref.cast %[[AT]]
// CHECK: call @tad_rt_matmul_f32(%[[A]],
// CHECK: memref.transpose %{{.*}} (d0, d1, d2) -> (d0, d2, d1) : memref<2x6x3xf64>
// CHECK: call @tad_rt_batch_matmul_f64
// CHECK: linalg.matmul indexing_maps
func.func @transposed(%a: memref<5x4xf32>, %b: memref<5x6xf32>, %c: memref<4x6xf32>,
                      %d: memref<2x3x3xf64>, %e: memref<2x6x3xf64>, %f: memref<2x3x6xf64>,
                      %v: memref<5xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : memref<5x4xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
      ins(%d, %e : memref<2x3x3xf64>, memref<2x6x3xf64>) outs(%f : memref<2x3x6xf64>)
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%v, %b : memref<5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  return
}

// The runtime functions are declared once, after the functions.
// CHECK: func.func private @tad_rt_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, {{.*}}) attributes {llvm.emit_c_interface}
