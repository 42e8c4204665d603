#include "common/check.cuh"
#include "common/data.cuh"

namespace tcu {

std::optional<Dist> parse_dist(const std::string& name) {
  if (name == "uniform") return Dist::uniform;
  if (name == "normal") return Dist::normal;
  if (name == "ones") return Dist::ones;
  if (name == "int" || name == "integers") return Dist::integers;
  return std::nullopt;
}

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::uniform: return "uniform";
    case Dist::normal: return "normal";
    case Dist::ones: return "ones";
    case Dist::integers: return "int";
  }
  return "?";
}

namespace {
template <class T>
__global__ void fill_kernel(T* out, std::size_t n, Dist dist, std::uint64_t seed, std::uint64_t offset) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = from_double<T>(sample_value(dist, seed, offset + i));
}
}  // namespace

template <class T>
void fill_device(T* d_out, std::size_t n, Dist dist, std::uint64_t seed, cudaStream_t stream,
                 std::uint64_t offset) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  const std::size_t blocks_needed = (n + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(blocks_needed < 4096 ? blocks_needed : 4096);
  fill_kernel<T><<<blocks, kThreads, 0, stream>>>(d_out, n, dist, seed, offset);
  TCU_CHECK_LAUNCH();
}

template void fill_device<__half>(__half*, std::size_t, Dist, std::uint64_t, cudaStream_t, std::uint64_t);
template void fill_device<float>(float*, std::size_t, Dist, std::uint64_t, cudaStream_t, std::uint64_t);
template void fill_device<double>(double*, std::size_t, Dist, std::uint64_t, cudaStream_t, std::uint64_t);

}  // namespace tcu
