"""tad from Python: compile a .tad program once, call its functions on NumPy
arrays (docs/python.md).

    import tad
    m = tad.compile("examples/mlp.tad", entry="mlp_value_and_grad")
    out = m.mlp_value_and_grad(x=x, y=y, w1=w1, b1=b1, w2=w2, b2=b2)
    out.value, out.grad_w1        # the results, by name
    m.stats                       # the last call's time and peak bytes

`tad.compile` runs `tadc --emit=lib` ($TAD_TADC; else, in a checkout,
the repository's build/bin/tadc; installed by `make install`, the tadc
installed with the package; else the tadc on PATH) into a cache folder keyed by the source, the options and
the tadc that compiles it (its version, its executable and the runtime it
links, by size and time of change), and loads the library with ctypes. A
cached library is used only while every file its compile read (the
source, its imports, the standard library's files) has the contents it
had then.
Inputs are checked against each parameter's dtype and shape with the
errors of `tadc run`; an input that is already C-contiguous and of the
parameter's dtype is passed as it is, without a copy.
"""
import collections.abc
import ctypes
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import numpy as np

__all__ = ["compile", "generic", "CompileError", "Generic", "Module",
           "Function", "Results"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)


class CompileError(Exception):
    """tadc rejected the program or the options; the message is tadc's."""


def _tadc():
    tadc = os.environ.get("TAD_TADC")
    if tadc:
        return tadc
    built = os.path.join(_ROOT, "build", "bin", "tadc")
    if os.path.exists(built):
        return built
    try:
        # Written by `make install` beside the package: where the tadc
        # installed with it lies, relative to the package's folder.
        from . import _installed
    except ImportError:
        return "tadc"
    return os.path.normpath(os.path.join(_HERE, _installed.TADC))


def _file_identity(path):
    """`path`'s size and time of last change (a rebuilt file has new ones),
    or "missing"."""
    try:
        info = os.stat(path)
    except OSError:
        return f"{path}: missing"
    return f"{path}: {info.st_size} {info.st_mtime_ns}"


def _tadc_identity(tadc):
    """What makes the libraries that `tadc` compiles, for the cache key:
    `tadc --version`, whose lines after the first name tadc's executable
    and the runtime it links into libraries (`  runtime: PATH`,
    docs/tadc.md), and the size and time of change of each of those files
    and of the program run (a wrapper script, or a copy, is another
    tadc)."""
    try:
        version = subprocess.run([tadc, "--version"], capture_output=True,
                                 text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise CompileError(f"cannot run tadc ({tadc}): {e}") from None
    program = shutil.which(tadc) or tadc
    files = [os.path.realpath(program)]
    for line in version.splitlines()[1:]:
        match = re.match(r"\s+[\w ]+: (.+)$", line)
        if match:
            files.append(match.group(1))
    return "\n".join([version] + [_file_identity(f) for f in files])


def _cache_dir():
    return os.environ.get("TAD_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "tad")


# The dtypes of the header's comments, and the NumPy arrays they take:
# f16 as float16, bf16 as its 16-bit patterns (uint16), the integers of
# token ids as int32 and int64.
_DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
           "bf16": np.uint16, "i32": np.int32, "i64": np.int64}
# An array's dtype as messages name it (uint16 as bf16, which it carries).
_DTYPE_NAMES = {np.dtype(t): name for name, t in _DTYPES.items()}


def _describe(dtype, shape):
    return f"{dtype}[{', '.join(str(d) for d in shape)}]" if shape else dtype


def _describe_array(a):
    kind = _DTYPE_NAMES.get(a.dtype, str(a.dtype))
    return _describe(kind, a.shape)


class _Tensor:
    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, tuple(shape)

    def __repr__(self):
        return f"{self.name}: {_describe(self.dtype, self.shape)}"


def _parse_tensors(text):
    """`x: f32[64, 256], y: f32` as _Tensors."""
    tensors = []
    for match in re.finditer(
            r"([\w.]+): (f32|f64|f16|bf16|i32|i64)(?:\[([0-9, ]*)\])?",
            text):
        shape = [int(d) for d in match.group(3).split(",")] \
            if match.group(3) else []
        tensors.append(_Tensor(match.group(1), match.group(2), shape))
    return tensors


def _parse_header(path):
    """The functions of a tadc header: its comments
    `/* f(x: f32[2, 3], ...)\\n *   -> (value: f32, ...) */`."""
    with open(path) as f:
        text = f.read()
    functions = {}
    for match in re.finditer(r"/\* (\w+)\((.*?)\)\n \*   -> \((.*?)\) \*/",
                             text, re.S):
        functions[match.group(1)] = (_parse_tensors(match.group(2)),
                                     _parse_tensors(match.group(3)))
    return functions


class _TraceEvent(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_double), ("size", ctypes.c_int64),
                ("live_bytes", ctypes.c_int64)]


class _Stats(ctypes.Structure):
    _fields_ = [("current_bytes", ctypes.c_int64),
                ("peak_bytes", ctypes.c_int64),
                ("allocations", ctypes.c_int64),
                ("frees", ctypes.c_int64)]


def _flatten(name, value):
    """`(leaf name, array)` pairs of an input: a record (a struct in the
    .tad source) is given as a mapping of its fields, nested for nested
    records, and its leaves are named after their paths (`p.l1.w`)."""
    if isinstance(value, collections.abc.Mapping):
        # dict.items: a Results whose field is named items stays a mapping.
        items = dict.items(value) if isinstance(value, dict) else value.items()
        for field, inner in items:
            yield from _flatten(f"{name}.{field}", inner)
    else:
        yield name, value


class Results(dict):
    """A function's results by name (`value`, `grad_w1`, ... as tadc names
    them), in order; also as attributes. A record's leaves are named after
    their paths (`grad_p.l1.w`), and `r.grad_p` is the record itself: a
    Results of its fields (`r.grad_p.l1.w`), which a function taking the
    record accepts as it is. A result or field named as a dict method
    (`items`, `copy`) is that result as an attribute; the method is then
    dict's (`dict.items(r)`)."""

    def __getattribute__(self, name):
        if not name.startswith("_") and (
                dict.__contains__(self, name) or any(
                    key.startswith(name + ".") for key in dict.keys(self))):
            return Results.__getattr__(self, name)
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        prefix = name + "."
        record = {key[len(prefix):]: value
                  for key, value in dict.items(self)
                  if key.startswith(prefix)}
        if not record:
            raise AttributeError(
                f"no result '{name}'; the results are {', '.join(self)}")
        return _nest(record)


def _nest(flat):
    """`{"l1.w": a, "l1.b": b}` as `Results(l1=Results(w=a, b=b))`."""
    nested = {}
    for key, value in flat.items():
        head, _, rest = key.partition(".")
        if rest:
            nested.setdefault(head, {})[rest] = value
        else:
            nested[head] = value
    return Results((key, _nest(value) if type(value) is dict else value)
                   for key, value in nested.items())


class Function:
    """One compiled function: call it with NumPy arrays by position or by
    parameter name."""

    def __init__(self, module, name, params, results):
        self.module, self.name = module, name
        self.params, self.results = params, results
        # tad_call_NAME takes the pointers in one array: ctypes passes at
        # most 1024 arguments, and records can make more tensors.
        self._c = getattr(module._library, f"tad_call_{name}")
        self._c.restype = ctypes.c_int
        self._c.argtypes = [ctypes.c_void_p]

    def __repr__(self):
        return (f"{self.name}({', '.join(map(repr, self.params))}) -> "
                f"({', '.join(map(repr, self.results))})")

    def _inputs(self, args, kwargs):
        # A record parameter is one input: its leaves share a first name.
        groups = list(dict.fromkeys(p.name.split(".")[0] for p in self.params))
        if len(args) > len(groups):
            raise TypeError(f"'{self.name}' takes {len(groups)} "
                            f"inputs, got {len(args)}")
        given = {}
        for name, value in list(zip(groups, args)) + list(kwargs.items()):
            fields = [p.name for p in self.params
                      if p.name.startswith(name + ".")]
            if fields and not isinstance(value, collections.abc.Mapping):
                raise TypeError(
                    f"parameter '{name}' of '{self.name}' is a record: pass "
                    f"a mapping of its fields ({', '.join(fields)}), not "
                    f"{type(value).__name__}")
            for leaf, array in _flatten(name, value):
                if not any(p.name == leaf for p in self.params):
                    raise TypeError(
                        f"'{self.name}' has no parameter '{leaf}' (its "
                        f"parameters are "
                        f"{', '.join(p.name for p in self.params)})")
                if leaf in given:
                    raise TypeError(f"'{self.name}' got '{leaf}' twice")
                given[leaf] = array
        arrays = []
        for p in self.params:
            if p.name not in given:
                raise TypeError(f"'{self.name}' is missing input "
                                f"'{p.name}' ({_describe(p.dtype, p.shape)})")
            a = np.asarray(given[p.name])
            if a.dtype != np.dtype(_DTYPES[p.dtype]) or a.shape != p.shape:
                raise TypeError(
                    f"parameter '{p.name}' of '{self.name}' is "
                    f"{_describe(p.dtype, p.shape)} but got "
                    f"{_describe_array(a)}")
            # No copy when it is C-contiguous already.
            arrays.append(np.ascontiguousarray(a))
        return arrays

    def __call__(*args, **kwargs):
        # `self` is taken from args, so that a parameter named self can be
        # given by name.
        self, *args = args
        arrays = self._inputs(args, kwargs)
        outputs = [np.empty(r.shape, _DTYPES[r.dtype]) for r in self.results]
        pointers = (ctypes.c_void_p * max(len(arrays) + len(outputs), 1))(
            *[a.ctypes.data for a in arrays + outputs])
        library = self.module._library
        library.tad_rt_reset_peak()
        base = library.tad_rt_get_stats().current_bytes
        # The allocator's trace of the call: memory_timeline()'s measured
        # side (as tadc run --memory-trace records it).
        library.tad_rt_trace_enable(1)
        start = time.perf_counter()
        status = self._c(pointers)
        seconds = time.perf_counter() - start
        library.tad_rt_trace_enable(0)
        if status != 0:
            raise RuntimeError(f"{self.name} returned {status}")
        events = library.tad_rt_trace_data()
        self.module._measured[self.name] = [
            events[i].live_bytes - base
            for i in range(library.tad_rt_trace_size())]
        stats = library.tad_rt_get_stats()
        self.module.stats = {"function": self.name, "seconds": seconds,
                             "peak_bytes": stats.peak_bytes,
                             "allocations": stats.allocations}
        return Results((r.name, o) for r, o in zip(self.results, outputs))


class Module:
    """A compiled program: its functions as attributes (`m.f(...)`), the
    remat report (`report`, a dict: what each gradient stores and
    recomputes, under the budget or the default overhead policy), the last
    call's measurements (`stats`)."""

    def __init__(self, folder):
        self.folder = folder
        # A folder of tad.compile's cache names its library; one that
        # tadc --emit=lib -o FOLDER/libmodel.so made holds libmodel.so.
        library = (_manifest(folder) or {}).get("library", "libmodel.so")
        try:
            self._library = ctypes.CDLL(os.path.join(folder, library))
        except OSError as e:
            raise CompileError(f"cannot load the compiled library: {e}") \
                from None
        self._library.tad_rt_get_stats.restype = _Stats
        self._library.tad_rt_reset_peak.restype = None
        self._library.tad_rt_trace_enable.argtypes = [ctypes.c_int]
        self._library.tad_rt_trace_enable.restype = None
        self._library.tad_rt_trace_size.restype = ctypes.c_size_t
        self._library.tad_rt_trace_data.restype = ctypes.POINTER(_TraceEvent)
        self._library.tad_rt_set_num_threads.argtypes = [ctypes.c_int]
        self._library.tad_rt_set_num_threads.restype = None
        self._measured = {}
        self.functions = {
            name: Function(self, name, params, results)
            for name, (params, results) in
            _parse_header(os.path.join(
                folder, os.path.splitext(library)[0] + ".h")).items()}
        report = os.path.join(folder, "report.json")
        self.report = None
        if os.path.exists(report):
            with open(report) as f:
                self.report = json.load(f)
        self.stats = None

    def set_num_threads(self, threads):
        """Runs the module's loop nests and GEMMs on `threads` threads
        (docs/runtime.md#threads). In a process that loaded OpenBLAS first,
        as NumPy does, they otherwise run as that OpenBLAS is set (its
        threads for the GEMMs, the loop nests on the calling thread); this
        sets that OpenBLAS to one thread and cuts the GEMMs itself."""
        if not isinstance(threads, int) or not 1 <= threads <= 4096:
            raise ValueError(f"set_num_threads: expected 1 to 4096 threads, "
                             f"got {threads!r}")
        self._library.tad_rt_set_num_threads(threads)

    def memory_timeline(self, function=None):
        """A matplotlib Figure of `function`'s memory (default: the one
        called last): the live bytes of its last call after each
        allocation and free, as the runtime allocator measured them, and,
        under a budget, the remat report's prediction (the buffer plan's
        run) and the budget, each stretched over the width, as
        scripts/memory-timeline.py draws them. `.savefig(path)` writes
        it."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        if function is None:
            if vars(self)["stats"] is None:
                raise ValueError("no call yet: call a function first, or "
                                 "name one")
            function = vars(self)["stats"]["function"]
        measured = self._measured.get(function)
        if measured is None:
            raise ValueError(f"{function} has not been called")
        planned = None
        for fn in (vars(self)["report"] or {}).get("functions", []):
            if fn["function"] == function:
                planned = fn
        fig, ax = plt.subplots(figsize=(9, 4.2), dpi=100)

        def stretched(values):
            return [i / max(len(values) - 1, 1) for i in range(len(values))]
        if planned:
            predicted = [p["live_bytes"] for p in planned["timeline"]]
            ax.plot(stretched(predicted), [v / 1024 for v in predicted],
                    label="predicted (buffer plan, remat report)",
                    color="#1f77b4", linewidth=2)
            ax.axhline(planned["budget"] / 1024, color="#c00",
                       linestyle="--", label="budget")
        ax.plot(stretched(measured), [v / 1024 for v in measured],
                label="measured (runtime allocator)", color="#ff7f0e",
                linewidth=1.5)
        ax.set_xlabel("allocations and frees in order")
        ax.set_ylabel("live KiB")
        ax.set_title(f"memory of @{function}: measured peak "
                     f"{max(measured, default=0)} bytes", fontsize=10)
        ax.set_ylim(bottom=0)
        ax.legend(loc="upper right", fontsize=9)
        fig.tight_layout()
        return fig

    def __getattribute__(self, name):
        # The program's names come first: a function named stats is
        # m.stats; the measurements are then vars(m)["stats"], and a method
        # it hides is tad.Module's (tad.Module.set_num_threads(m, 2)).
        if not name.startswith("_"):
            functions = object.__getattribute__(self, "__dict__").get(
                "functions", {})
            if name in functions:
                return functions[name]
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        functions = self.__dict__.get("functions", {})
        raise AttributeError(f"no function '{name}'; the functions are "
                             f"{', '.join(functions)}")

    def __dir__(self):
        return list(super().__dir__()) + list(vars(self)["functions"])


# What tad.compile sets itself: the output (a library, in the cache), and
# the files and inputs it reads and writes there.
_OWN_OPTIONS = ("--emit", "-o", "--depfile", "--remat-report", "--input",
                "--inputs", "--output-dir", "--split-input-file")


def _checked_options(options):
    """`options` as a list of strings, without those tad.compile sets."""
    if isinstance(options, str):
        raise TypeError("options: a list of tadc flags, as "
                        "['--opt'], not a string")
    options = list(options)
    for option in options:
        if not isinstance(option, str):
            raise TypeError(f"options: {option!r} is not a string")
        if option.split("=", 1)[0] in _OWN_OPTIONS:
            raise ValueError(
                f"options: {option!r} is tad.compile's own: it compiles a "
                f"library into its cache and reads no inputs")
    return options


def _dimension(name, size):
    """A size of `dims`: a whole number (an int, a NumPy integer, or a float
    or string that is one); tadc checks its range as --dim's."""
    if isinstance(size, (bool, np.bool_)):
        whole = None
    elif isinstance(size, (int, np.integer)):
        whole = int(size)
    elif isinstance(size, (float, np.floating)) and float(size).is_integer():
        whole = int(size)
    elif isinstance(size, str) and re.fullmatch(r"\s*[+-]?\d+\s*", size):
        whole = int(size)
    else:
        whole = None
    if whole is None:
        raise TypeError(f"dims: the size of '{name}' must be a whole number, "
                        f"got {size!r}")
    return whole


def compile(source, entry=None, budget=None, target="cpu", options=(),
            dims=None, inputs=None):
    """Compiles `source` (a .tad file's path, or the program's text) with
    `tadc --emit=lib`, once: the library is cached by the source, the
    options and the tadc that compiles it (its version, and the size and
    time of change of its executable and of the runtime it links), and
    compiled again when a file that the compile read (an import) changes.
    `budget`: bytes (an int), or what `--remat-budget` takes ("64KiB",
    "14.8 MiB", "60%" of the store-all peak of `entry` or of the
    program's one derivative, or "overhead:1%": the least peak at which
    recomputation adds at most 1% to the compute). Without one, tadc's
    default: the overhead policy at 2%.
    `target`: "cpu" or "cuda". `options`: more tadc flags.
    A generic `entry` (`fn f[B](...)`) compiles at the sizes `dims` gives
    ({"B": 64}), or at those of example `inputs` ({"x": array}, by
    parameter name; only their dtypes and shapes matter); the module then
    calls its instance by the entry's name too. `tad.generic` does this at
    each call."""
    if isinstance(source, os.PathLike) or (
            "\n" not in source and source.endswith((".tad", ".mlir"))):
        path = os.path.abspath(os.fspath(source))
        with open(path) as f:
            text = f.read()
    else:
        path, text = None, source
    tadc = _tadc()
    args = [f"--target={target}"]
    if entry:
        args.append(f"--entry={entry}")
    if budget is not None:
        args.append(f"--remat-budget={budget}")
    for name, size in (dims or {}).items():
        args.append(f"--dim={name}={_dimension(name, size)}")
    args += _checked_options(options)
    # Example inputs count by their dtypes and shapes only.
    examples = {leaf: np.asarray(a) for name, value in (inputs or {}).items()
                for leaf, a in _flatten(name, value)}
    signature = [f"{name}:{_describe_array(a)}"
                 for name, a in sorted(examples.items())]
    # A rebuilt tadc or runtime, another tadc, or another runtime
    # ($TAD_RUNTIME_STATIC_LIBRARY) compiles again.
    # Where imports are found ($TAD_STDLIB_DIR) is in the key; what they
    # hold is checked against the cached folder's manifest (_cached).
    key = hashlib.sha256("\0".join(
        [text, path or "", _tadc_identity(tadc),
         os.environ.get("TAD_STDLIB_DIR", "")] + args + signature).encode()
    ).hexdigest()[:24]
    folder = os.path.join(_cache_dir(), key)
    if not _cached(folder):
        _compile_into(folder, tadc, path, text, args, examples)
    module = Module(folder)
    # A generic entry's library holds its one instance (F_B64): the
    # entry's own name calls it too.
    functions = vars(module)["functions"]
    if entry and entry not in functions and len(functions) == 1:
        functions[entry] = next(iter(functions.values()))
    return module


def _read_depfile(path):
    """The prerequisites of tadc's --depfile (a Makefile rule)."""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    text = text.split(":", 1)[1] if ":" in text else ""
    # Split on spaces that no backslash escapes, then unescape.
    parts = re.split(r"(?<!\\) +", text.strip())
    return [p.replace("\\ ", " ").replace("\\#", "#").replace("$$", "$")
            for p in parts if p]


def _file_digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _cached(folder):
    """Whether `folder` holds a library compiled from files that still read
    as they did: its manifest names every file the compile read (the
    source, its imports, the standard library's files) with a digest of its
    contents, so that an edited import compiles again."""
    manifest = _manifest(folder)
    return bool(manifest) and os.path.exists(
        os.path.join(folder, manifest["library"])) and all(
        _file_digest(file) == digest
        for file, digest in manifest["files"].items())


def _manifest(folder):
    """A cache folder's manifest.json: its library's file name (each
    compile names its own, since a process that loaded a library gets that
    one again from dlopen for the same path, even after it was compiled
    again) and the digests of the files its compile read."""
    try:
        with open(os.path.join(folder, "manifest.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _cache_error(e):
    return CompileError(f"cannot use the cache folder {_cache_dir()} "
                        f"($TAD_CACHE_DIR): {e.strerror or e}")


def _compile_into(folder, tadc, path, text, args, examples):
    """Compiles into a work folder of this call's own, then renames it to
    `folder`: two threads or processes compiling one source each build
    their own, and the first rename wins. A stale `folder` (an import was
    edited) is replaced."""
    try:
        os.makedirs(_cache_dir(), exist_ok=True)
        work = tempfile.mkdtemp(prefix=os.path.basename(folder) + ".tmp",
                                dir=_cache_dir())
    except OSError as e:
        raise _cache_error(e) from None
    try:
        # A file compiles where it is, so that messages name it; a text is
        # written to the work folder and named <source> in messages.
        program = path or os.path.join(work, "source.tad")
        if not path:
            with open(program, "w") as f:
                f.write(text)
        depfile = os.path.join(work, "deps.d")
        library = f"libmodel-{os.path.basename(work)[-8:]}.so"
        command = [tadc, program, "--emit=lib", "-o",
                   os.path.join(work, library), f"--depfile={depfile}"
                   ] + args
        for name, a in examples.items():
            example = os.path.join(work, f"example_{name}.npy")
            np.save(example, np.zeros(a.shape, a.dtype))
            command.append(f"--input={name}={example}")
        # The remat report: of the budget, or of the default policy.
        command.append(f"--remat-report={os.path.join(work, 'report.json')}")
        proc = subprocess.run(command, capture_output=True, text=True)
        if proc.returncode != 0:
            message = proc.stderr.strip()
            if not path:
                message = message.replace(program, "<source>")
            for name in examples:
                message = message.replace(
                    os.path.join(work, f"example_{name}.npy"),
                    f"the example input '{name}'")
            raise CompileError(message)
        # The text of a source given as text is in the key: the copy in the
        # work folder is not a dependency to check.
        files = {f: _file_digest(f) for f in _read_depfile(depfile)
                 if f != os.path.abspath(os.path.join(work, "source.tad"))}
        with open(os.path.join(work, "manifest.json"), "w") as f:
            json.dump({"library": library, "files": files}, f, indent=1)
        for name in examples:
            os.remove(os.path.join(work, f"example_{name}.npy"))
        os.remove(depfile)
        if os.path.exists(folder) and not _cached(folder):
            # Stale: moved aside first, since a rename does not replace a
            # folder that has files. A library loaded from it stays mapped.
            stale = tempfile.mkdtemp(prefix=os.path.basename(folder) +
                                     ".stale", dir=_cache_dir())
            try:
                os.rename(folder, os.path.join(stale, "old"))
            except OSError:  # another compile moved it first
                pass
            shutil.rmtree(stale, ignore_errors=True)
        try:
            os.rename(work, folder)
        except OSError:  # another thread or process cached it first
            pass
    except OSError as e:
        raise _cache_error(e) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)


class Generic:
    """A generic function (`fn f[B](...)`, or a derivative of one) that
    compiles an instance at the sizes of each call's inputs, once per set
    of dtypes and shapes (`tad.compile` caches it), and calls it. Inputs are
    given by parameter name: `f(x=x, w=w)`."""

    def __init__(self, source, entry, **compile_options):
        self.source, self.entry = source, entry
        self.compile_options = compile_options
        self.module = None  # the instance called last

    def __call__(*args, **inputs):
        # As Function.__call__: a parameter may be named self.
        self, *positional = args
        if positional:
            raise TypeError(f"'{self.entry}' takes its inputs by name, as "
                            f"{self.entry}(x=...)")
        self.module = compile(self.source, entry=self.entry,
                              inputs=inputs, **self.compile_options)
        return vars(self.module)["functions"][self.entry](**inputs)


def generic(source, entry, **compile_options):
    """`Generic(source, entry)`: `entry` compiled at the sizes of each
    call's inputs (see Generic; `compile_options` as tad.compile's)."""
    return Generic(source, entry, **compile_options)
