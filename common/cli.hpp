#pragma once
// Command-line parsing for every chapter executable: CLI11 does the parsing and the --help
// text; this file adds what is the project's own: the count syntax (1000, 2^28, 64M, lists of
// them), the shared flags, and one shape for every usage error:
//
//   04_tcu_scan: error: --n: expects a count (e.g. 1000, 2^20, 64K), not 'abc'
//   Run '04_tcu_scan --help' for the list of flags.
//
// and exit code 2. CLI11 stays inside cli.cpp, so nvcc never compiles it.
//
//   tcu::CliParser cli("01_wmma_basics", "What the chapter shows.");
//   tcu::CommonOptions common;
//   tcu::add_common_options(cli, common, {"m16n16k16", "shapes", ...});
//   cli.add_int("--n", &n, "elements", 1, 1LL << 31);
//   if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;
//   if (segment > n) return cli.usage_error("--segment-size 300 is larger than --n 100");
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/data.cuh"

namespace tcu {

// "1000", "2^20", "64K" (= 65536), "1M" (= 2^20), "1G" (= 2^30). nullopt when malformed,
// negative or out of the int64 range.
std::optional<std::int64_t> parse_count(const std::string& text);

// Checks `text` as a count in [min, max] (a leading '-' allowed when min < 0). Returns the
// value, or the error as the flag's message says it: "expects a count (e.g. 1000, 2^20, 64K),
// not 'abc'", "must be between 1 and 2^31, not '0'".
struct CountCheck {
  std::optional<std::int64_t> value;
  std::string error;
};
CountCheck check_count(const std::string& text, std::int64_t min, std::int64_t max);

// 2^k for powers of two from 1024 on, else the decimal digits: how bounds are written.
std::string format_count(std::int64_t v);

struct ParseOutcome {
  enum class Kind { run, help, error } kind = Kind::run;
  std::string message;  // the error, when kind == error
};

class CliParser {
 public:
  CliParser(std::string program, std::string summary);
  ~CliParser();
  CliParser(const CliParser&) = delete;
  CliParser& operator=(const CliParser&) = delete;

  // A switch with no value (--json).
  void add_flag(const std::string& name, bool* target, const std::string& help);
  // A count in [min, max] (see check_count).
  void add_int(const std::string& name, std::int64_t* target, const std::string& help,
               std::int64_t min, std::int64_t max);
  // One count or a comma-separated list of them, each in [min, max].
  void add_int_list(const std::string& name, std::vector<std::int64_t>* target, const std::string& help,
                    std::int64_t min, std::int64_t max);
  // A string; when `choices` is not empty the value must be one of them.
  void add_string(const std::string& name, std::string* target, const std::string& help,
                  std::vector<std::string> choices = {});
  // A string checked by `validate` (returns the error text, or nullopt when the value is fine).
  using Validator = std::function<std::optional<std::string>(const std::string&)>;
  void add_string(const std::string& name, std::string* target, const std::string& help, Validator validate,
                  const std::string& value_hint = "VALUE");
  // Free text appended to --help (examples, notes).
  void add_epilog(const std::string& text) { epilog_ += text; }

  ParseOutcome parse(int argc, const char* const* argv);
  std::string help() const;
  const std::string& program() const { return program_; }

  // A usage error found after parsing (two flags that contradict each other): prints it in
  // the shape of every other usage error and returns 2.
  int usage_error(const std::string& message) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string program_, epilog_;
};

// Prints `program: error: message` and the --help hint to stderr; returns 2.
int usage_error(const std::string& program, const std::string& message);

// Validator for output files (--csv): the file can be created or appended to. Checked while
// parsing, so that a typo in a path is a usage error (exit 2) before any work is done.
std::optional<std::string> check_writable_file(const std::string& path);

// Prints help (stdout, returns 0) or the error and a hint (stderr, returns 2); -1: go on.
int handle_cli(CliParser& cli, int argc, const char* const* argv);

// The flags every chapter shares.
struct CommonOptions {
  std::string algo = "all";
  std::string dist = "uniform";
  std::int64_t seed = 20261122;
  std::int64_t repeat = 20;
  std::int64_t warmup = 3;
  bool sweep = false;
  std::string csv;
  bool json = false;
  bool no_verify = false;
  std::int64_t device = 0;

  Dist dist_value() const { return parse_dist(dist).value_or(Dist::uniform); }
  bool wants(const std::string& name) const { return algo == "all" || algo == name; }
};

// Registers --algo (choices: algos plus "all"), --dist, --seed, --repeat, --warmup, --sweep,
// --csv, --json, --no-verify and --device.
void add_common_options(CliParser& cli, CommonOptions& opts, const std::vector<std::string>& algos);

}  // namespace tcu
