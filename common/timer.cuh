#pragma once
// Timing device work with CUDA events: warm-up runs first (module load, first-touch, clocks),
// then `repeat` timed runs, each bracketed by its own pair of events; the median is reported.
#include <cuda_runtime.h>

#include <chrono>
#include <vector>

#include "common/check.cuh"
#include "common/stats.hpp"

namespace tcu {

struct TimingConfig {
  int warmup = 3;  // 0: none at all (a profiler that wants exactly `repeat` launches)
  int repeat = 20;
  // Rounds of `warmup` runs go on until this much time has passed: a GPU left idle (while the
  // host checked the last results) lowers its clocks, and a few short calls do not raise them.
  double warmup_ms = 25.0;
};

class EventPair {
 public:
  EventPair() {
    TCU_CUDA_CHECK(cudaEventCreate(&start_));
    TCU_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  void start(cudaStream_t s) { TCU_CUDA_CHECK(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { TCU_CUDA_CHECK(cudaEventRecord(stop_, s)); }
  // Waits for the stop event; milliseconds between the two events.
  double elapsed_ms() {
    TCU_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    TCU_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

// Times `work(stream)` (which enqueues device work on `stream`). Throws on CUDA errors,
// including errors raised by the kernels themselves.
template <class Work>
TimingStats time_on_device(Work&& work, const TimingConfig& cfg, cudaStream_t stream = 0) {
  if (cfg.warmup > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    do {
      for (int i = 0; i < cfg.warmup; ++i) work(stream);
      TCU_CUDA_CHECK(cudaStreamSynchronize(stream));
    } while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() <
             cfg.warmup_ms);
  }
  TCU_CUDA_CHECK(cudaGetLastError());
  EventPair ev;
  const int repeat = cfg.repeat > 0 ? cfg.repeat : 1;
  std::vector<double> samples;
  samples.reserve(repeat);
  for (int i = 0; i < repeat; ++i) {
    ev.start(stream);
    work(stream);
    ev.stop(stream);
    samples.push_back(ev.elapsed_ms());
  }
  TCU_CUDA_CHECK(cudaGetLastError());
  return summarize(std::move(samples));
}

}  // namespace tcu
