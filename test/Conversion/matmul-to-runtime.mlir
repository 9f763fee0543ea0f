// RUN: tad-opt %s --tad-matmul-to-runtime | FileCheck %s

// CHECK-LABEL: func.func @gemm
// CHECK: %[[A:.*]] = memref.cast %{{.*}} : memref<4x5xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @tad_rt_matmul_f32(%[[A]], %{{.*}}, %{{.*}})
// CHECK: call @tad_rt_batch_matmul_f64
// f16 stays a linalg op.
// CHECK: linalg.matmul ins({{.*}} : memref<2x2xf16>
// CHECK: func.func private @tad_rt_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, {{.*}}) attributes {llvm.emit_c_interface}
func.func @gemm(%a: memref<4x5xf32>, %b: memref<5x6xf32>, %c: memref<4x6xf32>,
                %d: memref<2x3x3xf64>, %h: memref<2x2xf16>) {
  linalg.matmul ins(%a, %b : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  linalg.batch_matmul ins(%d, %d : memref<2x3x3xf64>, memref<2x3x3xf64>) outs(%d : memref<2x3x3xf64>)
  linalg.matmul ins(%h, %h : memref<2x2xf16>, memref<2x2xf16>) outs(%h : memref<2x2xf16>)
  return
}
