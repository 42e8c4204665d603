#pragma once
// Results as an aligned text table, CSV and JSON — one Table, three renderings, so the
// numbers printed, written to docs/results/ and graded by --json are the same numbers.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/device_info.cuh"

namespace tcu {

using Cell = std::variant<std::monostate, std::string, std::int64_t, double, bool>;

struct Column {
  Column(std::string n, std::string f = {}) : name(std::move(n)), format(std::move(f)) {}  // NOLINT: implicit on purpose
  std::string name;
  std::string format;  // printf format for doubles in the text table ("%.3f"); default "%.4g"
};

class Table {
 public:
  explicit Table(std::vector<Column> columns);
  // Throws std::invalid_argument when the row has the wrong number of cells.
  void add_row(std::vector<Cell> row);

  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }

  // Aligned columns: text left, numbers right; doubles with each column's format.
  std::string to_text() const;
  // RFC 4180: header line, fields quoted when they hold , " or newline; full precision.
  std::string to_csv() const;
  // [{"col": value, ...}, ...]; NaN and Inf become null.
  std::string to_json() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// JSON is written by nlohmann/json (kept inside report.cpp, so nvcc never compiles it).
// A JSON object built key by key, keys in the order added; what --json prints:
//   std::cout << tcu::JsonObject().add("program", prog).add("device", info).add("results", table).dump();
class JsonObject {
 public:
  JsonObject();
  ~JsonObject();
  JsonObject(const JsonObject&) = delete;
  JsonObject& operator=(const JsonObject&) = delete;
  JsonObject& add(const std::string& key, const Cell& value);  // NaN and Inf become null
  JsonObject& add(const std::string& key, const char* value);
  JsonObject& add(const std::string& key, const Table& table);  // [{"col": value, ...}, ...]
  JsonObject& add(const std::string& key, const DeviceInfo& device);
  JsonObject& add(const std::string& key, const JsonObject& object);
  std::string dump() const;  // indented, with a final newline

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// When `algo` names one variant (not "all") and no row of `table` is that variant (its
// "algo", "variant", "mode" or "section" column), the message saying so; nullopt otherwise.
// A program asked for a variant that did not run with its flags reports that, never success.
std::optional<std::string> missing_variant(const Table& table, const std::string& algo);

// Writes `text` to `path`; throws std::runtime_error with the path and reason on failure.
void write_text_file(const std::string& path, const std::string& text);

// Progress for long runs, on stderr: "[3/12] label: what (4.1 s)".
class Progress {
 public:
  Progress(std::string label, int total, bool enabled = true);
  void step(const std::string& what);

 private:
  std::string label_;
  int total_, done_ = 0;
  bool enabled_;
  double start_s_;
};

}  // namespace tcu
