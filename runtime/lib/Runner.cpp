//===- Runner.cpp - load inputs, call an entry, report --------------------===//
//
// Inputs live in memory the caller owns, so the allocator sees only what
// the compiled code allocates: the peak it measures during a call is the
// call's peak under tad's memory model, and what is live afterwards is the
// call's results.
//
//===----------------------------------------------------------------------===//

#include "tad/runtime/Runner.h"

#include "tad/runtime/Memref.h"
#include "tad/runtime/Runtime.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace tad::rt;

int64_t TensorSpec::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t TensorSpec::getByteSize() const {
  return getNumElements() * int64_t(getDTypeSize(dtype));
}

namespace {

std::string format(const char *fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), fmt, value);
  return buffer;
}

bool fileExists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

/// The machine's physical memory in bytes.
int64_t physicalMemory() {
  long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? int64_t(pages) * size
                               : std::numeric_limits<int64_t>::max();
}

/// Whether --convert-inputs converts `from` to `to`: a float dtype to
/// another, or an integer one to another. A float is no token id, and a
/// token id no value to compute with.
bool canConvert(DType from, DType to) {
  return isIntegerDType(from) == isIntegerDType(to);
}

/// `array` converted to `dtype` (canConvert): floats through double, which
/// holds every value of each float dtype exactly (the store rounds to
/// nearest), integers through int64_t, refusing one out of `dtype`'s range.
bool convert(NpyArray &array, DType dtype, const std::string &path,
             std::string &error) {
  size_t from = getDTypeSize(array.dtype), to = getDTypeSize(dtype);
  int64_t count = array.getNumElements();
  std::vector<uint8_t> converted(size_t(count) * to);
  for (int64_t e = 0; e < count; ++e) {
    const uint8_t *source = array.data.data() + e * int64_t(from);
    uint8_t *target = converted.data() + e * int64_t(to);
    if (!isIntegerDType(dtype)) {
      storeFromDouble(target, dtype, loadAsDouble(source, array.dtype));
      continue;
    }
    int64_t value = loadAsInt64(source, array.dtype);
    if (!fitsIn(value, dtype)) {
      error = path + ": element " + std::to_string(e) + " is " +
              std::to_string(value) + ", which " + getDTypeName(dtype) +
              " cannot hold";
      return false;
    }
    storeFromInt64(target, dtype, value);
  }
  array.data = std::move(converted);
  array.dtype = dtype;
  return true;
}

bool loadInputs(const EntrySpec &entry, const RunOptions &options,
                std::vector<NpyArray> &inputs, std::ostream &out,
                std::string &error) {
  int64_t total = 0, memory = physicalMemory();
  for (const TensorSpec &param : entry.params)
    total += param.getByteSize();
  if (total > memory) {
    error = "the parameters of '" + entry.function + "' need " +
            std::to_string(total) + " bytes, more than this machine's " +
            std::to_string(memory) + " bytes of memory";
    return false;
  }
  // A folder that is not one would otherwise mean random inputs for every
  // parameter, silently.
  if (!options.inputDir.empty()) {
    struct stat info;
    if (::stat(options.inputDir.c_str(), &info) != 0) {
      error = "--inputs " + options.inputDir + ": " + std::strerror(errno);
      return false;
    }
    if (!S_ISDIR(info.st_mode)) {
      error = "--inputs " + options.inputDir +
              ": not a folder (use --input NAME=FILE.npy for a file)";
      return false;
    }
  }
  for (const auto &[name, path] : options.inputFiles)
    if (std::none_of(entry.params.begin(), entry.params.end(),
                     [&](const TensorSpec &p) { return p.name == name; })) {
      std::string names;
      for (const TensorSpec &p : entry.params)
        names += (names.empty() ? "" : ", ") + p.name;
      error = "input " + name + "=" + path + ": '" + entry.function +
              "' has no parameter '" + name + "' (its parameters are " +
              names + ")";
      return false;
    }
  for (size_t i = 0; i < entry.params.size(); ++i) {
    const TensorSpec &param = entry.params[i];
    std::string path;
    auto it = options.inputFiles.find(param.name);
    if (it != options.inputFiles.end())
      path = it->second;
    else if (!options.inputDir.empty() &&
             fileExists(options.inputDir + "/" + param.name + ".npy"))
      path = options.inputDir + "/" + param.name + ".npy";
    NpyArray array;
    if (!path.empty()) {
      if (!readNpy(path, array, error))
        return false;
      bool convertible = array.dtype != param.dtype &&
                         array.shape == param.shape &&
                         canConvert(array.dtype, param.dtype);
      bool converting = options.convertInputs && convertible;
      if ((array.dtype != param.dtype && !converting) ||
          array.shape != param.shape) {
        error = "parameter '" + param.name + "' of '" + entry.function +
                "' is " + describeArray(param.dtype, param.shape) + " but " +
                path + " holds " + describeArray(array.dtype, array.shape);
        if (convertible)
          error += " (--convert-inputs converts it)";
        else if (options.convertInputs && array.shape == param.shape)
          error += " (--convert-inputs converts floats to floats and "
                   "integers to integers only)";
        return false;
      }
      DType given = array.dtype;
      if (converting && !convert(array, param.dtype, path, error))
        return false;
      out << "input " << param.name << ": " << path;
      if (converting)
        out << " (" << getDTypeName(given) << ", converted to "
            << getDTypeName(param.dtype) << ")";
      out << "\n";
    } else if (isIntegerDType(param.dtype)) {
      // Zeros, not random integers: token ids index tables, and zero is
      // in range of every one that is not empty.
      array.dtype = param.dtype;
      array.shape = param.shape;
      array.data.assign(size_t(param.getByteSize()), 0);
      out << "input " << param.name << ": zeros "
          << describeArray(param.dtype, param.shape)
          << " (integers are not drawn at random)\n";
    } else {
      array.dtype = param.dtype;
      array.shape = param.shape;
      array.data.resize(size_t(param.getByteSize()));
      std::mt19937_64 generator(options.seed * 1000003 + i);
      std::uniform_real_distribution<double> uniform(-0.5, 0.5);
      size_t size = getDTypeSize(param.dtype);
      for (int64_t e = 0; e < param.getNumElements(); ++e)
        storeFromDouble(array.data.data() + e * int64_t(size), param.dtype,
                        uniform(generator));
      out << "input " << param.name << ": random "
          << describeArray(param.dtype, param.shape) << " (seed "
          << options.seed << ")\n";
    }
    inputs.push_back(std::move(array));
  }
  return true;
}

/// The summary of an integer result: its values exactly, as integers (an
/// i64's may not survive a double), and their mean.
void summarizeIntegers(const NpyArray &array, std::ostream &out) {
  size_t size = getDTypeSize(array.dtype);
  int64_t count = array.getNumElements();
  auto at = [&](int64_t i) {
    return loadAsInt64(array.data.data() + i * int64_t(size), array.dtype);
  };
  if (array.shape.empty()) {
    out << " = " << at(0) << "\n";
    return;
  }
  if (count == 0) {
    out << " (no elements)\n";
    return;
  }
  double sum = 0;
  int64_t lo = at(0), hi = at(0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t v = at(i);
    sum += double(v);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  out << " mean=" << format("%.6g", sum / double(count)) << " min=" << lo
      << " max=" << hi << " first=[";
  for (int64_t i = 0; i < std::min<int64_t>(count, 4); ++i)
    out << (i ? ", " : "") << at(i);
  out << (count > 4 ? ", ...]\n" : "]\n");
}

void summarize(const std::string &name, const NpyArray &array,
               std::ostream &out) {
  out << name << ": " << describeArray(array.dtype, array.shape);
  if (isIntegerDType(array.dtype))
    return summarizeIntegers(array, out);
  size_t size = getDTypeSize(array.dtype);
  int64_t count = array.getNumElements();
  auto at = [&](int64_t i) {
    return loadAsDouble(array.data.data() + i * int64_t(size), array.dtype);
  };
  if (array.shape.empty()) {
    out << " = " << format("%.9g", at(0)) << "\n";
    return;
  }
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 0; i < count; ++i) {
    double v = at(i);
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  out << " mean=" << format("%.6g", sum / double(count))
      << " min=" << format("%.6g", lo) << " max=" << format("%.6g", hi)
      << " first=[";
  for (int64_t i = 0; i < std::min<int64_t>(count, 4); ++i)
    out << (i ? ", " : "") << format("%.6g", at(i));
  out << (count > 4 ? ", ...]\n" : "]\n");
}

} // namespace

/// The allocation trace of one call as chrome://tracing JSON: a counter of
/// the call's live bytes, in microseconds from the call's start.
static bool writeMemoryTrace(const std::string &path, double start,
                             int64_t baseBytes, std::string &error) {
  std::ostringstream json;
  const tad_rt_trace_event *events = tad_rt_trace_data();
  size_t count = tad_rt_trace_size();
  json << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  json << "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, "
          "\"args\": {\"name\": \"tad runtime allocator\"}}";
  for (size_t i = 0; i < count; ++i)
    json << ",\n  {\"name\": \"live bytes\", \"ph\": \"C\", \"pid\": 1, "
            "\"ts\": "
         << format("%.3f", (events[i].seconds - start) * 1e6)
         << ", \"args\": {\"measured\": "
         << events[i].live_bytes - baseBytes << "}}";
  json << "\n]}\n";
  return writeTextFile(path, json.str(), error);
}

/// `path` with every `%r` replaced by this process's rank, so that the
/// processes of an MPI run read and write files of their own; as it is in
/// programs without collectives.
static std::string forThisProcess(std::string path) {
  if (!tad_rt_processes_known())
    return path;
  std::string rank = std::to_string(tad_rt_process_rank());
  for (size_t at = path.find("%r"); at != std::string::npos;
       at = path.find("%r", at + rank.size()))
    path.replace(at, 2, rank);
  return path;
}

bool tad::rt::runEntry(const EntrySpec &entry, PackedFunction function,
                       const RunOptions &givenOptions, std::ostream &out,
                       std::string &error) {
  RunOptions options = givenOptions;
  options.inputDir = forThisProcess(options.inputDir);
  for (auto &named : options.inputFiles)
    named.second = forThisProcess(named.second);
  options.outputDir = forThisProcess(options.outputDir);
  options.statsJson = forThisProcess(options.statsJson);
  options.memoryTrace = forThisProcess(options.memoryTrace);
  if (options.cuda && tad_rt_cuda_begin() != 0) {
    error = tad_rt_cuda_error();
    return false;
  }
  // The folders the results and measurements go to exist before the
  // computation, so that a path that cannot be written fails at once.
  if ((!options.outputDir.empty() && !makeFolders(options.outputDir, error)) ||
      (!options.statsJson.empty() &&
       !makeParentFolders(options.statsJson, error)) ||
      (!options.memoryTrace.empty() &&
       !makeParentFolders(options.memoryTrace, error)))
    return false;
  std::vector<NpyArray> inputs;
  if (!loadInputs(entry, options, inputs, out, error))
    return false;
  if (options.threads)
    tad_rt_set_num_threads(int(options.threads));

  // One buffer holds every result descriptor back to back (the C
  // interface's result struct); each input has its own descriptor.
  size_t resultWords = 0;
  for (const TensorSpec &r : entry.results)
    resultWords += getDescriptorWords(r.shape.size());
  std::vector<int64_t> results(resultWords);
  std::vector<std::vector<int64_t>> descriptors;
  // On the GPU, inputs are copied to memory it can read (outside the
  // allocator's counts, as the caller's memory is on the CPU).
  std::vector<std::unique_ptr<void, void (*)(void *)>> staged;
  for (NpyArray &input : inputs) {
    staged.emplace_back(
        tad_rt_stage_input(input.data.data(), input.data.size()),
        options.cuda ? tad_rt_unstage_input : +[](void *) {});
    descriptors.push_back(makeDescriptor(staged.back().get(), input.shape));
  }

  unsigned calls = std::max(1u, options.repeat);
  std::vector<double> seconds;
  tad_rt_stats before{}, after{};
  for (unsigned call = 0; call < calls; ++call) {
    void *resultPtr = results.data();
    std::vector<void *> pointers, args;
    for (auto &d : descriptors)
      pointers.push_back(d.data());
    // A function without results has no result parameter.
    if (!entry.results.empty())
      args.push_back(&resultPtr);
    for (void *&p : pointers)
      args.push_back(&p);

    bool last = call + 1 == calls;
    if (last && !options.memoryTrace.empty())
      tad_rt_trace_enable(1);
    tad_rt_reset_peak();
    before = tad_rt_get_stats();
    double start = tad_rt_now_seconds();
    function(args.data());
    seconds.push_back(tad_rt_now_seconds() - start);
    after = tad_rt_get_stats();
    if (last && !options.memoryTrace.empty()) {
      tad_rt_trace_enable(0);
      if (!writeMemoryTrace(options.memoryTrace, start,
                            before.current_bytes, error))
        return false;
    }

    size_t offset = 0;
    // The results appear together or not at all: each is written under a
    // temporary name, and renamed only when every one has been written.
    std::vector<std::unique_ptr<OutputFile>> files;
    for (const TensorSpec &spec : entry.results) {
      const int64_t *words = results.data() + offset;
      offset += getDescriptorWords(spec.shape.size());
      if (!last)
        continue;
      NpyArray array = copyFromDescriptor(words, spec.dtype, spec.shape);
      summarize(spec.name, array, out);
      if (options.outputDir.empty())
        continue;
      files.push_back(std::make_unique<OutputFile>());
      if (!files.back()->open(options.outputDir + "/" + spec.name + ".npy",
                              error) ||
          !writeNpy(*files.back(), array, error) ||
          !files.back()->finish(error))
        return false;
    }
    for (std::unique_ptr<OutputFile> &file : files)
      if (!file->commit(error))
        return false;
    // Results that alias each other are freed once; a result that is not
    // the runtime's (an input) is not freed at all.
    std::set<void *> freed;
    offset = 0;
    for (const TensorSpec &spec : entry.results) {
      void *allocated = getAllocatedPointer(results.data() + offset);
      offset += getDescriptorWords(spec.shape.size());
      if (tad_rt_owns(allocated) && freed.insert(allocated).second)
        tad_rt_free(allocated);
    }
  }

  int64_t peak = after.peak_bytes - before.current_bytes;
  int64_t live = after.current_bytes - before.current_bytes;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2];
  out << "time: " << format("%.6f", median) << " s median of "
      << seconds.size() << " call(s), min " << format("%.6f", sorted[0])
      << " s\n";
  out << "memory: peak " << peak << " bytes, live after the call " << live
      << " bytes, " << after.allocations << " allocations\n";
  if (entry.plannedPeak >= 0)
    out << "plan: peak " << (entry.plannedPeakIsBound ? "at most " : "")
        << entry.plannedPeak << " bytes\n";
  // What the last call did on the GPU (or in the emulator): nothing on the
  // CPU.
  tad_rt_gpu_counts gpu = tad_rt_get_gpu_counts();
  bool onGpu = options.cuda || gpu.kernel_launches || gpu.blas_calls;
  if (onGpu) {
    out << "gpu: " << gpu.kernel_launches << " kernel launches, "
        << gpu.blas_calls << " cuBLAS calls, " << gpu.synchronizations
        << " synchronizations, " << gpu.staged_bytes
        << " bytes of inputs staged, " << gpu.scratch_bytes
        << " bytes of scratch, " << gpu.device_bytes
        << " bytes in device memory, " << gpu.copied_bytes << " bytes copied";
    // Graphs only where they are enabled (TAD_CUDA_GRAPHS).
    if (gpu.graph_launches)
      out << ", " << gpu.graph_launches << " graphs launched";
    out << "\n";
  }
  // Only code compiled with --count-revolve-actions counts (the last call).
  int64_t revolve[4];
  tad_rt_revolve_counts(revolve);
  if (revolve[0] || revolve[1] || revolve[2] || revolve[3])
    out << "revolve: " << revolve[0] << " stores, " << revolve[1]
        << " restores, " << revolve[2] << " advances, " << revolve[3]
        << " reverses after the first sweep\n";

  if (!options.statsJson.empty()) {
    std::ostringstream json;
    json << "{\n  \"entry\": \"" << entry.function << "\",\n"
         << "  \"results\": [";
    // The names of the result files, in the function's order.
    for (size_t i = 0; i < entry.results.size(); ++i)
      json << (i ? ", " : "") << "\"" << entry.results[i].name << "\"";
    json << "],\n  \"calls\": " << seconds.size() << ",\n  \"wall_seconds\": [";
    for (size_t i = 0; i < seconds.size(); ++i)
      json << (i ? ", " : "") << format("%.9f", seconds[i]);
    json << "],\n  \"median_seconds\": " << format("%.9f", median)
         << ",\n  \"peak_bytes\": " << peak
         << ",\n  \"live_bytes_after\": " << live;
    if (entry.plannedPeak >= 0)
      json << ",\n  \"planned_peak_bytes\": " << entry.plannedPeak
           << ",\n  \"planned_peak_exact\": "
           << (entry.plannedPeakIsBound ? "false" : "true");
    if (tad_rt_processes_known())
      json << ",\n  \"rank\": " << tad_rt_process_rank()
           << ",\n  \"processes\": " << tad_rt_process_count();
    json << ",\n  \"kernel_launches\": " << gpu.kernel_launches
         << ",\n  \"blas_calls\": " << gpu.blas_calls
         << ",\n  \"synchronizations\": " << gpu.synchronizations
         << ",\n  \"staged_bytes\": " << gpu.staged_bytes
         << ",\n  \"scratch_bytes\": " << gpu.scratch_bytes
         << ",\n  \"device_bytes\": " << gpu.device_bytes
         << ",\n  \"copied_bytes\": " << gpu.copied_bytes
         << ",\n  \"graph_launches\": " << gpu.graph_launches;
    json << ",\n  \"allocations\": " << after.allocations
         << ",\n  \"blas_core\": \"" << tad_rt_blas_core() << "\"\n}\n";
    if (!writeTextFile(options.statsJson, json.str(), error))
      return false;
  }
  return true;
}

bool tad::rt::parseRunArguments(int argc, char **argv, RunOptions &options,
                                std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    auto takeValue = [&](const std::string &flag) {
      if (arg.rfind(flag + "=", 0) == 0) {
        value = arg.substr(flag.size() + 1);
        return true;
      }
      if (arg == flag) {
        if (i + 1 >= argc) {
          error = flag + " needs a value";
          return false;
        }
        value = argv[++i];
        return true;
      }
      return false;
    };
    // Digits only (strtoull would take "-1" as 2^64 - 1), at most `max`.
    auto number = [&](uint64_t &out, uint64_t max) {
      bool digits = !value.empty() &&
                    value.find_first_not_of("0123456789") == std::string::npos;
      errno = 0;
      out = digits ? std::strtoull(value.c_str(), nullptr, 10) : 0;
      if (!digits) {
        error = arg + ": expected a non-negative integer, got '" + value + "'";
        return false;
      }
      if (errno == ERANGE || out > max) {
        error = arg + ": " + value + " is more than the largest allowed, " +
                std::to_string(max);
        return false;
      }
      return true;
    };
    uint64_t n;
    if (takeValue("--inputs")) {
      options.inputDir = value;
    } else if (takeValue("--input")) {
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
        error = "--input expects NAME=FILE.npy, got '" + value + "'";
        return false;
      }
      options.inputFiles[value.substr(0, eq)] = value.substr(eq + 1);
    } else if (takeValue("--output-dir")) {
      options.outputDir = value;
    } else if (takeValue("--stats-json")) {
      options.statsJson = value;
    } else if (takeValue("--memory-trace")) {
      options.memoryTrace = value;
    } else if (arg == "--convert-inputs") {
      options.convertInputs = true;
    } else if (takeValue("--seed")) {
      if (!number(n, UINT64_MAX))
        return false;
      options.seed = n;
    } else if (takeValue("--repeat")) {
      // As tadc run's --repeat: an unsigned 32-bit count.
      if (!number(n, UINT32_MAX))
        return false;
      options.repeat = unsigned(n);
    } else if (takeValue("--threads")) {
      if (!number(n, kMaxThreads))
        return false;
      options.threads = unsigned(n);
    } else if (!error.empty()) {
      return false;
    } else {
      error = "unknown argument '" + arg +
              "'; the arguments are --inputs DIR, --input NAME=FILE.npy, "
              "--convert-inputs, --output-dir DIR, --seed N, --repeat N, "
              "--threads N, --stats-json FILE, --memory-trace FILE";
      return false;
    }
  }
  return true;
}
