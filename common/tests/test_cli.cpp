#include <doctest/doctest.h>

#include <vector>

#include "common/cli.hpp"

namespace {
tcu::ParseOutcome parse(const tcu::CliParser& cli, std::vector<const char*> args) {
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
    CHECK(r.message.find("between 1 and 1000") != std::string::npos);
    CHECK(parse(cli, {"--n", "0"}).kind == tcu::ParseOutcome::Kind::error);
    CHECK(parse(cli, {"--n", "-5"}).kind == tcu::ParseOutcome::Kind::error);
  }
  SUBCASE("unknown flag, stray argument, missing value, value on a switch, bad choice") {
    CHECK(parse(cli, {"--bogus"}).message.find("unknown flag '--bogus'") != std::string::npos);
    CHECK(parse(cli, {"n"}).kind == tcu::ParseOutcome::Kind::error);
    CHECK(parse(cli, {"--n"}).message.find("needs a value") != std::string::npos);
    CHECK(parse(cli, {"--fast=1"}).message.find("takes no value") != std::string::npos);
    CHECK(parse(cli, {"--mode", "c"}).message.find("choose from a, b") != std::string::npos);
    CHECK(parse(cli, {"--n", "abc"}).message.find("expects an integer") != std::string::npos);
  }
  SUBCASE("help wins even after an error") {
    CHECK(parse(cli, {"--bogus", "--help"}).kind == tcu::ParseOutcome::Kind::help);
    CHECK(parse(cli, {"-h"}).kind == tcu::ParseOutcome::Kind::help);
  }
  SUBCASE("help text lists every flag") {
    const std::string h = cli.help();
    for (const char* name : {"--n N", "--mode a|b", "--fast", "--help", "Exit codes"})
      CHECK_MESSAGE(h.find(name) != std::string::npos, name);
  }
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
