#include <doctest/doctest.h>

#include <vector>

#include "common/cli.hpp"

namespace {
tcu::ParseOutcome parse(tcu::CliParser& cli, std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  return cli.parse(static_cast<int>(args.size()), args.data());
}
}  // namespace

TEST_CASE("parse_count accepts plain, power-of-two and binary-suffix forms") {
  CHECK(tcu::parse_count("0") == 0);
  CHECK(tcu::parse_count("1000") == 1000);
  CHECK(tcu::parse_count("2^28") == (std::int64_t(1) << 28));
  CHECK(tcu::parse_count("2^0") == 1);
  CHECK(tcu::parse_count("64K") == 65536);
  CHECK(tcu::parse_count("1M") == (1 << 20));
  CHECK(tcu::parse_count("3g") == (std::int64_t(3) << 30));
  CHECK(tcu::parse_count("9223372036854775807") == INT64_MAX);
}

TEST_CASE("parse_count rejects malformed and overflowing text") {
  for (const char* bad : {"", "-1", "1.5", "12x", "K", "2^", "3^4", "2^63", "2^-1", "1KB",
                          "9223372036854775808", "99999999999G", " 1", "1 "})
    CHECK_MESSAGE(!tcu::parse_count(bad).has_value(), bad);
}

TEST_CASE("CliParser: values, flags, = form, errors") {
  tcu::CliParser cli("prog", "test");
  std::int64_t n = 7;
  std::string s = "x";
  bool f = false;
  cli.add_int("--n", &n, "count", 1, 1000);
  cli.add_string("--mode", &s, "mode", {"a", "b"});
  cli.add_flag("--fast", &f, "flag");

  SUBCASE("defaults untouched without flags") {
    CHECK(parse(cli, {}).kind == tcu::ParseOutcome::Kind::run);
    CHECK(n == 7);
  }
  SUBCASE("space and = forms") {
    CHECK(parse(cli, {"--n", "2^9", "--mode=b", "--fast"}).kind == tcu::ParseOutcome::Kind::run);
    CHECK(n == 512);
    CHECK(s == "b");
    CHECK(f);
  }
  SUBCASE("range") {
    auto r = parse(cli, {"--n", "1001"});
    CHECK(r.kind == tcu::ParseOutcome::Kind::error);
    CHECK(r.message == "--n: must be between 1 and 1000, not '1001'");
    CHECK(parse(cli, {"--n", "0"}).kind == tcu::ParseOutcome::Kind::error);
    CHECK(parse(cli, {"--n", "-5"}).message == "--n: must be between 1 and 1000, not '-5'");
    CHECK(parse(cli, {"--n", "2^64"}).message == "--n: must be between 1 and 1000, not '2^64' (too large)");
    CHECK(parse(cli, {"--n=-5"}).kind == tcu::ParseOutcome::Kind::error);
  }
  SUBCASE("the last of a repeated flag wins") {
    CHECK(parse(cli, {"--n", "3", "--n", "9"}).kind == tcu::ParseOutcome::Kind::run);
    CHECK(n == 9);
  }
  SUBCASE("unknown flag, stray argument, missing value, value on a switch, bad choice") {
    CHECK(parse(cli, {"--bogus"}).message == "unknown flag '--bogus'");
    CHECK(parse(cli, {"--bogus=3"}).message == "unknown flag '--bogus'");
    CHECK(parse(cli, {"n"}).message.find("unexpected argument 'n'") == 0);
    CHECK(parse(cli, {"--n", "5", "7"}).message.find("unexpected argument '7'") == 0);
    CHECK(parse(cli, {"--n"}).message == "--n: needs a value");
    CHECK(parse(cli, {"--fast=abc"}).message == "--fast: takes no value, not 'abc'");
    CHECK(parse(cli, {"--mode", "c"}).message == "--mode: unknown value 'c' (choose from a, b)");
    CHECK(parse(cli, {"--mode="}).kind == tcu::ParseOutcome::Kind::error);
    CHECK(parse(cli, {"--n", "abc"}).message == "--n: expects a count (e.g. 1000, 2^20, 64K), not 'abc'");
    CHECK(parse(cli, {"--n", "1.5"}).message == "--n: expects a count (e.g. 1000, 2^20, 64K), not '1.5'");
  }
  SUBCASE("help, unless something else on the line is wrong") {
    CHECK(parse(cli, {"-h"}).kind == tcu::ParseOutcome::Kind::help);
    CHECK(parse(cli, {"--n", "5", "--help"}).kind == tcu::ParseOutcome::Kind::help);
    CHECK(parse(cli, {"--help", "extra"}).message.find("unexpected argument 'extra'") == 0);
    CHECK(parse(cli, {"--bogus", "--help"}).message == "unknown flag '--bogus'");
  }
  SUBCASE("help text lists every flag") {
    const std::string h = cli.help();
    for (const char* name : {"--n N", "--mode a|b", "--fast", "--help", "Exit codes", "2^20"})
      CHECK_MESSAGE(h.find(name) != std::string::npos, name);
  }
}

TEST_CASE("check_count: the value, or the message of the flag") {
  CHECK(tcu::check_count("64K", 1, 1 << 20).value == 65536);
  CHECK(tcu::check_count("-3", -5, 5).value == -3);
  CHECK(tcu::check_count("0", 1, 10).error == "must be between 1 and 10, not '0'");
  CHECK(tcu::check_count("2^40", 1, std::int64_t(1) << 31).error == "must be between 1 and 2^31, not '2^40'");
  CHECK(tcu::check_count("99999999999999999999", 1, 10).error.find("(too large)") != std::string::npos);
  CHECK(tcu::check_count("2^63", 1, 10).error.find("(too large)") != std::string::npos);
  for (const char* bad : {"", "x", "1.5", "12x", "2^", "3^4", "1KB", " 1", "--5", "2^1K"})
    CHECK_MESSAGE(tcu::check_count(bad, 0, 100).error.find("expects a count") == 0, bad);
  CHECK(tcu::format_count(1024) == "2^10");
  CHECK(tcu::format_count(1000) == "1000");
  CHECK(tcu::format_count(512) == "512");
  CHECK(tcu::format_count(std::int64_t(1) << 33) == "2^33");
}

TEST_CASE("CliParser: a list of counts") {
  tcu::CliParser cli("prog", "test");
  std::vector<std::int64_t> sizes{7};
  cli.add_int_list("--segment-size", &sizes, "sizes", 1, std::int64_t(1) << 33);
  CHECK(parse(cli, {}).kind == tcu::ParseOutcome::Kind::run);
  CHECK(sizes == std::vector<std::int64_t>{7});
  CHECK(parse(cli, {"--segment-size", "2^14,1000,64K"}).kind == tcu::ParseOutcome::Kind::run);
  CHECK(sizes == std::vector<std::int64_t>{16384, 1000, 65536});
  CHECK(parse(cli, {"--segment-size", "2^14,0"}).message == "--segment-size: must be between 1 and 2^33, not '0'");
  CHECK(parse(cli, {"--segment-size", "2^14,x"}).message.find("expects a count") != std::string::npos);
  CHECK(parse(cli, {"--segment-size", "5", "extra"}).message.find("unexpected argument 'extra'") == 0);
}

TEST_CASE("usage_error: the shape of every usage error, exit 2") {
  tcu::CliParser cli("prog", "test");
  CHECK(cli.usage_error("--segment-size 300 is larger than --n 100") == 2);
}

TEST_CASE("handle_cli exit codes") {
  tcu::CliParser cli("prog", "test");
  const char* help[] = {"prog", "--help"};
  const char* bad[] = {"prog", "--nope"};
  const char* ok[] = {"prog"};
  CHECK(tcu::handle_cli(cli, 2, help) == 0);
  CHECK(tcu::handle_cli(cli, 2, bad) == 2);
  CHECK(tcu::handle_cli(cli, 1, ok) == -1);
}

TEST_CASE("common options: algo choices, dist, seed") {
  tcu::CliParser cli("prog", "test");
  tcu::CommonOptions o;
  tcu::add_common_options(cli, o, {"alpha", "beta"});
  CHECK(parse(cli, {"--algo", "beta", "--dist", "int", "--seed", "5", "--repeat", "3", "--json",
                    "--no-verify", "--csv", "out.csv"})
            .kind == tcu::ParseOutcome::Kind::run);
  CHECK(o.algo == "beta");
  CHECK(o.wants("beta"));
  CHECK_FALSE(o.wants("alpha"));
  CHECK(o.dist_value() == tcu::Dist::integers);
  CHECK(o.seed == 5);
  CHECK(o.repeat == 3);
  CHECK(o.json);
  CHECK(o.no_verify);
  CHECK(o.csv == "out.csv");
  CHECK(parse(cli, {"--algo", "gamma"}).kind == tcu::ParseOutcome::Kind::error);
  CHECK(parse(cli, {"--dist", "poisson"}).kind == tcu::ParseOutcome::Kind::error);
  CHECK(parse(cli, {"--repeat", "0"}).kind == tcu::ParseOutcome::Kind::error);
  CHECK(parse(cli, {"--csv", ""}).kind == tcu::ParseOutcome::Kind::error);
  tcu::CommonOptions all;
  CHECK(all.wants("alpha"));
}

TEST_CASE("--csv must name a writable file: a bad path is a usage error, caught while parsing") {
  tcu::CliParser cli("prog", "test");
  tcu::CommonOptions o;
  tcu::add_common_options(cli, o, {});
  const auto r = parse(cli, {"--csv", "/nonexistent-dir/out.csv"});
  CHECK(r.kind == tcu::ParseOutcome::Kind::error);
  CHECK(r.message.find("cannot write '/nonexistent-dir/out.csv'") != std::string::npos);
  CHECK_FALSE(tcu::check_writable_file("/nonexistent-dir/out.csv") == std::nullopt);
}
