#pragma once
// What every launch function of the chapter does before it launches: refuse what would be
// undefined behaviour on the device, choose the kernel instance for the operand layouts, and
// make sure an sm_80-only kernel really has its sm_80 body in the binary the GPU runs.
// Internal to the chapter (compiled by nvcc only: it includes <mma.h>).
#include <mma.h>

#include <climits>
#include <initializer_list>
#include <string>

#include "01_wmma_basics/wmma_basics.cuh"
#include "common/kernel_image.cuh"

namespace tcu::wmma_basics::detail {

inline constexpr int kWarpSize = 32;  // every kernel of this chapter is one warp

// cudaErrorInvalidValue if any tile has a problem (describe_tile_problem), else cudaSuccess.
inline cudaError_t refuse_if_any(std::initializer_list<std::string> problems) {
  for (const std::string& p : problems)
    if (!p.empty()) return cudaErrorInvalidValue;
  return cudaSuccess;
}

template <class T>
unsigned ldm_of(const Tile<T>& t, int rows, int cols) {
  // describe_tile_problem has already refused anything above UINT_MAX.
  return static_cast<unsigned>(effective_ld(t.layout, t.ld, rows, cols));
}

// The leading dimensions of D (m×n) = A (m×k) · B (k×n), as the kernels take them.
struct ProductLdms {
  unsigned a = 0, b = 0, d = 0;
};

// The check every product wrapper makes: cudaErrorInvalidValue (launch nothing) when any of
// the three tiles breaks the WMMA rules; otherwise cudaSuccess and the three ldm values.
template <class TA, class TB, class TD>
cudaError_t check_product_tiles(const Tile<TA>& a, const Tile<TB>& b, const Tile<TD>& d, MmaShape s, ProductLdms& ld) {
  if (const cudaError_t e = refuse_if_any({describe_tile_problem(a, s.m, s.k), describe_tile_problem(b, s.k, s.n),
                                           describe_tile_problem(d, s.m, s.n)});
      e != cudaSuccess)
    return e;
  ld = {ldm_of(a, s.m, s.k), ldm_of(b, s.k, s.n), ldm_of(d, s.m, s.n)};
  return cudaSuccess;
}

inline nvcuda::wmma::layout_t store_layout(Layout l) {
  return l == Layout::row_major ? nvcuda::wmma::mem_row_major : nvcuda::wmma::mem_col_major;
}

// wmma::row_major and wmma::col_major are declared but never defined (pure type tags), so they
// travel as LayoutTag<...> objects; `typename decltype(tag)::type` gets the layout back.
template <class L>
struct LayoutTag {
  using type = L;
};

// f(LayoutTag<A's layout>, LayoutTag<B's layout>): an operand's layout is part of its
// fragment's type, so a runtime choice becomes one of four kernel instances.
template <class F>
cudaError_t dispatch_layouts(Layout la, Layout lb, F&& f) {
  using Row = LayoutTag<nvcuda::wmma::row_major>;
  using Col = LayoutTag<nvcuda::wmma::col_major>;
  if (la == Layout::row_major) return lb == Layout::row_major ? f(Row{}, Row{}) : f(Row{}, Col{});
  return lb == Layout::row_major ? f(Col{}, Row{}) : f(Col{}, Col{});
}

// sm_80 kernels keep their body under `#if __CUDA_ARCH__ >= 800`, so that the sm_75 build
// compiles; whether the GPU runs the full body or the empty one is common/kernel_image.cuh's
// question.
inline cudaError_t require_sm80_image(const void* kernel) { return require_kernel_image(kernel, 80); }

}  // namespace tcu::wmma_basics::detail
