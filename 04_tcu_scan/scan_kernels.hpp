#pragma once
// The launch functions of the algorithms, one file each (scan16.cu, scan256.cu, scan256n.cu,
// scan16n.cu, scan256_block.cu, matmulscan.cu,
// scan256_pipelined.cu). Arguments are validated by the caller
// (tcu_scan.cu); these only enqueue. Instantiated for OutT = __half and float.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tcu::scan_detail {

#define TCU_SCAN_LAUNCHER(name)                                                                        \
  template <class OutT>                                                                              \
  void name(const __half* in, OutT* out, std::int64_t num_segments, std::int64_t segment_size, bool inclusive, \
            cudaStream_t stream)

TCU_SCAN_LAUNCHER(launch_scan16);
TCU_SCAN_LAUNCHER(launch_scan256);
TCU_SCAN_LAUNCHER(launch_scan256n);
TCU_SCAN_LAUNCHER(launch_scan16n);
TCU_SCAN_LAUNCHER(launch_scan256_block);
TCU_SCAN_LAUNCHER(launch_matmulscan);
TCU_SCAN_LAUNCHER(launch_scan256_pipelined);
TCU_SCAN_LAUNCHER(launch_scan256_pipelined_shfl);

#undef TCU_SCAN_LAUNCHER

// Segment sizes scan256_pipelined.cu (both variants) takes: powers of two, 16 and more.
bool scan256_pipelined_supports(std::int64_t segment_size);

}  // namespace tcu::scan_detail
