#pragma once
// Phase accounting for one whole workflow (allocate, fill on the host, move to the GPU,
// reduce, read the result back), timed with the host's steady clock.
//
// Why a host clock and not CUDA events: most phases are host work or include it — malloc
// and cudaMallocHost (pinning pages), the host fill (first-touch page faults), a pageable
// cudaMemcpy (staged through a driver buffer by the CPU), reading a managed value (a CPU page
// fault). Events only see work queued on a stream. Every phase therefore ends with the work
// it started being finished (a synchronising call), and the kernel phase is additionally timed
// with events so that the two views can be compared (the difference is launch and
// synchronisation overhead, plus on-demand page migration that happens inside the kernel).
#include <functional>
#include <vector>

namespace tcu::unified_memory {

enum class Phase { alloc, fill, transfer, kernel, readback };
inline constexpr int kPhaseCount = 5;
inline constexpr Phase kPhases[kPhaseCount] = {Phase::alloc, Phase::fill, Phase::transfer, Phase::kernel,
                                               Phase::readback};
const char* phase_name(Phase p);

struct PhaseTimes {
  double alloc_ms = 0;     // every buffer of the workflow allocated (and the output poisoned)
  double fill_ms = 0;      // the host writes the input
  double transfer_ms = 0;  // input moved to the GPU (0 where the API moves nothing up front)
  double kernel_ms = 0;    // the reduction launched and finished (host clock)
  double readback_ms = 0;  // the result readable by the host
  double total_ms = 0;     // wall clock from the first allocation to the result on the host
  double kernel_event_ms = 0;  // the kernel phase as CUDA events see it (0 on the CPU)

  double& operator[](Phase p);
  double operator[](Phase p) const;
  // alloc + fill + transfer + kernel + readback; <= total_ms (the rest is bookkeeping).
  double phase_sum() const;
};

// Milliseconds on std::chrono::steady_clock (monotonic: never jumps with the wall clock).
double steady_now_ms();

// Marks phase boundaries: start(), then end_phase(p) after each phase's work has finished
// (the time since the previous mark is charged to p; ending a phase twice adds up), and
// finish() for the total. Time between marks that belongs to no phase (creating events,
// checks) is dropped with skip(): it stays in the total, not in any phase.
class PhaseClock {
 public:
  using Now = std::function<double()>;  // milliseconds, monotonic
  explicit PhaseClock(Now now = steady_now_ms);
  void start();
  void end_phase(Phase p);
  void skip();
  PhaseTimes finish();
  const PhaseTimes& so_far() const { return times_; }

 private:
  Now now_;
  double start_ms_ = 0, mark_ms_ = 0;
  bool running_ = false;
  PhaseTimes times_;
};

// The median of every field on its own (tcu::summarize). Medians do not add up: the median
// total is not the sum of the median phases. Throws std::invalid_argument on an empty list.
PhaseTimes median_of(const std::vector<PhaseTimes>& runs);

}  // namespace tcu::unified_memory
