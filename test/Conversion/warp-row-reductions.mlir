// RUN: tad-opt %s --split-input-file --tad-warp-row-reductions | FileCheck %s

// A row maximum over 100 rows of 200: a warp per row, 8 rows to a block of
// 256 threads (13 blocks; the last block's warps past row 99 compute row 99
// again and store nothing). Lane l takes the trips l, l + 32, ... (7
// steps, the last guarded: 200 is not a multiple of 32), from the neutral
// element; 5 butterfly shuffles; the first lane combines the result into
// the fill's value (the fill's loop is gone) and stores it.
// CHECK-LABEL: func.func @row_max
// CHECK-NOT:     scf.parallel
// CHECK:         gpu.launch blocks(%[[B:[^,]*]], {{.*}}) in (%{{.*}} = %c13{{.*}}, {{.*}}) threads(%[[T:[^,]*]], {{.*}}) in (%{{.*}} = %c256{{.*}}, {{.*}})
// CHECK:           %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK-NEXT:      %[[WARP:.*]] = arith.divui %[[T]], %c32
// CHECK:           %[[BASE:.*]] = arith.muli %[[B]], %c8
// CHECK-NEXT:      %[[ROW:.*]] = arith.addi %[[BASE]], %[[WARP]]
// CHECK:           %[[R:.*]] = arith.minui %[[ROW]], %c99
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK-NEXT:      %[[REAL:.*]] = arith.cmpi ule, %[[ROW]], %c99
// CHECK-NEXT:      %[[STORES:.*]] = arith.andi %[[FIRST]], %[[REAL]]
// CHECK:           %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK:           %[[OWN:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c7 step %{{.*}} iter_args(%[[A:.*]] = %[[NEG]]) -> (f32)
// CHECK-NEXT:        %[[K32:.*]] = arith.muli %[[K]], %c32
// CHECK-NEXT:        %[[J:.*]] = arith.addi %[[K32]], %[[LANE]]
// CHECK:             %[[IN:.*]] = arith.cmpi ult, %[[J]], %c200
// CHECK-NEXT:        scf.if %[[IN]] -> (f32) {
// CHECK-NEXT:          %[[X:.*]] = memref.load %arg0[%[[R]], %[[J]]]
// CHECK-NEXT:          arith.maximumf %[[X]], %[[A]]
// CHECK:           gpu.shuffle xor %[[OWN]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4:   gpu.shuffle xor
// CHECK-NEXT:      %[[ROOT:.*]] = arith.maximumf
// CHECK-NEXT:      scf.if %[[STORES]] {
// CHECK-NEXT:        %[[M:.*]] = arith.maximumf %[[ROOT]], %cst
// CHECK-NEXT:        memref.store %[[M]], %{{.*}}[%[[R]]] : memref<100xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.terminator
// CHECK-NOT:     scf.parallel
func.func @row_max(%x: memref<100x200xf32>) -> memref<100xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %c200 = arith.constant 200 : index
  %cst = arith.constant 0xFF800000 : f32
  %acc = memref.alloc() : memref<100xf32>
  scf.parallel (%i) = (%c0) to (%c100) step (%c1) {
    memref.store %cst, %acc[%i] : memref<100xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c100) step (%c1) {
    scf.for %j = %c0 to %c200 step %c1 {
      %v = memref.load %x[%i, %j] : memref<100x200xf32>
      %old = memref.load %acc[%i] : memref<100xf32>
      %new = arith.maximumf %v, %old : f32
      memref.store %new, %acc[%i] : memref<100xf32>
    }
    scf.reduce
  }
  return %acc : memref<100xf32>
}

// -----

// A log-sum-exp's tail: the loops over the same rows after the sum that
// touch each row's own elements (the logarithm into a new buffer, and a
// copy of it) run in the first lane after the row's sum, a barrier
// between each and the next (RowChains.cpp); the loop after
// them reads a neighbour's element and stays (as would one that writes a
// buffer that may be the rows': an argument). 16 rows: two full blocks,
// no guard of the rows; 256 trips: no guard of the trips. The sums are
// the chain's own buffer (only its stages touch them, and their free
// follows): shared memory, a row per warp at the warp's row less the
// block's first, and no allocation. The block's peak in the plan's order
// is recorded first (three buffers of 16 f32), for the later steps'
// peak rule (HostPeak.h).
// CHECK-LABEL: func.func @tail
// CHECK-SAME:    attributes {tad.host_peaks = array<i64: 192>}
// CHECK:         memref.alloc() : memref<16xf32>
// CHECK-NEXT:    memref.alloc() : memref<16xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch blocks(%[[B:[^,]*]], {{.*}}) in (%{{.*}} = %c2{{.*}}, {{.*}}) threads({{.*}}) in (%{{.*}} = %c256{{.*}}, {{.*}}) workgroup(%[[ACC:.*]] : memref<8x1xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[R:.*]] = arith.minui
// CHECK:           %[[BASE:.*]] = arith.muli %[[B]], %c8
// CHECK-NEXT:      %[[SLOT:.*]] = arith.subi %[[R]], %[[BASE]]
// CHECK:           scf.for {{.*}} to %c8{{.*}} iter_args
// CHECK-NOT:         scf.if
// CHECK:             scf.yield
// CHECK:           scf.if %[[FIRST:.*]] {
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %[[ACC]][%[[SLOT]], %[[Z]]]
// CHECK-NEXT:        %[[NEW:.*]] = arith.addf %{{.*}}, %[[OLD]] : f32
// CHECK:             memref.store %[[NEW]], %[[ACC]][%[[SLOT]], %{{.*}}]
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK-NEXT:        arith.constant 0 : index
// CHECK-NEXT:        %[[S:.*]] = memref.load %[[ACC]][%[[SLOT]], %{{.*}}]
// CHECK-NEXT:        %[[L:.*]] = math.log %[[S]]
// CHECK-NEXT:        memref.store %[[L]], %[[LOG:.*]][%[[R]]]
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK-NEXT:        %[[L2:.*]] = memref.load %[[LOG]][%[[R]]]
// CHECK-NEXT:        memref.store %[[L2]], %{{.*}}[%[[R]]]
// CHECK-NEXT:      }
// CHECK:         scf.parallel
// CHECK:           memref.load %[[LOG]][%{{.*}}]
func.func @tail(%x: memref<16x256xf32>, %out: memref<16xf32>) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %acc = memref.alloc() : memref<16xf32>
  %log = memref.alloc() : memref<16xf32>
  %copy = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x256xf32>
      %old = memref.load %acc[%i] : memref<16xf32>
      %e = math.exp %v : f32
      %new = arith.addf %e, %old : f32
      memref.store %new, %acc[%i] : memref<16xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = memref.load %acc[%i] : memref<16xf32>
    %l = math.log %s : f32
    memref.store %l, %log[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %l = memref.load %log[%i] : memref<16xf32>
    memref.store %l, %copy[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %back = arith.subi %c15, %i : index
    %l = memref.load %log[%back] : memref<16xf32>
    memref.store %l, %out[%i] : memref<16xf32>
    scf.reduce
  }
  memref.dealloc %log : memref<16xf32>
  memref.dealloc %acc : memref<16xf32>
  return %copy : memref<16xf32>
}

// -----

// A tail past an allocation is taken, the allocation moved before the
// launch, and so is the loop past the maximum's free and another
// allocation: the maxima are the chain's own (shared memory), so nothing
// is live for longer than the plan has it.
// CHECK-LABEL: func.func @past_allocation
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:    %[[TWICE:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NOT:     scf.parallel
// CHECK:         gpu.launch {{.*}} workgroup(%[[ACC:.*]] : memref<8x1xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.if
// CHECK:             math.log
// CHECK-NEXT:        memref.store %{{.*}}, %[[OUT]]
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK:             arith.addf
// CHECK-NEXT:        memref.store %{{.*}}, %[[TWICE]]
// CHECK:           gpu.terminator
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     memref.dealloc
// CHECK:         return %[[OUT]], %[[TWICE]]
func.func @past_allocation(%x: memref<16x256xf32>) -> (memref<16xf32>, memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %acc = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x256xf32>
      %old = memref.load %acc[%i] : memref<16xf32>
      %new = arith.maximumf %v, %old : f32
      memref.store %new, %acc[%i] : memref<16xf32>
    }
    scf.reduce
  }
  %out = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = memref.load %acc[%i] : memref<16xf32>
    %l = math.log %s : f32
    memref.store %l, %out[%i] : memref<16xf32>
    scf.reduce
  }
  memref.dealloc %acc : memref<16xf32>
  %twice = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %l = memref.load %out[%i] : memref<16xf32>
    %d = arith.addf %l, %l : f32
    memref.store %d, %twice[%i] : memref<16xf32>
    scf.reduce
  }
  return %out, %twice : memref<16xf32>, memref<16xf32>
}

// -----

// A loop after the sum that reads a neighbour's element of a buffer that
// no earlier loop writes is taken; the next, which writes that buffer,
// is not: in one launch a row's first lane could write the element before
// its neighbour's read it.
// CHECK-LABEL: func.func @reader_then_writer
// CHECK:         gpu.launch
// CHECK:           scf.if
// CHECK:             memref.store %{{.*}}, %[[ACC:.*]][%[[R:.*]]] : memref<16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        %[[B:.*]] = arith.subi %c15{{.*}}, %[[R]]
// CHECK-NEXT:        %[[N:.*]] = memref.load %[[P:.*]][%[[B]]]
// CHECK-NEXT:        memref.store %[[N]], %{{.*}}[%[[R]]]
// CHECK-NEXT:      }
// CHECK:         scf.parallel
// CHECK-NEXT:      memref.load %[[ACC]]
// CHECK-NEXT:      memref.store %{{.*}}, %[[P]]
func.func @reader_then_writer(%x: memref<16x256xf32>) -> (memref<16xf32>, memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %acc = memref.alloc() : memref<16xf32>
  %p = memref.alloc() : memref<16xf32>
  %q = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x256xf32>
      %old = memref.load %acc[%i] : memref<16xf32>
      %new = arith.maximumf %v, %old : f32
      memref.store %new, %acc[%i] : memref<16xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %back = arith.subi %c15, %i : index
    %n = memref.load %p[%back] : memref<16xf32>
    memref.store %n, %q[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %m = memref.load %acc[%i] : memref<16xf32>
    memref.store %m, %p[%i] : memref<16xf32>
    scf.reduce
  }
  memref.dealloc %acc : memref<16xf32>
  return %p, %q : memref<16xf32>, memref<16xf32>
}

// -----

// A softmax's exponentials after its maxima: the loop over the rows'
// elements, past the allocation of its output (which moves before the
// launch), runs in the warp kernel after a barrier, lane l taking the
// elements l, l + 32, ... of its row (the rows are not a multiple of 8:
// warps past the last row skip it). So do the maxima of the exponentials
// after another barrier, and the loop over the elements after them, which
// writes the exponentials that those maxima read: a barrier between, and
// each row's its warp's. Both maxima are the chain's own: shared memory.
// CHECK-LABEL: func.func @exponentials
// CHECK-NOT:     memref.alloc() : memref<12xf32>
// CHECK:         %[[E:.*]] = memref.alloc() : memref<12x64xf32>
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     scf.parallel
// CHECK:         gpu.launch {{.*}} workgroup(%[[MAX:.*]] : memref<8x1xf32, #gpu.address_space<workgroup>>, %[[MAX2:.*]] : memref<8x1xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[LANE:.*]] = arith.remui
// CHECK:           %[[R:.*]] = arith.minui
// CHECK:           %[[SLOT:.*]] = arith.subi %[[R]]
// CHECK:           %[[VALID:.*]] = arith.cmpi ule, %{{.*}}, %c11
// CHECK:           gpu.shuffle
// CHECK:           scf.if
// CHECK:             memref.store %{{.*}}, %[[MAX]][%[[SLOT]], %{{.*}}]
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.if %[[VALID]] {
// CHECK:             scf.for %[[K:.*]] = %{{.*}} to %c2{{.*}} step
// CHECK:               %[[K32:.*]] = arith.muli %[[K]], %c32
// CHECK-NEXT:          %[[C:.*]] = arith.addi %[[K32]], %[[LANE]]
// CHECK-NEXT:          %[[X:.*]] = memref.load %arg0[%[[R]], %[[C]]]
// CHECK:               %[[M:.*]] = memref.load %[[MAX]][%[[SLOT]], %{{.*}}]
// CHECK-NEXT:          arith.subf %[[X]], %[[M]]
// CHECK-NEXT:          math.exp
// CHECK-NEXT:          memref.store %{{.*}}, %[[E]][%[[R]], %[[C]]]
// CHECK:           gpu.barrier
// CHECK:           scf.for
// CHECK:             memref.load %[[E]][%[[R]], %{{.*}}]
// CHECK:           gpu.shuffle
// CHECK:           memref.store %{{.*}}, %[[MAX2]][%[[SLOT]], %{{.*}}]
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.if %[[VALID]] {
// CHECK:             memref.load %[[MAX2]][%[[SLOT]], %{{.*}}]
// CHECK-NEXT:        memref.store %{{.*}}, %[[E]][%[[R]], %{{.*}}]
// CHECK:           gpu.terminator
// CHECK-NEXT:    }
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     memref.dealloc
func.func @exponentials(%x: memref<12x64xf32>, %y: memref<12x64xf32>) -> memref<12x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<12xf32>
  scf.parallel (%i) = (%c0) to (%c12) step (%c1) {
    memref.store %cst, %max[%i] : memref<12xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c12) step (%c1) {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %j] : memref<12x64xf32>
      %old = memref.load %max[%i] : memref<12xf32>
      %new = arith.maximumf %v, %old : f32
      memref.store %new, %max[%i] : memref<12xf32>
    }
    scf.reduce
  }
  %e = memref.alloc() : memref<12x64xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c12, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<12x64xf32>
    %m = memref.load %max[%i] : memref<12xf32>
    %d = arith.subf %v, %m : f32
    %x2 = math.exp %d : f32
    memref.store %x2, %e[%i, %j] : memref<12x64xf32>
    scf.reduce
  }
  %max2 = memref.alloc() : memref<12xf32>
  scf.parallel (%i) = (%c0) to (%c12) step (%c1) {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %e[%i, %j] : memref<12x64xf32>
      %old = memref.load %max2[%i] : memref<12xf32>
      %new = arith.maximumf %v, %old : f32
      memref.store %new, %max2[%i] : memref<12xf32>
    }
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c12, %c64) step (%c1, %c1) {
    %m = memref.load %max2[%i] : memref<12xf32>
    memref.store %m, %e[%i, %j] : memref<12x64xf32>
    scf.reduce
  }
  memref.dealloc %max : memref<12xf32>
  memref.dealloc %max2 : memref<12xf32>
  return %e : memref<12x64xf32>
}

// -----

// Left as they are: a column's sum (its trips read along the outer
// dimension: neighbouring threads read neighbours already), a lane of a
// split sum (the same), a row of 32 (a lane would take one element), f16
// (shuffled in f32 only after the float emulation), a row read through
// a transposed view (its last stride is not 1), and a dot product of two
// rows (a matmul's loop, which keeps the CPU's order of additions).
// CHECK-LABEL: func.func @left
// CHECK-NOT:     gpu.launch
// CHECK:         return
func.func @left(%x: memref<512x256xf32>, %lanes: memref<64x32x8xf32>, %h: memref<8x128xf16>,
                %cols: memref<256xf32>, %lane: memref<64x8xf32>, %short: memref<512xf32>,
                %hs: memref<8xf16>, %ts: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%c) = (%c0) to (%c256) step (%c1) {
    scf.for %r = %c0 to %c512 step %c1 {
      %v = memref.load %x[%r, %c] : memref<512x256xf32>
      %old = memref.load %cols[%c] : memref<256xf32>
      %new = arith.addf %v, %old : f32
      memref.store %new, %cols[%c] : memref<256xf32>
    }
    scf.reduce
  }
  scf.parallel (%r, %l) = (%c0, %c0) to (%c64, %c8) step (%c1, %c1) {
    scf.for %k = %c0 to %c32 step %c1 {
      %v = memref.load %lanes[%r, %k, %l] : memref<64x32x8xf32>
      %old = memref.load %lane[%r, %l] : memref<64x8xf32>
      %new = arith.addf %v, %old : f32
      memref.store %new, %lane[%r, %l] : memref<64x8xf32>
    }
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c512) step (%c1) {
    scf.for %j = %c0 to %c32 step %c1 {
      %v = memref.load %x[%r, %j] : memref<512x256xf32>
      %old = memref.load %short[%r] : memref<512xf32>
      %new = arith.maximumf %v, %old : f32
      memref.store %new, %short[%r] : memref<512xf32>
    }
    scf.reduce
  }
  scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c128 step %c1 {
      %v = memref.load %h[%r, %j] : memref<8x128xf16>
      %old = memref.load %hs[%r] : memref<8xf16>
      %new = arith.maximumf %v, %old : f16
      memref.store %new, %hs[%r] : memref<8xf16>
    }
    scf.reduce
  }
  %dots = memref.alloc() : memref<512xf32>
  scf.parallel (%r) = (%c0) to (%c512) step (%c1) {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %x[%r, %j] : memref<512x256xf32>
      %w = memref.load %x[%c0, %j] : memref<512x256xf32>
      %p = arith.mulf %v, %w : f32
      %old = memref.load %dots[%r] : memref<512xf32>
      %new = arith.addf %p, %old : f32
      memref.store %new, %dots[%r] : memref<512xf32>
    }
    scf.reduce
  }
  memref.dealloc %dots : memref<512xf32>
  %t = memref.transpose %x (d0, d1) -> (d1, d0) : memref<512x256xf32> to memref<256x512xf32, strided<[1, 256]>>
  scf.parallel (%r) = (%c0) to (%c256) step (%c1) {
    scf.for %j = %c0 to %c512 step %c1 {
      %v = memref.load %t[%r, %j] : memref<256x512xf32, strided<[1, 256]>>
      %old = memref.load %ts[%r] : memref<256xf32>
      %new = arith.maximumf %v, %old : f32
      memref.store %new, %ts[%r] : memref<256xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A host loop around the rows (a transformer's loop over its layers: it
// allocates) launches a warp per row in each iteration; a loop of device
// operations only around a reduction is a nest that tad-loops-to-gpu runs
// as one kernel, and stays.
// CHECK-LABEL: func.func @in_host_loop
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc
// CHECK:           gpu.launch
// CHECK:             gpu.shuffle
// CHECK:           call @use
// CHECK-NEXT:      memref.dealloc
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NOT:     gpu.launch
func.func private @use(memref<16xf32>)
func.func @in_host_loop(%x: memref<4x16x128xf32>) -> memref<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  scf.for %l = %c0 to %c4 step %c1 {
    %acc = memref.alloc() : memref<16xf32>
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      scf.for %j = %c0 to %c128 step %c1 {
        %v = memref.load %x[%l, %i, %j] : memref<4x16x128xf32>
        %old = memref.load %acc[%i] : memref<16xf32>
        %new = arith.maximumf %v, %old : f32
        memref.store %new, %acc[%i] : memref<16xf32>
      }
      scf.reduce
    }
    func.call @use(%acc) : (memref<16xf32>) -> ()
    memref.dealloc %acc : memref<16xf32>
  }
  %flat = memref.collapse_shape %x [[0, 1], [2]] : memref<4x16x128xf32> into memref<64x128xf32>
  %c64 = arith.constant 64 : index
  %total = memref.alloc() : memref<f32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      %v = memref.load %flat[%i, %j] : memref<64x128xf32>
      %old = memref.load %total[] : memref<f32>
      %new = arith.addf %v, %old : f32
      memref.store %new, %total[] : memref<f32>
    }
  }
  return %total : memref<f32>
}

// -----

// A loop before the reduction that stores into the accumulator over
// outputs of a size known only at run time is not its fill: the warps
// combine into the accumulator's elements as loaded.
// CHECK-LABEL: func.func @not_a_fill
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%arg1)
// CHECK:         gpu.launch
// CHECK:           scf.if
// CHECK-NEXT:        memref.load %{{.*}}[%{{.*}}] : memref<16xf32>
func.func @not_a_fill(%x: memref<16x128xf32>, %n: index) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %acc[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c128 step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x128xf32>
      %old = memref.load %acc[%i] : memref<16xf32>
      %new = arith.addf %v, %old : f32
      memref.store %new, %acc[%i] : memref<16xf32>
    }
    scf.reduce
  }
  return %acc : memref<16xf32>
}

// -----

// A loop between the stages that is not a stage (a column sum between a
// layer norm's row sums) runs after the launch, before the frees: it
// touches nothing that a later stage writes and writes nothing that one
// touches. Its allocation moves before the launch (the sums are shared
// memory, the chain's own).
// CHECK-LABEL: func.func @deferred
// CHECK:         %[[COLS:.*]] = memref.alloc() : memref<256xf32>
// CHECK:         gpu.launch
// CHECK:           math.log
// CHECK:           gpu.terminator
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.parallel (%[[J:.*]]) = (%{{.*}}) to (%c256{{.*}})
// CHECK:           memref.store %{{.*}}, %[[COLS]][%[[J]]]
// CHECK:         return
func.func @deferred(%x: memref<16x256xf32>) -> (memref<16xf32>, memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %acc = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x256xf32>
      %old = memref.load %acc[%i] : memref<16xf32>
      %new = arith.addf %v, %old : f32
      memref.store %new, %acc[%i] : memref<16xf32>
    }
    scf.reduce
  }
  %cols = memref.alloc() : memref<256xf32>
  scf.parallel (%j) = (%c0) to (%c256) step (%c1) {
    %v = memref.load %x[%c0, %j] : memref<16x256xf32>
    memref.store %v, %cols[%j] : memref<256xf32>
    scf.reduce
  }
  %out = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = memref.load %acc[%i] : memref<16xf32>
    %l = math.log %s : f32
    memref.store %l, %out[%i] : memref<16xf32>
    scf.reduce
  }
  memref.dealloc %acc : memref<16xf32>
  return %out, %cols : memref<16xf32>, memref<256xf32>
}

// -----

// Not deferred: the loop between writes what the next stage reads, which
// then stays a kernel of its own after it.
// CHECK-LABEL: func.func @not_deferred
// CHECK:         gpu.launch
// CHECK:           gpu.terminator
// CHECK-NEXT:    }
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256)
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c16)
// CHECK:           math.log
func.func @not_deferred(%x: memref<16x256xf32>) -> (memref<16xf32>, memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %acc = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x256xf32>
      %old = memref.load %acc[%i] : memref<16xf32>
      %new = arith.addf %v, %old : f32
      memref.store %new, %acc[%i] : memref<16xf32>
    }
    scf.reduce
  }
  %cols = memref.alloc() : memref<256xf32>
  scf.parallel (%j) = (%c0) to (%c256) step (%c1) {
    %v = memref.load %x[%c0, %j] : memref<16x256xf32>
    memref.store %v, %cols[%j] : memref<256xf32>
    scf.reduce
  }
  %out = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %s = memref.load %acc[%i] : memref<16xf32>
    %w = memref.load %cols[%i] : memref<256xf32>
    %p = arith.mulf %s, %w : f32
    %l = math.log %p : f32
    memref.store %l, %out[%i] : memref<16xf32>
    scf.reduce
  }
  memref.dealloc %acc : memref<16xf32>
  return %out, %cols : memref<16xf32>, memref<256xf32>
}
