// Chapter 02, GPU tests: every GPU step and the three cuBLAS calls against the FP64 reference
// at odd and prime sizes (1, 7, 17, 33×79×19, multi-block aligned and unaligned, padded leading
// dimensions, misaligned base pointers, 1000, 1024), random and integer inputs (integers
// bit-exact), poisoned outputs; the Hopper steps 12 and 13 also on their TMA paths.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "02_gemm_variants/gemm_bench.hpp"
#include "02_gemm_variants/gemm_variants.cuh"
#include "02_gemm_variants/tests/gemm_test_support.hpp"
#include "common/check.cuh"
#include "common/check_cublas.cuh"
#include "common/device_buffer.cuh"

namespace gm = tcu::gemm;
using gm::GemmProblem;
using tcu::Dist;

namespace {

int cc_major() {
  int device = 0, major = 0;
  TCU_CUDA_CHECK(cudaGetDevice(&device));
  TCU_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major;
}

using Launch16 = cudaError_t (*)(const gm::GemmArgs<__half>&, cudaStream_t);
using Launch32 = cudaError_t (*)(const gm::GemmArgs<float>&, cudaStream_t);

struct GpuStep {
  const char* name;
  Launch16 f16;
  Launch32 f32;
};

const GpuStep kSteps[] = {
    {"naive_fp32", nullptr, gm::gemm_naive_fp32},
    {"tiled_fp32", nullptr, gm::gemm_tiled_fp32},
    {"blocktile_1d_fp32", nullptr, gm::gemm_blocktile_1d_fp32},
    {"blocktile_2d_fp32", nullptr, gm::gemm_blocktile_2d_fp32},
    {"vectorized_fp32", nullptr, gm::gemm_vectorized_fp32},
    {"warptile_fp32", nullptr, gm::gemm_warptile_fp32},
    {"naive_fp16", gm::gemm_naive_fp16, nullptr},
    {"tiled_fp16", gm::gemm_tiled_fp16, nullptr},
    {"warp_shmem_fp16", gm::gemm_warp_shmem_fp16, nullptr},
    {"warp_shuffle_fp16", gm::gemm_warp_shuffle_fp16, nullptr},
    {"wmma_naive", gm::gemm_wmma_naive, nullptr},
    {"wmma_shmem", gm::gemm_wmma_shmem, nullptr},
    {"wmma_pipelined", gm::gemm_wmma_pipelined, nullptr},
    {"mma_sync_ldmatrix", gm::gemm_mma_sync_ldmatrix, nullptr},
    {"wgmma_tma", gm::gemm_wgmma_tma, nullptr},
    {"wgmma_ws", gm::gemm_wgmma_ws, nullptr},
};

// Why a step cannot run on this GPU with this build; empty when it can.
std::string unavailable(const gm::VariantInfo& v) {
  if (v.min_cc_major >= 9) return gm::hopper_steps_unavailable();
  if (v.min_cc_major >= 8) return gm::sm80_steps_unavailable();
  return cc_major() < v.min_cc_major ? "compute capability" : "";
}

// Every GPU step on one problem: operands with leading dimensions
// K + pad and N + pad, C with N + pad, outputs poisoned before every launch.
void check_all_steps(const GemmProblem& p, Dist dist, std::uint64_t seed, std::int64_t pad) {
  const gm::testing::HostOperands h = gm::testing::make_operands(p, dist, seed, pad, pad);
  const std::int64_t ldc = p.n + pad;
  tcu::DeviceBuffer<__half> a16(h.a.size()), b16(h.b.size());
  a16.copy_from_host(h.a.data(), h.a.size());
  b16.copy_from_host(h.b.data(), h.b.size());
  const std::vector<float> af = gm::testing::to_float(h.a), bf = gm::testing::to_float(h.b);
  tcu::DeviceBuffer<float> a32(af.size()), b32(bf.size()), c(static_cast<std::size_t>(p.m * ldc));
  a32.copy_from_host(af.data(), af.size());
  b32.copy_from_host(bf.data(), bf.size());
  const gm::GemmArgs<__half> g16{p, a16.data(), h.lda, b16.data(), h.ldb, c.data(), ldc};
  const gm::GemmArgs<float> g32{p, a32.data(), h.lda, b32.data(), h.ldb, c.data(), ldc};
  std::vector<float> got(c.size());
  const std::string where = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " " +
                            tcu::dist_name(dist) + " pad " + std::to_string(pad);

  for (const GpuStep& s : kSteps) {
    const gm::VariantInfo& v = *gm::find_variant(s.name);
    if (const std::string why = unavailable(v); !why.empty()) {
      MESSAGE(s.name << " not run: " << why);
      CHECK((s.f16 ? s.f16(g16, 0) : s.f32(g32, 0)) == cudaErrorNotSupported);
      continue;
    }
    tcu::poison_device(c.data(), c.bytes());
    REQUIRE((s.f16 ? s.f16(g16, 0) : s.f32(g32, 0)) == cudaSuccess);
    TCU_CUDA_CHECK(cudaDeviceSynchronize());
    c.copy_to_host(got.data(), got.size());
    const tcu::VerifyResult r = gm::testing::compare(h, got, ldc, v.accumulation, dist);
    INFO(s.name << " " << where << ": " << r.summary());
    CHECK(r.pass);
    CHECK(r.non_finite == 0);  // every element written
    if (gm::integer_valued(dist)) CHECK(r.max_abs_err == 0.0);  // bit-exact
    // Nothing written outside the M×N part of C: the padding columns keep their poison.
    if (pad > 0) CHECK(std::isnan(got[p.n]));
  }
}

// Every fp32 step (2, 3, 3a-3d) on one problem, with A, B and C at `offset` floats past a
// 16-byte boundary: an offset of 1 makes every row misaligned, so the float4 steps must take
// their scalar path even where the leading dimensions are multiples of 4.
void check_fp32_steps_offset(const GemmProblem& p, Dist dist, std::uint64_t seed, std::int64_t offset) {
  const gm::testing::HostOperands h = gm::testing::make_operands(p, dist, seed);
  const std::vector<float> af = gm::testing::to_float(h.a), bf = gm::testing::to_float(h.b);
  tcu::DeviceBuffer<float> a32(af.size() + offset), b32(bf.size() + offset), c(static_cast<std::size_t>(p.m * p.n + offset));
  TCU_CUDA_CHECK(cudaMemcpy(a32.data() + offset, af.data(), af.size() * sizeof(float), cudaMemcpyHostToDevice));
  TCU_CUDA_CHECK(cudaMemcpy(b32.data() + offset, bf.data(), bf.size() * sizeof(float), cudaMemcpyHostToDevice));
  const gm::GemmArgs<float> g32{p, a32.data() + offset, h.lda, b32.data() + offset, h.ldb, c.data() + offset, p.n};
  std::vector<float> got(static_cast<std::size_t>(p.m * p.n));
  for (const GpuStep& s : kSteps) {
    if (s.f32 == nullptr) continue;
    tcu::poison_device(c.data(), c.bytes());
    REQUIRE(s.f32(g32, 0) == cudaSuccess);
    TCU_CUDA_CHECK(cudaDeviceSynchronize());
    TCU_CUDA_CHECK(cudaMemcpy(got.data(), c.data() + offset, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const tcu::VerifyResult r = gm::testing::compare(h, got, p.n, gm::Accumulation::fp32_sequential, dist);
    INFO(s.name << " " << p.m << "x" << p.n << "x" << p.k << " offset " << offset << ": " << r.summary());
    CHECK(r.pass);
    CHECK(r.non_finite == 0);
    if (gm::integer_valued(dist)) CHECK(r.max_abs_err == 0.0);
  }
}

// Both cuBLAS wrappers (the row-major → column-major mapping) against the FP64 reference.
void check_cublas(const GemmProblem& p, Dist dist, std::uint64_t seed, std::int64_t pad) {
  const gm::testing::HostOperands h = gm::testing::make_operands(p, dist, seed, pad, pad);
  const std::int64_t ldc = p.n + pad;
  tcu::DeviceBuffer<__half> a16(h.a.size()), b16(h.b.size());
  a16.copy_from_host(h.a.data(), h.a.size());
  b16.copy_from_host(h.b.data(), h.b.size());
  tcu::DeviceBuffer<float> c(static_cast<std::size_t>(p.m * ldc));
  const gm::GemmArgs<__half> g16{p, a16.data(), h.lda, b16.data(), h.ldb, c.data(), ldc};
  std::vector<float> got(c.size());
  const std::string where = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " " +
                            tcu::dist_name(dist) + " pad " + std::to_string(pad);
  cublasHandle_t handle;
  TCU_CUBLAS_CHECK(cublasCreate(&handle));
  tcu::poison_device(c.data(), c.bytes());
  CHECK(gm::cublas_gemmex(handle, g16) == CUBLAS_STATUS_SUCCESS);
  c.copy_to_host(got.data(), got.size());
  const tcu::VerifyResult rg = gm::testing::compare(h, got, ldc, gm::Accumulation::cublas_fp32, dist);
  INFO("cublas_gemmex " << where << ": " << rg.summary());
  CHECK(rg.pass);
  tcu::DeviceBuffer<__half> c16(static_cast<std::size_t>(p.m * ldc));
  tcu::poison_device(c16.data(), c16.bytes());
  CHECK(gm::cublas_hgemm(handle, p, a16.data(), h.lda, b16.data(), h.ldb, c16.data(), ldc) == CUBLAS_STATUS_SUCCESS);
  std::vector<__half> got16(c16.size());
  c16.copy_to_host(got16.data(), got16.size());
  const tcu::VerifyResult rh = gm::testing::compare(h, got16, ldc, gm::Accumulation::cublas_fp16, dist);
  INFO("cublas_hgemm " << where << ": " << rh.summary());
  CHECK(rh.pass);
  // cublasSgemm on the same values in fp32.
  const std::vector<float> af = gm::testing::to_float(h.a), bf = gm::testing::to_float(h.b);
  tcu::DeviceBuffer<float> a32(af.size()), b32(bf.size());
  a32.copy_from_host(af.data(), af.size());
  b32.copy_from_host(bf.data(), bf.size());
  const gm::GemmArgs<float> g32{p, a32.data(), h.lda, b32.data(), h.ldb, c.data(), ldc};
  tcu::poison_device(c.data(), c.bytes());
  CHECK(gm::cublas_sgemm(handle, g32) == CUBLAS_STATUS_SUCCESS);
  c.copy_to_host(got.data(), got.size());
  const tcu::VerifyResult rs = gm::testing::compare(h, got, ldc, gm::Accumulation::cublas_fp32, dist);
  INFO("cublas_sgemm " << where << ": " << rs.summary());
  CHECK(rs.pass);
  if (gm::integer_valued(dist)) CHECK(rs.max_abs_err == 0.0);
  if (pad > 0) CHECK(std::isnan(got[p.n]));
  cublasDestroy(handle);
}

const GemmProblem kSmall[] = {{1, 1, 1}, {7, 7, 7}, {17, 17, 17}, {33, 79, 19}};

}  // namespace

TEST_CASE("every step at 1, 7, 17 and 33x79x19: random and integer inputs") {
  for (const GemmProblem& p : kSmall)
    for (Dist d : {Dist::uniform, Dist::normal, Dist::integers}) check_all_steps(p, d, 3, 0);
}

TEST_CASE("every step on several blocks and k-tiles: aligned (cp.async) and unaligned (scalar) rows") {
  check_all_steps({160, 136, 96}, Dist::normal, 4, 0);    // K, N multiples of 8: 16-byte copies
  check_all_steps({150, 130, 70}, Dist::normal, 5, 0);    // K = 70: every row misaligned
  check_all_steps({257, 129, 131}, Dist::integers, 6, 0);  // primes around the tile sizes
  check_all_steps({136, 264, 200}, Dist::integers, 16, 0);  // cp.async: 6 whole k-tiles + a partial one
}

TEST_CASE("every step with padded leading dimensions") {
  check_all_steps({40, 50, 60}, Dist::uniform, 7, 3);     // lda = 63: unaligned rows
  check_all_steps({130, 136, 72}, Dist::integers, 8, 8);  // lda = 80, ldb = 144: aligned, padded
  check_all_steps({150, 139, 75}, Dist::normal, 17, 5);   // lda = 80, ldb = 144: cp.async, partial chunks in K and N
}

// Steps 10 and 11 switch to 128×256 tiles once there is one per SM (132 on an H100): 13 × 12
// tiles here, with edges in M, N and K (K = 200: six whole k-tiles and a partial one).
// Steps 3a-3d: block tiles of 64 and 128, k-tiles of 8. Sizes that are multiples of none of
// them, with many k-tiles (the double buffer of step 3d alternates an odd number of times),
// rows 16-byte aligned (float4 path, K and N multiples of 4) and not (scalar path).
TEST_CASE("the fp32 steps over many k-tiles: float4 and scalar paths, edge tiles in M, N and K") {
  check_all_steps({129, 260, 1028}, Dist::integers, 20, 0);  // K, N multiples of 4: float4 path
  check_all_steps({131, 257, 1031}, Dist::normal, 21, 0);    // every row misaligned: scalar path
  check_all_steps({200, 300, 77}, Dist::uniform, 22, 4);     // lda = 81 (scalar path), ldb = ldc = 304
  check_fp32_steps_offset({96, 132, 64}, Dist::integers, 23, 1);   // aligned ld, misaligned base
  check_fp32_steps_offset({33, 79, 19}, Dist::normal, 24, 2);
}

// Steps 12 and 13 take the TMA path only where rows are 16-byte aligned (K and N multiples of
// 8 when packed; with a pad, K + pad and N + pad too); elsewhere they hand over to step 11,
// which the cases above already cover. The sizes below keep them on the TMA path with partial
// tiles everywhere: M odd, N and K not multiples of the block tile or the 64-wide k-tile (the
// TMA zero-fills the rest of each box), one k-tile and many, and a padded leading dimension.
// tma_path = false: operands meant for the hand-over (checked to be misaligned), same checks.
namespace {
void check_hopper_step(const char* name, Launch16 launch, const GemmProblem& p, Dist dist, std::uint64_t seed,
                       std::int64_t pad, bool tma_path = true) {
  const gm::VariantInfo& v = *gm::find_variant(name);
  if (const std::string why = unavailable(v); !why.empty()) {
    MESSAGE(name << " not run: " << why);
    return;
  }
  const gm::testing::HostOperands h = gm::testing::make_operands(p, dist, seed, pad, pad);
  const std::int64_t ldc = p.n + pad;
  tcu::DeviceBuffer<__half> a16(h.a.size()), b16(h.b.size());
  a16.copy_from_host(h.a.data(), h.a.size());
  b16.copy_from_host(h.b.data(), h.b.size());
  tcu::DeviceBuffer<float> c(static_cast<std::size_t>(p.m * ldc));
  const gm::GemmArgs<__half> g16{p, a16.data(), h.lda, b16.data(), h.ldb, c.data(), ldc};
  const bool aligned = gm::rows_allow_16B_copies(g16.a, g16.lda, 2) && gm::rows_allow_16B_copies(g16.b, g16.ldb, 2);
  REQUIRE(aligned == tma_path);  // the TMA path, or the hand-over, as the case says
  std::vector<float> got(c.size());
  tcu::poison_device(c.data(), c.bytes());
  REQUIRE(launch(g16, 0) == cudaSuccess);
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  c.copy_to_host(got.data(), got.size());
  const tcu::VerifyResult r = gm::testing::compare(h, got, ldc, v.accumulation, dist);
  INFO(name << " " << p.m << "x" << p.n << "x" << p.k << " " << tcu::dist_name(dist) << " pad " << pad << ": "
            << r.summary());
  CHECK(r.pass);
  CHECK(r.non_finite == 0);
  if (gm::integer_valued(dist)) CHECK(r.max_abs_err == 0.0);
  if (pad > 0) CHECK(std::isnan(got[p.n]));
}
void check_wgmma_tma(const GemmProblem& p, Dist dist, std::uint64_t seed, std::int64_t pad) {
  check_hopper_step("wgmma_tma", gm::gemm_wgmma_tma, p, dist, seed, pad);
}
void check_wgmma_ws(const GemmProblem& p, Dist dist, std::uint64_t seed, std::int64_t pad, bool tma_path = true) {
  check_hopper_step("wgmma_ws", gm::gemm_wgmma_ws, p, dist, seed, pad, tma_path);
}
}  // namespace

TEST_CASE("wgmma_tma on its TMA path: partial tiles in M, N and K, one and many k-tiles") {
  for (Dist d : {Dist::integers, Dist::normal}) {
    check_wgmma_tma({1, 8, 8}, d, 30, 0);
    check_wgmma_tma({7, 8, 16}, d, 31, 0);
    check_wgmma_tma({17, 24, 40}, d, 32, 0);
    check_wgmma_tma({33, 80, 24}, d, 33, 0);
    check_wgmma_tma({128, 128, 64}, d, 34, 0);   // exactly one tile and one k-tile
    check_wgmma_tma({129, 136, 72}, d, 35, 0);   // one past in every dimension
    check_wgmma_tma({257, 392, 648}, d, 36, 0);  // 11 k-tiles: every slot refilled, phases flip
    check_wgmma_tma({100, 204, 300}, d, 37, 4);  // lda = 304, ldb = ldc = 208: padded, aligned
  }
}

// Step 13: 128×256 tiles, two consumer warpgroups of 64 rows, four 64-column B boxes a slot.
TEST_CASE("wgmma_ws on its TMA path: partial tiles in M, N and K, one and many k-tiles, padded ld") {
  for (Dist d : {Dist::integers, Dist::normal}) {
    check_wgmma_ws({1, 8, 8}, d, 40, 0);
    check_wgmma_ws({7, 8, 16}, d, 41, 0);
    check_wgmma_ws({17, 24, 40}, d, 42, 0);
    check_wgmma_ws({33, 80, 24}, d, 43, 0);
    check_wgmma_ws({64, 256, 64}, d, 44, 0);     // consumer 1's rows all past M: it writes nothing
    check_wgmma_ws({128, 256, 64}, d, 45, 0);    // exactly one tile and one k-tile
    check_wgmma_ws({129, 264, 72}, d, 46, 0);    // one past in every dimension (N: 257 → 264)
    check_wgmma_ws({65, 200, 128}, d, 47, 0);    // consumer 1 has 1 row; B boxes 3 and 4 partly/fully past N
    check_wgmma_ws({200, 296, 136}, d, 48, 0);   // a multiple of no tile size: 2×2 tiles, 3 k-tiles
    check_wgmma_ws({257, 520, 648}, d, 49, 0);   // 11 k-tiles: every slot refilled, both parities
    check_wgmma_ws({100, 204, 300}, d, 50, 4);   // lda = 304, ldb = ldc = 208: padded, aligned
    check_wgmma_ws({384, 768, 1024}, d, 51, 0);  // 3×3 whole tiles, 16 k-tiles (4 rounds of the ring)
  }
}

// Operands a tensor map cannot describe (K or N not a multiple of 8): the brief's odd sizes,
// multiplied by step 11 behind the same entry point, with the same checks.
TEST_CASE("wgmma_ws hands rows that are not 16-byte aligned to step 11: 1, 7, 17, 33x79x19, 129x257x65, 200x300x136") {
  for (Dist d : {Dist::integers, Dist::normal}) {
    check_wgmma_ws({1, 1, 1}, d, 52, 0, false);
    check_wgmma_ws({7, 7, 7}, d, 53, 0, false);
    check_wgmma_ws({17, 17, 17}, d, 54, 0, false);
    check_wgmma_ws({33, 79, 19}, d, 55, 0, false);
    check_wgmma_ws({129, 257, 65}, d, 56, 0, false);
    check_wgmma_ws({200, 300, 136}, d, 57, 0, false);  // N = 300: B's rows 600 bytes apart
    check_wgmma_ws({100, 200, 296}, d, 58, 3, false);  // padded: lda = 299
  }
}

// Several block rows of the L2 grouping (kGroupRows = 8: 13 block rows = a group of 8 and one
// of 5), 1000³ (K, N multiples of 8: the TMA path) and 1024³.
TEST_CASE("wgmma_ws at 1000, 1024 and 1544x2824x200 [large]") {
  check_wgmma_ws({1000, 1000, 1000}, Dist::uniform, 60, 0);
  check_wgmma_ws({1024, 1024, 1024}, Dist::normal, 61, 0);
  check_wgmma_ws({1024, 1024, 1024}, Dist::integers, 62, 0);
  check_wgmma_ws({1544, 2824, 200}, Dist::integers, 63, 0);
  check_wgmma_ws({1543, 2824, 264}, Dist::normal, 64, 8);  // lda = 272, ldb = ldc = 2832: padded, 5 k-tiles
}

TEST_CASE("every step where steps 10 and 11 take their large tiles [large]") {
  check_all_steps({1544, 2824, 200}, Dist::integers, 18, 0);  // 16-byte rows: cp.async
  check_all_steps({1543, 2821, 203}, Dist::normal, 19, 0);    // misaligned rows: scalar copies
}

TEST_CASE("every step at 1000 and 1024 [large]") {
  check_all_steps({1000, 1000, 1000}, Dist::uniform, 9, 0);
  check_all_steps({1024, 1024, 1024}, Dist::normal, 10, 0);
  check_all_steps({1024, 1024, 1024}, Dist::integers, 11, 0);
}

// The cases below call cuBLAS. They carry [cublas] so that the racecheck pass of
// scripts/device_check.sh skips them (memcheck, synccheck and initcheck still run them):
// racecheck reports hazards inside cuBLAS's own sm_90 kernels (nvjet_sm90_hss_*, synchronised
// by mbarriers it does not model), which this chapter cannot act on.
TEST_CASE("cublas_gemmex, cublas_hgemm and cublas_sgemm wrappers: odd sizes, padded ld, integers exact [cublas]") {
  for (const GemmProblem& p : kSmall)
    for (Dist d : {Dist::uniform, Dist::integers}) check_cublas(p, d, 12, 0);
  check_cublas({257, 129, 131}, Dist::integers, 13, 0);
  check_cublas({40, 50, 60}, Dist::normal, 14, 3);
  check_cublas({1000, 1000, 1000}, Dist::uniform, 15, 0);
}

TEST_CASE("launchers reject bad arguments without launching") {
  tcu::DeviceBuffer<__half> a(16), b(16);
  tcu::DeviceBuffer<float> c(16);
  gm::GemmArgs<__half> g = gm::packed_args<__half>({4, 4, 4}, a.data(), b.data(), c.data());
  g.lda = 3;  // < K
  for (const GpuStep& s : kSteps)
    if (s.f16) CHECK(s.f16(g, 0) == cudaErrorInvalidValue);
  tcu::DeviceBuffer<float> a32(16), b32(16);
  gm::GemmArgs<float> f = gm::packed_args<float>({4, 4, 4}, a32.data(), b32.data(), c.data());
  f.ldb = 3;  // < N
  for (const GpuStep& s : kSteps)
    if (s.f32) CHECK(s.f32(f, 0) == cudaErrorInvalidValue);
  gm::GemmArgs<float> z = gm::packed_args<float>({0, 4, 4}, nullptr, nullptr, c.data());
  CHECK(gm::gemm_naive_fp32(z, 0) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("run_size verifies every variant (CPU included) at 33x79x19 and 96x64x48 [cublas]") {
  gm::BenchOptions o;
  o.time = false;
  o.progress = false;
  for (Dist d : {Dist::uniform, Dist::integers})
    for (const GemmProblem& p : {GemmProblem{33, 79, 19}, GemmProblem{96, 64, 48}}) {
      o.dist = d;
      const gm::SizeResult r = gm::run_size(p, gm::variant_names(), o);
      CHECK(r.rows.size() + r.notes.size() == gm::all_variants().size());  // notes: steps this GPU cannot run
      for (const gm::BenchRow& row : r.rows) {
        INFO(row.variant << " " << tcu::dist_name(d) << ": " << row.detail);
        CHECK(row.pass);
        if (d == Dist::integers && row.variant != "cublas_hgemm") CHECK(row.max_rel_err == 0.0);
      }
    }
}

TEST_CASE("run_size: sampled FP64 reference above the full-reference limit; CPU skipped above 1024 [cublas]") {
  gm::BenchOptions o;
  o.time = false;
  o.progress = false;
  o.full_reference_max_flops = 1e6;  // force the sampled path at a small size
  const gm::SizeResult r = gm::run_size({300, 200, 100}, gm::variant_names(), o);
  for (const gm::BenchRow& row : r.rows) {
    INFO(row.variant << ": " << row.detail);
    CHECK(row.pass);
    CHECK(row.reference.find("sampled") != std::string::npos);
  }
  const gm::SizeResult big = gm::run_size({1025, 64, 64}, {"cpu_serial", "wmma_naive"}, o);
  REQUIRE(big.notes.size() == 1);
  CHECK(big.notes[0].find("only up to 1024") != std::string::npos);
  CHECK(big.rows.size() == 2);  // cublas_gemmex and wmma_naive
}
