"""Shared helpers of tad's benchmarks: running tadc, timing callables,
writing results as JSON (bench/results.py renders them)."""
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TADC = os.environ.get("TADC", os.path.join(ROOT, "build", "bin", "tadc"))


def median_seconds(fn, repeat, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def tadc_run(source, entry, repeat, extra=(), inputs=None):
    """Runs `tadc run` and returns its --stats-json measurements. The first
    call is a warm-up: the reported median covers calls 2..repeat+1."""
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.json")
        args = [TADC, "run", source, "--entry", entry, "--repeat",
                str(repeat + 1), f"--stats-json={stats}", *extra]
        if inputs:
            args += ["--inputs", inputs]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        with open(stats) as f:
            data = json.load(f)
    seconds = sorted(data["wall_seconds"][1:])
    data["median_seconds"] = seconds[len(seconds) // 2]
    return data


def machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {os.cpu_count()} cores"


def command(env=""):
    """The command line that ran this script, as docs/results.md shows it:
    `env` (variables it needs, e.g. "OPENBLAS_NUM_THREADS=1"), the script's
    path from the repository's root and its arguments, less `--json FILE`
    (bench/results.py adds the file it reads)."""
    args, skip = [], False
    for arg in sys.argv[1:]:
        if skip or arg == "--json" or arg.startswith("--json="):
            skip = arg == "--json"
            continue
        args.append(shlex.quote(arg))
    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    return " ".join(([env] if env else []) + ["/usr/bin/python3", script]
                    + args)


def write_json(path, benchmark, rows, env="", **fields):
    """Writes a benchmark's rows to `path` with what bench/results.py shows
    beside them: the machine, the date and the command that ran it.
    `fields` adds more (the OpenBLAS kernel as `blas_core`, settings)."""
    record = {"benchmark": benchmark, "command": command(env),
              "machine": machine(),
              "date": datetime.datetime.now().isoformat(timespec="seconds"),
              **fields, "rows": rows}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
