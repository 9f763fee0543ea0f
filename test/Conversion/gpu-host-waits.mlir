// RUN: tad-opt %s --split-input-file --tad-gpu-host-waits | FileCheck %s

// Launches become asynchronous on the function's stream, one after the
// other with no wait between them, nor at an allocation or a free; the host
// waits before it loads a scalar that a kernel wrote, and a public
// function waits for its stream before it returns.
// CHECK-LABEL: func.func @straight
// CHECK-NEXT:    %[[S:.*]] = gpu.wait async
// CHECK:         gpu.launch_func async [%[[S]]] @k::@fill
// CHECK-NEXT:    memref.alloc
// CHECK-NEXT:    gpu.launch_func async [%[[S]]] @k::@fill
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:    call @tad_rt_cuda_wait()
// CHECK-NEXT:    memref.load
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    gpu.launch_func async [%[[S]]] @k::@fill
// CHECK-NEXT:    gpu.wait [%[[S]]]
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @fill(%m: memref<4xf32>) kernel { gpu.return }
  }
  func.func @straight(%a: memref<4xf32>, %out: memref<f32>) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    %b = memref.alloc() : memref<4xf32>
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<4xf32>)
    memref.dealloc %b : memref<4xf32>
    %x = memref.load %a[%c0] : memref<4xf32>
    memref.store %x, %out[] : memref<f32>
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}

// -----

// In a loop, a load before the launch waits for the launch of the
// iteration before; a load after the loop waits for the last. A branch
// that may launch leaves a kernel running after it. Nothing runs when the
// function returns: no wait there.
// CHECK-LABEL: func.func @loop
// CHECK:         scf.for
// CHECK-NEXT:      call @tad_rt_cuda_wait()
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      gpu.launch_func async
// CHECK-NEXT:    }
// CHECK-NEXT:    call @tad_rt_cuda_wait()
// CHECK-NEXT:    %[[C:.*]] = memref.load
// CHECK-NEXT:    scf.if %[[C]] {
// CHECK-NEXT:      gpu.launch_func async
// CHECK-NEXT:    }
// CHECK-NEXT:    call @tad_rt_cuda_wait()
// CHECK-NEXT:    memref.load
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @fill(%m: memref<4xf32>) kernel { gpu.return }
  }
  func.func @loop(%a: memref<4xf32>, %flag: memref<i1>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %x = memref.load %a[%i] : memref<4xf32>
      memref.store %x, %a[%c0] : memref<4xf32>
      gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    }
    %c = memref.load %flag[] : memref<i1>
    scf.if %c {
      gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    }
    %y = memref.load %a[%c1] : memref<4xf32>
    return %y : f32
  }
}

// -----

// A private function may begin while its caller's kernels run, and may
// return with its own running: its first load waits, its return does not.
// A call of it leaves kernels running, and is no host access itself. The
// runtime's cuBLAS GEMM is work on the device's stream (no wait before
// it; a wait before the host reads its result), the test of cuBLAS touches
// no memory, and an unknown function is taken to touch memory.
// CHECK-LABEL: func.func private @helper
// CHECK-NEXT:    %[[S:.*]] = gpu.wait async
// CHECK:         call @tad_rt_cuda_wait()
// CHECK-NEXT:    memref.load
// CHECK:         gpu.launch_func async [%[[S]]]
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @caller
// CHECK-NOT:     gpu.wait
// CHECK:         call @helper
// CHECK-NEXT:    call @tad_rt_cuda_blas_available()
// CHECK-NEXT:    call @tad_rt_cuda_matmul_f32
// CHECK-NEXT:    call @tad_rt_cuda_wait()
// CHECK-NEXT:    call @unknown
// CHECK-NEXT:    call @tad_rt_cuda_matmul_f32
// CHECK-NEXT:    call @tad_rt_cuda_wait()
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @fill(%m: memref<4xf32>) kernel { gpu.return }
  }
  func.func private @tad_rt_cuda_blas_available() -> i32
  func.func private @tad_rt_cuda_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>)
  func.func private @unknown(memref<4xf32>)
  func.func private @helper(%a: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.load %a[%c0] : memref<4xf32>
    memref.store %x, %a[%c1] : memref<4xf32>
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  func.func @caller(%a: memref<4xf32>, %m: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
    call @helper(%a) : (memref<4xf32>) -> ()
    %0 = call @tad_rt_cuda_blas_available() : () -> i32
    call @tad_rt_cuda_matmul_f32(%m, %m, %m) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
    call @unknown(%a) : (memref<4xf32>) -> ()
    call @tad_rt_cuda_matmul_f32(%m, %m, %m) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> ()
    return
  }
}

// -----

// The host reads a buffer that no running kernel uses without waiting
// (token ids for a loop of launches, as in the embedding gradient of
// examples/gpt), and waits for the kernels that write the buffers it
// reads. Work from before the loop that the body would wait for in every
// iteration is waited for once, before it. After a free while kernels
// run, a write by the host waits: the allocator may have handed the freed
// memory to the buffer written.
// CHECK-LABEL: func.func @unrelated
// CHECK:         gpu.launch_func async {{.*}} args(%[[IDS:[^ ]*]] :
// CHECK-NEXT:    %[[GRAD:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    gpu.launch_func async {{.*}} args(%[[GRAD]] :
// CHECK-NEXT:    call @tad_rt_cuda_wait()
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      memref.load %[[IDS]]
// CHECK-NEXT:      arith.index_cast
// CHECK-NEXT:      gpu.launch_func async {{.*}} args(%[[GRAD]] :
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.alloc() : memref<f32>
// CHECK-NEXT:    memref.load %[[IDS]]
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:    %[[OTHER:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT:    call @tad_rt_cuda_wait()
// CHECK-NEXT:    memref.store {{.*}}, %[[OTHER]]
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @fill(%m: memref<8xi32>) kernel { gpu.return }
    gpu.func @add(%m: memref<8xf32>, %i: index) kernel { gpu.return }
  }
  func.func @unrelated(%ids: memref<8xi32>) -> memref<8xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = arith.constant 1.0 : f32
    gpu.launch_func @k::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%ids : memref<8xi32>)
    %grad = memref.alloc() : memref<8xf32>
    gpu.launch_func @k::@add blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%grad : memref<8xf32>, %c0 : index)
    scf.for %i = %c0 to %c8 step %c1 {
      %id = memref.load %ids[%i] : memref<8xi32>
      %row = arith.index_cast %id : i32 to index
      gpu.launch_func @k::@add blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%grad : memref<8xf32>, %row : index)
    }
    %scalar = memref.alloc() : memref<f32>
    %first = memref.load %ids[%c0] : memref<8xi32>
    memref.dealloc %scalar : memref<f32>
    %other = memref.alloc() : memref<f32>
    memref.store %x, %other[] : memref<f32>
    return %grad : memref<8xf32>
  }
}
