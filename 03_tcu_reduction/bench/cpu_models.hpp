#pragma once
// CPU models of every formulation of the chapter, written with the same 16×16 matrix products
// (FP64, the shared host_matmul and constant matrices of common/tensor_core/) that the kernels give the tensor
// cores. The host tests (CI, no GPU) check each against a plain sum: if a model is right, the
// kernel that follows it step by step computes the right thing.
#include <cstdint>
#include <vector>

namespace tcu::bench::reduce::cpu {

using Matrix = std::vector<double>;  // 16×16, row-major

// The tile whose element (r, c) is x[first + r·ld + c] (row_major) or x[first + c·ld + r]
// (column-major), zero where the index is at or past `len`.
Matrix load_tile(const std::vector<double>& x, std::int64_t first, std::int64_t ld, bool column_major, std::int64_t len);

// Reduction16: 16 segments of 16 (x has 256 elements); V = P·A with A column-major; row 0.
std::vector<double> reduction16(const std::vector<double>& x);
// Reduction256: V = P·A, R = V·Pᵀ; R[0][0].
double reduction256(const std::vector<double>& x);
// Reduction256N, work-inefficient: R_i = (P·A_i)·Pᵀ + R_{i−1}.
double reduction256n_inefficient(const std::vector<double>& x);
// Reduction256N, work-efficient: V_i = P·A_i + V_{i−1}; R = V_N·Pᵀ.
double reduction256n_efficient(const std::vector<double>& x);
// Reduction16N strided: 16 segments of segment_size, V = P·A_i + V with ldm = segment_size.
std::vector<double> reduction16n_strided(const std::vector<double>& x, std::int64_t segment_size);
// Reduction16N coalesced (Alg. 3): 256-blocks per segment into Q, V = P·Q, strided rest.
std::vector<double> reduction16n_coalesced(const std::vector<double>& x, std::int64_t segment_size);
// Reduction16 multi-segment (ours): segments of segment_size (a power of two, 16 … 2048) laid
// end to end in x; rounds of 8 consecutive tiles, V = Σ_k E_row(k)·A_k (A_k column-major: column
// r = row r of tile k), R = V·M (M[r][j] = 1 iff r / m == j; skipped for m = 1). Every segment sum.
std::vector<double> reduction16_multisegment(const std::vector<double>& x, std::int64_t segment_size);
// Chained MMAs (Navarro): C_r = 1·M_r + C_{r−1} over chunks of R tiles, C·1, then the
// recurrence over the partials until one value is left.
double chained_recurrence(const std::vector<double>& x, int chain_length);
// The hi/lo split of an fp32 value into two fp16 values (tc::split_hi_lo, as the kernels do
// before V·Pᵀ): returns hi + lo as doubles; |v − (hi + lo)| <= 2^-22 |v| + 2^-25 for |v| <= 2^15 (the 2^-25:
// lo is an fp16 subnormal when |v| < 2^-3).
double split_hi_lo(float v, double* hi = nullptr, double* lo = nullptr);

}  // namespace tcu::bench::reduce::cpu
