#pragma once
// Launch sizes every chapter's host code shares: the SM count (cached per device) and grid
// sizes for grid-stride kernels.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tcu::tc {

// Multiprocessors of the current device (queried once per device, then cached; 1 when the
// query fails so that a launch still has a valid grid).
int sm_count();

// Blocks for a grid-stride kernel with `work_blocks` blocks of work: at most `per_sm` per SM,
// at least 1.
int grid_for(std::int64_t work_blocks, int per_sm);

// The same, capped at one resident wave: as many blocks of `kernel` (`threads` threads,
// `dynamic_smem` bytes) as the occupancy calculator says fit on all SMs at once.
int resident_grid_size(const void* kernel, int threads, std::int64_t work_blocks, std::size_t dynamic_smem = 0);

}  // namespace tcu::tc
