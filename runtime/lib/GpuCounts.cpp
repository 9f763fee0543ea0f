//===- GpuCounts.cpp - what a call did on the GPU -------------------------===//
//
// The counts that tad_rt_get_gpu_counts() returns and `--stats-json`
// reports (docs/gpu.md). They are kept whatever the target: the emulator
// counts its launches here too, and on the CPU they stay zero.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include "tad/runtime/Runtime.h"

#include <atomic>

namespace {
std::atomic<int64_t> launches{0}, blasCalls{0}, synchronizations{0}, staged{0},
    copied{0}, graphLaunches{0};
} // namespace

void tad::rt::cuda::countLaunch() {
  launches.fetch_add(1, std::memory_order_relaxed);
}
void tad::rt::cuda::countBlasCall() {
  blasCalls.fetch_add(1, std::memory_order_relaxed);
}
void tad::rt::cuda::countSynchronization() {
  synchronizations.fetch_add(1, std::memory_order_relaxed);
}
void tad::rt::cuda::countGraphLaunch() {
  graphLaunches.fetch_add(1, std::memory_order_relaxed);
}
void tad::rt::cuda::countStaged(size_t bytes) {
  staged.fetch_add(int64_t(bytes), std::memory_order_relaxed);
}
void tad::rt::cuda::countCopied(size_t bytes) {
  copied.fetch_add(int64_t(bytes), std::memory_order_relaxed);
}
void tad::rt::cuda::resetCalls() {
  copied.store(0, std::memory_order_relaxed);
  launches.store(0, std::memory_order_relaxed);
  blasCalls.store(0, std::memory_order_relaxed);
  synchronizations.store(0, std::memory_order_relaxed);
  graphLaunches.store(0, std::memory_order_relaxed);
}

extern "C" {

tad_rt_gpu_counts tad_rt_get_gpu_counts(void) {
  return {launches.load(std::memory_order_relaxed),
          blasCalls.load(std::memory_order_relaxed),
          synchronizations.load(std::memory_order_relaxed),
          staged.load(std::memory_order_relaxed),
          tad::rt::cuda::scratchPeak(),
          tad::rt::cuda::deviceOnlyPeak(),
          copied.load(std::memory_order_relaxed),
          graphLaunches.load(std::memory_order_relaxed)};
}

void tad_rt_count_kernel_launch(void) { tad::rt::cuda::countLaunch(); }

void _mlir_ciface_tad_rt_count_kernel_launch(void) {
  tad::rt::cuda::countLaunch();
}

} // extern "C"
