// RUN: tad-opt %s --split-input-file --tad-merge-gpu-modules | FileCheck %s

// Every kernel moves into one GPU module, the launches follow; a constant
// global that two modules copied is kept once, and a clashing name that is
// not the same global is renamed.
// CHECK:     gpu.module @tad_kernels {
// CHECK-DAG:   memref.global "private" constant @table : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-DAG:   memref.global "private" constant @other : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-DAG:   memref.global "private" constant @other_0 : memref<2xf32> = dense<3.000000e+00>
// CHECK-DAG:   gpu.func @a(
// CHECK-DAG:   gpu.func @b(
// CHECK-DAG:   memref.get_global @other_0
// CHECK:     }
// CHECK-NOT: gpu.module
// CHECK:     gpu.launch_func @tad_kernels::@a
// CHECK:     gpu.launch_func @tad_kernels::@b
module attributes {gpu.container_module} {
  gpu.module @a {
    memref.global "private" constant @table : memref<2xf32> = dense<[1.0, 2.0]>
    memref.global "private" constant @other : memref<2xf32> = dense<[1.0, 2.0]>
    gpu.func @a(%out: memref<2xf32>) kernel {
      %t = memref.get_global @table : memref<2xf32>
      %o = memref.get_global @other : memref<2xf32>
      gpu.return
    }
  }
  gpu.module @b {
    memref.global "private" constant @table : memref<2xf32> = dense<[1.0, 2.0]>
    memref.global "private" constant @other : memref<2xf32> = dense<3.0>
    gpu.func @b(%out: memref<2xf32>) kernel {
      %t = memref.get_global @table : memref<2xf32>
      %o = memref.get_global @other : memref<2xf32>
      gpu.return
    }
  }
  func.func @f(%out: memref<2xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<2xf32>)
    gpu.launch_func @b::@b blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<2xf32>)
    return
  }
}

// -----

// A kernel named after a function whose name PTX cannot spell (a rule's
// `model.rule`) is renamed, each such character becoming '_', with a
// suffix where that name is taken; a single module is renamed too.
// CHECK:     gpu.module @one {
// CHECK-DAG:   gpu.func @model_rule_kernel_0(
// CHECK-DAG:   gpu.func @model_rule_kernel(
// CHECK:     gpu.launch_func @one::@model_rule_kernel_0
// CHECK:     gpu.launch_func @one::@model_rule_kernel
module attributes {gpu.container_module} {
  gpu.module @one {
    gpu.func @model_rule_kernel(%out: memref<2xf32>) kernel {
      gpu.return
    }
    gpu.func @"model.rule_kernel"(%out: memref<2xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%out: memref<2xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @one::@"model.rule_kernel" blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<2xf32>)
    gpu.launch_func @one::@model_rule_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<2xf32>)
    return
  }
}
