"""tad.compile's cache (docs/python.md#the-cache): an edited import or
standard-library file compiles again, in the process that compiled it
before and in a new one; threads and processes compiling one uncached
source at once all get a working library; a cache folder that cannot be
made is a CompileError. argv: tadc, a scratch folder."""
import concurrent.futures
import multiprocessing
import os
import shutil
import subprocess
import sys

import numpy as np

tadc, scratch = sys.argv[1], sys.argv[2]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
os.environ["TAD_TADC"] = tadc
os.environ["TAD_CACHE_DIR"] = os.path.join(scratch, "cache")
sys.path.insert(0, ROOT)
import tad  # noqa: E402

ONE = np.float32(1)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def constant(value):
    return f"fn two(x: f32) -> f32 {{ return x * 0.0 + {value}; }}\n"


def call_in_new_process(source):
    code = (f"import sys; sys.path.insert(0, {ROOT!r}); import tad, numpy; "
            f"print(float(tad.compile({source!r}).f(x=numpy.float32(1))"
            f".result0))")
    return float(subprocess.run([sys.executable, "-c", code], check=True,
                                capture_output=True, text=True).stdout)


def square(source):
    return float(tad.compile(source).f(x=np.float32(3)).result0)


def main():
    # An imported file, edited between two compiles of the file importing it.
    project = os.path.join(scratch, "project")
    main = os.path.join(project, "main.tad")
    write(os.path.join(project, "lib.tad"), constant(2.0))
    write(main, 'import "lib.tad";\nfn f(x: f32) -> f32 { return two(x); }\n')
    assert float(tad.compile(main).f(x=ONE).result0) == 2.0
    write(os.path.join(project, "lib.tad"), constant(100.0))
    got = float(tad.compile(main).f(x=ONE).result0)
    assert got == 100.0, f"an edited import gave the stale {got}"
    assert call_in_new_process(main) == 100.0
    # Unchanged, it is a cache hit: the same folder, not compiled again.
    assert tad.compile(main).folder == tad.compile(main).folder

    # The standard library: a copy of it, edited, through $TAD_STDLIB_DIR.
    stdlib = os.path.join(scratch, "stdlib")
    shutil.copytree(os.path.join(ROOT, "stdlib"), stdlib)
    os.environ["TAD_STDLIB_DIR"] = stdlib
    write(os.path.join(stdlib, "consts.tad"), constant(3.0))
    text = 'import "consts.tad";\nfn f(x: f32) -> f32 { return two(x); }\n'
    assert float(tad.compile(text).f(x=ONE).result0) == 3.0
    write(os.path.join(stdlib, "consts.tad"), constant(4.0))
    got = float(tad.compile(text).f(x=ONE).result0)
    assert got == 4.0, f"an edited standard-library file gave the stale {got}"
    del os.environ["TAD_STDLIB_DIR"]

    # Concurrent compiles of one uncached source: 4 threads, then 4 processes,
    # each with a source of its own that nothing has cached yet.
    for round_ in range(2):
        source = (f"fn f(x: f32) -> f32 {{ return x * x + {round_}.0; }}\n")
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(square, [source] * 4))
        assert results == [9.0 + round_] * 4, results
    for round_ in range(2):
        source = (f"fn f(x: f32) -> f32 {{ return x * x + {round_ + 10}.0; }}\n")
        with multiprocessing.get_context("spawn").Pool(4) as pool:
            results = pool.map(square, [source] * 4)
        assert results == [19.0 + round_] * 4, results
    leftovers = [n for n in os.listdir(os.environ["TAD_CACHE_DIR"])
                 if ".tmp" in n or ".stale" in n]
    assert not leftovers, leftovers

    # A cache folder that cannot be made or written.
    for bad in ("/proc/tad-cache", "/dev/null"):
        os.environ["TAD_CACHE_DIR"] = bad
        try:
            tad.compile("fn f(x: f32) -> f32 { return x; }\n")
        except tad.CompileError as e:
            assert bad in str(e) and "TAD_CACHE_DIR" in str(e), str(e)
        else:
            raise AssertionError(f"TAD_CACHE_DIR={bad} compiled")
    print("ok: the tad cache")


if __name__ == "__main__":
    main()
