// RUN: tad-opt %s --tad-outline-loop-nests | FileCheck %s
// RUN: tad-opt %s --tad-outline-loop-nests --convert-scf-to-cf --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts --tad-annotate-llvm-functions | FileCheck %s --check-prefix=LLVM

// Two equal nests (the same ops, shapes and constants) share one function;
// the nest with a call stays; constants are cloned in; a buffer allocated
// here, which no other argument views, is marked for noalias (its aligned
// pointer is LLVM argument 6: a rank-1 memref is 5 arguments, the input
// first), the input is not, nor is an allocation that two arguments view.

// CHECK:       func.func private @f_loop0(%{{.*}}: memref<8xf32>, %{{.*}}: memref<8xf32>) attributes {tad.noalias_pointers = array<i64: 6>, tad.outlined}
// CHECK:         %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C8]]
// CHECK:       func.func private @f_loop1({{.*}}) attributes {tad.outlined}
// CHECK-NOT:   func.func private @f_loop2
// CHECK-LABEL: func.func @f(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         call @f_loop0(%arg0, %[[A]])
// CHECK:         %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         call @f_loop0(%arg0, %[[B]])
// CHECK:         scf.for
// CHECK:           func.call @g
// CHECK:         %[[S:.*]] = memref.subview %[[B]][0] [4] [1]
// CHECK:         %[[T:.*]] = memref.subview %[[B]][4] [4] [1]
// CHECK:         call @f_loop1(%[[S]], %[[T]])

// LLVM: llvm.func internal @f_loop0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias}, {{.*}}) attributes {no_inline}
// LLVM-NOT: tad.outlined

func.func private @g()
func.func @f(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf32>
    %e = math.exp %v : f32
    memref.store %e, %a[%i] : memref<8xf32>
  }
  %b = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf32>
    %e = math.exp %v : f32
    memref.store %e, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    func.call @g() : () -> ()
  }
  %s = memref.subview %b[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %t = memref.subview %b[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %s[%i] : memref<4xf32, strided<[1]>>
    memref.store %v, %t[%i] : memref<4xf32, strided<[1], offset: 4>>
  }
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// A buffer that a select chose may be the allocation: no noalias for it.
// CHECK:       func.func private @h_loop{{[0-9]+}}(%{{.*}}: memref<8xf32>, %{{.*}}: memref<8xf32>) attributes {tad.outlined}
// CHECK-LABEL: func.func @h(
func.func @h(%x: memref<8xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8xf32>
  %s = arith.select %c, %a, %x : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %s[%i] : memref<8xf32>
    memref.store %v, %a[%i] : memref<8xf32>
  }
  memref.dealloc %a : memref<8xf32>
  return
}
