#!/usr/bin/env bash
# `make demo`: trains the MLP example for 300 SGD steps (its gradients come
# from tad's AD, through a compiled library driven by a small C program),
# trains an eight-layer MLP within a memory budget well below its store-all
# peak (the remat report's summary, then the allocator's measured peak),
# trains the MLP example data-parallel on 2 MPI processes, then
# runs the gradient of every example on the CPU (JIT) with the memory
# the runtime allocator measured.
set -euo pipefail
build=${1:-build}
tadc="$build/bin/tadc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== training examples/mlp.tad: 300 SGD steps through sgd_step (examples/train_mlp.c)"
"$tadc" examples/mlp.tad --emit=lib --entry sgd_step -o "$tmp/libmlp.so"
cc -O2 -I"$tmp" examples/train_mlp.c -L"$tmp" -lmlp -Wl,-rpath,"$tmp" -lm \
  -o "$tmp/train_mlp"
"$tmp/train_mlp" 300
echo

echo "== training examples/deep_mlp.tad within a 1600 KiB budget: 100 SGD steps"
echo "   (tadc --remat-budget=1600KiB; examples/train_deep_mlp.c). The remat report:"
"$tadc" examples/deep_mlp.tad --emit=lib --entry net_value_and_grad \
  --remat-budget=1600KiB -o "$tmp/libdeep_mlp.so" | head -2
cc -O2 -I"$tmp" examples/train_deep_mlp.c -L"$tmp" -ldeep_mlp \
  -Wl,-rpath,"$tmp" -lm -o "$tmp/train_deep_mlp"
"$tmp/train_deep_mlp" 100
echo

echo "== data-parallel training of examples/mlp.tad on 2 processes: 100 SGD steps"
echo "   (tadc --data-parallel; mpirun -np 2 examples/train_mlp_dp.c), each on its"
echo "   half of a 128-row batch, with the gradients averaged across processes"
if command -v mpirun >/dev/null && ! "$tadc" --version | grep -q "mpi: none"; then
  "$tadc" examples/mlp.tad --emit=lib --entry sgd_step --data-parallel \
    -o "$tmp/libmlp_dp.so"
  cc -O2 -I"$tmp" examples/train_mlp_dp.c -L"$tmp" -lmlp_dp \
    -Wl,-rpath,"$tmp" -lm -o "$tmp/train_mlp_dp"
  # This machine alone (shared memory, loopback); as root where the demo
  # runs as root.
  root=()
  [[ $(id -u) -eq 0 ]] && root=(--allow-run-as-root)
  OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo \
  OMPI_MCA_oob_tcp_if_include=lo \
  OMPI_MCA_btl_vader_single_copy_mechanism=none \
    mpirun "${root[@]}" --oversubscribe -np 2 "$tmp/train_mlp_dp" 100
else
  echo "   (skipped: no mpirun, or tad built without MPI; scripts/install-deps.sh"
  echo "   installs Open MPI)"
fi
echo

run() {
  local example=$1 entry=$2 what=$3
  echo "== tadc run examples/$example --entry $entry   ($what)"
  "$tadc" run "examples/$example" --entry "$entry" --repeat 5 | grep -v '^input '
  echo
}
run mlp.tad mlp_value_and_grad "MLP loss, auxiliary loss and weight gradients"
run deep.tad deep_grad "48 residual blocks, each checkpointed"
run transformer.tad loss_grad "a transformer block and a cross-entropy readout"
run rrule.tad model_grad "two layers with a custom rule that calls its own vjp"
run moe.tad stack_value_and_grad "router and checkpointed expert blocks with auxiliary losses"

echo "== the AD output of a small program: tadc --emit=ad"
"$tadc" examples/mlp.tad --emit=ad --opt --entry mlp_value_and_grad |
  sed -n '/func.func @mlp_value_and_grad/,/^  }/p' | head -40
