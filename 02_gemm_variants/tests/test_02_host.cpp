// Chapter 02, host tests (run in CI without a GPU): the CPU steps against the FP64 reference,
// the edge/tile arithmetic, the tolerances, the registry and the CSV columns.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>

#include "02_gemm_variants/gemm_configs.hpp"
#include "02_gemm_variants/gemm_registry.hpp"
#include "02_gemm_variants/gemm_report.hpp"
#include "02_gemm_variants/gemm_variants.cuh"
#include "02_gemm_variants/tests/gemm_test_support.hpp"

namespace gm = tcu::gemm;
using gm::GemmProblem;
using tcu::Dist;

namespace {

const GemmProblem kSizes[] = {{1, 1, 1}, {7, 7, 7}, {17, 17, 17}, {33, 79, 19}, {100, 64, 129}};

void check_cpu(void (*fn)(const gm::GemmArgs<float>&), const GemmProblem& p, Dist dist, std::uint64_t seed,
               std::int64_t pad) {
  const gm::testing::HostOperands h = gm::testing::make_operands(p, dist, seed, pad, pad);
  const std::vector<float> a = gm::testing::to_float(h.a), b = gm::testing::to_float(h.b);
  const std::int64_t ldc = p.n + pad;
  std::vector<float> c(static_cast<std::size_t>(p.m * ldc));
  tcu::poison_host(c.data(), c.size() * sizeof(float));
  fn(gm::GemmArgs<float>{p, a.data(), h.lda, b.data(), h.ldb, c.data(), ldc});
  const tcu::VerifyResult r = gm::testing::compare(h, c, ldc, gm::Accumulation::fp32_sequential, dist);
  INFO(p.m << "x" << p.n << "x" << p.k << " " << tcu::dist_name(dist) << " pad " << pad << ": " << r.summary());
  CHECK(r.pass);
  CHECK(r.non_finite == 0);
  if (gm::integer_valued(dist)) CHECK(r.max_abs_err == 0.0);
}

}  // namespace

TEST_CASE("cpu_serial and cpu_openmp match the FP64 reference (odd sizes, padded ld, integers bit-exact)") {
  for (const GemmProblem& p : kSizes)
    for (Dist d : {Dist::uniform, Dist::normal, Dist::integers})
      for (std::int64_t pad : {0, 3}) {
        check_cpu(gm::gemm_cpu_serial, p, d, 11, pad);
        check_cpu(gm::gemm_cpu_openmp, p, d, 12, pad);
      }
}

TEST_CASE("cpu_openmp at 1000^3 matches the FP64 reference") {
  check_cpu(gm::gemm_cpu_openmp, {1000, 1000, 1000}, Dist::normal, 5, 0);
}

TEST_CASE("edge arithmetic: ceil_div and valid_in_chunk") {
  CHECK(tcu::ceil_div(1, 16) == 1);
  CHECK(tcu::ceil_div(16, 16) == 1);
  CHECK(tcu::ceil_div(17, 16) == 2);
  CHECK(tcu::ceil_div(8192, 128) == 64);
  CHECK(gm::valid_in_chunk(0, 19, 8) == 8);
  CHECK(gm::valid_in_chunk(16, 19, 8) == 3);  // K = 19: the last chunk of a row holds 3 elements
  CHECK(gm::valid_in_chunk(24, 19, 8) == 0);  // entirely outside: zero-filled, nothing read
  CHECK(gm::valid_in_chunk(19, 19, 8) == 0);
  CHECK(gm::valid_in_chunk(0, 1, 8) == 1);
}

TEST_CASE("16-byte copies need 16-byte aligned rows") {
  alignas(16) static __half buf[64];
  CHECK(gm::rows_allow_16B_copies(buf, 8, 2));
  CHECK(gm::rows_allow_16B_copies(buf, 4096, 2));
  CHECK_FALSE(gm::rows_allow_16B_copies(buf, 19, 2));     // K = 19 packed: row 1 starts 38 bytes in
  CHECK_FALSE(gm::rows_allow_16B_copies(buf + 1, 8, 2));  // base 2 bytes past a boundary
  CHECK(gm::rows_allow_16B_copies(reinterpret_cast<float*>(buf), 4, 4));
  CHECK_FALSE(gm::rows_allow_16B_copies(reinterpret_cast<float*>(buf), 6, 4));
}

template <class C>
void check_pipelined_config(int warps) {
  CHECK(C::kBM % C::kWM == 0);
  CHECK(C::kBN % C::kWN == 0);
  CHECK((C::kBM / C::kWM) * (C::kBN / C::kWN) == warps);
  CHECK(C::kBK % 32 == 0);  // two register sets of k16 fragments alternate
  // shared memory of steps 10/11: stages × (A tile + B tile), padded rows of 16 bytes extra
  const int stage_bytes = (C::kBM * (C::kBK + 8) + C::kBK * (C::kBN + 8)) * 2;
  CHECK(stage_bytes % 128 == 0);  // every slot starts 128-byte aligned
  CHECK(C::kStages * stage_bytes > 48 * 1024);   // needs the opt-in above 48 KB…
  CHECK(C::kStages * stage_bytes <= 227 * 1024);  // …and fits an sm_80/sm_90 block
  CHECK(C::kBM * (C::kBN + 4) * 4 <= 227 * 1024);  // step 10's fp32 epilogue tile too
}

TEST_CASE("tile configurations are consistent") {
  check_pipelined_config<gm::PipelinedLargeConfig>(8);
  check_pipelined_config<gm::PipelinedSmallConfig>(4);
}

TEST_CASE("fp32 register-blocking configurations (steps 3a-3d) are consistent") {
  using B1 = gm::Blocktile1dConfig;
  CHECK(B1::kBM % B1::kTM == 0);
  CHECK(B1::kBM * B1::kBK == B1::kBM * B1::kBN / B1::kTM);  // one A element per thread…
  CHECK(B1::kBK * B1::kBN == B1::kBM * B1::kBN / B1::kTM);  // …and one B element
  using B2 = gm::Blocktile2dConfig;
  const int t2 = (B2::kBM / B2::kTM) * (B2::kBN / B2::kTN);
  CHECK(t2 == 256);
  CHECK((B2::kBM * B2::kBK / 4) % t2 == 0);  // step 3c: whole float4s per thread
  CHECK((B2::kBK * B2::kBN / 4) % t2 == 0);
  CHECK((B2::kBK * (B2::kBM + 4) + B2::kBK * B2::kBN) * 4 <= 48 * 1024);  // static shared memory
  using W = gm::WarptileConfig;
  const int warps = (W::kBM / W::kWM) * (W::kBN / W::kWN);
  CHECK(warps == 8);
  CHECK((W::kWM / W::kWMIter / W::kTM) * (W::kWN / W::kWNIter / W::kTN) == 32);  // lanes of a sub-tile
  CHECK(W::kWMIter * W::kTM * W::kWNIter * W::kTN * 32 * warps == W::kBM * W::kBN);  // outputs
  CHECK((W::kBM * W::kBK / 4) % (warps * 32) == 0);
  CHECK(2 * (W::kBK * (W::kBM + 4) + W::kBK * W::kBN) * 4 <= 48 * 1024);  // two buffers, static
}

TEST_CASE("step 12 configuration: swizzle atoms, boxes and shared memory") {
  using W = gm::WgmmaTmaConfig;
  CHECK(W::kBK * 2 == 128);          // a k-tile row of A is exactly one 128-byte swizzle row
  CHECK(W::kBM % 64 == 0);           // whole m64 wgmma tiles
  CHECK(W::kBN % 64 == 0);           // whole 64-column B boxes (one swizzle row each)
  CHECK(W::kBM <= 256);              // TMA box dimensions are at most 256
  CHECK(W::kBK <= 256);
  const int stage = (W::kBM * W::kBK + W::kBK * W::kBN) * 2;
  CHECK(stage % 1024 == 0);          // every slot starts on a swizzle atom
  CHECK(W::kStages * stage + 1024 <= 227 * 1024);  // + alignment slack: fits an sm_90 block
  // The descriptor fields hold 14 bits of (bytes >> 4): offsets and addresses below 256 KB.
  const int leading_bytes = 64 * W::kBK * 2;  // B: one 64-column box
  CHECK(leading_bytes / 16 < (1 << 14));
}

TEST_CASE("step 13 configuration: warpgroups, registers, swizzle atoms, boxes and shared memory") {
  using W = gm::WgmmaWsConfig;
  CHECK(W::kBM == 64 * W::kConsumers);  // each consumer warpgroup: one m64 row block
  CHECK(W::kBN == 256);                 // one m64n256k16 per k-step: the widest wgmma
  CHECK(W::kBN % 64 == 0);              // whole 64-column B boxes (one swizzle row each)
  CHECK(W::kBK * 2 == 128);             // a k-tile row of A is one 128-byte swizzle row
  CHECK(W::kBM <= 256);                 // TMA box dimensions are at most 256
  CHECK(W::kBK <= 256);
  const int threads = 128 * (1 + W::kConsumers);
  CHECK(threads == 384);
  CHECK(threads <= 1024);
  // Accumulators: a 64×256 fp32 tile over a warpgroup's 128 threads.
  CHECK(64 * W::kBN / 128 == 128);
  // Registers: the launch cap (__launch_bounds__(384, 1): 65536 / 384, rounded down to 8)
  // lies between the producer's and the consumers' counts; after setmaxnreg the SM's
  // register file holds them all. Counts are multiples of 8 in 24…256.
  const int cap = (65536 / threads) / 8 * 8;
  CHECK(cap == 168);
  CHECK(W::kProducerRegs < cap);
  CHECK(W::kConsumerRegs > cap);
  for (int r : {W::kProducerRegs, W::kConsumerRegs}) {
    CHECK(r % 8 == 0);
    CHECK(r >= 24);
    CHECK(r <= 256);
  }
  CHECK(128 * W::kProducerRegs + 128 * W::kConsumers * W::kConsumerRegs <= 65536);
  CHECK(W::kConsumerRegs >= 128 + 40);  // 128 accumulators and room for addresses and loop state
  // Shared memory: 4 slots of A 128×64 (16 KB) + B 64×256 (32 KB), 1024-aligned slots.
  const int a_bytes = W::kBM * W::kBK * 2, b_bytes = W::kBK * W::kBN * 2, stage = a_bytes + b_bytes;
  CHECK(a_bytes == 16 * 1024);
  CHECK(b_bytes == 32 * 1024);
  CHECK(stage % 1024 == 0);
  CHECK(a_bytes % 1024 == 0);      // B starts on a swizzle atom too
  CHECK((64 * W::kBK * 2) % 1024 == 0);  // and every B box
  const int dynamic = W::kStages * stage + 1024;  // + alignment slack
  const int barriers = 2 * W::kStages * 8;        // full[] and empty[], static
  CHECK(dynamic == 197632);
  CHECK(dynamic + barriers <= 227 * 1024);        // fits an sm_90 block (232448 bytes)
  CHECK(W::kStages >= 3);                         // copies of two k-tiles in flight while one is read
  // The descriptor fields hold 14 bits of (bytes >> 4): addresses and offsets below 256 KB.
  CHECK(dynamic + barriers < 256 * 1024);
  const int leading_bytes = 64 * W::kBK * 2;  // B: from one 64-column box to the next
  CHECK(leading_bytes == 8192);
  CHECK(leading_bytes / 16 < (1 << 14));
}

// The bank of every transposed store into Ast[BK][BM + 4] by one warp (steps 3c, 3d): thread t
// holds float4 chunk t of A's BM×BK tile (row t / (BK/4), k offset 4·(t % (BK/4))) and writes
// its four values down column `row`. No two lanes of a store instruction share a bank.
TEST_CASE("the transposed A stores of steps 3c and 3d are free of bank conflicts") {
  using B2 = gm::Blocktile2dConfig;
  const int ld = B2::kBM + 4, chunks_per_row = B2::kBK / 4;
  for (int warp = 0; warp < 8; ++warp)
    for (int e = 0; e < 4; ++e) {
      std::set<int> banks;
      for (int lane = 0; lane < 32; ++lane) {
        const int t = warp * 32 + lane, row = t / chunks_per_row, k = (t % chunks_per_row) * 4 + e;
        banks.insert((k * ld + row) % 32);
      }
      CHECK(banks.size() == 32);
    }
}

TEST_CASE("registry: ladder order, unique names, cuBLAS last") {
  const auto& v = gm::all_variants();
  REQUIRE(v.size() == 21);
  CHECK(v.front().name == "cpu_serial");
  CHECK(v[3].name == "tiled_fp32");
  CHECK(v[4].name == "blocktile_1d_fp32");
  CHECK(v[7].name == "warptile_fp32");
  CHECK(v[8].name == "naive_fp16");
  CHECK(v[15].name == "mma_sync_ldmatrix");
  CHECK(v[16].name == "wgmma_tma");
  CHECK(v[16].min_cc_major == 9);
  CHECK(v[17].name == "wgmma_ws");
  CHECK(v[17].min_cc_major == 9);
  CHECK(v[17].accumulation == gm::Accumulation::tensor_fp32);
  CHECK(v[18].name == "cublas_gemmex");
  CHECK(v[19].name == "cublas_hgemm");
  CHECK(v[20].name == "cublas_sgemm");
  CHECK_FALSE(gm::find_variant("cublas_sgemm")->fp16_operands);
  for (const char* name : {"blocktile_1d_fp32", "blocktile_2d_fp32", "vectorized_fp32", "warptile_fp32"}) {
    CHECK_FALSE(gm::find_variant(name)->fp16_operands);
    CHECK(gm::find_variant(name)->accumulation == gm::Accumulation::fp32_sequential);
  }
  std::set<std::string> names;
  for (const auto& x : v) names.insert(x.name);
  CHECK(names.size() == v.size());
  CHECK(gm::find_variant("wmma_pipelined") != nullptr);
  CHECK(gm::find_variant("wmma_pipelined")->min_cc_major == 8);
  CHECK(gm::find_variant("nope") == nullptr);
}

TEST_CASE("tolerances are derived from K and the accumulation types") {
  using A = gm::Accumulation;
  const double u32 = std::ldexp(1.0, -24), u16 = std::ldexp(1.0, -11);
  CHECK(gm::accumulation_tolerance(A::fp32_sequential, 1024).rel_to_magnitude == doctest::Approx(2 * 1024 * u32));
  // fp16 chunks: 16 fp16 steps + ⌈K/16⌉ fp32 steps
  CHECK(gm::accumulation_tolerance(A::fp16_chunks, 1024).rel_to_magnitude ==
        doctest::Approx(2 * 16 * u16 + 2 * 64 * u32));
  // tensor cores: ⌈K/16⌉ + 17 levels in fp32 — far tighter than K levels
  CHECK(gm::accumulation_tolerance(A::tensor_fp32, 4096).rel_to_magnitude == doctest::Approx(2 * (256 + 17) * u32));
  // Hgemm: K levels in fp16 — no useful bound at K = 1024 (2·1024·2^-11 = 1)
  const tcu::Tolerance h = gm::accumulation_tolerance(A::cublas_fp16, 1024);
  CHECK(h.rel_to_magnitude == doctest::Approx(1.0));
  CHECK(h.rel_to_result == 0.0);  // the fp16 output rounding is the sum's last fp16 level
}

TEST_CASE("integer inputs: bit-exact while the partial sums are representable") {
  using A = gm::Accumulation;
  CHECK(gm::variant_tolerance(A::tensor_fp32, 1024, true, 16384).exact());
  CHECK(gm::variant_tolerance(A::fp16_chunks, 8192, true, 131072).exact());
  CHECK_FALSE(gm::variant_tolerance(A::fp32_sequential, 1024, true, 3e7).exact());  // beyond 2^24
  CHECK(gm::variant_tolerance(A::cublas_fp16, 64, true, 1024).exact());
  CHECK_FALSE(gm::variant_tolerance(A::cublas_fp16, 1024, true, 4096).exact());    // beyond 2^11
  CHECK_FALSE(gm::variant_tolerance(A::tensor_fp32, 64, false, 10).exact());        // random inputs
  const tcu::Tolerance both = gm::combine(gm::accumulation_tolerance(A::tensor_fp32, 64),
                                          gm::accumulation_tolerance(A::cublas_fp32, 64));
  CHECK(both.rel_to_magnitude == doctest::Approx(2 * (4 + 17) * std::ldexp(1.0, -24) + 2 * 64 * std::ldexp(1.0, -24)));
  CHECK(gm::combine(tcu::exact_tolerance(), tcu::exact_tolerance()).exact());
}

TEST_CASE("CSV has exactly the documented columns") {
  gm::BenchRow r;
  r.variant = "wmma_naive";
  r.p = {64, 64, 64};
  r.ms = 0.5;
  r.tflops = 0.001;
  r.pass = true;
  const std::string csv = gm::csv_table({r}).to_csv();
  CHECK(csv.rfind("variant,m,n,k,ms,tflops,pct_of_cublas,max_rel_err,pass\n", 0) == 0);
  CHECK(csv.find("wmma_naive,64,64,64,") != std::string::npos);
}

TEST_CASE("sweep sizes: the study's 64..1024 plus 2048, 4096, 8192") {
  const std::vector<std::int64_t> want = {64, 128, 256, 512, 1024, 2048, 4096, 8192};
  CHECK(gm::sweep_sizes() == want);
}
