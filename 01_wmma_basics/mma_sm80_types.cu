// The operand types Ampere added to WMMA: bf16 (16×16×16) and tf32 (16×16×8), both with an
// fp32 accumulator. Their fragment types exist only when compiling for sm_80 or newer, so
// each kernel body sits under `#if __CUDA_ARCH__ >= 800`: the sm_75 build still compiles (to
// an empty kernel), and the launch functions refuse to run that empty image.
#include <mma.h>

#include "01_wmma_basics/launch_support.cuh"

namespace tcu::wmma_basics {
namespace {

namespace wmma = nvcuda::wmma;

// The shape constants live inside the kernel bodies: at namespace scope they would be unused in
// the sm_70/72/75 passes, which compile the bodies out, and nvcc warns about that (#177-D).
static_assert(kShape16x16x8.k == 8, "tf32 WMMA has only the m16n16k8 shape");

template <class LayoutA, class LayoutB>
__global__ void mma_bf16_one_tile(const __nv_bfloat16* a, unsigned lda, const __nv_bfloat16* b, unsigned ldb,
                                  float* d, unsigned ldd, wmma::layout_t d_layout) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int M = kShape16x16x16.m, N = kShape16x16x16.n, K = kShape16x16x16.k;
  wmma::fragment<wmma::matrix_a, M, N, K, __nv_bfloat16, LayoutA> a_frag;
  wmma::fragment<wmma::matrix_b, M, N, K, __nv_bfloat16, LayoutB> b_frag;
  wmma::fragment<wmma::accumulator, M, N, K, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(a_frag, a, lda);
  wmma::load_matrix_sync(b_frag, b, ldb);
  wmma::mma_sync(acc, a_frag, b_frag, acc);
  wmma::store_matrix_sync(d, acc, ldd, d_layout);
#endif
}

template <class LayoutA, class LayoutB>
__global__ void mma_tf32_one_tile(const float* a, unsigned lda, const float* b, unsigned ldb, float* d, unsigned ldd,
                                  wmma::layout_t d_layout) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int M = kShape16x16x8.m, N = kShape16x16x8.n, K = kShape16x16x8.k;
  wmma::fragment<wmma::matrix_a, M, N, K, wmma::precision::tf32, LayoutA> a_frag;
  wmma::fragment<wmma::matrix_b, M, N, K, wmma::precision::tf32, LayoutB> b_frag;
  wmma::fragment<wmma::accumulator, M, N, K, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(a_frag, a, lda);  // fp32 from memory, held as fp32 in the fragment
  wmma::load_matrix_sync(b_frag, b, ldb);
  // The CUDA guide asks for an explicit rounding to tf32 before mma_sync. It is the same
  // operation for every slot, so it needs no knowledge of the layout.
  for (int i = 0; i < a_frag.num_elements; ++i) a_frag.x[i] = wmma::__float_to_tf32(a_frag.x[i]);
  for (int i = 0; i < b_frag.num_elements; ++i) b_frag.x[i] = wmma::__float_to_tf32(b_frag.x[i]);
  wmma::mma_sync(acc, a_frag, b_frag, acc);
  wmma::store_matrix_sync(d, acc, ldd, d_layout);
#endif
}

}  // namespace

cudaError_t mma_16x16x16_bf16_f32acc(Tile<const __nv_bfloat16> a, Tile<const __nv_bfloat16> b, Tile<float> d,
                                     cudaStream_t stream) {
  detail::ProductLdms ld;
  if (const cudaError_t e = detail::check_product_tiles(a, b, d, kShape16x16x16, ld); e != cudaSuccess) return e;
  return detail::dispatch_layouts(a.layout, b.layout, [&](auto la, auto lb) {
    using LA = typename decltype(la)::type;
    using LB = typename decltype(lb)::type;
    if (const cudaError_t e = detail::require_sm80_image(reinterpret_cast<const void*>(mma_bf16_one_tile<LA, LB>));
        e != cudaSuccess)
      return e;
    mma_bf16_one_tile<LA, LB>
        <<<1, detail::kWarpSize, 0, stream>>>(a.data, ld.a, b.data, ld.b, d.data, ld.d, detail::store_layout(d.layout));
    return cudaGetLastError();
  });
}

cudaError_t mma_16x16x8_tf32_f32acc(Tile<const float> a, Tile<const float> b, Tile<float> d, cudaStream_t stream) {
  detail::ProductLdms ld;
  if (const cudaError_t e = detail::check_product_tiles(a, b, d, kShape16x16x8, ld); e != cudaSuccess) return e;
  return detail::dispatch_layouts(a.layout, b.layout, [&](auto la, auto lb) {
    using LA = typename decltype(la)::type;
    using LB = typename decltype(lb)::type;
    if (const cudaError_t e = detail::require_sm80_image(reinterpret_cast<const void*>(mma_tf32_one_tile<LA, LB>));
        e != cudaSuccess)
      return e;
    mma_tf32_one_tile<LA, LB>
        <<<1, detail::kWarpSize, 0, stream>>>(a.data, ld.a, b.data, ld.b, d.data, ld.d, detail::store_layout(d.layout));
    return cudaGetLastError();
  });
}

}  // namespace tcu::wmma_basics
