#include "common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace tcu {

TimingStats summarize(std::vector<double> s) {
  if (s.empty()) throw std::invalid_argument("summarize: no samples");
  for (double v : s)
    if (!std::isfinite(v) || v < 0) throw std::invalid_argument("summarize: invalid sample");
  std::sort(s.begin(), s.end());
  TimingStats t;
  t.samples = static_cast<int>(s.size());
  const std::size_t mid = s.size() / 2;
  t.median_ms = (s.size() % 2) ? s[mid] : 0.5 * (s[mid - 1] + s[mid]);
  t.min_ms = s.front();
  t.max_ms = s.back();
  t.mean_ms = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  return t;
}

}  // namespace tcu
