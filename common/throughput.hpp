#pragma once
// Throughput maths of the benchmark tables: bytes moved, elements per second, GB/s and the
// percentage of a limit measured in the same run. Header-only, host code.
#include <cstddef>
#include <cstdint>

namespace tcu {

// Bytes a segmented operation must move at least: every input element read once, every
// output element written once.
inline double segmented_bytes(std::int64_t num_segments, std::int64_t segment_size, std::size_t in_bytes,
                              std::int64_t outputs_per_segment, std::size_t out_bytes) {
  return static_cast<double>(num_segments) *
         (static_cast<double>(segment_size) * in_bytes + static_cast<double>(outputs_per_segment) * out_bytes);
}

// Input elements per second, in G/s, for `elements` processed in `ms` milliseconds.
inline double gelem_per_s(std::int64_t elements, double ms) {
  return ms > 0 ? static_cast<double>(elements) / (ms * 1e6) : 0.0;
}

// GB/s for `bytes` in `ms` milliseconds.
inline double gb_per_s(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0.0; }

// The read-stream ceiling in G elements/s for elements of `element_bytes` bytes, from the
// probe's GB/s (measured in the same run).
inline double read_gelem_ceiling(double read_gb_per_s, std::size_t element_bytes) {
  return element_bytes > 0 ? read_gb_per_s / static_cast<double>(element_bytes) : 0.0;
}

// 100 · value / reference (0 when the reference is not positive).
inline double percent_of(double value, double reference) { return reference > 0 ? 100.0 * value / reference : 0.0; }

}  // namespace tcu
