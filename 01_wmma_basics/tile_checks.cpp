// The argument check every launch function makes before it launches (host code only).
#include <climits>
#include <string>

#include "01_wmma_basics/wmma_basics.cuh"

namespace tcu::wmma_basics {

std::string describe_tile_problem(const void* data, Layout layout, std::size_t ld, int rows, int cols,
                                  std::size_t element_bytes) {
  if (data == nullptr) return "null pointer";
  const std::size_t packed = effective_ld(layout, 0, rows, cols);
  const std::size_t used = effective_ld(layout, ld, rows, cols);
  std::string why = wmma_load_problem(data, used, element_bytes);
  auto also = [&why](const std::string& more) { why += (why.empty() ? "" : "; ") + more; };
  // A shorter ld passes WMMA's own rules but makes rows (or columns) overlap: not a matrix.
  if (used < packed)
    also("ld = " + std::to_string(used) + " is shorter than the tile's " +
         (layout == Layout::row_major ? "rows (" : "columns (") + std::to_string(packed) + " elements)");
  if (used > UINT_MAX) also("ld = " + std::to_string(used) + " does not fit the unsigned ldm of WMMA");
  return why;
}

}  // namespace tcu::wmma_basics
