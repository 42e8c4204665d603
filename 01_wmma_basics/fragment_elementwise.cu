// What you may do to a fragment without knowing its layout: anything that treats every slot
// x[i] alike. fill_fragment sets every element; a loop over x[i] that applies one function to
// each value is an element-wise map of the tile, whichever element each slot holds.
// (What you may NOT do portably: anything that depends on where an element sits — a mask
// of the upper triangle, "add the row index", reading element (0, 0) from x[0]. Those go
// through memory: store_matrix_sync, work on (row, col), load_matrix_sync.)
#include <mma.h>

#include "01_wmma_basics/launch_support.cuh"

namespace tcu::wmma_basics {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kM = kShape16x16x16.m, kN = kShape16x16x16.n, kK = kShape16x16x16.k;

// D = relu(alpha · (A·B + beta)), the shape of a typical GEMM epilogue.
template <class LayoutA, class LayoutB>
__global__ void mma_relu_epilogue(const __half* a, unsigned lda, const __half* b, unsigned ldb, float alpha,
                                  float beta, float* d, unsigned ldd, wmma::layout_t d_layout) {
  wmma::fragment<wmma::matrix_a, kM, kN, kK, __half, LayoutA> a_frag;
  wmma::fragment<wmma::matrix_b, kM, kN, kK, __half, LayoutB> b_frag;
  wmma::fragment<wmma::accumulator, kM, kN, kK, float> acc;
  wmma::fill_fragment(acc, beta);  // C = beta in every element: a constant matrix, no memory
  wmma::load_matrix_sync(a_frag, a, lda);
  wmma::load_matrix_sync(b_frag, b, ldb);
  wmma::mma_sync(acc, a_frag, b_frag, acc);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = fmaxf(alpha * acc.x[i], 0.0f);
  wmma::store_matrix_sync(d, acc, ldd, d_layout);
}

}  // namespace

cudaError_t mma_16x16x16_relu_epilogue(Tile<const __half> a, Tile<const __half> b, float alpha, float beta,
                                       Tile<float> d, cudaStream_t stream) {
  detail::ProductLdms ld;
  if (const cudaError_t e = detail::check_product_tiles(a, b, d, kShape16x16x16, ld); e != cudaSuccess) return e;
  return detail::dispatch_layouts(a.layout, b.layout, [&](auto la, auto lb) {
    using LA = typename decltype(la)::type;
    using LB = typename decltype(lb)::type;
    mma_relu_epilogue<LA, LB><<<1, detail::kWarpSize, 0, stream>>>(a.data, ld.a, b.data, ld.b, alpha, beta, d.data, ld.d,
                                                                   detail::store_layout(d.layout));
    return cudaGetLastError();
  });
}

}  // namespace tcu::wmma_basics
