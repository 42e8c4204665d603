#include "common/cli.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <cstdio>
#include <iostream>
#include <limits>
#include <sstream>

namespace tcu {

std::optional<std::int64_t> parse_count(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto caret = text.find('^');
  if (caret != std::string::npos) {
    if (text.substr(0, caret) != "2") return std::nullopt;
    const auto e = parse_count(text.substr(caret + 1));
    if (!e || *e > 62) return std::nullopt;
    return std::int64_t(1) << *e;
  }
  std::size_t i = 0;
  std::int64_t v = 0;
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const int digit = text[i] - '0';
    if (v > (max - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  if (i == text.size()) return v;
  if (i + 1 != text.size()) return std::nullopt;
  int shift = 0;
  switch (text[i]) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: return std::nullopt;
  }
  if (v > (max >> shift)) return std::nullopt;
  return v << shift;
}

CliParser::CliParser(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {}

void CliParser::add_flag(const std::string& name, bool* target, const std::string& help) {
  options_.push_back({name, help, "", [target](const std::string&) -> std::optional<std::string> {
                        *target = true;
                        return std::nullopt;
                      }});
}

void CliParser::add_int(const std::string& name, std::int64_t* target, const std::string& help,
                        std::int64_t min, std::int64_t max) {
  options_.push_back(
      {name, help, "N", [name, target, min, max](const std::string& v) -> std::optional<std::string> {
         std::optional<std::int64_t> parsed;
         if (!v.empty() && v[0] == '-') {
           const auto p = parse_count(v.substr(1));
           if (p) parsed = -*p;
         } else {
           parsed = parse_count(v);
         }
         if (!parsed) return name + " expects an integer (e.g. 1000, 2^20, 64K), not '" + v + "'";
         if (*parsed < min || *parsed > max)
           return name + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                  ", not " + v;
         *target = *parsed;
         return std::nullopt;
       }});
}

void CliParser::add_string(const std::string& name, std::string* target, const std::string& help,
                           std::vector<std::string> choices) {
  std::string hint = "TEXT";
  if (!choices.empty()) {
    hint.clear();
    for (std::size_t i = 0; i < choices.size(); ++i) hint += (i ? "|" : "") + choices[i];
  }
  options_.push_back({name, help, hint,
                      [name, target, choices](const std::string& v) -> std::optional<std::string> {
                        if (!choices.empty()) {
                          bool ok = false;
                          for (const auto& c : choices) ok = ok || (c == v);
                          if (!ok) {
                            std::string list;
                            for (std::size_t i = 0; i < choices.size(); ++i)
                              list += (i ? ", " : "") + choices[i];
                            return name + ": unknown value '" + v + "' (choose from " + list + ")";
                          }
                        }
                        if (choices.empty() && v.empty()) return name + " expects a value";
                        *target = v;
                        return std::nullopt;
                      }});
}

void CliParser::add_string(const std::string& name, std::string* target, const std::string& help,
                           Validator validate, const std::string& value_hint) {
  options_.push_back({name, help, value_hint,
                      [name, target, validate](const std::string& v) -> std::optional<std::string> {
                        if (v.empty()) return name + " expects a value";
                        if (auto err = validate(v)) return name + ": " + *err;
                        *target = v;
                        return std::nullopt;
                      }});
}

std::optional<std::string> check_writable_file(const std::string& path) {
  std::ofstream f(path, std::ios::app);
  if (!f) return "cannot write '" + path + "': " + std::strerror(errno);
  return std::nullopt;
}

const CliParser::Option* CliParser::find(const std::string& name) const {
  for (const auto& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

ParseOutcome CliParser::parse(int argc, const char* const* argv) const {
  ParseOutcome out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i] ? argv[i] : "";
    if (arg == "--help" || arg == "-h") {
      out.kind = ParseOutcome::Kind::help;
      return out;
    }
  }
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::optional<std::string> inline_value;
    if (arg.rfind("--", 0) != 0) {
      return {ParseOutcome::Kind::error, "unexpected argument '" + arg + "' (flags start with --)"};
    }
    const auto eq = arg.find('=');
    if (eq != std::string::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const Option* opt = find(arg);
    if (!opt) return {ParseOutcome::Kind::error, "unknown flag '" + arg + "'"};
    std::string value;
    if (opt->value_hint.empty()) {
      if (inline_value) return {ParseOutcome::Kind::error, arg + " takes no value"};
    } else if (inline_value) {
      value = *inline_value;
    } else {
      if (i + 1 >= argc) return {ParseOutcome::Kind::error, arg + " needs a value (" + opt->value_hint + ")"};
      value = argv[++i];
    }
    if (auto err = opt->apply(value)) return {ParseOutcome::Kind::error, *err};
  }
  return out;
}

std::string CliParser::help() const {
  std::ostringstream os;
  os << "Usage: " << program_ << " [flags]\n\n" << summary_ << "\n\nFlags:\n";
  os << std::string("  --help").append(22 - 8, ' ') << "this text\n";
  for (const auto& o : options_) {
    std::string left = "  " + o.name + (o.value_hint.empty() ? "" : " " + o.value_hint);
    if (left.size() < 22) {
      left.resize(22, ' ');
      os << left << o.help << "\n";
    } else {
      os << left << "\n" << std::string(22, ' ') << o.help << "\n";
    }
  }
  os << "\nExit codes: 0 all checks passed, 1 a check failed, 2 bad usage, 3 no suitable GPU.\n";
  if (!epilog_.empty()) os << "\n" << epilog_ << (epilog_.back() == '\n' ? "" : "\n");
  return os.str();
}

int handle_cli(const CliParser& cli, int argc, const char* const* argv) {
  const ParseOutcome r = cli.parse(argc, argv);
  switch (r.kind) {
    case ParseOutcome::Kind::help:
      std::cout << cli.help();
      return 0;
    case ParseOutcome::Kind::error:
      std::cerr << cli.program() << ": error: " << r.message << "\n"
                << "Try '" << cli.program() << " --help' for the list of flags.\n";
      return 2;
    case ParseOutcome::Kind::run:
      break;
  }
  return -1;
}

void add_common_options(CliParser& cli, CommonOptions& o, const std::vector<std::string>& algos) {
  std::vector<std::string> choices = algos;
  choices.push_back("all");
  cli.add_string("--algo", &o.algo, "which variant(s) to run (default: all)", choices);
  cli.add_string("--dist", &o.dist,
                 "input data: uniform [0,1), normal N(0,1), ones, int (integers in [-4,4]: exact sums)",
                 {"uniform", "normal", "ones", "int"});
  // The defaults shown are the values o holds now, so a chapter that sets its own defaults
  // before calling this gets a truthful --help.
  const auto dflt = [](std::int64_t v) { return " (default " + std::to_string(v) + ")"; };
  cli.add_int("--seed", &o.seed, "seed of the input data" + dflt(o.seed), 0,
              std::numeric_limits<std::int64_t>::max());
  cli.add_int("--repeat", &o.repeat, "timed runs per measurement; the median is reported" + dflt(o.repeat), 1,
              100000);
  cli.add_int("--warmup", &o.warmup, "untimed runs before timing" + dflt(o.warmup), 0, 1000);
  cli.add_flag("--sweep", &o.sweep, "run the paper-style size sweep");
  cli.add_string("--csv", &o.csv, "also write the results table to this CSV file", check_writable_file, "FILE");
  cli.add_flag("--json", &o.json, "print the results as JSON on stdout instead of tables");
  cli.add_flag("--no-verify", &o.no_verify, "skip the CPU/library checks (timing only)");
  cli.add_int("--device", &o.device, "CUDA device ordinal" + dflt(o.device), 0, 1023);
}

}  // namespace tcu
