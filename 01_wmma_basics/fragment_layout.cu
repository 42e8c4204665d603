// Looking inside a fragment: which element of the tile does lane L's x[i] hold?
//
// The CUDA guide says the mapping is unspecified and may change between architectures — and
// it does (Volta, Turing, Ampere and Hopper differ). To see it on the running GPU, load a
// tile whose every element is its own index, e = row * 16 + col, and let each lane report
// the values it got. fp16 represents every integer up to 2048 exactly, so 0..255 survive the
// trip through a __half fragment unchanged.
#include <mma.h>

#include "01_wmma_basics/fragment_map.hpp"
#include "01_wmma_basics/launch_support.cuh"

namespace tcu::wmma_basics {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kM = kShape16x16x16.m, kN = kShape16x16x16.n, kK = kShape16x16x16.k;
constexpr int kTileElements = 16 * 16;
static_assert(kM == 16 && kN == 16 && kK == 16, "every fragment probed here is a 16x16 tile");
static_assert(kTileElements <= 2048, "element ids must be integers fp16 holds exactly");

__device__ int element_id_of(float v) {
  const int id = static_cast<int>(v);
  return (static_cast<float>(id) == v && id >= 0 && id < kTileElements) ? id : kUndecodableSlot;
}

template <class Frag>
__device__ void record_slots(const Frag& frag, int* lane_slots) {
  static_assert(Frag::num_elements <= kProbeSlotsPerLane, "a fragment with more slots than the probe records");
  for (int i = 0; i < kProbeSlotsPerLane; ++i)
    lane_slots[i] = i < Frag::num_elements ? element_id_of(static_cast<float>(frag.x[i])) : kUnusedSlot;
}

template <FragmentKind Kind>
__global__ void probe_layout(int* slots) {
  constexpr bool col_major_memory =
      Kind == FragmentKind::matrix_a_col_major || Kind == FragmentKind::matrix_b_col_major;
  // The tile is built in shared memory: 32-byte aligned as load_matrix_sync requires.
  __shared__ __align__(32) __half half_tile[kTileElements];
  __shared__ __align__(32) float float_tile[kTileElements];
  const int lane = static_cast<int>(threadIdx.x);
  for (int e = lane; e < kTileElements; e += detail::kWarpSize) {
    const int row = e / 16, col = e % 16;
    const int where = col_major_memory ? col * 16 + row : row * 16 + col;  // the same logical tile
    half_tile[where] = __int2half_rn(e);
    float_tile[where] = static_cast<float>(e);
  }
  __syncwarp();  // the tile is written by all lanes and read by all lanes
  int* lane_slots = slots + lane * kProbeSlotsPerLane;
  if constexpr (Kind == FragmentKind::matrix_a_row_major) {
    wmma::fragment<wmma::matrix_a, kM, kN, kK, __half, wmma::row_major> frag;
    wmma::load_matrix_sync(frag, half_tile, 16);
    record_slots(frag, lane_slots);
  } else if constexpr (Kind == FragmentKind::matrix_a_col_major) {
    wmma::fragment<wmma::matrix_a, kM, kN, kK, __half, wmma::col_major> frag;
    wmma::load_matrix_sync(frag, half_tile, 16);
    record_slots(frag, lane_slots);
  } else if constexpr (Kind == FragmentKind::matrix_b_row_major) {
    wmma::fragment<wmma::matrix_b, kM, kN, kK, __half, wmma::row_major> frag;
    wmma::load_matrix_sync(frag, half_tile, 16);
    record_slots(frag, lane_slots);
  } else if constexpr (Kind == FragmentKind::matrix_b_col_major) {
    wmma::fragment<wmma::matrix_b, kM, kN, kK, __half, wmma::col_major> frag;
    wmma::load_matrix_sync(frag, half_tile, 16);
    record_slots(frag, lane_slots);
  } else if constexpr (Kind == FragmentKind::accumulator_f32) {
    wmma::fragment<wmma::accumulator, kM, kN, kK, float> frag;
    wmma::load_matrix_sync(frag, float_tile, 16, wmma::mem_row_major);
    record_slots(frag, lane_slots);
  } else {
    static_assert(Kind == FragmentKind::accumulator_f16, "a fragment kind without a probe");
    wmma::fragment<wmma::accumulator, kM, kN, kK, __half> frag;
    wmma::load_matrix_sync(frag, half_tile, 16, wmma::mem_row_major);
    record_slots(frag, lane_slots);
  }
}

template <FragmentKind Kind>
cudaError_t launch_probe(int* d_slots, cudaStream_t stream) {
  probe_layout<Kind><<<1, detail::kWarpSize, 0, stream>>>(d_slots);
  return cudaGetLastError();
}

}  // namespace

const char* fragment_kind_name(FragmentKind kind) {
  switch (kind) {
    case FragmentKind::matrix_a_row_major: return "matrix_a row_major";
    case FragmentKind::matrix_a_col_major: return "matrix_a col_major";
    case FragmentKind::matrix_b_row_major: return "matrix_b row_major";
    case FragmentKind::matrix_b_col_major: return "matrix_b col_major";
    case FragmentKind::accumulator_f32: return "accumulator float";
    case FragmentKind::accumulator_f16: return "accumulator half";
  }
  return "?";
}

cudaError_t probe_fragment_layout(FragmentKind kind, int* d_slots, cudaStream_t stream) {
  if (d_slots == nullptr) return cudaErrorInvalidValue;
  switch (kind) {
    case FragmentKind::matrix_a_row_major: return launch_probe<FragmentKind::matrix_a_row_major>(d_slots, stream);
    case FragmentKind::matrix_a_col_major: return launch_probe<FragmentKind::matrix_a_col_major>(d_slots, stream);
    case FragmentKind::matrix_b_row_major: return launch_probe<FragmentKind::matrix_b_row_major>(d_slots, stream);
    case FragmentKind::matrix_b_col_major: return launch_probe<FragmentKind::matrix_b_col_major>(d_slots, stream);
    case FragmentKind::accumulator_f32: return launch_probe<FragmentKind::accumulator_f32>(d_slots, stream);
    case FragmentKind::accumulator_f16: return launch_probe<FragmentKind::accumulator_f16>(d_slots, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace tcu::wmma_basics
