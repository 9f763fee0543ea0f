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

// A zero fill of the output just before the matmul (what bufferization makes
// of linalg's C += A B from a zero-filled tensor.empty) goes: the `assign`
// call computes C = A B (BLAS's beta = 0). Views and constants may come
// between them.
// CHECK-LABEL: func.func @assign
// CHECK-NOT: linalg.fill
// CHECK: call @tad_rt_matmul_assign_f32
// CHECK-NOT: linalg.fill
// CHECK: call @tad_rt_batch_matmul_assign_f64
// CHECK: return
func.func @assign(%a: memref<4x5xf32>, %b: memref<5x6xf32>, %d: memref<2x3x3xf64>) -> (memref<4x6xf32>, memref<2x3x3xf64>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x6xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x6xf32>)
  %v = memref.expand_shape %c [[0], [1, 2]] output_shape [4, 2, 3] : memref<4x6xf32> into memref<4x2x3xf32>
  linalg.matmul ins(%a, %b : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  %zero64 = arith.constant -0.0 : f64
  %e = memref.alloc() : memref<2x3x3xf64>
  linalg.fill ins(%zero64 : f64) outs(%e : memref<2x3x3xf64>)
  linalg.batch_matmul ins(%d, %d : memref<2x3x3xf64>, memref<2x3x3xf64>) outs(%e : memref<2x3x3xf64>)
  return %c, %e : memref<4x6xf32>, memref<2x3x3xf64>
}

// A generic contraction whose maps permute its operands (what
// tad-fold-transposes-into-matmuls makes of attention's heads) passes each
// operand as a view in the order [batch,] rows, columns. Here A is stored
// (m, b, k), B (n, b, k) and C (m, b, n).
// CHECK-LABEL: func.func @permuted
// CHECK: %[[A:.*]] = memref.transpose %{{.*}} (d0, d1, d2) -> (d1, d0, d2) : memref<8x2x4xf32> to memref<2x8x4xf32, strided<[4, 8, 1]>>
// CHECK: %[[B:.*]] = memref.transpose %{{.*}} (d0, d1, d2) -> (d1, d2, d0) : memref<6x2x4xf32> to memref<2x4x6xf32, strided<[4, 1, 8]>>
// CHECK: %[[C:.*]] = memref.transpose %{{.*}} (d0, d1, d2) -> (d1, d0, d2) : memref<8x2x6xf32> to memref<2x8x6xf32, strided<[6, 12, 1]>>
// CHECK: call @tad_rt_batch_matmul_f32
// CHECK-NOT: linalg.generic
func.func @permuted(%a: memref<8x2x4xf32>, %b: memref<6x2x4xf32>, %c: memref<8x2x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (m, b, k)>,
                                   affine_map<(b, m, n, k) -> (n, b, k)>,
                                   affine_map<(b, m, n, k) -> (m, b, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x2x4xf32>, memref<6x2x4xf32>) outs(%c : memref<8x2x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// The fill stays, and the matmul accumulates, when something that may read
// or write memory comes between them, when the fill is not of zeros, and
// when it fills another buffer (a view of C, or all of a buffer that C is a
// view of).
// CHECK-LABEL: func.func @accumulate
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: call @tad_rt_matmul_f32
// CHECK: linalg.fill
// CHECK: call @tad_rt_matmul_f32
// CHECK: linalg.fill
// CHECK: call @tad_rt_matmul_f32
// CHECK: linalg.fill
// CHECK: call @tad_rt_matmul_f32
// CHECK-NOT: assign
// CHECK: return
func.func @accumulate(%a: memref<4x5xf32>, %b: memref<5x6xf32>, %o: memref<4x6xf32>, %big: memref<8x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c = memref.alloc() : memref<4x6xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x6xf32>)
  memref.copy %c, %o : memref<4x6xf32> to memref<4x6xf32>
  linalg.matmul ins(%a, %b : memref<4x5xf32>, memref<5x6xf32>) outs(%c : memref<4x6xf32>)
  linalg.fill ins(%one : f32) outs(%o : memref<4x6xf32>)
  linalg.matmul ins(%a, %b : memref<4x5xf32>, memref<5x6xf32>) outs(%o : memref<4x6xf32>)
  %sub = memref.subview %big[0, 0] [4, 6] [1, 1] : memref<8x6xf32> to memref<4x6xf32, strided<[6, 1]>>
  linalg.fill ins(%zero : f32) outs(%sub : memref<4x6xf32, strided<[6, 1]>>)
  linalg.matmul ins(%a, %b : memref<4x5xf32>, memref<5x6xf32>) outs(%o : memref<4x6xf32>)
  %top = memref.subview %big[0, 0] [4, 6] [1, 1] : memref<8x6xf32> to memref<4x6xf32, strided<[6, 1]>>
  linalg.fill ins(%zero : f32) outs(%big : memref<8x6xf32>)
  linalg.matmul ins(%a, %b : memref<4x5xf32>, memref<5x6xf32>) outs(%top : memref<4x6xf32, strided<[6, 1]>>)
  return
}

// The runtime functions are declared once, after the functions.
// CHECK: func.func private @tad_rt_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, {{.*}}) attributes {llvm.emit_c_interface}

// -----

// kernel-fallback (--cuda-matmul=auto): the call where the runtime found
// its library, else the matmul and its zero fill as they were.
// RUN: tad-opt %s --split-input-file --tad-matmul-to-runtime="prefix=tad_rt_cuda_ kernel-fallback=1" | FileCheck %s --check-prefix=FALLBACK
// FALLBACK-LABEL: func.func @gemm_or_kernel
// FALLBACK:         %[[FOUND:.*]] = call @tad_rt_cuda_blas_available() : () -> i32
// FALLBACK:         %[[YES:.*]] = arith.cmpi ne, %[[FOUND]], %{{.*}} : i32
// FALLBACK:         scf.if %[[YES]] {
// FALLBACK:           call @tad_rt_cuda_matmul_assign_f32(
// FALLBACK:         } else {
// FALLBACK-NEXT:      linalg.fill
// FALLBACK-NEXT:      linalg.matmul
// FALLBACK:         func.func private @tad_rt_cuda_blas_available() -> i32
func.func @gemm_or_kernel(%a: memref<4x5xf32>, %b: memref<5x3xf32>, %c: memref<4x3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x3xf32>)
  linalg.matmul ins(%a, %b : memref<4x5xf32>, memref<5x3xf32>) outs(%c : memref<4x3xf32>)
  return
}
