#include "common/cli.hpp"

#include <CLI/CLI.hpp>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>

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

std::string format_count(std::int64_t v) {
  if (v >= 1024 && (v & (v - 1)) == 0) {
    int k = 0;
    while ((std::int64_t(1) << k) != v) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(v);
}

namespace {

// Text of the count grammar (digits with an optional K/M/G, or 2^digits), whatever its size:
// such text that parse_count refuses is out of range, not malformed.
bool looks_like_count(const std::string& text) {
  std::string t = text;
  if (t.rfind("2^", 0) == 0) t = t.substr(2);
  std::size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0) return false;
  if (digits == t.size()) return true;
  return digits + 1 == t.size() && std::strchr("kKmMgG", t[digits]) != nullptr && text.rfind("2^", 0) != 0;
}

}  // namespace

CountCheck check_count(const std::string& text, std::int64_t min, std::int64_t max) {
  const std::string range = "must be between " + format_count(min) + " and " + format_count(max);
  const bool negative = !text.empty() && text[0] == '-';
  const std::string digits = negative ? text.substr(1) : text;
  if (!looks_like_count(digits)) return {std::nullopt, "expects a count (e.g. 1000, 2^20, 64K), not '" + text + "'"};
  const std::optional<std::int64_t> magnitude = parse_count(digits);
  if (!magnitude) return {std::nullopt, range + ", not '" + text + "' (too large)"};
  const std::int64_t v = negative ? -*magnitude : *magnitude;
  if (v < min || v > max) return {std::nullopt, range + ", not '" + text + "'"};
  return {v, {}};
}

struct CliParser::Impl {
  CLI::App app;
  Impl(const std::string& summary, const std::string& program) : app(summary + "\n", program) {}
};

CliParser::CliParser(std::string program, std::string summary)
    : impl_(std::make_unique<Impl>(summary, program)), program_(std::move(program)) {
  CLI::App& app = impl_->app;
  // Unknown flags and stray arguments are collected and reported in our own words.
  app.allow_extras(true);
  app.option_defaults()->group("Flags");
  app.set_help_flag("-h,--help", "this text");
  app.get_formatter()->column_width(26);
  app.get_formatter()->label("OPTIONS", "FLAGS");
}

CliParser::~CliParser() = default;

namespace {

CLI::Validator validator(std::function<std::optional<std::string>(std::string&)> check) {
  return CLI::Validator(
      [check](std::string& value) -> std::string { return check(value).value_or(std::string()); }, "", "tcu");
}

}  // namespace

void CliParser::add_flag(const std::string& name, bool* target, const std::string& help) {
  impl_->app.add_flag(name, *target, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

void CliParser::add_int(const std::string& name, std::int64_t* target, const std::string& help,
                        std::int64_t min, std::int64_t max) {
  impl_->app.add_option(name, *target, help)
      ->type_name("N")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->transform(validator([min, max](std::string& v) -> std::optional<std::string> {
        const CountCheck c = check_count(v, min, max);
        if (!c.value) return c.error;
        v = std::to_string(*c.value);  // what CLI11 converts to the integer
        return std::nullopt;
      }));
}

void CliParser::add_int_list(const std::string& name, std::vector<std::int64_t>* target, const std::string& help,
                             std::int64_t min, std::int64_t max) {
  impl_->app.add_option(name, *target, help)
      ->type_name("N[,N...]")
      ->allow_extra_args(false)
      ->delimiter(',')
      ->transform(validator([min, max](std::string& v) -> std::optional<std::string> {
        const CountCheck c = check_count(v, min, max);
        if (!c.value) return c.error;
        v = std::to_string(*c.value);
        return std::nullopt;
      }));
}

void CliParser::add_string(const std::string& name, std::string* target, const std::string& help,
                           std::vector<std::string> choices) {
  std::string hint = "TEXT";
  if (!choices.empty()) {
    hint.clear();
    for (std::size_t i = 0; i < choices.size(); ++i) hint += (i ? "|" : "") + choices[i];
  }
  impl_->app.add_option(name, *target, help)
      ->type_name(hint)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->check(validator([choices](std::string& v) -> std::optional<std::string> {
        if (v.empty()) return std::string("expects a value, not ''");
        if (choices.empty()) return std::nullopt;
        std::string list;
        for (std::size_t i = 0; i < choices.size(); ++i) {
          if (choices[i] == v) return std::nullopt;
          list += (i ? ", " : "") + choices[i];
        }
        return "unknown value '" + v + "' (choose from " + list + ")";
      }));
}

void CliParser::add_string(const std::string& name, std::string* target, const std::string& help,
                           Validator validate, const std::string& value_hint) {
  impl_->app.add_option(name, *target, help)
      ->type_name(value_hint)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->check(validator([validate](std::string& v) -> std::optional<std::string> {
        if (v.empty()) return std::string("expects a value, not ''");
        return validate(v);
      }));
}

namespace {

// CLI11's own wording of a missing value ("--n: 1 required N missing") in ours.
std::string reword(const CLI::ParseError& e) {
  const std::string what = e.what();
  const auto colon = what.find(':');
  if (colon != std::string::npos && what.rfind("-", 0) == 0 && what.find("required") != std::string::npos &&
      what.find("missing") != std::string::npos)
    return what.substr(0, colon) + ": needs a value";
  // CLI11's "Could not convert: --json = abc" (a value given to a switch).
  const std::string convert = "Could not convert: ";
  const auto eq = what.find(" = ");
  if (what.rfind(convert, 0) == 0 && eq != std::string::npos)
    return what.substr(convert.size(), eq - convert.size()) + ": takes no value, not '" + what.substr(eq + 3) + "'";
  return what;
}

// The first argument CLI11 did not take: an unknown flag or a stray argument.
std::optional<std::string> extras_error(const std::vector<std::string>& extras) {
  if (extras.empty()) return std::nullopt;
  const std::string& arg = extras.front();
  if (arg.size() > 1 && arg[0] == '-') return "unknown flag '" + arg.substr(0, arg.find('=')) + "'";
  return "unexpected argument '" + arg + "' (every value follows its flag)";
}

}  // namespace

ParseOutcome CliParser::parse(int argc, const char* const* argv) {
  CLI::App& app = impl_->app;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    if (auto err = extras_error(app.remaining())) return {ParseOutcome::Kind::error, *err};
    return {ParseOutcome::Kind::help, {}};
  } catch (const CLI::ParseError& e) {
    if (auto err = extras_error(app.remaining())) return {ParseOutcome::Kind::error, *err};
    return {ParseOutcome::Kind::error, reword(e)};
  }
  if (auto err = extras_error(app.remaining())) return {ParseOutcome::Kind::error, *err};
  return {};
}

std::string CliParser::help() const {
  std::string footer = "Exit codes: 0 all checks passed, 1 a check failed, 2 bad usage, 3 no suitable GPU.\n"
                       "Counts take the forms 1000, 2^20, 64K, 16M, 1G.";
  if (!epilog_.empty()) footer += "\n\n" + epilog_;
  while (!footer.empty() && footer.back() == '\n') footer.pop_back();
  impl_->app.footer(footer);
  return impl_->app.help();
}

int usage_error(const std::string& program, const std::string& message) {
  std::cerr << program << ": error: " << message << "\n"
            << "Run '" << program << " --help' for the list of flags.\n";
  return 2;
}

int CliParser::usage_error(const std::string& message) const { return tcu::usage_error(program_, message); }

std::optional<std::string> check_writable_file(const std::string& path) {
  std::ofstream f(path, std::ios::app);
  if (!f) return "cannot write '" + path + "': " + std::strerror(errno);
  return std::nullopt;
}

int handle_cli(CliParser& cli, int argc, const char* const* argv) {
  const ParseOutcome r = cli.parse(argc, argv);
  switch (r.kind) {
    case ParseOutcome::Kind::help:
      std::cout << cli.help();
      return 0;
    case ParseOutcome::Kind::error:
      return cli.usage_error(r.message);
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
  cli.add_int("--warmup", &o.warmup, "untimed runs before timing, in rounds until 25 ms have passed; 0: none" + dflt(o.warmup), 0, 1000);
  cli.add_flag("--sweep", &o.sweep, "run the paper-style size sweep");
  cli.add_string("--csv", &o.csv, "also write the results table to this CSV file", check_writable_file, "FILE");
  cli.add_flag("--json", &o.json, "print the results as JSON on stdout instead of tables");
  cli.add_flag("--no-verify", &o.no_verify, "skip the CPU/library checks (timing only)");
  cli.add_int("--device", &o.device, "CUDA device ordinal" + dflt(o.device), 0, 1023);
}

}  // namespace tcu
