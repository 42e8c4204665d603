#pragma once
// Summary statistics of repeated timings (host only, tested in CI).
#include <vector>

namespace tcu {

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double mean_ms = 0;
  int samples = 0;
};

// Median of an even count is the mean of the two middle samples. Throws
// std::invalid_argument on an empty input or a negative / non-finite sample.
TimingStats summarize(std::vector<double> samples_ms);

}  // namespace tcu
