#include "05_block_grid/bench/ragged.hpp"

#include <cuda/std/version>  // CCCL_VERSION

#include <algorithm>
#include <cmath>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>

#include "05_block_grid/bench/ragged_offsets.hpp"
#include "05_block_grid/tcu_device.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "05_block_grid/bench/cub_call.cuh"
#include "common/tensor_core/launch.hpp"
#include "common/throughput.hpp"

#if CCCL_VERSION >= 3003000
#define TCU_HAVE_CUB_SEGMENTED_SCAN 1
#include <cub/device/device_segmented_scan.cuh>
#else
#define TCU_HAVE_CUB_SEGMENTED_SCAN 0
#endif

namespace tcu::bench::device {

bool cub_segmented_scan_available() { return TCU_HAVE_CUB_SEGMENTED_SCAN; }

namespace {

struct Job {
  std::string algo;
  bool baseline;
  bool writes_gaps;  // scan-by-key writes every element
  std::function<cudaError_t(void* out, cudaStream_t)> run;
};

// Per segment against FP64: sums (reduce) or every element's inclusive prefix (scan; the prefix
// before it when exclusive); elements outside every segment must still hold the poison (scans).
// fp16 outputs: prefixes above 65504 are not checked (they do not fit).
template <class T>
VerifyResult check_ragged(const std::vector<__half>& x, const RaggedSegments& seg, const std::vector<T>& got, bool reduce,
                          bool exclusive, const Tolerance& tol, bool check_gaps, std::int64_t& unchecked) {
  VerifyResult r;
  unchecked = 0;
  auto compare = [&](std::int64_t i, double want, double mag) {
    const double g = to_double(got[static_cast<std::size_t>(i)]);
    ++r.count;
    if (!std::isfinite(g)) {
      ++r.non_finite;
    } else {
      const double err = std::fabs(g - want);
      r.max_rel_err = std::max(r.max_rel_err, err / std::max(std::fabs(want), mag > 0 ? mag : 1.0));
      if (err > tol.bound(want, mag)) ++r.mismatches;
    }
    if ((!std::isfinite(g) || std::fabs(g - want) > tol.bound(want, mag)) && r.first_bad < 0) {
      r.first_bad = i;
      r.got_at_first_bad = g;
      r.want_at_first_bad = want;
    }
  };
  std::int64_t covered_to = 0, gap_writes = 0;
  for (std::int64_t s = 0; s < seg.num_segments(); ++s) {
    const std::int64_t b = seg.begin[s], e = std::max(seg.end[s], b);
    if (!reduce && check_gaps)
      for (std::int64_t i = covered_to; i < b; ++i) gap_writes += !std::isnan(to_double(got[static_cast<std::size_t>(i)]));
    Fp64Sum acc, mag;
    auto prefix_at = [&](std::int64_t i) {  // element i's result: the prefix so far
      if (sizeof(T) == 2 && std::fabs(acc.value()) > 65504.0) ++unchecked;
      else compare(i, acc.value(), mag.value());
    };
    for (std::int64_t i = b; i < e; ++i) {
      const double v = to_double(x[static_cast<std::size_t>(i)]);
      if (!reduce && exclusive) prefix_at(i);
      acc.add(v);
      mag.add(std::fabs(v));
      if (!reduce && !exclusive) prefix_at(i);
    }
    if (reduce) compare(s, acc.value(), mag.value());
    covered_to = std::max(covered_to, e);
  }
  if (!reduce && check_gaps)
    for (std::int64_t i = covered_to; i < seg.n; ++i) gap_writes += !std::isnan(to_double(got[static_cast<std::size_t>(i)]));
  r.mismatches += static_cast<std::size_t>(gap_writes);
  r.pass = r.mismatches == 0 && r.non_finite == 0;
  return r;
}

}  // namespace

Report run_ragged_benchmarks(const RaggedOptions& o, double read_gbps, double copy_gbps) {
  Report rep{Table({{"op"}, {"distribution"}, {"mean_length", "%.1f"}, {"num_segments"}, {"n"}, {"algo"},
                    {"out_type"}, {"ms", "%.4f"}, {"gelem_per_s", "%.1f"}, {"pct_of_limit", "%.1f"},
                    {"max_rel_err", "%.2e"}, {"pass"}})};
  const std::vector<std::string> dists = o.distributions.empty() ? ragged_distributions() : o.distributions;
  const bool only_cub = o.baselines_only == "cub";
  rep.notes.push_back("cub_scan_by_key: its keys (one int per element) are built and uploaded outside the timing");
  if (!cub_segmented_scan_available())
    rep.notes.push_back("cub_segmented_scan: not in this build's CCCL (needs 3.3 or newer)");
  const bool exclusive = o.op == "exclusive_scan";
  const bool reduces = o.op == "all" || o.op == "reduce", scans = o.op != "reduce";
  const std::string scan_op = exclusive ? "exclusive_scan" : "scan";
  // rows per distribution: reduce (auto, CUB), scan fp32 (auto, scan-by-key, CUB's segmented scan), scan fp16 (auto)
  const int api = only_cub ? 0 : 1, cub = o.only_api ? 0 : 1, cub_scans = cub * (cub_segmented_scan_available() ? 2 : 1);
  const int rows = (reduces ? api + cub : 0) + (scans ? api + cub_scans + (o.fp16_scan ? api : 0) : 0);
  Progress progress("05_block_grid --ragged", static_cast<int>(dists.size()) * rows, o.progress);
  for (const std::string& dist : dists) {
    const RaggedSegments seg = make_ragged_segments(dist, o.n, o.seed);
    const std::int64_t ns = seg.num_segments(), n = seg.n;
    DeviceBuffer<__half> in(static_cast<std::size_t>(n));
    fill_device(in.data(), static_cast<std::size_t>(n), o.dist, o.seed);
    std::vector<__half> x;
    if (o.verify) {
      x.resize(static_cast<std::size_t>(n));
      fill_host(x.data(), x.size(), o.dist, o.seed);
    }
    std::vector<int> hb(seg.begin.begin(), seg.begin.end()), he(seg.end.begin(), seg.end.end());
    DeviceBuffer<int> db(static_cast<std::size_t>(ns) + 1), de(static_cast<std::size_t>(ns) + 1);
    TCU_CUDA_CHECK(cudaMemcpy(db.data(), hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    TCU_CUDA_CHECK(cudaMemcpy(de.data(), he.data(), he.size() * 4, cudaMemcpyHostToDevice));
    // scan-by-key's keys: the segment index; the gap after segment s gets -(s + 1)
    DeviceBuffer<int> keys(scans && !o.only_api ? static_cast<std::size_t>(n) : 0);
    if (keys.size() > 0) {
      std::vector<int> k(static_cast<std::size_t>(n), -1);
      for (std::int64_t s = 0; s < ns; ++s) {
        const std::int64_t stop = s + 1 < ns ? seg.begin[s + 1] : n;
        for (std::int64_t i = seg.begin[s]; i < stop; ++i) k[i] = i < seg.end[s] ? static_cast<int>(s) : -static_cast<int>(s) - 1;
      }
      TCU_CUDA_CHECK(cudaMemcpy(keys.data(), k.data(), k.size() * 4, cudaMemcpyHostToDevice));
    }
    const __half* d_in = in.data();
    const int* b = db.data();
    const int* e = de.data();
    auto vals = thrust::make_transform_iterator(d_in, HalfToFloat{});
    for (int variant = 0; variant < (o.fp16_scan ? 3 : 2); ++variant) {
      const bool reduce = variant == 0, fp16 = variant == 2;
      if (reduce ? !reduces : !scans) continue;
      std::vector<Job> jobs;
      if (reduce) {
        jobs.push_back({"auto", false, false, [&](void* out, cudaStream_t st) {
                          return DeviceSegmentedReduce::Sum(d_in, static_cast<float*>(out), ns, b, e, st);
                        }});
        jobs.push_back({"cub_segmented_reduce", true, false, [&](void* out, cudaStream_t st) {
                          return with_temp([&](void* t, std::size_t& bytes) {
                            return cub::DeviceSegmentedReduce::Reduce(t, bytes, vals, static_cast<float*>(out), ns, b, e,
                                                                      ::cuda::std::plus<float>{}, 0.0f, st);
                          }, st);
                        }});
      } else if (fp16) {
        jobs.push_back({"auto", false, false, [&](void* out, cudaStream_t st) {
                          __half* o = static_cast<__half*>(out);
                          return exclusive ? DeviceSegmentedScan::ExclusiveSum(d_in, o, ns, b, e, st)
                                           : DeviceSegmentedScan::InclusiveSum(d_in, o, ns, b, e, st);
                        }});
      } else {
        jobs.push_back({"auto", false, false, [&](void* out, cudaStream_t st) {
                          float* o = static_cast<float*>(out);
                          return exclusive ? DeviceSegmentedScan::ExclusiveSum(d_in, o, ns, b, e, st)
                                           : DeviceSegmentedScan::InclusiveSum(d_in, o, ns, b, e, st);
                        }});
        jobs.push_back({"cub_scan_by_key", true, true, [&](void* out, cudaStream_t st) {
                          return with_temp([&](void* t, std::size_t& bytes) {
                            float* o = static_cast<float*>(out);
                            return exclusive
                                       ? cub::DeviceScan::ExclusiveScanByKey(t, bytes, keys.data(), vals, o,
                                                                             ::cuda::std::plus<float>{}, 0.0f, n,
                                                                             ::cuda::std::equal_to<int>{}, st)
                                       : cub::DeviceScan::InclusiveScanByKey(t, bytes, keys.data(), vals, o,
                                                                             ::cuda::std::plus<float>{}, n,
                                                                             ::cuda::std::equal_to<int>{}, st);
                          }, st);
                        }});
#if TCU_HAVE_CUB_SEGMENTED_SCAN
        jobs.push_back({"cub_segmented_scan", true, false, [&](void* out, cudaStream_t st) {
                          return with_temp([&](void* t, std::size_t& bytes) {
                            float* o = static_cast<float*>(out);
                            return exclusive ? cub::DeviceSegmentedScan::ExclusiveSegmentedScan(
                                                   t, bytes, vals, o, b, e, ns, ::cuda::std::plus<float>{}, 0.0f, st)
                                             : cub::DeviceSegmentedScan::InclusiveSegmentedScan(
                                                   t, bytes, vals, o, b, e, ns, ::cuda::std::plus<float>{}, st);
                          }, st);
                        }});
#endif
      }
      const std::size_t out_elem = fp16 ? 2 : 4;
      const std::size_t out_count = static_cast<std::size_t>(reduce ? ns : n);
      DeviceBuffer<unsigned char> out(std::max<std::size_t>(out_count * out_elem, 16));
      const double bytes = static_cast<double>(seg.covered) * 2.0 + static_cast<double>(ns) * 8.0 +
                           (reduce ? static_cast<double>(ns) * 4.0 : static_cast<double>(seg.covered) * out_elem);
      const double limit = reduce ? read_gbps : copy_gbps;
      for (const Job& job : jobs) {
        if ((only_cub && job.algo.rfind("cub_", 0) != 0) || (o.only_api && job.baseline)) continue;
        progress.step((reduce ? std::string("reduce ") : scan_op + " ") + dist + " " + job.algo + (fp16 ? " fp16" : ""));
        std::string pass = "n/a";
        double max_rel = 0;
        if (o.verify) {
          poison_device(out.data(), out.bytes());
          TCU_CUDA_CHECK(job.run(out.data(), 0));
          TCU_CUDA_CHECK(cudaDeviceSynchronize());
          const Tolerance tol = o.dist == Dist::integers && !fp16 ? exact_tolerance()
                                : reduce ? reduce_tolerance(std::max<std::int64_t>(seg.max_length, 1))
                                         : scan_tolerance(std::max<std::int64_t>(seg.max_length, 1), fp16);
          std::int64_t unchecked = 0;
          VerifyResult r;
          if (fp16) {
            std::vector<__half> got(out_count);
            TCU_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), out_count * 2, cudaMemcpyDeviceToHost));
            r = check_ragged(x, seg, got, reduce, exclusive, tol, !job.writes_gaps, unchecked);
          } else {
            std::vector<float> got(out_count);
            TCU_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), out_count * 4, cudaMemcpyDeviceToHost));
            r = check_ragged(x, seg, got, reduce, exclusive, tol, !job.writes_gaps, unchecked);
          }
          if (unchecked > 0)
            rep.notes.push_back(scan_op + " " + dist + " " + job.algo + " fp16: " + std::to_string(unchecked) +
                                " prefixes above 65504 (fp16's largest value) not checked");
          pass = r.pass ? "PASS" : job.baseline ? "FAIL (baseline)" : "FAIL";
          max_rel = r.max_rel_err;
          if (!r.pass) {
            if (!job.baseline) rep.all_passed = false;
            rep.notes.push_back((reduce ? std::string("reduce ") : scan_op + " ") + dist + " " + job.algo + ": " + r.summary());
          }
        }
        const TimingStats t = time_on_device([&](cudaStream_t st) { TCU_CUDA_CHECK(job.run(out.data(), st)); }, o.timing);
        rep.table.add_row({reduce ? std::string("reduce") : scan_op, dist, seg.mean_length(), ns, n, job.algo,
                           std::string(fp16 ? "fp16" : "fp32"), t.median_ms, gelem_per_s(seg.covered, t.median_ms),
                           percent_of(gb_per_s(bytes, t.median_ms), limit), o.verify ? Cell(max_rel) : Cell(), pass});
      }
    }
  }
  return rep;
}

}  // namespace tcu::bench::device
