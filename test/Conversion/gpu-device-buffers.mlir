// RUN: tad-opt %s --split-input-file --tad-gpu-device-buffers | FileCheck %s

// A buffer that only kernels use, directly or through views (a transpose
// too, which is not a ViewLikeOpInterface), and that is
// freed, is the device's: tad_rt_mark_device_buffer() is called just before
// its allocation. One that the host loads, one that is returned, one that
// a call of a function of the module takes, and one that a branch yields
// stay managed memory.
// CHECK-LABEL: func.func @mixed
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    call @tad_rt_mark_device_buffer() : () -> ()
// CHECK-NEXT:    %[[KERNELS:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    call @tad_rt_mark_device_buffer() : () -> ()
// CHECK-NEXT:    %[[VIEWED:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    memref.subview %[[VIEWED]]
// CHECK-NEXT:    memref.cast
// CHECK-NEXT:    memref.transpose %[[VIEWED]]
// CHECK-NEXT:    %[[LOADED:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[RETURNED:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[CALLED:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    gpu.launch_func
// CHECK-NOT:     tad_rt_mark_device_buffer
// CHECK:         return
// CHECK:       func.func private @tad_rt_mark_device_buffer()
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @fill(%m: memref<4xf32>) kernel { gpu.return }
    gpu.func @fill8(%m: memref<8xf32, strided<[1]>>) kernel { gpu.return }
  }
  func.func private @helper(%m: memref<4xf32>)
  func.func @mixed(%flag: i1) -> (memref<4xf32>, f32) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %kernels = memref.alloc() : memref<4xf32>
    %viewed = memref.alloc() : memref<8xf32>
    %half = memref.subview %viewed[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
    %half0 = memref.cast %half : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32, strided<[1], offset: ?>>
    %transposed = memref.transpose %viewed (i) -> (i) : memref<8xf32> to memref<8xf32, strided<[1]>>
    %loaded = memref.alloc() : memref<4xf32>
    %returned = memref.alloc() : memref<4xf32>
    %called = memref.alloc() : memref<4xf32>
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%kernels : memref<4xf32>)
    scf.if %flag {
      gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%loaded : memref<4xf32>)
    }
    %reinterpreted = memref.reinterpret_cast %half0 to offset: [0], sizes: [4], strides: [1] : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%reinterpreted : memref<4xf32>)
    gpu.launch_func @k::@fill8 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%transposed : memref<8xf32, strided<[1]>>)
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%returned : memref<4xf32>)
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%called : memref<4xf32>)
    %x = memref.load %loaded[%c0] : memref<4xf32>
    call @helper(%called) : (memref<4xf32>) -> ()
    memref.dealloc %kernels : memref<4xf32>
    memref.dealloc %viewed : memref<8xf32>
    memref.dealloc %loaded : memref<4xf32>
    memref.dealloc %called : memref<4xf32>
    return %returned, %x : memref<4xf32>, f32
  }
}

// -----

// The operands of the runtime's cuBLAS GEMMs are the device's too; a
// buffer that a branch yields is not (its uses after the branch are not
// followed).
// CHECK-LABEL: func.func @gemm
// CHECK:         call @tad_rt_mark_device_buffer() : () -> ()
// CHECK-NEXT:    memref.alloc() : memref<4x4xf32>
// CHECK-NEXT:    memref.alloc() : memref<4x4xf32>
// CHECK-NEXT:    scf.if
// CHECK-NOT:     tad_rt_mark_device_buffer
// CHECK:         return
module {
  func.func private @tad_rt_cuda_matmul_f32(memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>)
  func.func @gemm(%a: memref<4x4xf32>, %flag: i1) {
    %c = memref.alloc() : memref<4x4xf32>
    %d = memref.alloc() : memref<4x4xf32>
    %e = scf.if %flag -> memref<4x4xf32> {
      scf.yield %d : memref<4x4xf32>
    } else {
      scf.yield %a : memref<4x4xf32>
    }
    call @tad_rt_cuda_matmul_f32(%a, %a, %c) : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
    call @tad_rt_cuda_matmul_f32(%a, %a, %e) : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
    memref.dealloc %c : memref<4x4xf32>
    memref.dealloc %d : memref<4x4xf32>
    return
  }
}

// -----

// A function that launches nothing keeps every buffer on the host.
// CHECK-LABEL: func.func @host
// CHECK-NOT:     tad_rt_mark_device_buffer
module {
  func.func @host() {
    %a = memref.alloc() : memref<4xf32>
    memref.dealloc %a : memref<4xf32>
    return
  }
}
