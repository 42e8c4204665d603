#pragma once
// Array comparisons for the host tests that grade exercises: on a difference, one failed check
// that says where and how (the first differing index, as row and column of a 16×16 tile when
// the arrays are tiles, both values, and how many elements differ), instead of doctest's
// "CHECK( {?} == {?} )".
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>

namespace tcu::testing {

namespace detail {
template <class T>
double as_double(const T& v) {
  return static_cast<double>(v);
}

inline std::string where(std::size_t i, std::size_t n) {
  std::ostringstream os;
  os << "index " << i;
  if (n == 256) os << " (row " << i / 16 << ", column " << i % 16 << " of the 16x16 tile)";
  return os.str();
}
}  // namespace detail

// got[i] == want[i] for every i (or |got[i] − want[i]| <= tol when tol > 0).
template <class Got, class Want>
bool check_elements(const Got& got, const Want& want, const std::string& what, double tol = 0.0) {
  if (got.size() != want.size()) {
    FAIL_CHECK(what << ": " << got.size() << " elements, want " << want.size());
    return false;
  }
  std::size_t first = 0, count = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = detail::as_double(got[i]), w = detail::as_double(want[i]);
    const bool same = tol > 0 ? std::fabs(g - w) <= tol : g == w;
    if (!same && count++ == 0) first = i;
  }
  if (count > 0) {
    FAIL_CHECK(what << ": " << count << " of " << got.size() << " elements differ; the first at "
                    << detail::where(first, got.size()) << ": got " << detail::as_double(got[first]) << ", want "
                    << detail::as_double(want[first]));
    return false;
  }
  CHECK(count == 0);  // counted as one passing assertion
  return true;
}

}  // namespace tcu::testing
