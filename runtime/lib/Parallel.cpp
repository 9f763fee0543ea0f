//===- Parallel.cpp - tad_rt_parallel_for: loop nests on several threads --===//
//
// tad-parallelize-calls turns each loop nest whose outer iterations are
// independent into tad_rt_parallel_for(task, context, lo, hi), and
// Matmul.cpp cuts large GEMMs with it. The range is cut into contiguous
// parts, four per thread, which the calling thread and a pool of workers
// claim one at a time; the call returns when all are done. The caller
// claims parts too, so a worker that another process keeps off its core
// costs the call nothing: with the caller waiting for a worker's fixed
// half instead, a transformer step on 2 cores with one other busy process
// took 400 to 900 ms, against 27 ms alone.
//
// A step calls it some hundreds of times, for parts of tens of
// microseconds, so a worker waits for the next range by spinning (kSpin,
// yielding its core now and then) before it sleeps: waking a sleeping
// thread costs about as much as a small part.
//
// One range runs at a time: a call made while another thread's range runs
// (a library called from several threads), or from inside a part, runs its
// range on its own thread.
//
//===----------------------------------------------------------------------===//

#include "Parallel.h"

#include "tad/runtime/Runtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TAD_PAUSE() _mm_pause()
#else
#define TAD_PAUSE() ((void)0)
#endif

namespace {

using Task = tad::rt::ParallelTask;

thread_local bool inRange = false; // this thread runs a part of a range

/// How long a worker spins for the next part before it sleeps.
constexpr std::chrono::microseconds kSpin{2000};

int getDefaultThreads() {
  if (tad::rt::isBlasShared())
    return 1;
  for (const char *name :
       {"TAD_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const char *value = std::getenv(name)) {
      int n = std::atoi(value);
      if (n > 0)
        return n;
    }
  return std::max(1u, std::thread::hardware_concurrency());
}

class Pool {
public:
  explicit Pool(int threads) : threads(threads) {
    for (int i = 1; i < threads; ++i)
      workers.emplace_back([this] { work(); });
  }

  ~Pool() {
    stopping.store(true);
    publish([] {});
    for (std::thread &worker : workers)
      worker.join();
  }

  int size() const { return threads; }

  /// Runs task(context, ...) on parts of [lo, hi) that this thread and the
  /// workers claim one by one, this thread too: a worker that is late (its
  /// core busy with another process) finds the parts done, and this thread
  /// waits only for parts that a worker has claimed.
  void run(Task task, void *context, int64_t lo, int64_t hi,
           int partsPerThread) {
    int64_t parts =
        std::min<int64_t>(hi - lo, int64_t(threads) * partsPerThread);
    publish([&] {
      job = {task, context, lo, hi, parts};
      nextPart.store(0);
      doneParts.store(0);
    });
    claimParts();
    for (int i = 0; doneParts.load(std::memory_order_acquire) < parts; ++i)
      relax(i);
  }

private:
  struct Job {
    Task task;
    void *context;
    int64_t lo, hi, parts;
  };

  /// A wait's turn `i`: a pause, and every 64th a yield, so that a thread
  /// that waits for one that is not running gives it the core.
  static void relax(int i) {
    TAD_PAUSE();
    if ((i & 63) == 63)
      std::this_thread::yield();
  }

  void claimParts() {
    const Job &j = job;
    for (int64_t part; (part = nextPart.fetch_add(1)) < j.parts;) {
      int64_t n = j.hi - j.lo;
      inRange = true;
      j.task(j.context, j.lo + n * part / j.parts,
             j.lo + n * (part + 1) / j.parts);
      inRange = false;
      doneParts.fetch_add(1, std::memory_order_release);
    }
  }

  /// Writes the next job with `write`, once no worker reads the last one:
  /// the generation is odd while it is written and even once published
  /// (a seqlock), and a worker counts itself in `active` before it reads.
  template <typename Write> void publish(Write write) {
    generation.fetch_add(1);
    for (int i = 0; active.load() != 0; ++i)
      relax(i);
    write();
    generation.fetch_add(1);
    if (sleepers.load() > 0) {
      std::lock_guard<std::mutex> lock(mutex);
      sleeping.notify_all();
    }
  }

  /// Waits for a published generation after `seen`: spins for kSpin, then
  /// sleeps (and leaves the cores to OpenBLAS and to other processes).
  uint64_t waitAfter(uint64_t seen) {
    auto ready = [&](uint64_t g) { return g != seen && g % 2 == 0; };
    auto start = std::chrono::steady_clock::now();
    for (int i = 0;; ++i) {
      uint64_t g = generation.load(std::memory_order_acquire);
      if (ready(g))
        return g;
      relax(i);
      if ((i & 255) == 255 && std::chrono::steady_clock::now() - start > kSpin)
        break;
    }
    std::unique_lock<std::mutex> lock(mutex);
    sleepers.fetch_add(1);
    sleeping.wait(lock, [&] { return ready(generation.load()); });
    sleepers.fetch_sub(1);
    return generation.load();
  }

  void work() {
    uint64_t seen = 0;
    while (true) {
      uint64_t g = waitAfter(seen);
      active.fetch_add(1);
      // Still that generation: the job may be read until `active` drops.
      if (generation.load() == g) {
        seen = g;
        if (stopping.load()) {
          active.fetch_sub(1);
          return;
        }
        claimParts();
      }
      active.fetch_sub(1);
    }
  }

  const int threads;
  std::vector<std::thread> workers;
  Job job{};
  std::atomic<uint64_t> generation{0};
  std::atomic<int64_t> nextPart{0}, doneParts{0};
  std::atomic<int> active{0};
  std::atomic<int> sleepers{0};
  std::atomic<bool> stopping{false};
  std::mutex mutex;
  std::condition_variable sleeping;
};

std::mutex poolMutex; // held while a range runs, and to replace the pool
Pool *pool = nullptr;
std::atomic<int> loopThreads{0}; // 0: not chosen yet
std::atomic<bool> loopThreadsSet{false};

/// Deletes the pool at exit, so that its workers are joined.
struct PoolOwner {
  ~PoolOwner() {
    std::lock_guard<std::mutex> lock(poolMutex);
    delete pool;
    pool = nullptr;
  }
} poolOwner;

} // namespace

void tad::rt::setLoopThreads(int threads) {
  loopThreads.store(std::max(1, threads));
  loopThreadsSet.store(true);
}

bool tad::rt::wereLoopThreadsSet() { return loopThreadsSet.load(); }

int tad::rt::getLoopThreads() {
  int threads = loopThreads.load();
  if (threads == 0) {
    int chosen = getDefaultThreads();
    loopThreads.compare_exchange_strong(threads, chosen);
    threads = loopThreads.load();
  }
  return threads;
}

void tad::rt::parallelForParts(Task task, void *context, int64_t lo, int64_t hi,
                               int partsPerThread) {
  if (hi <= lo)
    return;
  int threads = tad::rt::getLoopThreads();
  // A range from inside a part (a thread that may hold poolMutex) runs
  // alone, as does one while another thread's range runs.
  std::unique_lock<std::mutex> lock(poolMutex, std::defer_lock);
  if (threads < 2 || hi - lo < 2 || inRange || !lock.try_lock()) {
    task(context, lo, hi);
    return;
  }
  if (!pool || pool->size() != threads) {
    delete pool;
    pool = new Pool(threads);
  }
  pool->run(task, context, lo, hi, partsPerThread);
}

extern "C" void tad_rt_parallel_for(Task task, void *context, int64_t lo,
                                    int64_t hi) {
  // Four parts a thread: a loop nest's parts cost the same, but a worker
  // may start late, and the others then share its parts.
  tad::rt::parallelForParts(task, context, lo, hi, 4);
}
