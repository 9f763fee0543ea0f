// RUN: tad-opt %s --tad-gpu-noalias-arguments | FileCheck %s

// The kernels are LLVM functions already; the launches still pass the
// host's memrefs, each as 3 + 2 * rank arguments (two pointers, offset,
// sizes, strides). A memref that views an allocation of its own gets
// `noalias` on its aligned pointer, the second of its arguments; one that
// views an allocation, or an input of an entry point (a public function
// that the module does not call: the runtime copies its inputs into
// allocations of its own), through views that keep its aligned pointer
// (all but `memref.view`, which moves it by its byte shift) gets `align
// 16`.

// @own: an index, an allocation's view, the entry point's input. Only the
// allocation's aligned pointer (argument 2) is noalias; the input, which
// the caller might pass twice, is not. Both are aligned.
// CHECK-LABEL: llvm.func @own(
// CHECK-SAME: %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.*}}: i64
// @shared: two subviews of one allocation: neither is noalias, both are
// aligned (a subview's offset is the descriptor's, not the pointer's).
// CHECK-LABEL: llvm.func @shared(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.*}}: i64
// CHECK-NOT: llvm.noalias
// @chosen: an allocation beside a buffer that a branch chose (it might
// be the allocation): neither is noalias; the allocation is aligned.
// CHECK-LABEL: llvm.func @chosen(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64
// CHECK-NOT: llvm.noalias
// @twice: an allocation at one launch, the function's input at the other:
// not noalias, aligned.
// CHECK-LABEL: llvm.func @twice(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.*}}: i64
// CHECK-NOT: llvm.noalias
// @fresh: two allocations, both noalias (arguments 1 and 6).
// CHECK-LABEL: llvm.func @fresh(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// @other_layout: its arguments are not the descriptors of the launch's
// operands, and it is left alone.
// CHECK-LABEL: llvm.func @other_layout(
// CHECK-NOT: llvm.{{noalias|align}}
// @shifted: views of one byte buffer at byte 32 (aligned) and at byte 4
// (not).
// CHECK-LABEL: llvm.func @shifted(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64
// @called: the argument of a function that the module calls, whose
// callers may pass any view: neither.
// CHECK-LABEL: llvm.func @called(
// CHECK-NOT: llvm.{{noalias|align}}
// CHECK-LABEL: func.func @host
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @own(%i: i64, %a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64,
                   %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64, %b3: i64, %b4: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @shared(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64,
                      %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64, %b3: i64, %b4: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @chosen(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64,
                      %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64, %b3: i64, %b4: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @twice(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @fresh(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64,
                     %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64, %b3: i64, %b4: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @other_layout(%a: !llvm.ptr, %b: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @shifted(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64,
                       %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64, %b3: i64, %b4: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @called(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  func.func @host(%input: memref<4xf32>, %flag: i1) {
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<4xf32>
    %b = memref.alloc() : memref<4xf32>
    %lower = memref.subview %a[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
    %cast = memref.cast %lower : memref<2xf32, strided<[1]>> to memref<2xf32, strided<[1], offset: ?>>
    %upper = memref.subview %a[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
    %upper_cast = memref.cast %upper : memref<2xf32, strided<[1], offset: 2>> to memref<2xf32, strided<[1], offset: ?>>
    %picked = scf.if %flag -> memref<4xf32> {
      scf.yield %a : memref<4xf32>
    } else {
      scf.yield %input : memref<4xf32>
    }
    gpu.launch_func @kernels::@own blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%c1 : index, %a : memref<4xf32>, %input : memref<4xf32>)
    gpu.launch_func @kernels::@shared blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%cast : memref<2xf32, strided<[1], offset: ?>>, %upper_cast : memref<2xf32, strided<[1], offset: ?>>)
    gpu.launch_func @kernels::@chosen blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%b : memref<4xf32>, %picked : memref<4xf32>)
    gpu.launch_func @kernels::@twice blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%b : memref<4xf32>)
    gpu.launch_func @kernels::@twice blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%input : memref<4xf32>)
    gpu.launch_func @kernels::@fresh blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>, %b : memref<4xf32>)
    gpu.launch_func @kernels::@other_layout blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>, %b : memref<4xf32>)
    %bytes = memref.alloc() : memref<64xi8>
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %at32 = memref.view %bytes[%c32][] : memref<64xi8> to memref<4xf32>
    %at4 = memref.view %bytes[%c4][] : memref<64xi8> to memref<4xf32>
    gpu.launch_func @kernels::@shifted blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%at32 : memref<4xf32>, %at4 : memref<4xf32>)
    memref.dealloc %bytes : memref<64xi8>
    %v = memref.subview %a[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
    %vc = memref.cast %v : memref<2xf32, strided<[1], offset: 1>> to memref<?xf32, strided<[1], offset: ?>>
    call @helper(%vc) : (memref<?xf32, strided<[1], offset: ?>>) -> ()
    memref.dealloc %a : memref<4xf32>
    memref.dealloc %b : memref<4xf32>
    return
  }
  func.func @helper(%x: memref<?xf32, strided<[1], offset: ?>>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@called blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<?xf32, strided<[1], offset: ?>>)
    return
  }
}
