// One size of the ladder: data, references, every variant run, verified and timed.
#include "02_gemm_variants/gemm_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <limits>

#include "02_gemm_variants/gemm_variants.cuh"
#include "common/check.cuh"
#include "common/check_cublas.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "common/timer.cuh"
#include "common/verify.hpp"

namespace tcu::gemm {
namespace {

class CublasHandle {
 public:
  CublasHandle() { TCU_CUBLAS_CHECK(cublasCreate(&h_)); }
  ~CublasHandle() { cublasDestroy(h_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_{};
};

// Element idx of a data set, rounded to fp16 exactly as fill_host/fill_device round it.
double operand_value(Dist d, std::uint64_t seed, std::uint64_t idx) {
  return to_double(from_double<__half>(sample_value(d, seed, idx)));
}

// The FP64 reference: every element (c, mag over M×N) or sampled elements (at idx).
struct Fp64Reference {
  bool full = false;
  std::vector<double> c, mag;
  std::vector<std::size_t> idx;
  std::vector<double> sc, smag;
};

Fp64Reference make_reference(const GemmProblem& p, const BenchOptions& o, std::uint64_t seed_a, std::uint64_t seed_b) {
  Fp64Reference r;
  const std::size_t m = p.m, n = p.n, k = p.k;
  if (p.flops() <= o.full_reference_max_flops) {
    r.full = true;
    std::vector<__half> a(m * k), b(k * n), bt(k * n);
    fill_host(a.data(), a.size(), o.dist, seed_a);
    fill_host(b.data(), b.size(), o.dist, seed_b);
    for (std::size_t pp = 0; pp < k; ++pp)  // Bᵀ, so that the reference reads both operands contiguously
      for (std::size_t j = 0; j < n; ++j) bt[j * k + pp] = b[pp * n + j];
    reference_gemm(a.data(), Layout::row_major, bt.data(), Layout::col_major, m, n, k, r.c, r.mag, k, k);
    return r;
  }
  // Sampled: the four corners (edge tiles) and pseudo-random elements.
  const std::size_t total = m * n;
  r.idx = {0, n - 1, (m - 1) * n, total - 1};
  for (int s = 0; static_cast<int>(r.idx.size()) < o.sampled_elements; ++s)
    r.idx.push_back(static_cast<std::size_t>(splitmix64(o.seed * 7919 + static_cast<std::uint64_t>(s)) % total));
  for (std::size_t e : r.idx) {
    const std::size_t i = e / n, j = e % n;
    double s = 0, sa = 0;
    for (std::size_t pp = 0; pp < k; ++pp) {
      const double prod = operand_value(o.dist, seed_a, i * k + pp) * operand_value(o.dist, seed_b, pp * n + j);
      s += prod;  // products of fp16 values are exact in double
      sa += std::fabs(prod);
    }
    r.sc.push_back(s);
    r.smag.push_back(sa);
  }
  return r;
}

struct CheckOutcome {
  bool pass = true;
  double max_rel_err = 0;
  std::string detail;
};

template <class T>
CheckOutcome check_result(const std::vector<T>& got, const Fp64Reference& ref, const std::vector<double>* cublas_c,
                          const std::vector<double>& mag_all, const Tolerance& own, const Tolerance& cublas_tol) {
  CheckOutcome out;
  VerifyResult fp64;
  if (ref.full) {
    fp64 = verify(got.data(), ref.c.data(), ref.mag.data(), got.size(), own);
  } else {
    std::vector<double> g;
    for (std::size_t e : ref.idx) g.push_back(to_double(got[e]));
    fp64 = verify_doubles(g.data(), ref.sc.data(), ref.smag.data(), g.size(), own);
  }
  out.max_rel_err = fp64.max_rel_err;
  out.pass = fp64.pass;
  if (!fp64.pass) out.detail = "vs FP64: " + fp64.summary() + " [" + own.rationale + "]";
  if (cublas_c != nullptr) {
    const Tolerance both = combine(own, cublas_tol);
    const VerifyResult vs = verify(got.data(), cublas_c->data(), mag_all.data(), got.size(), both);
    if (!vs.pass) {
      out.pass = false;
      out.detail += (out.detail.empty() ? "" : "; ") + std::string("vs cuBLAS: ") + vs.summary() + " [" +
                    both.rationale + "]";
    }
  }
  return out;
}

double host_ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Median time of `work`: the first (verified) run took first_ms; slow work is timed once more
// at most, fast work `repeat` times, never much more than the budget.
double time_gpu(const std::function<void(cudaStream_t)>& work, double first_ms, const BenchOptions& o) {
  const int reps = static_cast<int>(std::clamp(o.budget_ms / std::max(first_ms, 1e-3), 1.0, double(o.repeat)));
  TimingConfig cfg;
  cfg.repeat = reps;
  cfg.warmup = first_ms * o.warmup > o.budget_ms / 4 ? 0 : o.warmup;
  return time_on_device(work, cfg).median_ms;
}

double time_cpu(const std::function<void()>& work, double first_ms, const BenchOptions& o) {
  if (first_ms >= o.budget_ms) return first_ms;  // a slow CPU run is its own measurement
  const int reps = static_cast<int>(std::clamp(o.budget_ms / std::max(first_ms, 1e-3), 1.0, double(o.repeat)));
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    samples.push_back(host_ms_since(t0));
  }
  return summarize(samples).median_ms;
}

}  // namespace

std::vector<std::int64_t> sweep_sizes() { return {64, 128, 256, 512, 1024, 2048, 4096, 8192}; }

SizeResult run_size(const GemmProblem& p, const std::vector<std::string>& names, const BenchOptions& o) {
  SizeResult result;
  const std::size_t m = p.m, n = p.n, k = p.k, mn = m * n;
  const std::uint64_t seed_a = o.seed, seed_b = o.seed + 1;
  const bool integers = integer_valued(o.dist);

  std::vector<const VariantInfo*> chosen;
  bool need_fp32 = false;
  for (const VariantInfo& v : all_variants())
    if (v.id != VariantId::cublas_gemmex && std::find(names.begin(), names.end(), v.name) != names.end()) {
      chosen.push_back(&v);
      need_fp32 |= !v.fp16_operands;
    }
  int cc_major = 0, device = 0;
  TCU_CUDA_CHECK(cudaGetDevice(&device));
  TCU_CUDA_CHECK(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device));
  const std::string sm80_missing = sm80_steps_unavailable();  // empty: steps 10 and 11 run here
  const std::string sm90a_missing = hopper_steps_unavailable();  // empty: steps 12 and 13 run here

  // Operands: fp16 on the device (generated in place), fp32 copies of the same values.
  DeviceBuffer<__half> a16(m * k), b16(k * n);
  fill_device(a16.data(), m * k, o.dist, seed_a);
  fill_device(b16.data(), k * n, o.dist, seed_b);
  DeviceBuffer<float> a32, b32;
  if (need_fp32) {
    a32 = DeviceBuffer<float>(m * k);
    b32 = DeviceBuffer<float>(k * n);
    TCU_CUDA_CHECK(convert_half_to_float(a16.data(), a32.data(), m * k));
    TCU_CUDA_CHECK(convert_half_to_float(b16.data(), b32.data(), k * n));
  }
  DeviceBuffer<float> c(mn);
  DeviceBuffer<__half> c16;
  const GemmArgs<__half> args16 = packed_args(p, a16.data(), b16.data(), c.data());
  const GemmArgs<float> args32 = packed_args<float>(p, a32.data(), b32.data(), c.data());
  std::optional<CublasHandle> cublas;
  if (o.cublas) cublas.emplace();

  // References: FP64 (every or sampled element), cuBLAS GemmEx (every element) and the error
  // scale |A|·|B| of every element (FP64 when available, else GemmEx on |A|, |B|).
  Fp64Reference ref;
  std::vector<double> cublas_c, mag_all;
  double max_mag = 0;
  if (o.verify) {
    ref = make_reference(p, o, seed_a, seed_b);
    std::vector<float> tmp(mn);
    if (ref.full) {
      mag_all = ref.mag;
    } else {
      if (!o.cublas)
        throw std::invalid_argument("without cuBLAS only sizes with an FP64 reference of every element can be checked");
      DeviceBuffer<__half> abs_a(m * k), abs_b(k * n);
      TCU_CUDA_CHECK(absolute_values(a16.data(), abs_a.data(), m * k));
      TCU_CUDA_CHECK(absolute_values(b16.data(), abs_b.data(), k * n));
      poison_device(c.data(), c.bytes());
      TCU_CUBLAS_CHECK(cublas_gemmex(cublas->get(), packed_args(p, abs_a.data(), abs_b.data(), c.data())));
      c.copy_to_host(tmp.data(), mn);
      const double inflate = 1.0 + 2.0 * static_cast<double>(k) * unit_roundoff(NumType::fp32);  // an upper bound
      mag_all.resize(mn);
      for (std::size_t i = 0; i < mn; ++i) mag_all[i] = tmp[i] * inflate;
    }
    for (double v : mag_all) max_mag = std::max(max_mag, v);
  }
  const Tolerance cublas_tol = variant_tolerance(Accumulation::cublas_fp32, p.k, integers, max_mag);

  Progress progress(std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k),
                    static_cast<int>(chosen.size()) + 1, o.progress);
  double cublas_ms = 0;
  auto finish_row = [&](const VariantInfo& v, double ms, const CheckOutcome& chk) {
    BenchRow row;
    row.variant = v.name;
    row.p = p;
    row.ms = ms;
    row.tflops = ms > 0 ? p.flops() / (ms * 1e-3) / 1e12 : 0;
    if (v.id == VariantId::cublas_gemmex) cublas_ms = ms;
    row.pct_of_cublas = (ms > 0 && cublas_ms > 0) ? 100.0 * cublas_ms / ms : 0;
    row.verified = o.verify;
    row.pass = !o.verify || chk.pass;
    row.max_rel_err = chk.max_rel_err;
    row.detail = chk.detail;
    row.reference = !o.verify ? "not verified"
                    : ref.full ? std::string("fp64 (all)") + (o.cublas ? " + cublas" : "")
                               : "fp64 (" + std::to_string(ref.idx.size()) + " sampled) + cublas";
    result.rows.push_back(row);
    progress.step(v.name + (o.verify ? (row.pass ? " PASS" : " FAIL") : ""));
  };

  // One GPU variant: poison C, run once (timed by events), verify, time.
  auto run_gpu = [&](const VariantInfo& v, const std::function<void(cudaStream_t)>& work, bool fp16_out) {
    if (fp16_out) poison_device(c16.data(), c16.bytes());
    else poison_device(c.data(), c.bytes());
    EventPair ev;
    ev.start(0);
    work(0);
    ev.stop(0);
    const double first_ms = ev.elapsed_ms();
    TCU_CUDA_CHECK(cudaGetLastError());
    CheckOutcome chk;
    const Tolerance own = variant_tolerance(v.accumulation, p.k, integers, max_mag);
    if (o.verify) {
      const std::vector<double>* vs_cublas = v.id == VariantId::cublas_gemmex || !o.cublas ? nullptr : &cublas_c;
      if (fp16_out) {
        std::vector<__half> got(mn);
        c16.copy_to_host(got.data(), mn);
        chk = check_result(got, ref, vs_cublas, mag_all, own, cublas_tol);
      } else {
        std::vector<float> got(mn);
        c.copy_to_host(got.data(), mn);
        if (v.id == VariantId::cublas_gemmex) cublas_c.assign(got.begin(), got.end());
        chk = check_result(got, ref, vs_cublas, mag_all, own, cublas_tol);
      }
    }
    finish_row(v, o.time ? (first_ms >= o.budget_ms ? first_ms : time_gpu(work, first_ms, o)) : first_ms, chk);
  };

  // cuBLAS GemmEx first: the reference of every other variant and the 100 % line.
  if (o.cublas)
    run_gpu(*find_variant("cublas_gemmex"),
            [&](cudaStream_t) { TCU_CUBLAS_CHECK(cublas_gemmex(cublas->get(), args16)); }, false);

  std::vector<float> a_host, b_host, c_host;
  for (const VariantInfo* v : chosen) {
    if (v->unit == Unit::cpu) {
      if (std::max({p.m, p.n, p.k}) > kCpuMaxDim) {
        result.notes.push_back(v->name + " skipped at " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                               std::to_string(p.k) + ": CPU variants run only up to " + std::to_string(kCpuMaxDim));
        progress.step(v->name + " skipped");
        continue;
      }
      if (a_host.empty()) {
        std::vector<__half> h(std::max(m * k, k * n));
        a_host.resize(m * k);
        b_host.resize(k * n);
        fill_host(h.data(), m * k, o.dist, seed_a);
        for (std::size_t i = 0; i < m * k; ++i) a_host[i] = __half2float(h[i]);
        fill_host(h.data(), k * n, o.dist, seed_b);
        for (std::size_t i = 0; i < k * n; ++i) b_host[i] = __half2float(h[i]);
        c_host.resize(mn);
      }
      const GemmArgs<float> hargs = packed_args<float>(p, a_host.data(), b_host.data(), c_host.data());
      auto work = [&] { v->id == VariantId::cpu_serial ? gemm_cpu_serial(hargs) : gemm_cpu_openmp(hargs); };
      poison_host(c_host.data(), mn * sizeof(float));
      const auto t0 = std::chrono::steady_clock::now();
      work();
      const double first_ms = host_ms_since(t0);
      CheckOutcome chk;
      if (o.verify)
        chk = check_result(c_host, ref, o.cublas ? &cublas_c : nullptr, mag_all,
                           variant_tolerance(v->accumulation, p.k, integers, max_mag),
                           cublas_tol);
      finish_row(*v, o.time ? time_cpu(work, first_ms, o) : first_ms, chk);
      continue;
    }
    const std::string why_not = v->min_cc_major >= 9   ? sm90a_missing
                                : v->min_cc_major >= 8 ? sm80_missing
                                : cc_major < v->min_cc_major
                                    ? "needs compute capability " + std::to_string(v->min_cc_major) + ".0 or newer"
                                    : "";
    if (!why_not.empty()) {
      result.notes.push_back(v->name + " skipped: " + why_not);
      progress.step(v->name + " skipped");
      continue;
    }
    std::function<void(cudaStream_t)> work;
    auto f32 = [&](cudaError_t (*fn)(const GemmArgs<float>&, cudaStream_t)) {
      return [&, fn](cudaStream_t s) { TCU_CUDA_CHECK(fn(args32, s)); };
    };
    auto f16 = [&](cudaError_t (*fn)(const GemmArgs<__half>&, cudaStream_t)) {
      return [&, fn](cudaStream_t s) { TCU_CUDA_CHECK(fn(args16, s)); };
    };
    switch (v->id) {
      case VariantId::naive_fp32: work = f32(gemm_naive_fp32); break;
      case VariantId::tiled_fp32: work = f32(gemm_tiled_fp32); break;
      case VariantId::blocktile_1d_fp32: work = f32(gemm_blocktile_1d_fp32); break;
      case VariantId::blocktile_2d_fp32: work = f32(gemm_blocktile_2d_fp32); break;
      case VariantId::vectorized_fp32: work = f32(gemm_vectorized_fp32); break;
      case VariantId::warptile_fp32: work = f32(gemm_warptile_fp32); break;
      case VariantId::naive_fp16: work = f16(gemm_naive_fp16); break;
      case VariantId::tiled_fp16: work = f16(gemm_tiled_fp16); break;
      case VariantId::warp_shmem_fp16: work = f16(gemm_warp_shmem_fp16); break;
      case VariantId::warp_shuffle_fp16: work = f16(gemm_warp_shuffle_fp16); break;
      case VariantId::wmma_naive: work = f16(gemm_wmma_naive); break;
      case VariantId::wmma_shmem: work = f16(gemm_wmma_shmem); break;
      case VariantId::wmma_pipelined: work = f16(gemm_wmma_pipelined); break;
      case VariantId::mma_sync_ldmatrix: work = f16(gemm_mma_sync_ldmatrix); break;
      case VariantId::wgmma_tma: work = f16(gemm_wgmma_tma); break;
      case VariantId::wgmma_ws: work = f16(gemm_wgmma_ws); break;
      case VariantId::cublas_sgemm:
        work = [&](cudaStream_t) { TCU_CUBLAS_CHECK(cublas_sgemm(cublas->get(), args32)); };
        break;
      case VariantId::cublas_hgemm:
        if (c16.size() == 0) c16 = DeviceBuffer<__half>(mn);
        work = [&](cudaStream_t) {
          TCU_CUBLAS_CHECK(cublas_hgemm(cublas->get(), p, a16.data(), p.k, b16.data(), p.n, c16.data(), p.n));
        };
        break;
      default:
        continue;
    }
    run_gpu(*v, work, v->id == VariantId::cublas_hgemm);
  }
  return result;
}

}  // namespace tcu::gemm
