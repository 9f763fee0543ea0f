// RUN: tad-opt %s --tad-outline-loop-nests='parallel-work=64' | FileCheck %s
// RUN: tad-opt %s --tad-outline-loop-nests='parallel-work=0' | FileCheck %s --check-prefix=OFF
// RUN: tad-opt %s --tad-outline-loop-nests='parallel-work=64' --convert-scf-to-cf --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts --canonicalize --tad-parallelize-calls | FileCheck %s --check-prefix=LLVM

// A `tad.parallel` nest of 8 x 8 = 64 iterations takes its outer range as
// its last two arguments; one of 4 x 8 = 32 (under parallel-work) and a
// nest without the mark keep their range. With parallel-work=0 none does.

// CHECK:       func.func private @f_loop0(%{{.*}}: memref<8x8xf32>, %{{.*}}: memref<8x8xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index) attributes {{{.*}}tad.outlined, tad.parallel_range}
// CHECK:         scf.for %{{.*}} = %[[LO]] to %[[HI]]
// CHECK:       func.func private @f_loop1(%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<4x8xf32>) attributes
// CHECK-NOT:   tad.parallel_range
// CHECK:       func.func private @f_loop2(%{{.*}}: memref<8x8xf32>, %{{.*}}: memref<8x8xf32>) attributes
// CHECK-NOT:   tad.parallel_range
// CHECK-LABEL: func.func @f(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         call @f_loop0(%arg0, %{{.*}}, %[[C0]], %[[C8]])
// CHECK:         call @f_loop1(
// CHECK:         call @f_loop2(

// OFF-NOT: tad.parallel_range

// The call becomes tad_rt_parallel_for of a task that loads the call's
// other arguments that the nest reads (the aligned pointers of its two
// memrefs: after canonicalization the body takes its sizes and strides as
// constants) from a struct on the caller's stack, and passes poison for
// the rest.
// LLVM:       llvm.func internal @f_loop0_task(%[[CTX:.*]]: !llvm.ptr, %[[LO:.*]]: i64, %[[HI:.*]]: i64)
// LLVM-COUNT-14: llvm.mlir.poison
// LLVM:         %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// LLVM:         %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// LLVM:         llvm.call @f_loop0({{.*}}, %[[LO]], %[[HI]])
// LLVM-LABEL: llvm.func @f(
// LLVM:         %[[S:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr)>
// LLVM-COUNT-2:  llvm.store
// LLVM:         %[[T:.*]] = llvm.mlir.addressof @f_loop0_task
// LLVM:         llvm.call @tad_rt_parallel_for(%[[T]], %[[S]], %{{.*}}, %{{.*}})
// LLVM-NOT:     llvm.call @f_loop0(
// LLVM:         llvm.call @f_loop1(
// LLVM:       llvm.func @tad_rt_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64)
// LLVM-NOT:   tad.parallel_range

func.func @f(%x: memref<8x8xf32>, %x4: memref<4x8xf32>) -> (memref<8x8xf32>, memref<4x8xf32>, memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %y = memref.alloc() : memref<8x8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x[%i, %j] : memref<8x8xf32>
      %e = math.exp %a : f32
      memref.store %e, %y[%i, %j] : memref<8x8xf32>
    }
  } {tad.parallel}
  %z = memref.alloc() : memref<4x8xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x4[%i, %j] : memref<4x8xf32>
      %e = math.exp %a : f32
      memref.store %e, %z[%i, %j] : memref<4x8xf32>
    }
  } {tad.parallel}
  %w = memref.alloc() : memref<8x8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x[%i, %j] : memref<8x8xf32>
      %e = math.log %a : f32
      memref.store %e, %w[%i, %j] : memref<8x8xf32>
    }
  }
  return %y, %z, %w : memref<8x8xf32>, memref<4x8xf32>, memref<8x8xf32>
}
