// Mode 4: managed memory with hints. After the host fill, cudaMemAdvise marks the input
// read-mostly (the GPU gets a read-only copy and the host keeps its own, so nothing has to
// migrate back), and cudaMemPrefetchAsync moves it to the GPU in bulk before the kernel, the
// way cudaMemcpy would, instead of fault by fault inside it. The sum is prefetched back to
// the host before it is read. Prefetch and advice need concurrentManagedAccess: on Jetson
// (and on Windows) the mode is skipped.
//
// CUDA 13 changed both calls to take a cudaMemLocation (device or host) instead of a device
// ordinal with cudaCpuDeviceId for the host; CUDART_VERSION picks the form.
#include "06_jetson_unified_memory/mode_support.cuh"
#include "common/verify.hpp"

namespace tcu::unified_memory {
namespace {

// Where a prefetch goes: the GPU `device`, or the host (device < 0).
cudaError_t prefetch(const void* p, std::size_t bytes, int device, cudaStream_t stream) {
#if CUDART_VERSION >= 13000
  cudaMemLocation where{};
  where.type = device >= 0 ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
  where.id = device >= 0 ? device : 0;
  return cudaMemPrefetchAsync(p, bytes, where, 0, stream);
#else
  return cudaMemPrefetchAsync(p, bytes, device >= 0 ? device : cudaCpuDeviceId, stream);
#endif
}

cudaError_t advise(const void* p, std::size_t bytes, cudaMemoryAdvise advice, int device) {
#if CUDART_VERSION >= 13000
  cudaMemLocation where{};
  where.type = device >= 0 ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
  where.id = device >= 0 ? device : 0;
  return cudaMemAdvise(p, bytes, advice, where);
#else
  return cudaMemAdvise(p, bytes, advice, device >= 0 ? device : cudaCpuDeviceId);
#endif
}

constexpr int kHost = -1;

class ManagedPrefetchMode final : public detail::GpuMode {
 public:
  std::string name() const override { return "managed_prefetch"; }
  std::string summary() const override {
    return "cudaMallocManaged, host fill, cudaMemAdvise(ReadMostly) + cudaMemPrefetchAsync to the GPU, "
           "reduce, prefetch the sum back";
  }
  std::optional<std::string> unsupported(const Platform& p) const override {
    if (!p.managed_memory) return std::string("skipped: cudaMallocManaged is not supported on this GPU/OS");
    if (!p.concurrent_managed_access)
      return std::string(
          "skipped: not supported on this GPU (e.g. Jetson): concurrentManagedAccess = 0, so no "
          "cudaMemPrefetchAsync / cudaMemAdvise");
    return std::nullopt;
  }
  MemoryNeed memory_need(std::int64_t n) const override {
    // ReadMostly keeps the host's copy as well as the GPU's.
    const auto bytes = static_cast<std::uint64_t>(n) * sizeof(__half);
    return {0, bytes + sizeof(float), bytes};
  }

  RunOutcome run(const Workload& w) const override {
    detail::GpuRun run(w);
    auto in = detail::allocate_managed<__half>(static_cast<std::size_t>(w.n));
    auto result = detail::allocate_managed<float>(1);
    poison_host(result.get(), sizeof(float));
    run.end(Phase::alloc);

    run.fill(in.get());

    TCU_CUDA_CHECK(advise(in.get(), w.bytes(), cudaMemAdviseSetReadMostly, w.device));
    TCU_CUDA_CHECK(prefetch(in.get(), w.bytes(), w.device, run.stream()));
    TCU_CUDA_CHECK(prefetch(result.get(), sizeof(float), w.device, run.stream()));
    run.synchronize();
    run.end(Phase::transfer);

    run.reduce(in.get(), result.get());

    TCU_CUDA_CHECK(prefetch(result.get(), sizeof(float), kHost, run.stream()));
    run.synchronize();
    const double sum = detail::read_result(result.get());
    run.end(Phase::readback);
    return run.finish(sum);
  }
};

}  // namespace

std::unique_ptr<Mode> make_managed_prefetch_mode() { return std::make_unique<ManagedPrefetchMode>(); }

}  // namespace tcu::unified_memory
