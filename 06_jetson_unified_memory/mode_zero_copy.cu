// Mode 5: mapped pinned memory, "zero-copy". cudaHostAlloc(..., cudaHostAllocMapped) pins the
// pages and maps them into the GPU's address space; cudaHostGetDevicePointer gives the
// address kernels use (with unified addressing it equals the host pointer, but asking is the
// portable way). Nothing is copied: every load the kernel makes crosses the link (discrete
// GPU) or reads the shared DRAM (Tegra). Data read once, like a reduction's input, is the
// case where that can pay; data read many times is not.
#include "06_jetson_unified_memory/mode_support.cuh"
#include "common/verify.hpp"

namespace tcu::unified_memory {
namespace {

class ZeroCopyMode final : public detail::GpuMode {
 public:
  std::string name() const override { return "zero_copy"; }
  std::string summary() const override {
    return "cudaHostAlloc(Mapped) + cudaHostGetDevicePointer, reduce reading host memory, read the sum";
  }
  std::optional<std::string> unsupported(const Platform& p) const override {
    if (!p.can_map_host_memory) return std::string("skipped: this GPU cannot map host memory (canMapHostMemory = 0)");
    return std::nullopt;
  }
  MemoryNeed memory_need(std::int64_t n) const override {
    return {0, 0, static_cast<std::uint64_t>(n) * sizeof(__half) + sizeof(float)};
  }

  RunOutcome run(const Workload& w) const override {
    detail::GpuRun run(w);
    auto h_in = detail::allocate_pinned<__half>(static_cast<std::size_t>(w.n), cudaHostAllocMapped);
    auto h_out = detail::allocate_pinned<float>(1, cudaHostAllocMapped);
    __half* d_in = nullptr;
    float* d_out = nullptr;
    TCU_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_in), h_in.get(), 0));
    TCU_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_out), h_out.get(), 0));
    poison_host(h_out.get(), sizeof(float));
    run.end(Phase::alloc);

    run.fill(h_in.get());

    // No transfer phase: the kernel reads the host's pages where they are.
    run.reduce(d_in, d_out);

    const double sum = detail::read_result(h_out.get());
    run.end(Phase::readback);
    return run.finish(sum);
  }
};

}  // namespace

std::unique_ptr<Mode> make_zero_copy_mode() { return std::make_unique<ZeroCopyMode>(); }

}  // namespace tcu::unified_memory
