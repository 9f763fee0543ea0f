// RUN: tad-opt %s --tad-outline-loop-nests="shape-variants=3" | FileCheck %s
// RUN: tad-opt %s --tad-outline-loop-nests | FileCheck %s --check-prefix=APART
// RUN: tad-opt %s --tad-outline-loop-nests="shape-variants=0" | FileCheck %s --check-prefix=APART
// RUN: tad-opt %s --tad-outline-loop-nests="shape-variants=3" --convert-scf-to-cf --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts --tad-annotate-llvm-functions | FileCheck %s --check-prefix=LLVM

// Three nests that compute the same on 4, 8 and 16 elements (one of them
// reading a view at an offset) share one function where three variants
// suffice: the trip count that differs becomes an argument after the
// nest's own, the sizes and offset that differ are dynamic in its types
// (a cast at each call), and the step and lower bound that agree stay
// constants. The nest whose constant 1/n differs too keeps one function
// per size, as do all of them under the default of 8 variants.

// CHECK:       func.func private @f_loop0(%{{.*}}: memref<?xf32, strided<[1], offset: ?>>, %{{.*}}: memref<?xf32>, %[[N:.*]]: index) attributes {tad.noalias_pointers = array<i64: 6>, tad.outlined}
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         scf.for %{{.*}} = %[[C0]] to %[[N]] step %[[C1]]
// CHECK:           math.exp
// CHECK:       func.func private @f_loop1(
// CHECK-NOT:   func.func private @f_loop2(
// CHECK:       func.func private @f_loop3(
// CHECK:       func.func private @f_loop5(
// CHECK-LABEL: func.func @f(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[XA:.*]] = memref.cast %{{.*}} : memref<4xf32, strided<[1], offset: 2>> to memref<?xf32, strided<[1], offset: ?>>
// CHECK:         %[[AA:.*]] = memref.cast %[[A]] : memref<4xf32> to memref<?xf32>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         call @f_loop0(%[[XA]], %[[AA]], %[[C4]])
// CHECK:         call @f_loop1(
// CHECK:         %[[C8:.*]] = arith.constant 8 : index
// CHECK:         call @f_loop0(%{{.*}}, %{{.*}}, %[[C8]])
// CHECK:         call @f_loop3(
// CHECK:         %[[C16:.*]] = arith.constant 16 : index
// CHECK:         call @f_loop0(%{{.*}}, %{{.*}}, %[[C16]])
// CHECK:         call @f_loop5(

// APART-COUNT-6: func.func private @f_loop
// APART-NOT:     memref<?xf32

// The shared nest's size is read from the descriptor (its constant sizes
// are gone), and the noalias mark stays on the allocation's pointer.
// LLVM: llvm.func internal @f_loop0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) attributes {no_inline}

func.func @f(%x: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %x4 = memref.subview %x[2] [4] [1] : memref<32xf32> to memref<4xf32, strided<[1], offset: 2>>
  %a = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x4[%i] : memref<4xf32, strided<[1], offset: 2>>
    %e = math.exp %v : f32
    memref.store %e, %a[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %a[%i] : memref<4xf32>
    %q = arith.constant 0.25 : f32
    %m = arith.mulf %v, %q : f32
    memref.store %m, %a[%i] : memref<4xf32>
  }
  %x8 = memref.subview %x[0] [8] [1] : memref<32xf32> to memref<8xf32, strided<[1]>>
  %b = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x8[%i] : memref<8xf32, strided<[1]>>
    %e = math.exp %v : f32
    memref.store %e, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %b[%i] : memref<8xf32>
    %q = arith.constant 0.125 : f32
    %m = arith.mulf %v, %q : f32
    memref.store %m, %b[%i] : memref<8xf32>
  }
  %x16 = memref.subview %x[16] [16] [1] : memref<32xf32> to memref<16xf32, strided<[1], offset: 16>>
  %c = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x16[%i] : memref<16xf32, strided<[1], offset: 16>>
    %e = math.exp %v : f32
    memref.store %e, %c[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %c[%i] : memref<16xf32>
    %q = arith.constant 0.0625 : f32
    %m = arith.mulf %v, %q : f32
    memref.store %m, %c[%i] : memref<16xf32>
  }
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<8xf32>
  memref.dealloc %c : memref<16xf32>
  return
}
