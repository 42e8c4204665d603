// Mode 3: cudaMallocManaged with first touch. One pointer for host and GPU; the host's fill
// puts the pages in host memory, and the kernel's first access to each page faults and
// migrates it (on a discrete GPU with concurrentManagedAccess; without it — Jetson, Windows —
// the driver makes all managed memory visible to the GPU at launch instead). There is no
// transfer phase: the copy, if any, happens inside the kernel phase, which the event timing
// makes visible. Reading the sum on the host faults its page back.
#include "06_jetson_unified_memory/mode_support.cuh"
#include "common/verify.hpp"

namespace tcu::unified_memory {
namespace {

class ManagedMode final : public detail::GpuMode {
 public:
  std::string name() const override { return "managed"; }
  std::string summary() const override {
    return "cudaMallocManaged, host fill (first touch), reduce (pages migrate on demand), read the sum";
  }
  std::optional<std::string> unsupported(const Platform& p) const override {
    if (!p.managed_memory) return std::string("skipped: cudaMallocManaged is not supported on this GPU/OS");
    return std::nullopt;
  }
  MemoryNeed memory_need(std::int64_t n) const override {
    return {0, static_cast<std::uint64_t>(n) * sizeof(__half) + sizeof(float), 0};
  }

  RunOutcome run(const Workload& w) const override {
    detail::GpuRun run(w);
    auto in = detail::allocate_managed<__half>(static_cast<std::size_t>(w.n));
    auto result = detail::allocate_managed<float>(1);
    poison_host(result.get(), sizeof(float));
    run.end(Phase::alloc);

    run.fill(in.get());

    // No transfer phase: nothing moves before the kernel asks for it.
    run.reduce(in.get(), result.get());

    const double sum = detail::read_result(result.get());
    run.end(Phase::readback);
    return run.finish(sum);
  }
};

}  // namespace

std::unique_ptr<Mode> make_managed_mode() { return std::make_unique<ManagedMode>(); }

}  // namespace tcu::unified_memory
