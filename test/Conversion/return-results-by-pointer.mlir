// RUN: tad-opt %s --tad-return-results-by-pointer | FileCheck %s

// An internal function returning more than 16 results writes them through
// a noalias pointer, its first argument, and returns nothing; a chain of
// insertvalues is never built. The C interface, which only stored the
// struct through its own noalias result pointer, passes that pointer; any
// other caller passes a stack slot and loads each member it reads.

// CHECK:       llvm.func internal @wide(%[[OUT:.*]]: !llvm.ptr {llvm.noalias}, %[[X:.*]]: i64, %[[Y:.*]]: i64)
// CHECK-NOT:     llvm.insertvalue
// CHECK:         %[[P0:.*]] = llvm.getelementptr inbounds %[[OUT]][0, 0]
// CHECK:         llvm.store %[[X]], %[[P0]] : i64, !llvm.ptr
// The member inserted twice is stored once, with the last value.
// CHECK:         %[[P1:.*]] = llvm.getelementptr inbounds %[[OUT]][0, 1]
// CHECK-NEXT:    llvm.store %[[Y]], %[[P1]] : i64, !llvm.ptr
// CHECK-NOT:     %[[OUT]][0, 1]
// CHECK:         llvm.return{{$}}
llvm.func internal @wide(%x: i64, %y: i64) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)> {
  %0 = llvm.mlir.poison : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %1 = llvm.insertvalue %x, %0[0] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %2 = llvm.insertvalue %x, %1[1] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %3 = llvm.insertvalue %x, %2[2] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %4 = llvm.insertvalue %x, %3[3] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %5 = llvm.insertvalue %x, %4[4] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %6 = llvm.insertvalue %x, %5[5] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %7 = llvm.insertvalue %x, %6[6] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %8 = llvm.insertvalue %x, %7[7] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %9 = llvm.insertvalue %x, %8[8] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %10 = llvm.insertvalue %x, %9[9] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %11 = llvm.insertvalue %x, %10[10] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %12 = llvm.insertvalue %x, %11[11] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %13 = llvm.insertvalue %x, %12[12] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %14 = llvm.insertvalue %x, %13[13] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %15 = llvm.insertvalue %x, %14[14] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %16 = llvm.insertvalue %x, %15[15] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %17 = llvm.insertvalue %x, %16[16] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %18 = llvm.insertvalue %y, %17[1] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  llvm.return %18 : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
}

// CHECK:       llvm.func @_mlir_ciface_wide(%[[R:.*]]: !llvm.ptr {llvm.noalias}, %[[A:.*]]: i64)
// CHECK-NEXT:    llvm.call @wide(%[[R]], %[[A]], %[[A]]) : (!llvm.ptr, i64, i64) -> ()
// CHECK-NEXT:    llvm.return
llvm.func @_mlir_ciface_wide(%r: !llvm.ptr {llvm.noalias}, %a: i64) {
  %0 = llvm.call @wide(%a, %a) : (i64, i64) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  llvm.store %0, %r : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>, !llvm.ptr
  llvm.return
}

// CHECK:       llvm.func @reads_one(%[[A:.*]]: i64) -> i64
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
// CHECK:         llvm.call @wide(%[[SLOT]], %[[A]], %[[A]])
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %[[SLOT]][0, 3]
// CHECK:         %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr -> i64
// CHECK:         llvm.return %[[V]] : i64
llvm.func @reads_one(%a: i64) -> i64 {
  %0 = llvm.call @wide(%a, %a) : (i64, i64) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %1 = llvm.extractvalue %0[3] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  llvm.return %1 : i64
}

// Few results stay in registers.
// CHECK-LABEL: llvm.func internal @narrow(%{{.*}}: i64) -> !llvm.struct<(i64, i64, i64)>
llvm.func internal @narrow(%x: i64) -> !llvm.struct<(i64, i64, i64)> {
  %0 = llvm.mlir.poison : !llvm.struct<(i64, i64, i64)>
  %1 = llvm.insertvalue %x, %0[0] : !llvm.struct<(i64, i64, i64)>
  llvm.return %1 : !llvm.struct<(i64, i64, i64)>
}

// A function whose address is taken, or that is not internal, keeps its
// signature.
// CHECK-LABEL: llvm.func internal @taken(%{{.*}}: i64) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
// CHECK-LABEL: llvm.func @public(%{{.*}}: i64) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
llvm.func internal @taken(%x: i64) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)> {
  %0 = llvm.mlir.poison : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  llvm.return %0 : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
}
llvm.func @public(%x: i64) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)> {
  %0 = llvm.mlir.poison : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  llvm.return %0 : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
}
llvm.func @address() -> !llvm.ptr {
  %0 = llvm.mlir.addressof @taken : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
