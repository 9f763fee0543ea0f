// RUN: tad-opt %s --split-input-file --verify-diagnostics --tad-buffer-peak="budget=16 functions=over" | FileCheck %s

// A function over the budget is an error, located at the function; the
// budget applies only to the functions named.

// expected-error @below {{the buffers of @over peak at 32 bytes, over the budget of 16 bytes}}
func.func @over() {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @other
// CHECK-SAME: tad.buffer_peak = 32 : i64
func.func @other() {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// The budget that tad-remat chose for a function (tad.budget, the overhead
// policy) is checked as the option's is, whether or not the function is
// named.

// expected-error @below {{the buffers of @chosen peak at 32 bytes, over the budget of 24 bytes}}
func.func @chosen() attributes {tad.budget = 24 : i64} {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @within
// CHECK-SAME: tad.budget = 32 : i64
func.func @within() attributes {tad.budget = 32 : i64} {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}
