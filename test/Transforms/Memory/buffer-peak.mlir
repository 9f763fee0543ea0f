// RUN: tad-opt %s --split-input-file --verify-diagnostics --tad-buffer-peak | FileCheck %s

// Frees lower the live bytes; the peak is the most live at once.
// CHECK-LABEL: func.func @straight_line
// CHECK-SAME: tad.buffer_peak = 32 : i64
// CHECK-NOT: tad.buffer_peak_bound
func.func @straight_line() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  %c = memref.alloc() : memref<2x2xf32>
  %v = memref.collapse_shape %c [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  memref.dealloc %v : memref<4xf32>
  return %b : memref<4xf32>
}

// -----

// A loop runs its trip count: one that allocates without freeing grows by
// its buffer each iteration; one that replaces its carried buffer does not.
// CHECK-LABEL: func.func @loops
// CHECK-SAME: tad.buffer_peak = 64 : i64
func.func @loops(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %init = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%p = %init) -> (memref<4xf32>) {
    %n = memref.alloc() : memref<4xf32>
    memref.dealloc %p : memref<4xf32>
    scf.yield %n : memref<4xf32>
  }
  memref.dealloc %r : memref<4xf32>
  // Each iteration keeps 16 bytes more, and holds 16 more while it runs:
  // the third peaks at 64.
  scf.for %i = %c0 to %c3 step %c1 {
    %t = memref.alloc() : memref<4xf32>
    %kept = memref.alloc() : memref<4xf32>
    memref.dealloc %t : memref<4xf32>
  }
  return
}

// -----

// A switch on a constant table indexed by the induction variable (a
// revolve dispatcher) runs the case each action names.
memref.global "private" constant @actions : memref<3xindex> = dense<[0, 2, 0]>
// CHECK-LABEL: func.func @dispatcher
// CHECK-SAME: tad.buffer_peak = 64 : i64
// CHECK-NOT: tad.buffer_peak_bound
func.func @dispatcher() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %table = memref.get_global @actions : memref<3xindex>
  scf.for %i = %c0 to %c3 step %c1 {
    %action = memref.load %table[%i] : memref<3xindex>
    scf.index_switch %action
    case 0 {
      %a = memref.alloc() : memref<16xf32>
      memref.dealloc %a : memref<16xf32>
      scf.yield
    }
    case 1 {
      // Never run: the table has no 1.
      %b = memref.alloc() : memref<1024xf32>
      memref.dealloc %b : memref<1024xf32>
      scf.yield
    }
    default {
      %c = memref.alloc() : memref<8xf32>
      memref.dealloc %c : memref<8xf32>
      scf.yield
    }
  }
  return
}

// -----

// A branch on data counts its larger side, and the peak is then a bound.
// CHECK-LABEL: func.func @branch
// CHECK-SAME: tad.buffer_peak = 64 : i64
// CHECK-SAME: tad.buffer_peak_bound
func.func @branch(%c: i1) {
  scf.if %c {
    %a = memref.alloc() : memref<16xf32>
    memref.dealloc %a : memref<16xf32>
  } else {
    %b = memref.alloc() : memref<4xf32>
    memref.dealloc %b : memref<4xf32>
  }
  return
}

// -----

// A call adds the callee's peak to what is live, and keeps its results.
// CHECK-LABEL: func.func private @callee
// CHECK-SAME: tad.buffer_peak = 48 : i64
func.func private @callee() -> memref<4xf32> {
  %t = memref.alloc() : memref<8xf32>
  %r = memref.alloc() : memref<4xf32>
  memref.dealloc %t : memref<8xf32>
  return %r : memref<4xf32>
}
// The second call runs with the first's 16-byte result live: 16 + 48.
// CHECK-LABEL: func.func @caller
// CHECK-SAME: tad.buffer_peak = 64 : i64
func.func @caller() {
  %a = call @callee() : () -> memref<4xf32>
  %b = call @callee() : () -> memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// expected-error @below {{calls itself, so its buffer peak is unbounded}}
func.func @recursive() {
  call @recursive() : () -> ()
  return
}
