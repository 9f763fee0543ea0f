# -*- Python -*-
# The tad lit suite: FileCheck tests over tad-opt and tadc.

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "tad"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".tad", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tad_obj_root, "test")
# Unit/ is its own suite (GoogleTest binaries); Inputs/ and Fuzz/corpus/
# hold test data.
config.excludes = ["Inputs", "Unit", "corpus", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]
# `make test` runs a sample of each long sweep; Full/ holds the rest of
# them, which `make test-full` runs (scripts/run-full-sweeps.sh passes
# `--param sweeps=full`). docs/testing.md lists what is sampled.
if lit_config.params.get("sweeps", "sample") == "full":
    config.available_features.add("full-sweeps")
else:
    config.excludes.append("Full")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tad_src_root", config.tad_src_root))
config.substitutions.append(("%tad_obj_root", config.tad_obj_root))
config.substitutions.append(("%mlir_tblgen", config.mlir_tblgen))
config.substitutions.append(("%mlir_include_dir", config.mlir_include_dir))

# The C compiler that tests build callers of compiled libraries with.
cc = "cc"
python = sys.executable
# The sanitizer build (make sanitize, docs/testing.md): every report goes
# to a file in sanitizer-reports/ (make sanitize fails when there is one)
# and aborts the process, so that its test fails too; callers are built
# with the same sanitizers; Python preloads the shared sanitizer runtime to
# load compiled libraries, and its own leaks (and those of what it runs)
# are not reported.
if config.tad_sanitizers:
    reports = os.path.join(config.tad_obj_root, "sanitizer-reports")
    os.makedirs(reports, exist_ok=True)
    log = "log_path=" + os.path.join(reports, "report")
    # libMLIR.so is not instrumented: LLVM's allocators poison memory in
    # inlined, instrumented code that the library's code then uses.
    asan = ("allow_user_poisoning=0:allocator_may_return_null=1:"
            "detect_odr_violation=0:" + log)
    config.environment["ASAN_OPTIONS"] = asan + ":detect_leaks=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:" + log
    flags = []
    if "Address" in config.tad_sanitizers:
        flags.append("-fsanitize=address")
    if "Undefined" in config.tad_sanitizers:
        flags.append("-fsanitize=undefined")
    cc = " ".join([config.tad_c_compiler] + flags + [
        "-shared-libsan", "-Wl,-rpath," + config.tad_sanitizer_runtime_dir])
    runtime = os.path.join(config.tad_sanitizer_runtime_dir,
                           "libclang_rt.asan-x86_64.so")
    python = (f"env LD_PRELOAD={runtime} "
              f"ASAN_OPTIONS={asan}:detect_leaks=0 {sys.executable}")
    config.available_features.add("sanitizers")
config.substitutions.append(("%cc", cc))

# Execution tests compare with NumPy; scripts/apt-packages.txt installs it,
# and a machine without it reports those tests as unsupported.
config.substitutions.append(("%python", python))
try:
    import numpy  # noqa: F401
    config.available_features.add("numpy")
except ImportError:
    pass
# PyTorch is the reference of the benchmarks; a test checks that the GPU
# benchmark's PyTorch models compute what the examples compute.
try:
    import torch  # noqa: F401
    config.available_features.add("torch")
except ImportError:
    pass

# The Python package's memory_timeline() draws with matplotlib
# (scripts/install-deps.sh installs it).
try:
    import matplotlib  # noqa: F401
    config.available_features.add("matplotlib")
except ImportError:
    pass

# bench/remat/milp.py solves the Checkmate MILP with CBC's command-line
# solver (`scripts/install-deps.sh bench` installs coinor-cbc); without it,
# its test is reported as unsupported.
import shutil
if shutil.which("cbc"):
    config.available_features.add("cbc")

# Collectives (docs/distributed.md): `mpi-build` is a tad built with MPI;
# tests of several processes need it and an mpirun (scripts/apt-packages.txt installs Open
# MPI); elsewhere they are reported as unsupported. %mpirun starts N
# processes on this machine alone: oversubscribed (2 cores may run 4
# processes), over shared memory and loopback (Open MPI's own daemons
# too), and as root where CI runs as root. Shared memory copies without
# cross-memory attach, which containers often forbid. A run that hangs
# (a process waiting on a collective that another never reaches) fails
# after 4 minutes instead of holding the suite.
if config.tad_have_mpi:
    config.available_features.add("mpi-build")
if config.tad_have_mpi and shutil.which("mpirun"):
    config.available_features.add("mpi")
    for name, value in [("OMPI_ALLOW_RUN_AS_ROOT", "1"),
                        ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                        ("OMPI_MCA_btl", "self,vader,tcp"),
                        ("OMPI_MCA_btl_vader_single_copy_mechanism", "none"),
                        ("OMPI_MCA_btl_tcp_if_include", "lo"),
                        ("OMPI_MCA_oob_tcp_if_include", "lo")]:
        config.environment[name] = value
    config.substitutions.append(("%mpirun",
                                 "timeout 240 mpirun --oversubscribe"))

# GPU tests (docs/gpu.md): compiling for --target=cuda needs the CUDA
# toolkit's ptxas and fatbinary; running needs a GPU and its driver, which
# CI machines do not have: those tests are reported as unsupported there.
cuda_root = os.environ.get("CUDA_ROOT") or "/usr/local/cuda"
if all(os.access(os.path.join(cuda_root, "bin", tool), os.X_OK)
       for tool in ("ptxas", "fatbinary")):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%cuda_root", cuda_root))
try:
    import ctypes
    libcuda = ctypes.CDLL("libcuda.so.1")
    devices = ctypes.c_int(0)
    if (libcuda.cuInit(0) == 0 and
            libcuda.cuDeviceGetCount(ctypes.byref(devices)) == 0 and
            devices.value > 0):
        config.available_features.add("cuda-device")
except OSError:
    pass
llvm_config.with_system_environment(["CUDA_ROOT"])
# One thread for compiled code (docs/runtime.md#threads) and for OpenBLAS
# in Python processes (NumPy's, which a tad library then shares): lit
# already runs a test per core, and results that tests compare bit for bit
# (the Python package against tadc run) must not depend on the machine's
# core count. test/Execution/threads.test passes --threads itself.
config.environment["TAD_NUM_THREADS"] = "1"
config.environment["OPENBLAS_NUM_THREADS"] = "1"

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# mlir-runner's support libraries (printMemrefF32), beside LLVM's tools.
config.substitutions.append(
    ("%mlir_runner_utils",
     ",".join(os.path.join(os.path.dirname(config.llvm_tools_dir), "lib", l)
              for l in ("libmlir_runner_utils.so",
                        "libmlir_c_runner_utils.so"))))

tools = [
    ToolSubst("tad-opt", unresolved="fatal"),
    ToolSubst("tad-remat", unresolved="fatal"),
    ToolSubst("tadc", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.tad_tools_dir])
