#pragma once
// Command-line parsing for every chapter executable: the shared flags of the BRIEF plus each
// chapter's own. Bad input never crashes: parse() reports it and the program exits 2.
//
//   tcu::CliParser cli("01_wmma_basics", "What the chapter shows.");
//   tcu::CommonOptions common;
//   tcu::add_common_options(cli, common, {"m16n16k16", "shapes", ...});
//   cli.add_int("--n", &n, "elements", 1, 1LL << 31);
//   if (int code = tcu::handle_cli(cli, argc, argv); code >= 0) return code;
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/data.cuh"

namespace tcu {

// "1000", "2^20", "64K" (= 65536), "1M" (= 2^20), "1G" (= 2^30). nullopt when malformed,
// negative or out of the int64 range.
std::optional<std::int64_t> parse_count(const std::string& text);

struct ParseOutcome {
  enum class Kind { run, help, error } kind = Kind::run;
  std::string message;  // the error, when kind == error
};

class CliParser {
 public:
  CliParser(std::string program, std::string summary);

  // A switch with no value (--json).
  void add_flag(const std::string& name, bool* target, const std::string& help);
  // An integer in [min, max]; accepts the forms of parse_count (and a leading '-' when min < 0).
  void add_int(const std::string& name, std::int64_t* target, const std::string& help,
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

  ParseOutcome parse(int argc, const char* const* argv) const;
  std::string help() const;
  const std::string& program() const { return program_; }

 private:
  struct Option {
    std::string name;
    std::string help;
    std::string value_hint;  // empty for a flag
    std::function<std::optional<std::string>(const std::string&)> apply;  // error text or nullopt
  };
  const Option* find(const std::string& name) const;
  std::string program_, summary_, epilog_;
  std::vector<Option> options_;
};

// Validator for output files (--csv): the file can be created or appended to. Checked while
// parsing, so that a typo in a path is a usage error (exit 2) before any work is done.
std::optional<std::string> check_writable_file(const std::string& path);

// Prints help (stdout, returns 0) or the error and a hint (stderr, returns 2); -1: go on.
int handle_cli(const CliParser& cli, int argc, const char* const* argv);

// The flags every chapter shares (BRIEF, "Common conventions").
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
