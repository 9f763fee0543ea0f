#!/bin/bash
# Everything docs/gpu-testing.md measures on a lent GPU, in one short run: the
# bundles are built here, where tad is, packed into one file that travels
# with the working tree, and run there in one call, whose results come back
# as files. GPU time is lent by the minute: each step there has a time
# limit, and writes its results as it goes.
#
#   bench/gpu/lease.sh build PACK [--tadc build/bin/tadc]   # here
#   bench/gpu/lease.sh run PACK OUT [--seconds N]            # on the GPU machine
#
# `build` makes, in a temporary folder packed into PACK (tar.xz):
#   examples/         scripts/gpu-bundle.py's programs and the AD test
#                     programs of test/GPU/emulator.test, matmuls by default
#                     (cuBLAS where the GPU machine has it)
#   examples-kernels/ the same with tad's own matmul kernels
#   ops/              every op case of test/Execution/op_check.py
#   steps/            bench/gpu/steps.py's workloads, budgets, sum and matmul
# `run` unpacks PACK and runs the steps in order of what they are needed
# for (correctness, the steps against PyTorch, the same with CUDA graphs,
# the op cases, the sanitizer, the profiles, then the variants); with
# --seconds N the whole run ends within N seconds (the lent machine's call
# has a hard limit): each step's limit is cut to what is left, and a step
# with less than 20 s left is skipped and named. It writes into OUT:
# steps.json, steps-graphs.json (the steps with TAD_CUDA_GRAPHS=1),
# steps-managed.json (every buffer in managed memory:
# TAD_CUDA_MANAGED_ONLY=1), profile.json (bench/gpu/profile_summary.py's
# summary of profile.txt) and logs.tar.xz, which holds examples.txt,
# examples-graphs.txt, examples-kernels.txt, ops.txt, steps.txt,
# steps-graphs.txt, steps-managed.txt, sanitize.txt, sanitize-graphs.txt
# (memcheck on graphs replayed), profile.txt (ncu's CSV of each kernel's
# time in three calls of the GPT's step and of the sum of 2^24 f32
# elements) and torch-profile.txt (PyTorch's step of the same GPT, kernel
# by kernel: bench/gpu/torch_profile.py); it exits non-zero if any step
# failed. (bench/gpu/run.py is not in it: at most 8 files come back from a
# lent machine.)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-} pack=${2:-}
[ -n "$mode" ] && [ -n "$pack" ] || { sed -n 2,20p "$0" >&2; exit 2; }
# Here, Debian's python3 (with numpy and PyTorch); there, the python3 on
# PATH, which holds the GPU machine's PyTorch.
python=${PYTHON:-python3}
[ "$mode" = build ] && python=${PYTHON:-/usr/bin/python3}

ad_programs=(
  examples/mlp.tad:mlp_value_and_grad
  examples/transformer.tad:loss_grad
  examples/rrule.tad:model_grad
  examples/deep_mlp.tad:net_value_and_grad
  examples/deep.tad:deep_grad~3e-3
  test/GPU/Inputs/deep_f64.tad:deep_grad~1e-9
  examples/moe.tad:stack_value_and_grad
  examples/deep_mlp.tad:net_value_and_grad@1700000
  examples/deep_mlp.tad:net_value_and_grad@1300000
  test/AutoDiff/Inputs/control.tad:d_loop
  test/AutoDiff/Inputs/control.tad:d_branch
  test/AutoDiff/Inputs/control.tad:d_calls
  test/AutoDiff/Inputs/control.tad:d_nested
  test/AutoDiff/Inputs/structural.tad:d_normalizers
  test/AutoDiff/Inputs/structural.tad:d_reductions
  test/AutoDiff/Inputs/structural.tad:d_shapes
  test/AutoDiff/Inputs/casts.tad:d_casts
  test/AutoDiff/Inputs/elementwise.tad:d_selection
  test/AutoDiff/Inputs/nesting.tad:df
  test/AutoDiff/Inputs/router.tad:d_model
  test/AutoDiff/Inputs/integers.tad:d_embed
  test/AutoDiff/Inputs/integers.tad:d_xent
  test/AutoDiff/Inputs/integers.tad:d_rnn
  test/AutoDiff/Inputs/integers.tad:d_along
)

build() {
  local tadc=${1:-$root/build/bin/tadc} dir
  dir=$(mktemp -d)
  trap "rm -rf '$dir'" EXIT
  "$python" "$root/scripts/gpu-bundle.py" "$dir/examples" --tadc "$tadc" \
    "${ad_programs[@]}" || exit 1
  "$python" "$root/scripts/gpu-bundle.py" "$dir/examples-kernels" \
    --tadc "$tadc" --tadc-arg=--cuda-matmul=kernel "${ad_programs[@]}" || exit 1
  "$python" "$root/test/Execution/op_check.py" --tadc "$tadc" --all \
    --bundle "$dir/ops" --tadc-arg=--target=cuda > /dev/null || exit 1
  "$python" "$root/bench/gpu/steps.py" build "$dir/steps" --tadc "$tadc" || exit 1
  tar -cf - -C "$dir" . | xz -T2 -6 > "$pack" || exit 1
  ls -l "$pack"
}

# step NAME SECONDS COMMAND...: runs COMMAND with a time limit (SECONDS, or
# what is left before $deadline if less), its output into OUT/NAME.txt, and
# counts a failure.
failed=() skipped=() deadline=
step() {
  local name=$1 limit=$2 start=$SECONDS
  shift 2
  if [ -n "$deadline" ]; then
    local left=$((deadline - SECONDS))
    if [ $left -lt 20 ]; then
      echo "== $name: skipped, ${left}s left"
      skipped+=("$name")
      return
    fi
    [ $left -lt "$limit" ] && limit=$left
  fi
  echo "== $name (limit ${limit}s)"
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  tail -4 "$out/$name.txt"
  echo "== $name: exit $rc after $((SECONDS - start)) s"
  [ $rc -eq 0 ] || failed+=("$name")
}

# The op cases in 4 shards side by side: each case is a process of its own,
# whose start (loading the driver) takes longer than its kernels.
ops_sharded() {
  local pids=() rc=0 k
  for k in 0 1 2 3; do
    "$python" "$root/test/Execution/op_check.py" --run-bundle "$1" --shard $k/4 &
    pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k" || rc=1; done
  return $rc
}

# compute-sanitizer's memcheck on replayed CUDA graphs: 3 calls of two
# bundle programs with TAD_CUDA_GRAPHS=1 (the third replays the second's
# graph); $cs: run's.
sanitize_graphs() {
  local rc=0 name
  for name in transformer-loss_grad moe-stack_value_and_grad; do
    echo "== $name"
    TAD_CUDA_GRAPHS=1 "$cs" --tool memcheck --leak-check full \
      --error-exitcode 9 "$1/$name" --seed 0 --repeat 3 \
      --output-dir "/tmp/tad-gpu-graphs-$name" \
      > "/tmp/tad-gpu-graphs-$name.txt" 2>&1 || rc=1
    grep -E "graphs launched|SUMMARY" "/tmp/tad-gpu-graphs-$name.txt"
  done
  return $rc
}

# Nsight Compute's time of each kernel of three calls of the GPT's step and
# of the sum ($ncu, $dir: run's).
profile_kernels() {
  local rc=0 exe
  for exe in gpt.cublas sum.kernels; do
    echo "== $exe"
    "$ncu" --clock-control none --metrics gpu__time_duration.sum --csv \
      --page raw "$dir/steps/$exe" --seed 0 --repeat 3 \
      --output-dir "/tmp/tad-gpu-profile-$exe" || rc=1
  done
  return $rc
}

run() {
  out=$1
  [ "${2:-}" = --seconds ] && deadline=$((SECONDS + $3))
  mkdir -p "$out"
  local dir=/tmp/tad-gpu-lease
  rm -rf "$dir" && mkdir -p "$dir" && xz -dc "$pack" | tar -xf - -C "$dir" || exit 1
  export PYTHONUNBUFFERED=1
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  # cuBLAS where the loader finds it, or else in the toolkit or PyTorch's
  # wheels (--cuda-matmul=auto and cublas programs load it at run time).
  if ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.1[23]'; then
    local lib
    lib=$(find /usr/local/cuda* /opt /usr/lib -name 'libcublas.so.1[23]' 2>/dev/null | head -1)
    [ -n "$lib" ] && export LD_LIBRARY_PATH=$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  step examples 90 "$python" "$dir/examples/run.py" --repeat 20
  step steps 300 "$python" "$root/bench/gpu/steps.py" run "$dir/steps" \
    --repeat 20 --compile --json "$out/steps.json"
  # CUDA graphs (TAD_CUDA_GRAPHS=1): the bundle's programs, whose last
  # call is a graph's replay, against the CPU's results; then the steps'
  # times with graphs, beside PyTorch eager's again (what decides whether
  # graphs become the default).
  step examples-graphs 90 env TAD_CUDA_GRAPHS=1 "$python" \
    "$dir/examples/run.py" --repeat 20
  step steps-graphs 150 env TAD_CUDA_GRAPHS=1 "$python" \
    "$root/bench/gpu/steps.py" run "$dir/steps" --repeat 20 \
    --json "$out/steps-graphs.json"
  export -f ops_sharded
  export python root
  step ops 120 bash -c 'ops_sharded "$0"' "$dir/ops"
  step sanitize 75 "$root/scripts/gpu-sanitize.sh" "$dir/examples"
  local cs
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  export cs
  export -f sanitize_graphs
  step sanitize-graphs 40 bash -c 'sanitize_graphs "$0"' "$dir/examples"
  # Each kernel's time in the third call of the GPT's step (the first
  # calls fault their fresh managed memory in), then of the sum of 2^24
  # f32 elements (its 3 kernels against the bandwidth's time), by Nsight
  # Compute, into one file; and its summary (the last call's kernels by
  # time, cuBLAS's apart from tad's) as profile.json, to commit beside the
  # steps' results.
  local ncu
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
  export ncu dir
  export -f profile_kernels
  step profile 150 bash -c profile_kernels
  step profile-summary 30 "$python" "$root/bench/gpu/profile_summary.py" \
    "$out/profile.txt" --json "$out/profile.json"
  step examples-kernels 90 "$python" "$dir/examples-kernels/run.py" --repeat 20
  # PyTorch's step of the same GPT, kernel by kernel: its GEMM kernels
  # beside the ones the profile above names for tad's same GEMMs.
  step torch-profile 90 "$python" "$root/bench/gpu/torch_profile.py" \
    --device cuda --gpt gpu
  # The same steps with every buffer in managed memory, as before
  # tad-gpu-device-buffers put those that only the GPU touches in device
  # memory (the runtime ignores the marks): what the marks change. Fewer
  # calls and no torch.compile, to keep the lease's one call short.
  step steps-managed 150 env TAD_CUDA_MANAGED_ONLY=1 "$python" \
    "$root/bench/gpu/steps.py" run "$dir/steps" --repeat 10 \
    --json "$out/steps-managed.json"
  # At most 8 files come back from a lent machine: the logs travel as one.
  tar -cJf "$out/logs.tar.xz" -C "$out" $(cd "$out" && ls *.txt) &&
    rm -f "$out"/*.txt
  echo "failed: ${failed[*]:-none}; skipped: ${skipped[*]:-none}"
  [ ${#failed[@]} -eq 0 ]
}

case $mode in
  build) shift 2; [ "${1:-}" = --tadc ] && build "$2" || build ;;
  run) run "${3:?OUT}" "${4:-}" "${5:-}" ;;
  *) echo "lease.sh: build or run, not $mode" >&2; exit 2 ;;
esac
