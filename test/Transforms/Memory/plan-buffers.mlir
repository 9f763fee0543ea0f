// RUN: tad-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect --pass-pipeline="builtin.module(func.func(tad-plan-buffers))" | FileCheck %s

// Each buffer is freed right after the last op that uses it or a view of
// it; the returned one is handed to the caller.
// CHECK-LABEL: func.func @straight_line
func.func @straight_line(%x: memref<2x2xf32>) -> memref<4xf32> {
  // CHECK: %[[A:.*]] = memref.alloc() : memref<2x2xf32>
  // CHECK-NEXT: memref.copy %{{.*}}, %[[A]]
  // CHECK-NEXT: %[[V:.*]] = memref.collapse_shape %[[A]]
  // CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.copy %[[V]], %[[B]]
  // CHECK-NEXT: memref.dealloc %[[A]]
  // CHECK-NEXT: %[[C:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.copy %[[B]], %[[C]]
  // CHECK-NEXT: memref.dealloc %[[B]]
  // CHECK-NEXT: return %[[C]]
  %a = memref.alloc() : memref<2x2xf32>
  memref.copy %x, %a : memref<2x2xf32> to memref<2x2xf32>
  %v = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %v, %b : memref<4xf32> to memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  memref.copy %b, %c : memref<4xf32> to memref<4xf32>
  return %c : memref<4xf32>
}

// -----

// Returning an argument, a global or the same buffer twice returns copies:
// the caller owns every result. An unused buffer is freed where it is made.
memref.global "private" constant @g : memref<4xf32> = dense<1.0>
// CHECK-LABEL: func.func @returned_copies
func.func @returned_copies(%x: memref<4xf32>)
    -> (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) {
  // CHECK: %[[G:.*]] = memref.get_global @g
  // CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: %[[U:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.dealloc %[[U]]
  // CHECK-NEXT: %[[X:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.copy %{{.*}}, %[[X]]
  // CHECK-NEXT: %[[GC:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.copy %[[G]], %[[GC]]
  // CHECK-NEXT: %[[AC:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.copy %[[A]], %[[AC]]
  // CHECK-NEXT: return %[[X]], %[[GC]], %[[A]], %[[AC]]
  %g = memref.get_global @g : memref<4xf32>
  %a = memref.alloc() : memref<4xf32>
  %unused = memref.alloc() : memref<4xf32>
  return %x, %g, %a, %a : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>
}

// -----

// A partial view is returned as a copy, and its buffer is freed after it.
// CHECK-LABEL: func.func @returned_subview
func.func @returned_subview() -> memref<2xf32, strided<[1], offset: ?>> {
  // CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: %[[S:.*]] = memref.subview %[[A]]
  // CHECK-NEXT: %[[D:.*]] = memref.cast %[[S]]
  // CHECK-NEXT: %[[C:.*]] = memref.alloc() : memref<2xf32>
  // CHECK-NEXT: memref.copy %[[D]], %[[C]]
  // CHECK-NEXT: memref.dealloc %[[A]]
  // CHECK-NEXT: %[[CAST:.*]] = memref.cast %[[C]]
  // CHECK-NEXT: return %[[CAST]]
  %a = memref.alloc() : memref<4xf32>
  %s = memref.subview %a[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  %d = memref.cast %s : memref<2xf32, strided<[1], offset: 1>> to memref<2xf32, strided<[1], offset: ?>>
  return %d : memref<2xf32, strided<[1], offset: ?>>
}

// -----

// A loop takes a buffer that nothing reads after it and starts from a copy
// of an argument. Its body frees the previous carried value after its last
// use and hands on the new one; the loop's result is freed after its last
// use like any buffer.
// CHECK-LABEL: func.func @loop
func.func @loop(%x: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: %[[XC:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.copy %{{.*}}, %[[XC]]
  // CHECK-NEXT: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[P:.*]] = %[[A]], %[[Q:.*]] = %[[XC]])
  // CHECK-NEXT:   %[[N:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT:   memref.copy %[[P]], %[[N]]
  // CHECK-NEXT:   memref.dealloc %[[P]]
  // CHECK-NEXT:   "test.use"(%[[Q]])
  // CHECK-NEXT:   scf.yield %[[N]], %[[Q]]
  // CHECK-NEXT: }
  // CHECK-NEXT: memref.dealloc %[[R]]#1
  // CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.copy %[[R]]#0, %[[B]]
  // CHECK-NEXT: memref.dealloc %[[R]]#0
  // CHECK-NEXT: return %[[B]]
  %a = memref.alloc() : memref<4xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a, %q = %x)
      -> (memref<4xf32>, memref<4xf32>) {
    %new = memref.alloc() : memref<4xf32>
    memref.copy %p, %new : memref<4xf32> to memref<4xf32>
    "test.use"(%q) : (memref<4xf32>) -> ()
    scf.yield %new, %q : memref<4xf32>, memref<4xf32>
  }
  %b = memref.alloc() : memref<4xf32>
  memref.copy %r#0, %b : memref<4xf32> to memref<4xf32>
  return %b : memref<4xf32>
}

// -----

// A buffer read inside the loop or after it is copied for the loop; so is
// one passed as two initial values (once), and an outer buffer the body
// yields.
// CHECK-LABEL: func.func @loop_copies
func.func @loop_copies(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: %[[AC:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.copy %[[A]], %[[AC]]
  // CHECK-NEXT: %[[AC2:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: memref.copy %[[A]], %[[AC2]]
  // CHECK-NEXT: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[P:.*]] = %[[AC]], %[[Q:.*]] = %[[AC2]])
  // CHECK-NEXT:   memref.dealloc %[[P]]
  // CHECK-NEXT:   "test.use"(%[[A]])
  // CHECK-NEXT:   %[[Y:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT:   memref.copy %[[A]], %[[Y]]
  // CHECK-NEXT:   scf.yield %[[Y]], %[[Q]]
  // CHECK:      memref.dealloc %[[A]]
  // CHECK-NEXT: memref.dealloc %[[R]]#0
  // CHECK-NEXT: memref.dealloc %[[R]]#1
  %a = memref.alloc() : memref<4xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %a, %q = %a)
      -> (memref<4xf32>, memref<4xf32>) {
    "test.use"(%a) : (memref<4xf32>) -> ()
    scf.yield %a, %q : memref<4xf32>, memref<4xf32>
  }
  return
}

// -----

// A branch consumes an outer buffer that one side yields and nothing reads
// after it: that side passes it on, the other frees it after its last use.
// An outer buffer read after the branch is copied instead.
// CHECK-LABEL: func.func @branch
func.func @branch(%c: i1) -> (memref<4xf32>, memref<4xf32>) {
  // CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: %[[R:.*]]:2 = scf.if
  // CHECK-NEXT:   %[[BC:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT:   memref.copy %[[B]], %[[BC]]
  // CHECK-NEXT:   scf.yield %[[A]], %[[BC]]
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   %[[N:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT:   memref.copy %[[A]], %[[N]]
  // CHECK-NEXT:   memref.dealloc %[[A]]
  // CHECK-NEXT:   %[[M:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NEXT:   scf.yield %[[N]], %[[M]]
  // CHECK-NEXT: }
  // CHECK-NEXT: "test.use"(%[[B]])
  // CHECK-NEXT: memref.dealloc %[[B]]
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1 :
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %r:2 = scf.if %c -> (memref<4xf32>, memref<4xf32>) {
    scf.yield %a, %b : memref<4xf32>, memref<4xf32>
  } else {
    %n = memref.alloc() : memref<4xf32>
    memref.copy %a, %n : memref<4xf32> to memref<4xf32>
    %m = memref.alloc() : memref<4xf32>
    scf.yield %n, %m : memref<4xf32>, memref<4xf32>
  }
  "test.use"(%b) : (memref<4xf32>) -> ()
  return %r#0, %r#1 : memref<4xf32>, memref<4xf32>
}

// -----

// A call's results belong to the caller; its operands are only read.
func.func private @callee(memref<4xf32>) -> memref<4xf32>
// CHECK-LABEL: func.func @call
func.func @call(%x: memref<4xf32>) -> memref<4xf32> {
  // CHECK: %[[A:.*]] = call @callee(%{{.*}})
  // CHECK-NEXT: %[[B:.*]] = call @callee(%[[A]])
  // CHECK-NEXT: memref.dealloc %[[A]]
  // CHECK-NEXT: return %[[B]]
  %a = call @callee(%x) : (memref<4xf32>) -> memref<4xf32>
  %b = call @callee(%a) : (memref<4xf32>) -> memref<4xf32>
  return %b : memref<4xf32>
}

// -----

func.func @unknown_owner() -> memref<4xf32> {
  // expected-error @below {{'test.make' op tad-plan-buffers cannot tell who owns this op's result}}
  %a = "test.make"() : () -> memref<4xf32>
  return %a : memref<4xf32>
}

// -----

func.func @already_freed() {
  // expected-error @above {{tad-plan-buffers expects a function without deallocations}}
  %a = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A branch that only yields buffers, which canonicalization folds into
// arith.select, is planned as that branch: the side that yields a buffer of
// this block consumes it, and the other buffer is freed on that side.
// CHECK-LABEL: func.func @select
func.func @select(%c: i1, %x: memref<4xf32>) -> memref<4xf32> {
  // CHECK: %[[A:.*]] = memref.alloc()
  // CHECK: %[[B:.*]] = memref.alloc()
  // CHECK-NOT: arith.select
  // CHECK: %[[R:.*]] = scf.if %{{.*}} -> (memref<4xf32>) {
  // CHECK-NEXT: memref.dealloc %[[B]]
  // CHECK-NEXT: scf.yield %[[A]]
  // CHECK-NEXT: } else {
  // CHECK-NEXT: memref.dealloc %[[A]]
  // CHECK-NEXT: scf.yield %[[B]]
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[R]]
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %x, %b : memref<4xf32> to memref<4xf32>
  %r = arith.select %c, %a, %b : memref<4xf32>
  return %r : memref<4xf32>
}
