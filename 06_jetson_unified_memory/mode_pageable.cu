// Mode 1, the textbook workflow: malloc'd (pageable) host memory, cudaMalloc, cudaMemcpy.
// A pageable copy cannot be a DMA from the user's pages (the OS may move them): the driver
// copies through a pinned staging buffer, chunk by chunk. And cudaMemcpy host-to-device from
// pageable memory may return once the last chunk is *staged*, before its DMA has landed (CUDA
// Runtime API, "API synchronization behavior"): work on another stream — our non-blocking
// stream — could read the input before it has arrived. The device run of this chapter caught
// exactly that (a wrong sum, 1 MiB, first workflow), so the transfer phase ends with a
// device-wide synchronisation, which also makes it time the whole copy.
#include "06_jetson_unified_memory/mode_support.cuh"
#include "common/verify.hpp"

namespace tcu::unified_memory {
namespace {

class PageableMode final : public detail::GpuMode {
 public:
  std::string name() const override { return "pageable"; }
  std::string summary() const override {
    return "malloc + cudaMalloc, cudaMemcpy up, reduce, cudaMemcpy the sum down";
  }
  MemoryNeed memory_need(std::int64_t n) const override {
    const auto bytes = static_cast<std::uint64_t>(n) * sizeof(__half);
    return {bytes + sizeof(float), 0, bytes};
  }

  RunOutcome run(const Workload& w) const override {
    detail::GpuRun run(w);
    auto h_in = detail::allocate_pageable<__half>(static_cast<std::size_t>(w.n));
    auto d_in = detail::allocate_device<__half>(static_cast<std::size_t>(w.n));
    auto d_out = detail::allocate_device<float>(1);
    poison_device(d_out.get(), sizeof(float), run.stream());
    run.synchronize();
    run.end(Phase::alloc);

    run.fill(h_in.get());

    TCU_CUDA_CHECK(cudaMemcpy(d_in.get(), h_in.get(), w.bytes(), cudaMemcpyHostToDevice));
    TCU_CUDA_CHECK(cudaDeviceSynchronize());  // the DMA of the last staged chunk has landed
    run.end(Phase::transfer);

    run.reduce(d_in.get(), d_out.get());

    float sum = 0;  // device-to-pageable cudaMemcpy returns only when the copy is complete
    TCU_CUDA_CHECK(cudaMemcpy(&sum, d_out.get(), sizeof(float), cudaMemcpyDeviceToHost));
    run.end(Phase::readback);
    return run.finish(sum);
  }
};

}  // namespace

std::unique_ptr<Mode> make_pageable_mode() { return std::make_unique<PageableMode>(); }

}  // namespace tcu::unified_memory
