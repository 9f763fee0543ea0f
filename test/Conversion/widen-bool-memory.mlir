// RUN: tad-opt %s --tad-widen-bool-memory | FileCheck %s

// i1 loads and stores go through i8 (the byte the buffer holds); other
// types and vectors of i1 keep theirs.

// CHECK-LABEL: llvm.func @mask
// CHECK:         %[[B:.*]] = llvm.load %arg0 {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK:         %[[M:.*]] = llvm.trunc %[[B]] : i8 to i1
// CHECK:         %[[X:.*]] = llvm.load %arg1 : !llvm.ptr -> f32
// CHECK:         %[[S:.*]] = llvm.select %[[M]], %{{.*}}, %[[X]] : i1, f32
// CHECK:         llvm.store %[[S]], %arg1 : f32, !llvm.ptr
// CHECK:         %[[N:.*]] = llvm.xor %[[M]], %{{.*}} : i1
// CHECK:         %[[W:.*]] = llvm.zext %[[N]] : i1 to i8
// CHECK:         llvm.store %[[W]], %arg0 {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK:         llvm.load %arg0 : !llvm.ptr -> vector<4xi1>
llvm.func @mask(%m: !llvm.ptr, %x: !llvm.ptr) {
  %zero = llvm.mlir.constant(0.0 : f32) : f32
  %true = llvm.mlir.constant(true) : i1
  %b = llvm.load %m {alignment = 1 : i64} : !llvm.ptr -> i1
  %v = llvm.load %x : !llvm.ptr -> f32
  %s = llvm.select %b, %zero, %v : i1, f32
  llvm.store %s, %x : f32, !llvm.ptr
  %n = llvm.xor %b, %true : i1
  llvm.store %n, %m {alignment = 1 : i64} : i1, !llvm.ptr
  %vec = llvm.load %m : !llvm.ptr -> vector<4xi1>
  llvm.return
}
