#include "06_jetson_unified_memory/mode_support.cuh"

#include <string>

#include "05_block_grid/tcu_device.cuh"

namespace tcu::unified_memory::detail {

namespace {
const Workload& checked(const Workload& w) {
  if (w.n < 1) throw std::invalid_argument("a workload needs at least one element, not " + std::to_string(w.n));
  return w;
}
}  // namespace

GpuRun::GpuRun(const Workload& w) : w_(checked(w)) { clock_.start(); }

void GpuRun::fill(__half* host_visible_input) {
  fill_host_parallel(host_visible_input, static_cast<std::size_t>(w_.n), w_.dist, w_.seed);
  clock_.end_phase(Phase::fill);
}

void GpuRun::reduce(const __half* d_in, float* d_out) {
  events_.start(stream_.get());
  TCU_CUDA_CHECK(tcu::DeviceReduce::Sum(d_in, d_out, w_.n, stream_.get()));
  events_.stop(stream_.get());
  TCU_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  clock_.end_phase(Phase::kernel);
  kernel_event_ms_ = events_.elapsed_ms();
}

RunOutcome GpuRun::finish(double sum) {
  RunOutcome out;
  out.times = clock_.finish();
  out.times.kernel_event_ms = kernel_event_ms_;
  out.sum = sum;
  return out;
}

}  // namespace tcu::unified_memory::detail
