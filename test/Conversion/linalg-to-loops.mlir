// RUN: tad-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tad-linalg-to-loops))' | FileCheck %s

// tad-linalg-to-loops lowers as convert-linalg-to-loops does and marks the
// outer loop `tad.parallel` where its iterations are independent.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// An elementwise op, and a row reduction (outer dimension parallel): both
// marked, and only the outer loop. A column sum (outer dimension a
// reduction) is not.
// CHECK-LABEL: func.func @independent
// CHECK:       scf.for
// CHECK-NEXT:    scf.for
// CHECK:         } 
// CHECK-NEXT:  } {tad.parallel}
// CHECK:       scf.for
// CHECK-NEXT:    scf.for
// CHECK:         } 
// CHECK-NEXT:  } {tad.parallel}
// CHECK:       scf.for
// CHECK-NEXT:    scf.for
// CHECK:         } 
// CHECK-NEXT:  } 
// CHECK-NOT:   tad.parallel
// CHECK:       return
func.func @independent(%x: memref<4x8xf32>) -> (memref<4x8xf32>, memref<4xf32>, memref<8xf32>) {
  %y = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  %r = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  %c = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%c : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return %y, %r, %c : memref<4x8xf32>, memref<4xf32>, memref<8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// In place, read where written: marked. In place but read elsewhere (a
// transpose of a square buffer into itself), reading a view of the output's
// allocation, or reading an argument into an argument (which may be the
// same buffer) by another map: not marked.
// CHECK-LABEL: func.func @aliasing
// CHECK:       } {tad.parallel}
// CHECK-NOT:   tad.parallel
// CHECK:       return
func.func @aliasing(%x: memref<8x8xf32>, %o: memref<8x8xf32>) {
  %y = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  %v = memref.subview %y[0, 0] [8, 8] [1, 1] : memref<8x8xf32> to memref<8x8xf32, strided<[8, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<8x8xf32, strided<[8, 1]>>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%o : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// A transpose from an argument into a fresh allocation: marked (they cannot
// be the same buffer).
// CHECK-LABEL: func.func @fresh
// CHECK:       } {tad.parallel}
func.func @fresh(%x: memref<8x8xf32>) -> memref<8x8xf32> {
  %y = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return %y : memref<8x8xf32>
}
