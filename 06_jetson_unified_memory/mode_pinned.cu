// Mode 2: page-locked host memory (cudaMallocHost) and cudaMemcpyAsync. The copy engine
// reads the user's pages directly (one DMA, no staging), at the link's full speed — but
// pinning costs time at allocation (every page is locked and mapped for the GPU).
#include "06_jetson_unified_memory/mode_support.cuh"
#include "common/verify.hpp"

namespace tcu::unified_memory {
namespace {

class PinnedMode final : public detail::GpuMode {
 public:
  std::string name() const override { return "pinned"; }
  std::string summary() const override {
    return "cudaMallocHost + cudaMalloc, cudaMemcpyAsync up, reduce, cudaMemcpyAsync the sum down";
  }
  MemoryNeed memory_need(std::int64_t n) const override {
    const auto bytes = static_cast<std::uint64_t>(n) * sizeof(__half);
    return {bytes + sizeof(float), 0, bytes + sizeof(float)};
  }

  RunOutcome run(const Workload& w) const override {
    detail::GpuRun run(w);
    auto h_in = detail::allocate_pinned<__half>(static_cast<std::size_t>(w.n));  // cudaMallocHost
    auto h_out = detail::allocate_pinned<float>(1);
    auto d_in = detail::allocate_device<__half>(static_cast<std::size_t>(w.n));
    auto d_out = detail::allocate_device<float>(1);
    poison_device(d_out.get(), sizeof(float), run.stream());
    poison_host(h_out.get(), sizeof(float));
    run.synchronize();
    run.end(Phase::alloc);

    run.fill(h_in.get());

    // BEGIN EXERCISE 06.1 The pinned workflow: one DMA up, the device-wide sum, 4 bytes down
    // HINT: Phases in order, each ended by run.end(phase) after run.synchronize(): the copy of
    // HINT: w.bytes() from h_in to d_in with cudaMemcpyAsync on run.stream() (transfer); the
    // HINT: reduction, run.reduce(d_in, d_out), which ends its own phase; the 4-byte copy of the
    // HINT: sum into h_out, then detail::read_result(h_out) (readback). Check every CUDA call.
    // SIZE: 9 to 11 lines
    TCU_CUDA_CHECK(cudaMemcpyAsync(d_in.get(), h_in.get(), w.bytes(), cudaMemcpyHostToDevice, run.stream()));
    run.synchronize();
    run.end(Phase::transfer);

    run.reduce(d_in.get(), d_out.get());

    TCU_CUDA_CHECK(cudaMemcpyAsync(h_out.get(), d_out.get(), sizeof(float), cudaMemcpyDeviceToHost, run.stream()));
    run.synchronize();
    const double sum = detail::read_result(h_out.get());
    run.end(Phase::readback);
    // STUB: (void)d_in; (void)d_out; (void)h_out;
    // STUB: const double sum = 0.0 / 0.0;  // NaN: never passes the check
    // END EXERCISE
    return run.finish(sum);
  }
};

}  // namespace

std::unique_ptr<Mode> make_pinned_mode() { return std::make_unique<PinnedMode>(); }

}  // namespace tcu::unified_memory
