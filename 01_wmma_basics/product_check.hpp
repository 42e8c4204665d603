#pragma once
// Checking one tile product against the FP64 CPU reference (tcu::reference_gemm), with a
// tolerance derived from the types — shared by the lesson (main) and the GPU tests.
// Host code; the inputs live on both sides (HostDeviceTile) so the reference sees exactly the
// bits the kernel saw.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "01_wmma_basics/wmma_basics.cuh"
#include "common/check.cuh"
#include "common/data.cuh"
#include "common/device_buffer.cuh"
#include "common/reference.hpp"
#include "common/verify.hpp"

namespace tcu::wmma_basics {

// Distributions whose values are small integers: every product and partial sum of a tile is an
// integer of magnitude <= K·4·4 = 256, exact in fp32 AND in fp16 (integers up to 2048), so
// every result of this chapter must be bit-exact.
inline bool integer_valued(Dist d) { return d == Dist::integers || d == Dist::ones; }
static_assert(16 * kIntDistBound * kIntDistBound <= 2048, "int inputs must keep fp16 partial sums exact");

// The tolerance of one tile product D = A·B (+ C) of depth k.
// Depth: the order in which a tensor core adds the k products and C is not documented (and
// it truncates rather than rounds, which tolerance_for_accumulation already charges as 2u per
// level). We therefore take the honest worst case, a sequential chain — k roundings (k − 1
// additions of products, one of C) — instead of the ceil(log2 k) + 1 of a tree. For k = 16
// in fp32 that is 2·16·2^-24 ≈ 1.9e-6 of sum|a·b|: still tight enough to catch a wrong
// element, which is off by O(1).
// Operands: fp16 and bf16 products are exact in fp32 (11- and 8-bit significands), so only
// tf32 adds an input error: two operands rounded to tf32, each charged 2u.
inline Tolerance product_tolerance(int k, NumType operands, NumType acc, NumType out, Dist dist) {
  if (integer_valued(dist)) return exact_tolerance();
  Tolerance t = tolerance_for_accumulation(k, acc, out);
  if (operands == NumType::tf32) {
    t.rel_to_magnitude += 2 * 2 * unit_roundoff(NumType::tf32);
    t.rationale += ", operands rounded to tf32";
  }
  return t;
}

// An operand on the host and on the device, holding the same values.
template <class T>
struct HostDeviceTile {
  std::vector<T> host;
  DeviceBuffer<T> device;
};

// `count` elements [offset, offset + count) of the data set (dist, seed). fp16 and fp32 are
// generated on the device (fill_device) and copied back; bf16 is generated on the host
// (fill_host: common/ has no device generator for it) and copied over.
template <class T>
HostDeviceTile<T> make_input(std::size_t count, Dist dist, std::uint64_t seed, std::uint64_t offset) {
  HostDeviceTile<T> t{std::vector<T>(count), DeviceBuffer<T>(count)};
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    fill_host(t.host.data(), count, dist, seed, offset);
    t.device.copy_from_host(t.host.data(), count);
  } else {
    fill_device(t.device.data(), count, dist, seed, 0, offset);
    t.device.copy_to_host(t.host.data(), count);  // synchronous: also surfaces fill errors
  }
  return t;
}

// A tile stored with (layout, ld), as row-major doubles.
template <class T>
std::vector<double> tile_as_row_major(const T* mem, Layout layout, std::size_t ld, int rows, int cols) {
  const std::size_t e = effective_ld(layout, ld, rows, cols);
  std::vector<double> out(static_cast<std::size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      out[static_cast<std::size_t>(r) * cols + c] = to_double(mem[element_index(layout, r, c, e)]);
  return out;
}

// The exact product of the host operands (FP64) and its error scale |A|·|B|, row-major m×n.
struct ProductReference {
  std::vector<double> value, magnitude;
};
template <class TA, class TB>
ProductReference reference_product(const TA* a, Layout la, std::size_t lda, const TB* b, Layout lb, std::size_t ldb,
                                   MmaShape s) {
  ProductReference r;
  reference_gemm(a, la, b, lb, s.m, s.n, s.k, r.value, r.magnitude, effective_ld(la, lda, s.m, s.k),
                 effective_ld(lb, ldb, s.k, s.n));
  return r;
}

// Compares the device result d (copied back with its layout and ld) with the reference.
template <class TD>
VerifyResult verify_tile(const std::vector<TD>& d_host, Layout ld_layout, std::size_t ldd,
                         const ProductReference& want, MmaShape s, const Tolerance& tol) {
  const std::vector<double> got = tile_as_row_major(d_host.data(), ld_layout, ldd, s.m, s.n);
  return verify_doubles(got.data(), want.value.data(), want.magnitude.data(), got.size(), tol);
}

// Two checks of the same kind (e.g. two seeds) as one: the worst of both.
inline VerifyResult merge(VerifyResult x, const VerifyResult& y) {
  merge_part(x, y, static_cast<std::int64_t>(x.count));
  return x;
}

// A device output buffer poisoned with NaN (all-ones bytes) before a kernel writes it, so that
// an element the kernel never writes fails verification.
template <class T>
DeviceBuffer<T> poisoned_output(std::size_t count, cudaStream_t stream = 0) {
  DeviceBuffer<T> d(count);
  poison_device(d.data(), d.bytes(), stream);
  return d;
}

// Is every byte of the buffer still the poison (nothing was written)?
template <class T>
bool still_poisoned(const DeviceBuffer<T>& d) {
  std::vector<unsigned char> bytes(d.bytes());
  TCU_CUDA_CHECK(cudaMemcpy(bytes.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost));
  return std::all_of(bytes.begin(), bytes.end(), [](unsigned char b) { return b == 0xFF; });
}

// Where the three tiles of one product live: layouts and leading dimensions (0 = packed).
struct ProductLayout {
  Layout a = Layout::row_major, b = Layout::row_major, d = Layout::row_major;
  std::size_t lda = 0, ldb = 0, ldd = 0;
};

struct ProductCheck {
  cudaError_t launch = cudaSuccess;  // what the launch function returned; result is empty unless success
  VerifyResult result;
};

// One product check from inputs to verdict: generate A and B (seeded; B continues A's stream),
// poison D, launch(a, b, d) — a launch function of wmma_basics.cuh, or a lambda around one —,
// wait, copy D back, and compare with the reference. `adjust` may turn the reference of A·B
// into the reference of what the kernel computes (an epilogue). Throws tcu::CudaError on CUDA
// errors other than the launch function's own refusal.
template <class In, class Out, class Launch, class Adjust>
ProductCheck check_product(MmaShape s, const ProductLayout& pl, Dist dist, std::uint64_t seed, const Tolerance& tol,
                           Launch&& launch, Adjust&& adjust) {
  const HostDeviceTile<In> a = make_input<In>(tile_span(pl.a, pl.lda, s.m, s.k), dist, seed, 0);
  const HostDeviceTile<In> b = make_input<In>(tile_span(pl.b, pl.ldb, s.k, s.n), dist, seed, a.host.size());
  DeviceBuffer<Out> d = poisoned_output<Out>(tile_span(pl.d, pl.ldd, s.m, s.n));
  ProductCheck out;
  out.launch = launch(Tile<const In>{a.device.data(), pl.a, pl.lda}, Tile<const In>{b.device.data(), pl.b, pl.ldb},
                      Tile<Out>{d.data(), pl.d, pl.ldd});
  if (out.launch != cudaSuccess) return out;
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Out> d_host(d.size());
  d.copy_to_host(d_host.data(), d_host.size());
  ProductReference want = reference_product(a.host.data(), pl.a, pl.lda, b.host.data(), pl.b, pl.ldb, s);
  adjust(want);
  out.result = verify_tile(d_host, pl.d, pl.ldd, want, s, tol);
  return out;
}

template <class In, class Out, class Launch>
ProductCheck check_product(MmaShape s, const ProductLayout& pl, Dist dist, std::uint64_t seed, const Tolerance& tol,
                           Launch&& launch) {
  return check_product<In, Out>(s, pl, dist, seed, tol, std::forward<Launch>(launch), [](ProductReference&) {});
}

}  // namespace tcu::wmma_basics
