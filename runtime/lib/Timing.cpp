//===- Timing.cpp - clocks for --repeat and benchmarks --------------------===//

#include "tad/runtime/Runtime.h"

#include <chrono>

extern "C" double tad_rt_now_seconds(void) {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}
