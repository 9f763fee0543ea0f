// RUN: tad-opt %s --pass-pipeline='builtin.module(func.func(tad-separate-arguments))' | FileCheck %s

// A function of 64 or more arguments gets an entry block that only
// branches to its body, so that the conversion to the LLVM dialect
// replaces the uses of its converted arguments without renumbering the
// block once per argument.

// CHECK-LABEL: func.func @many(
// CHECK-NEXT:    cf.br ^[[BODY:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    memref.copy %arg0, %arg63
// CHECK-NEXT:    return
func.func @many(%a0: memref<4xf32>, %a1: memref<4xf32>, %a2: memref<4xf32>, %a3: memref<4xf32>, %a4: memref<4xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<4xf32>, %a8: memref<4xf32>, %a9: memref<4xf32>, %a10: memref<4xf32>, %a11: memref<4xf32>, %a12: memref<4xf32>, %a13: memref<4xf32>, %a14: memref<4xf32>, %a15: memref<4xf32>, %a16: memref<4xf32>, %a17: memref<4xf32>, %a18: memref<4xf32>, %a19: memref<4xf32>, %a20: memref<4xf32>, %a21: memref<4xf32>, %a22: memref<4xf32>, %a23: memref<4xf32>, %a24: memref<4xf32>, %a25: memref<4xf32>, %a26: memref<4xf32>, %a27: memref<4xf32>, %a28: memref<4xf32>, %a29: memref<4xf32>, %a30: memref<4xf32>, %a31: memref<4xf32>, %a32: memref<4xf32>, %a33: memref<4xf32>, %a34: memref<4xf32>, %a35: memref<4xf32>, %a36: memref<4xf32>, %a37: memref<4xf32>, %a38: memref<4xf32>, %a39: memref<4xf32>, %a40: memref<4xf32>, %a41: memref<4xf32>, %a42: memref<4xf32>, %a43: memref<4xf32>, %a44: memref<4xf32>, %a45: memref<4xf32>, %a46: memref<4xf32>, %a47: memref<4xf32>, %a48: memref<4xf32>, %a49: memref<4xf32>, %a50: memref<4xf32>, %a51: memref<4xf32>, %a52: memref<4xf32>, %a53: memref<4xf32>, %a54: memref<4xf32>, %a55: memref<4xf32>, %a56: memref<4xf32>, %a57: memref<4xf32>, %a58: memref<4xf32>, %a59: memref<4xf32>, %a60: memref<4xf32>, %a61: memref<4xf32>, %a62: memref<4xf32>, %a63: memref<4xf32>) {
  memref.copy %a0, %a63 : memref<4xf32> to memref<4xf32>
  return
}

// CHECK-LABEL: func.func @few(
// CHECK-NEXT:    memref.copy
// CHECK-NEXT:    return
func.func @few(%a: memref<4xf32>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}

// CHECK-LABEL: func.func private @declared(
func.func private @declared(%a0: memref<4xf32>, %a1: memref<4xf32>, %a2: memref<4xf32>, %a3: memref<4xf32>, %a4: memref<4xf32>, %a5: memref<4xf32>, %a6: memref<4xf32>, %a7: memref<4xf32>, %a8: memref<4xf32>, %a9: memref<4xf32>, %a10: memref<4xf32>, %a11: memref<4xf32>, %a12: memref<4xf32>, %a13: memref<4xf32>, %a14: memref<4xf32>, %a15: memref<4xf32>, %a16: memref<4xf32>, %a17: memref<4xf32>, %a18: memref<4xf32>, %a19: memref<4xf32>, %a20: memref<4xf32>, %a21: memref<4xf32>, %a22: memref<4xf32>, %a23: memref<4xf32>, %a24: memref<4xf32>, %a25: memref<4xf32>, %a26: memref<4xf32>, %a27: memref<4xf32>, %a28: memref<4xf32>, %a29: memref<4xf32>, %a30: memref<4xf32>, %a31: memref<4xf32>, %a32: memref<4xf32>, %a33: memref<4xf32>, %a34: memref<4xf32>, %a35: memref<4xf32>, %a36: memref<4xf32>, %a37: memref<4xf32>, %a38: memref<4xf32>, %a39: memref<4xf32>, %a40: memref<4xf32>, %a41: memref<4xf32>, %a42: memref<4xf32>, %a43: memref<4xf32>, %a44: memref<4xf32>, %a45: memref<4xf32>, %a46: memref<4xf32>, %a47: memref<4xf32>, %a48: memref<4xf32>, %a49: memref<4xf32>, %a50: memref<4xf32>, %a51: memref<4xf32>, %a52: memref<4xf32>, %a53: memref<4xf32>, %a54: memref<4xf32>, %a55: memref<4xf32>, %a56: memref<4xf32>, %a57: memref<4xf32>, %a58: memref<4xf32>, %a59: memref<4xf32>, %a60: memref<4xf32>, %a61: memref<4xf32>, %a62: memref<4xf32>, %a63: memref<4xf32>)
