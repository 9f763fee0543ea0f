"""Shared helpers of tad's benchmarks: running tadc, timing callables."""
import json
import os
import subprocess
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
