// tad.all_reduce becomes mpi.allreduce on buffers (docs/distributed.md):
// the operand's buffer is read in place at any offset (a view that is not
// contiguous in the identity layout, which bufferization copies into), the
// result is a fresh buffer that bufferization then owns, both seen as one
// dimension (MPIToLLVM counts a buffer's elements by its first), and the
// runtime starts MPI first. A mean divides by the runtime's process count
// in place.
// RUN: tad-opt %s --convert-tad-to-linalg | FileCheck %s
// RUN: not tad-opt %s --convert-tad-to-linalg="collectives=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCOLL

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "{{OpenMPI|MPICH}}">}
// CHECK: func.func private @tad_rt_process_count() -> i32
// CHECK: func.func private @tad_rt_mpi_init()
// CHECK-LABEL: func.func @sum
// CHECK: %[[RECV:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: %[[SEND:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
// CHECK: call @tad_rt_mpi_init() : () -> ()
// CHECK: %[[COMM:.*]] = mpi.comm_world : !mpi.comm
// CHECK: %[[S1:.*]] = memref.collapse_shape %[[SEND]] {{\[\[}}0, 1]] : memref<4x8xf32, strided<[8, 1], offset: ?>> into memref<32xf32, strided<[1], offset: ?>>
// CHECK: %[[R1:.*]] = memref.collapse_shape %[[RECV]] {{\[\[}}0, 1]] : memref<4x8xf32> into memref<32xf32>
// CHECK: mpi.allreduce(%[[S1]], %[[R1]], MPI_SUM, %[[COMM]]) : memref<32xf32, strided<[1], offset: ?>>, memref<32xf32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[RECV]] restrict writable : memref<4x8xf32> to tensor<4x8xf32>
// CHECK: return %[[T]]
func.func @sum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tad.all_reduce sum, %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A block of columns is no run of its source's elements: bufferization
// copies it into the identity layout.
// CHECK-LABEL: func.func @columns
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<2x4xf32> to memref<2x4xf32>
// CHECK: mpi.allreduce({{.*}}) : memref<8xf32>, memref<8xf32>
func.func @columns(%x: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %0 = tad.slice %x start [1, 2] limit [3, 6] step [1, 1] : tensor<4x8xf32> -> tensor<2x4xf32>
  %1 = tad.all_reduce sum, %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @mean_scalar
// CHECK: memref.expand_shape %{{.*}} [] output_shape [1] : memref<f64, strided<[], offset: ?>> into memref<1xf64, strided<[1], offset: ?>>
// CHECK: memref.expand_shape %{{.*}} [] output_shape [1] : memref<f64> into memref<1xf64>
// CHECK: mpi.allreduce({{.*}}, MPI_SUM, %{{.*}}) : memref<1xf64, strided<[1], offset: ?>>, memref<1xf64>
// CHECK: %[[N:.*]] = call @tad_rt_process_count() : () -> i32
// CHECK: %[[NF:.*]] = arith.sitofp %[[N]] : i32 to f64
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[NF]] : f64
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[INV]] : f64
func.func @mean_scalar(%x: tensor<f64>) -> tensor<f64> {
  %0 = tad.all_reduce mean, %x : tensor<f64>
  return %0 : tensor<f64>
}

// NOCOLL: all-reduce-to-mpi.mlir:{{[0-9]+}}:8: error: all_reduce is supported on the CPU target only (through MPI); this target has no collectives yet
