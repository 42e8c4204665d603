// A preview of chapters 03 and 04: reductions and scans are products with constant matrices
// (docs/algorithms.md, "Constant matrices"). Building them as fragments shows the two portable ways
// to put known values into a fragment:
//   - 1 (all ones) is the same in every element: fill_fragment, no memory at all;
//   - P, U and L depend on (row, col): write them to shared memory by position, then
//     load_matrix_sync — never by guessing which x[i] holds which element.
//   - Pᵀ costs nothing extra: P's memory loaded as a col_major matrix_b IS Pᵀ.
#include <mma.h>

#include "01_wmma_basics/launch_support.cuh"
#include "common/tensor_core/fragments.cuh"

namespace tcu::wmma_basics {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kTile = kConstantTile;
static_assert(kTile == kShape16x16x16.m && kTile == kShape16x16x16.n && kTile == kShape16x16x16.k,
              "the constant matrices are made for the 16x16x16 tile");

using tc::FragA;
using tc::FragBCol;
using tc::FragBRow;

// The warp writes matrix m, row-major, into a 32-byte aligned shared tile (the shared layer's
// writer: by position, never by guessing which fragment element holds which entry).
__device__ void write_constant(ConstantMatrix m, __half* tile) {
  tc::warp_write_constant_tile(tile, m, static_cast<int>(threadIdx.x));
}

template <ConstantProduct Op, class LayoutX>
__global__ void constant_product_kernel(const __half* x, unsigned ldx, float* d, unsigned ldd,
                                        wmma::layout_t d_layout) {
  __shared__ __align__(32) __half constant_tile[kTile * kTile];
  wmma::fragment<wmma::accumulator, kTile, kTile, kTile, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  if constexpr (Op == ConstantProduct::P_X || Op == ConstantProduct::L_X) {
    // Constant on the left: it is the matrix_a operand, X the matrix_b.
    write_constant(Op == ConstantProduct::P_X ? ConstantMatrix::P : ConstantMatrix::L, constant_tile);
    FragA c_frag;
    wmma::load_matrix_sync(c_frag, constant_tile, kTile);
    wmma::fragment<wmma::matrix_b, kTile, kTile, kTile, __half, LayoutX> x_frag;
    wmma::load_matrix_sync(x_frag, x, ldx);
    wmma::mma_sync(acc, c_frag, x_frag, acc);
  } else {
    wmma::fragment<wmma::matrix_a, kTile, kTile, kTile, __half, LayoutX> x_frag;
    wmma::load_matrix_sync(x_frag, x, ldx);
    if constexpr (Op == ConstantProduct::X_Pt) {
      write_constant(ConstantMatrix::P, constant_tile);  // P row-major = Pᵀ column-major
      FragBCol c_frag;
      wmma::load_matrix_sync(c_frag, constant_tile, kTile);
      wmma::mma_sync(acc, x_frag, c_frag, acc);
    } else if constexpr (Op == ConstantProduct::X_U) {
      write_constant(ConstantMatrix::U, constant_tile);
      FragBRow c_frag;
      wmma::load_matrix_sync(c_frag, constant_tile, kTile);
      wmma::mma_sync(acc, x_frag, c_frag, acc);
    } else {
      static_assert(Op == ConstantProduct::X_ones, "a constant product without a kernel");
      FragBRow ones;
      wmma::fill_fragment(ones, __float2half(1.0f));  // every element 1: no layout involved
      wmma::mma_sync(acc, x_frag, ones, acc);
    }
  }
  wmma::store_matrix_sync(d, acc, ldd, d_layout);
}

template <ConstantProduct Op>
cudaError_t launch_constant_product(Tile<const __half> x, Tile<float> d, cudaStream_t stream) {
  const unsigned ldx = detail::ldm_of(x, kTile, kTile), ldd = detail::ldm_of(d, kTile, kTile);
  const wmma::layout_t store = detail::store_layout(d.layout);
  if (x.layout == Layout::row_major)
    constant_product_kernel<Op, wmma::row_major>
        <<<1, detail::kWarpSize, 0, stream>>>(x.data, ldx, d.data, ldd, store);
  else
    constant_product_kernel<Op, wmma::col_major>
        <<<1, detail::kWarpSize, 0, stream>>>(x.data, ldx, d.data, ldd, store);
  return cudaGetLastError();
}

}  // namespace

const char* constant_product_name(ConstantProduct op) {
  switch (op) {
    case ConstantProduct::P_X: return "P*X";
    case ConstantProduct::X_Pt: return "X*Pt";
    case ConstantProduct::X_U: return "X*U";
    case ConstantProduct::L_X: return "L*X";
    case ConstantProduct::X_ones: return "X*1";
  }
  return "?";
}

ConstantMatrix constant_of(ConstantProduct op) {
  switch (op) {
    case ConstantProduct::P_X: return ConstantMatrix::P;
    case ConstantProduct::X_Pt: return ConstantMatrix::Pt;
    case ConstantProduct::X_U: return ConstantMatrix::U;
    case ConstantProduct::L_X: return ConstantMatrix::L;
    case ConstantProduct::X_ones: return ConstantMatrix::ones;
  }
  return ConstantMatrix::ones;
}

bool constant_on_left(ConstantProduct op) { return op == ConstantProduct::P_X || op == ConstantProduct::L_X; }

cudaError_t constant_product(ConstantProduct op, Tile<const __half> x, Tile<float> d, cudaStream_t stream) {
  if (const cudaError_t e =
          detail::refuse_if_any({describe_tile_problem(x, kTile, kTile), describe_tile_problem(d, kTile, kTile)});
      e != cudaSuccess)
    return e;
  switch (op) {
    case ConstantProduct::P_X: return launch_constant_product<ConstantProduct::P_X>(x, d, stream);
    case ConstantProduct::X_Pt: return launch_constant_product<ConstantProduct::X_Pt>(x, d, stream);
    case ConstantProduct::X_U: return launch_constant_product<ConstantProduct::X_U>(x, d, stream);
    case ConstantProduct::L_X: return launch_constant_product<ConstantProduct::L_X>(x, d, stream);
    case ConstantProduct::X_ones: return launch_constant_product<ConstantProduct::X_ones>(x, d, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace tcu::wmma_basics
