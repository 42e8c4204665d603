#include "common/report.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace tcu {

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<Cell> row) {
  if (row.size() != columns_.size())
    throw std::invalid_argument("Table::add_row: " + std::to_string(row.size()) + " cells for " +
                                std::to_string(columns_.size()) + " columns");
  rows_.push_back(std::move(row));
}

namespace {

std::string format_double(double v, const std::string& fmt) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt.empty() ? "%.4g" : fmt.c_str(), v);
  return buf;
}

std::string text_of(const Cell& c, const Column& col) {
  struct V {
    const Column& col;
    std::string operator()(std::monostate) const { return "-"; }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return format_double(d, col.format); }
    std::string operator()(bool b) const { return b ? "PASS" : "FAIL"; }
  };
  return std::visit(V{col}, c);
}

// The shortest %g form that reads back exactly ("4", "0.1", "1e-300").
std::string shortest_decimal(double v) {
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string csv_of(const Cell& c) {
  struct V {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(const std::string& s) const {
      if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
      std::string q = "\"";
      for (char ch : s) q += (ch == '"') ? std::string("\"\"") : std::string(1, ch);
      return q + "\"";
    }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      if (std::isnan(d)) return "nan";
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      return shortest_decimal(d);
    }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
  };
  return std::visit(V{}, c);
}

nlohmann::ordered_json json_of(const Cell& c) {
  struct V {
    nlohmann::ordered_json operator()(std::monostate) const { return nullptr; }
    nlohmann::ordered_json operator()(const std::string& s) const { return s; }
    nlohmann::ordered_json operator()(std::int64_t i) const { return i; }
    nlohmann::ordered_json operator()(double d) const {
      return std::isfinite(d) ? nlohmann::ordered_json(d) : nlohmann::ordered_json(nullptr);
    }
    nlohmann::ordered_json operator()(bool b) const { return b; }
  };
  return std::visit(V{}, c);
}

nlohmann::ordered_json json_of(const Table& t) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : t.rows()) {
    nlohmann::ordered_json r = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < t.columns().size(); ++c) r[t.columns()[c].name] = json_of(row[c]);
    rows.push_back(std::move(r));
  }
  return rows;
}

nlohmann::ordered_json json_of(const DeviceInfo& d) {
  nlohmann::ordered_json j;
  j["name"] = d.name;
  j["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  j["sms"] = d.sm_count;
  j["sm_clock_mhz"] = d.sm_clock_mhz;
  j["memory_bytes"] = d.global_mem_bytes;
  j["l2_bytes"] = d.l2_bytes;
  j["integrated"] = d.integrated;
  j["cuda_runtime"] = format_cuda_version(d.runtime_version);
  j["cuda_driver"] = format_cuda_version(d.driver_version);
  j["cccl"] = format_cccl_version(d.cccl_version);
  return j;
}

bool is_numeric(const Cell& c) {
  return std::holds_alternative<std::int64_t>(c) || std::holds_alternative<double>(c);
}

}  // namespace

std::string Table::to_text() const {
  std::vector<std::size_t> width(columns_.size());
  std::vector<std::vector<std::string>> cells(rows_.size(), std::vector<std::string>(columns_.size()));
  for (std::size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].name.size();
  for (std::size_t r = 0; r < rows_.size(); ++r)
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      cells[r][c] = text_of(rows_[r][c], columns_[c]);
      width[c] = std::max(width[c], cells[r][c].size());
    }
  std::ostringstream os;
  auto pad = [&](const std::string& s, std::size_t w, bool right) {
    const std::string fill(w > s.size() ? w - s.size() : 0, ' ');
    return right ? fill + s : s + fill;
  };
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const bool right = !rows_.empty() && is_numeric(rows_[0][c]);
    os << (c ? "  " : "") << pad(columns_[c].name, width[c], right);
  }
  os << "\n";
  for (std::size_t c = 0; c < columns_.size(); ++c) os << (c ? "  " : "") << std::string(width[c], '-');
  os << "\n";
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    for (std::size_t c = 0; c < columns_.size(); ++c)
      os << (c ? "  " : "") << pad(cells[r][c], width[c], is_numeric(rows_[r][c]));
    os << "\n";
  }
  return os.str();
}

std::string Table::to_csv() const {
  std::ostringstream os;
  for (std::size_t c = 0; c < columns_.size(); ++c) os << (c ? "," : "") << csv_of(Cell{columns_[c].name});
  os << "\n";
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) os << (c ? "," : "") << csv_of(row[c]);
    os << "\n";
  }
  return os.str();
}

std::string Table::to_json() const { return json_of(*this).dump(1); }

struct JsonObject::Impl {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
};

JsonObject::JsonObject() : impl_(std::make_unique<Impl>()) {}
JsonObject::~JsonObject() = default;
JsonObject& JsonObject::add(const std::string& key, const Cell& value) {
  impl_->j[key] = json_of(value);
  return *this;
}
JsonObject& JsonObject::add(const std::string& key, const char* value) { return add(key, Cell{std::string(value)}); }
JsonObject& JsonObject::add(const std::string& key, const Table& table) {
  impl_->j[key] = json_of(table);
  return *this;
}
JsonObject& JsonObject::add(const std::string& key, const DeviceInfo& device) {
  impl_->j[key] = json_of(device);
  return *this;
}
JsonObject& JsonObject::add(const std::string& key, const JsonObject& object) {
  impl_->j[key] = object.impl_->j;
  return *this;
}
std::string JsonObject::dump() const { return impl_->j.dump(1) + "\n"; }

std::optional<std::string> missing_variant(const Table& table, const std::string& algo) {
  if (algo == "all") return std::nullopt;
  const auto& cols = table.columns();
  for (const char* key : {"algo", "variant", "mode", "section"})
    for (std::size_t c = 0; c < cols.size(); ++c) {
      if (cols[c].name != key) continue;
      for (const auto& row : table.rows())
        if (const auto* s = std::get_if<std::string>(&row[c]); s && *s == algo) return std::nullopt;
      return "--algo " + algo + " produced no result with these flags on this GPU: it does not take this size "
             "or this GPU, or is left out there by design (the notes above and --help say which)";
    }
  return std::nullopt;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open '" + path + "' for writing");
  f << text;
  f.close();
  if (!f) throw std::runtime_error("cannot write '" + path + "'");
}

namespace {
double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

Progress::Progress(std::string label, int total, bool enabled)
    : label_(std::move(label)), total_(total), enabled_(enabled), start_s_(now_s()) {}

void Progress::step(const std::string& what) {
  ++done_;
  if (!enabled_) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, " (%.1f s)", now_s() - start_s_);
  std::cerr << "[" << done_ << "/" << total_ << "] " << label_ << ": " << what << buf << "\n";
}

}  // namespace tcu
