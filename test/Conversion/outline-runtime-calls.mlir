// RUN: tad-opt %s --tad-outline-loop-nests | FileCheck %s
// RUN: tad-opt %s --llvm-request-c-wrappers --tad-outline-loop-nests --expand-strided-metadata --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts --tad-annotate-llvm-functions | FileCheck %s --check-prefix=LLVM

// A call of a runtime function with memref arguments becomes a function
// per kind of call (callee and types), like a loop nest: the two GEMMs of
// the same shapes share one. The casts to the callee's dynamic types move
// into it, so that its arguments keep their static types, and there it
// passes each static argument on as a view of its base buffer with
// constant sizes and strides: the descriptor it builds for the runtime is
// made of constants, and its own sizes and strides arguments go unused.

// CHECK:       func.func private @f_call0(%[[X:.*]]: memref<4x8xf32>, %{{.*}}: memref<8x2xf32>, %{{.*}}: memref<4x2xf32>) attributes {tad.noalias_pointers = array<i64: 15>, tad.outlined}
// CHECK:         %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[X]]
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [4, 8], strides: [8, 1]
// CHECK:         %[[C:.*]] = memref.cast %[[V]] : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         call @gemm(%[[C]],
// CHECK-NOT:   func.func private @f_call1
// CHECK-LABEL: func.func @f(
// CHECK-NOT:     memref.cast
// CHECK:         call @f_call0(%arg0, %arg1, %{{.*}})
// CHECK:         call @f_call0(%arg0, %arg1, %{{.*}})
// A call without memref arguments stays.
// CHECK:         call @count()

// The program's function is internal and inlined into its C interface
// (nothing else calls it), whose result pointer is noalias; the outlined
// call is internal and never inlined.
// LLVM:     llvm.func internal @f_call0({{.*}}) attributes {no_inline}
// LLVM:     llvm.func internal @f({{.*}}) {{.*}}attributes {always_inline
// LLVM:     llvm.func @_mlir_ciface_f(%{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)

func.func private @gemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
func.func private @count()
func.func @f(%x: memref<4x8xf32>, %w: memref<8x2xf32>) -> (memref<4x2xf32>, memref<4x2xf32>) {
  %a = memref.alloc() : memref<4x2xf32>
  %b = memref.alloc() : memref<4x2xf32>
  %cx = memref.cast %x : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %cw = memref.cast %w : memref<8x2xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %ca = memref.cast %a : memref<4x2xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %cb = memref.cast %b : memref<4x2xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @gemm(%cx, %cw, %ca) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  call @gemm(%cx, %cw, %cb) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
  call @count() : () -> ()
  return %a, %b : memref<4x2xf32>, memref<4x2xf32>
}
