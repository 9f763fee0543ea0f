// RUN: tad-opt %s --tad-order-constant-globals | FileCheck %s

// One-Shot Bufferize's constants, named and placed in the order it happened
// to bufferize @second before @first, are renamed and moved to the top in
// the order of their first use: @first's two f32[6] constants, then
// @second's scalar and its own f32[6] one. A constant used by no function
// goes last; globals that are not One-Shot's constants (not constant, or
// named otherwise) keep their names.
// CHECK: memref.global "private" constant @__constant_6xf32 : memref<6xf32> = dense<0.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_6xf32_1 : memref<6xf32> = dense<3.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_xf32 : memref<f32> = dense<1.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_6xf32_2 : memref<6xf32> = dense<2.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<4.000000e+00>
// CHECK-NEXT: memref.global "private" @__constant_state : memref<6xf32>
// CHECK-NEXT: memref.global "private" constant @table : memref<6xf32>
memref.global "private" constant @__constant_xf32 : memref<f32> = dense<1.0>
memref.global "private" constant @__constant_6xf32 : memref<6xf32> = dense<2.0>
memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<4.0>
memref.global "private" @__constant_state : memref<6xf32> = dense<5.0>
memref.global "private" constant @__constant_6xf32_0 : memref<6xf32> = dense<0.0>
memref.global "private" constant @__constant_6xf32_1 : memref<6xf32> = dense<3.0>
memref.global "private" constant @table : memref<6xf32> = dense<6.0>

// CHECK-LABEL: func.func @first
// CHECK: memref.get_global @__constant_6xf32 :
// CHECK: memref.get_global @__constant_6xf32_1 :
// CHECK: memref.get_global @table :
func.func @first() -> (memref<6xf32>, memref<6xf32>, memref<6xf32>) {
  %z = memref.get_global @__constant_6xf32_0 : memref<6xf32>
  %t = memref.get_global @__constant_6xf32_1 : memref<6xf32>
  %u = memref.get_global @table : memref<6xf32>
  return %z, %t, %u : memref<6xf32>, memref<6xf32>, memref<6xf32>
}

// CHECK-LABEL: func.func @second
// CHECK: memref.get_global @__constant_xf32 :
// CHECK: memref.get_global @__constant_6xf32_2 :
// CHECK: memref.get_global @__constant_6xf32 :
// CHECK: memref.get_global @__constant_state :
func.func @second() -> (memref<f32>, memref<6xf32>, memref<6xf32>, memref<6xf32>) {
  %o = memref.get_global @__constant_xf32 : memref<f32>
  %t = memref.get_global @__constant_6xf32 : memref<6xf32>
  %z = memref.get_global @__constant_6xf32_0 : memref<6xf32>
  %s = memref.get_global @__constant_state : memref<6xf32>
  return %o, %t, %z, %s : memref<f32>, memref<6xf32>, memref<6xf32>, memref<6xf32>
}
