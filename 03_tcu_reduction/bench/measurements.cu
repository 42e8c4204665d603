// The chapter's measurements beyond the sweep (measurements.hpp): accuracy study, energy.
#include "03_tcu_reduction/bench/measurements.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "03_tcu_reduction/bench/baselines.cuh"
#include "03_tcu_reduction/bench/energy_counter.hpp"
#include "03_tcu_reduction/tcu_reduction.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/segments.hpp"
#include "common/verify.hpp"

namespace tcu::bench::reduce {
namespace {

std::vector<__half> copy_to_host(const __half* d, std::size_t n) {
  std::vector<__half> h(n);
  if (n) TCU_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(__half), cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace

Table run_accuracy(const AccuracyOptions& opts) {
  Table t({{"algo"}, {"dist"}, {"n"}, {"rel_err", "%.3e"}, {"result", "%.8g"}, {"reference", "%.8g"}});
  const std::int64_t max_n = std::int64_t(1) << opts.hi;
  int total = 0;
  for (int e = opts.lo; e <= opts.hi; e += opts.step) total += 2;
  Progress progress("accuracy", total, opts.progress);
  DeviceBuffer<__half> input(static_cast<std::size_t>(max_n));
  DeviceBuffer<float> out(1);
  DeviceBuffer<__half> out16(1);
  CubTemp temp;
  for (Dist dist : {Dist::normal, Dist::uniform}) {
    fill_device(input.data(), static_cast<std::size_t>(max_n), dist, opts.seed);
    const std::vector<__half> h = copy_to_host(input.data(), static_cast<std::size_t>(max_n));
    Fp64Sum ref;
    std::int64_t done = 0;
    for (int e = opts.lo; e <= opts.hi; e += opts.step) {
      const std::int64_t n = std::int64_t(1) << e;
      for (; done < n; ++done) ref.add(__half2float(h[static_cast<std::size_t>(done)]));
      const double want = ref.value();
      auto row = [&](const std::string& name, double got) {
        t.add_row({name, std::string(dist_name(dist)), n, std::fabs(got - want) / std::fabs(want), got, want});
      };
      auto get = [&]() {
        float v = 0;
        TCU_CUDA_CHECK(cudaMemcpy(&v, out.data(), sizeof v, cudaMemcpyDeviceToHost));
        return static_cast<double>(v);
      };
      for (ReduceAlgorithm a : all_reduce_algorithms()) {
        if (!reduce_algorithm_supports(a, n)) continue;  // Reduction16/256: not a whole-array method
        // One segment = one warp for the strided 16N (16 steps per tile): seconds at 2^28.
        if (a == ReduceAlgorithm::reduction16n_strided && n > (std::int64_t(1) << 22)) continue;
        TCU_CUDA_CHECK(segmented_reduce_sum(a, input.data(), out.data(), 1, n));
        row(reduce_algorithm_name(a), get());
      }
      for (Baseline b : {Baseline::shuffle_16b, Baseline::cub_block_reduce}) {
        TCU_CUDA_CHECK(baseline_segmented_reduce_sum(b, temp, input.data(), out.data(), 1, n));
        row(baseline_name(b), get());
      }
      TCU_CUDA_CHECK(cub_reduce_fp32(temp, input.data(), out.data(), n));
      row("cub_reduce_fp32", get());
      TCU_CUDA_CHECK(cub_sum_fp16(temp, input.data(), out16.data(), n));
      __half h16;
      TCU_CUDA_CHECK(cudaMemcpy(&h16, out16.data(), sizeof h16, cudaMemcpyDeviceToHost));
      row("cub_sum_fp16", __half2float(h16));
      row("thrust_reduce", thrust_reduce(input.data(), n));
      progress.step(std::string(dist_name(dist)) + " n=2^" + std::to_string(e));
    }
  }
  return t;
}

Table run_energy(const EnergyOptions& opts, std::string& nvml_status) {
  Table t({{"algo"}, {"segment_size"}, {"n"}, {"ms", "%.4f"}, {"energy_nj_per_elem", "%.4f"}, {"avg_power_w", "%.1f"},
           {"inst_per_elem"}});
  const EnergyCounter counter(opts.device);
  nvml_status = counter.status();
  DeviceBuffer<__half> input(static_cast<std::size_t>(opts.n));
  fill_device(input.data(), static_cast<std::size_t>(opts.n), Dist::uniform, opts.seed);
  CubTemp temp;
  std::vector<SegmentedVariant> variants = segmented_variants(temp);
  for (std::int64_t s : opts.segment_sizes) {
    const std::int64_t ns = segment_count_for(opts.n, s);
    if (ns == 0) continue;
    DeviceBuffer<float> out(static_cast<std::size_t>(ns));
    for (const SegmentedVariant& v : variants) {
      if (v.name != "auto" && v.name != "cub_segmented_reduce" && v.name != "shuffle_16b") continue;
      auto work = [&](cudaStream_t st) { TCU_CUDA_CHECK(v.run(input.data(), out.data(), ns, s, st)); };
      const TimingStats ts = time_on_device(work, TimingConfig{3, 10});
      const int runs = static_cast<int>(std::clamp(opts.seconds * 1000.0 / std::max(ts.median_ms, 1e-3), 10.0, 1e5));
      TCU_CUDA_CHECK(cudaDeviceSynchronize());
      const double e0 = counter.millijoules();
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < runs; ++i) work(0);
      TCU_CUDA_CHECK(cudaDeviceSynchronize());
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double e1 = counter.millijoules();
      const double elems = static_cast<double>(runs) * static_cast<double>(ns * s);
      Cell nj, watts;
      if (counter.ok() && e1 > e0) {
        nj = (e1 - e0) * 1e6 / elems;  // mJ → nJ
        watts = (e1 - e0) / 1000.0 / secs;
      }
      t.add_row({v.name == "auto" ? std::string("tcu_auto") : v.name, s, ns * s, ts.median_ms, nj, watts, Cell()});
    }
  }
  return t;
}

}  // namespace tcu::bench::reduce
