// One warp, one tile: D = A·B with fp16 operands, in the three fp16 shapes WMMA offers
// (16×16×16, 32×8×16, 8×32×16) and with an fp32 or fp16 accumulator.
#include <mma.h>

#include "01_wmma_basics/launch_support.cuh"

namespace tcu::wmma_basics {
namespace {

namespace wmma = nvcuda::wmma;

// The whole WMMA vocabulary in one kernel. The 32 lanes of the warp call every function
// together (the *_sync suffix): each lane holds a share of each tile in its fragment's x[],
// and which share is unspecified — we never look inside.
template <int M, int N, int K, class Acc, class LayoutA, class LayoutB>
__global__ void mma_one_tile(const __half* a, unsigned lda, const __half* b, unsigned ldb, Acc* d, unsigned ldd,
                             wmma::layout_t d_layout) {
  static_assert(M * N == 256 && K == 16, "the fp16 WMMA shapes: 16x16x16, 32x8x16, 8x32x16");
  // BEGIN EXERCISE 01.2 One tile on the tensor cores: D = A·B with mma_sync, in all 8 layouts
  // HINT: Declare three fragments: matrix_a (M×K, __half, LayoutA), matrix_b (K×N, __half,
  // HINT: LayoutB) and an accumulator (M×N, Acc; its layout is given only when it is stored).
  // HINT: Zero the accumulator, load A and B with their leading dimensions, one mma_sync, and
  // HINT: store D with d_layout. All 32 lanes make every call (the *_sync suffix).
  // SIZE: 8 to 10 lines
  wmma::fragment<wmma::matrix_a, M, N, K, __half, LayoutA> a_frag;  // M×K, layout in its type
  wmma::fragment<wmma::matrix_b, M, N, K, __half, LayoutB> b_frag;  // K×N
  wmma::fragment<wmma::accumulator, M, N, K, Acc> acc;              // M×N, layout given at store
  wmma::fill_fragment(acc, static_cast<Acc>(0.0f));
  wmma::load_matrix_sync(a_frag, a, lda);
  wmma::load_matrix_sync(b_frag, b, ldb);
  wmma::mma_sync(acc, a_frag, b_frag, acc);
  wmma::store_matrix_sync(d, acc, ldd, d_layout);
  // STUB: (void)a; (void)lda; (void)b; (void)ldb; (void)d; (void)ldd; (void)d_layout;
  // END EXERCISE
}

template <int M, int N, int K, class Acc>
cudaError_t launch_f16_product(Tile<const __half> a, Tile<const __half> b, Tile<Acc> d, cudaStream_t stream) {
  detail::ProductLdms ld;
  if (const cudaError_t e = detail::check_product_tiles(a, b, d, MmaShape{M, N, K}, ld); e != cudaSuccess) return e;
  return detail::dispatch_layouts(a.layout, b.layout, [&](auto la, auto lb) {
    using LA = typename decltype(la)::type;
    using LB = typename decltype(lb)::type;
    mma_one_tile<M, N, K, Acc, LA, LB>
        <<<1, detail::kWarpSize, 0, stream>>>(a.data, ld.a, b.data, ld.b, d.data, ld.d, detail::store_layout(d.layout));
    return cudaGetLastError();
  });
}

}  // namespace

cudaError_t mma_16x16x16_f16_f32acc(Tile<const __half> a, Tile<const __half> b, Tile<float> d, cudaStream_t stream) {
  return launch_f16_product<16, 16, 16, float>(a, b, d, stream);
}

cudaError_t mma_16x16x16_f16_f16acc(Tile<const __half> a, Tile<const __half> b, Tile<__half> d, cudaStream_t stream) {
  return launch_f16_product<16, 16, 16, __half>(a, b, d, stream);
}

cudaError_t mma_32x8x16_f16_f32acc(Tile<const __half> a, Tile<const __half> b, Tile<float> d, cudaStream_t stream) {
  return launch_f16_product<32, 8, 16, float>(a, b, d, stream);
}

cudaError_t mma_8x32x16_f16_f32acc(Tile<const __half> a, Tile<const __half> b, Tile<float> d, cudaStream_t stream) {
  return launch_f16_product<8, 32, 16, float>(a, b, d, stream);
}

namespace unchecked {
// The same kernel as mma_16x16x16_f16_f32acc, minus every check. Only the alignment demo
// calls it, in a child process, with arguments that break the WMMA rules on purpose.
cudaError_t mma_16x16x16_f16_f32acc(const __half* a, unsigned lda, const __half* b, unsigned ldb, float* d,
                                    unsigned ldd, cudaStream_t stream) {
  mma_one_tile<16, 16, 16, float, wmma::row_major, wmma::row_major>
      <<<1, detail::kWarpSize, 0, stream>>>(a, lda, b, ldb, d, ldd, wmma::mem_row_major);
  return cudaGetLastError();
}
}  // namespace unchecked

}  // namespace tcu::wmma_basics
