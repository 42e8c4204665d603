#pragma once
// Running a layout probe and bringing its map back to the host (lesson and GPU tests).
#include <cuda_runtime.h>

#include <vector>

#include "01_wmma_basics/fragment_map.hpp"
#include "01_wmma_basics/wmma_basics.cuh"
#include "common/check.cuh"
#include "common/device_buffer.cuh"

namespace tcu::wmma_basics {

struct ProbedMap {
  cudaError_t status = cudaSuccess;  // the launch function's answer; map is empty unless success
  FragmentMap map;
};

namespace detail {
// Slots start as 0x80808080, which is neither an element id nor kUnusedSlot: a slot the probe
// forgot to write reads as undecodable and fails the coverage check.
template <class Launch>
ProbedMap read_map(int rows, int cols, int slots_per_lane, Launch&& launch) {
  ProbedMap out;
  const std::size_t count = static_cast<std::size_t>(kWarpLanes) * slots_per_lane;
  DeviceBuffer<int> d_slots(count);
  TCU_CUDA_CHECK(cudaMemset(d_slots.data(), 0x80, d_slots.bytes()));
  out.status = launch(d_slots.data());
  if (out.status != cudaSuccess) return out;
  TCU_CUDA_CHECK(cudaDeviceSynchronize());
  out.map.rows = rows;
  out.map.cols = cols;
  out.map.slots_per_lane = slots_per_lane;
  out.map.slot_element.resize(count);
  d_slots.copy_to_host(out.map.slot_element.data(), count);
  return out;
}
}  // namespace detail

// The WMMA fragment layout of `kind` on the current GPU.
inline ProbedMap read_wmma_fragment_map(FragmentKind kind) {
  return detail::read_map(16, 16, kProbeSlotsPerLane, [&](int* d) { return probe_fragment_layout(kind, d); });
}

// The PTX m16n8k16 layout of `op` as the hardware shows it (cudaErrorNotSupported below sm_80).
inline ProbedMap read_ptx_observed_map(PtxOperand op) {
  return detail::read_map(ptx_rows(op), ptx_cols(op), ptx_regs_per_lane(op),
                          [&](int* d) { return observe_ptx_m16n8k16_layout(op, d); });
}

}  // namespace tcu::wmma_basics
