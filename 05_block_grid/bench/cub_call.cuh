#pragma once
// What every CUB baseline of the chapter needs: fp16 read as fp32 (a transform iterator's
// functor) and CUB's two-call protocol with the temporary storage from the library's own pool
// (no allocation is timed apart).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/tensor_core/launch.hpp"

namespace tcu::bench::device {

struct HalfToFloat {
  __host__ __device__ float operator()(__half h) const { return __half2float(h); }
};

// call(temp, bytes): first with temp = nullptr (CUB sets bytes), then with the storage.
template <class Call>
cudaError_t with_temp(Call&& call, cudaStream_t stream) {
  std::size_t bytes = 0;
  if (cudaError_t e = call(nullptr, bytes); e != cudaSuccess) return e;
  tc::TempBuffer<unsigned char> temp;
  if (cudaError_t e = temp.allocate(static_cast<std::int64_t>(bytes > 0 ? bytes : 1), stream); e != cudaSuccess)
    return e;
  return call(temp.get(), bytes);
}

}  // namespace tcu::bench::device
