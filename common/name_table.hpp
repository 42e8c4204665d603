#pragma once
// The one mechanism behind the algorithm names of every API (chapters 03, 04 and 05): a
// constexpr table with a row {value, name, description} per enum value, in enum (lesson) order,
// and the lookups every API exports (name, description, parse, the list), plus the lookup of a
// dispatch table's row. The names in a table are the only place they are written: the API, the
// --algo flags, the CSV rows and the tests all go through it.
//
//   constexpr NamedAlgorithm<ReduceAlgorithm> kNames[] = {{ReduceAlgorithm::automatic, "auto", "..."}, ...};
//   static_assert(names_in_enum_order(kNames));
//   const char* reduce_algorithm_name(ReduceAlgorithm a) { return algorithm_name(kNames, a); }
#include <cstddef>
#include <iterator>  // std::size, for the tables' static_asserts
#include <optional>
#include <string>
#include <vector>

namespace tcu {

template <class E>
struct NamedAlgorithm {
  E value;
  const char* name;         // the API's, --algo's and the CSV rows' name
  const char* description;  // one line, for --help
};

// Row i holds the enum value i, so a value indexes its row.
template <class E, std::size_t N>
constexpr bool names_in_enum_order(const NamedAlgorithm<E> (&table)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].value) != i) return false;
  return true;
}

template <class E, std::size_t N>
const char* algorithm_name(const NamedAlgorithm<E> (&table)[N], E v) {
  const auto i = static_cast<std::size_t>(v);
  return i < N ? table[i].name : "?";
}

template <class E, std::size_t N>
const char* algorithm_description(const NamedAlgorithm<E> (&table)[N], E v) {
  const auto i = static_cast<std::size_t>(v);
  return i < N ? table[i].description : "?";
}

// The value named `name`; "automatic" is accepted for the row named "auto".
template <class E, std::size_t N>
std::optional<E> parse_algorithm(const NamedAlgorithm<E> (&table)[N], const std::string& name) {
  const std::string wanted = name == "automatic" ? "auto" : name;
  for (const NamedAlgorithm<E>& row : table)
    if (wanted == row.name) return row.value;
  return std::nullopt;
}

// Every value but `left_out` (the automatic choice), in lesson order.
template <class E, std::size_t N>
std::vector<E> algorithms_but(const NamedAlgorithm<E> (&table)[N], E left_out) {
  std::vector<E> out;
  for (const NamedAlgorithm<E>& row : table)
    if (row.value != left_out) out.push_back(row.value);
  return out;
}

// The row of a dispatch table (rows with an `algorithm` member) for `a`, or nullptr.
template <class Row, std::size_t N, class E>
constexpr const Row* dispatch_row(const Row (&table)[N], E a) {
  for (const Row& row : table)
    if (row.algorithm == a) return &row;
  return nullptr;
}

}  // namespace tcu
