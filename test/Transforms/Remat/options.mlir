// tad-opt --tad-remat: budgets, policies and the report file. Without a
// derivative function or without a budget, nothing changes.
// RUN: tad-opt %s --tad-remat | FileCheck %s --check-prefix=NONE
// RUN: tad-opt %s --tad-remat="budget=1KiB report=%t.json" | FileCheck %s --check-prefix=NONE
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: not tad-opt %s --tad-remat="budget=12XB" 2>&1 | FileCheck %s --check-prefix=UNIT
// RUN: not tad-opt %s --tad-remat="budget=1KiB policy=often" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not tad-opt %s --tad-remat="budget=1KiB report=%t/missing/dir/r.json" 2>&1 | FileCheck %s --check-prefix=WRITE

// NONE-LABEL: func.func @square
// NONE-NEXT:    tad.mul
// JSON: "functions": []
// UNIT: for the --budget option: unknown unit 'XB' in '12XB' (use B, KiB, MiB, GiB or TiB)
// POLICY: for the --policy option: Cannot find option named 'often'!
// WRITE: error: cannot write '{{.*}}r.json'

func.func @square(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tad.mul %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
