#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/report.hpp"

TEST_CASE("Table renders text, CSV and JSON from the same cells") {
  tcu::Table t({{"name"}, {"n"}, {"ms", "%.3f"}, {"pass"}});
  t.add_row({std::string("a,b"), std::int64_t(16), 1.5, true});
  t.add_row({std::string("say \"hi\""), std::int64_t(-3), NAN, false});
  t.add_row({tcu::Cell{}, std::int64_t(0), 0.1, true});

  const std::string text = t.to_text();
  CHECK(text.find("1.500") != std::string::npos);
  CHECK(text.find("PASS") != std::string::npos);
  CHECK(text.find("FAIL") != std::string::npos);
  CHECK(text.find("nan") != std::string::npos);
  // Every line has the same width: the columns are aligned.
  std::istringstream lines(text);
  std::string line;
  std::size_t width = 0;
  while (std::getline(lines, line)) {
    if (width == 0) width = line.size();
    CHECK(line.size() == width);
  }

  CHECK(t.to_csv() ==
        "name,n,ms,pass\n"
        "\"a,b\",16,1.5,true\n"
        "\"say \"\"hi\"\"\",-3,nan,false\n"
        ",0,0.1,true\n");

  CHECK(t.to_json() ==
        "[\n {\n  \"name\": \"a,b\",\n  \"n\": 16,\n  \"ms\": 1.5,\n  \"pass\": true\n },\n"
        " {\n  \"name\": \"say \\\"hi\\\"\",\n  \"n\": -3,\n  \"ms\": null,\n  \"pass\": false\n },\n"
        " {\n  \"name\": null,\n  \"n\": 0,\n  \"ms\": 0.1,\n  \"pass\": true\n }\n]");
}

TEST_CASE("Table rejects rows of the wrong width; empty tables render") {
  tcu::Table t({{"a"}, {"b"}});
  CHECK_THROWS_AS(t.add_row({std::int64_t(1)}), std::invalid_argument);
  CHECK(t.to_json() == "[]");
  CHECK(t.to_csv() == "a,b\n");
}

TEST_CASE("JsonObject: numbers round-trip, non-finite ones become null, strings are escaped") {
  for (double v : {0.1, 1.0 / 3.0, 2994.123456789, 1e-300, -5.0, 123456789012.0}) {
    const std::string j = tcu::JsonObject().add("v", v).dump();  // {\n "v": <number>\n}\n
    const std::size_t colon = j.find(':');
    CHECK(std::strtod(j.c_str() + colon + 1, nullptr) == v);
  }
  CHECK(tcu::JsonObject().add("v", 0.1).dump() == "{\n \"v\": 0.1\n}\n");
  CHECK(tcu::JsonObject().add("v", INFINITY).dump() == "{\n \"v\": null\n}\n");
  CHECK(tcu::JsonObject().add("v", NAN).dump() == "{\n \"v\": null\n}\n");
  CHECK(tcu::JsonObject().add("s", "a\"b\\c\n\t\x01").dump() == "{\n \"s\": \"a\\\"b\\\\c\\n\\t\\u0001\"\n}\n");
}

TEST_CASE("JsonObject names the GPU and versions") {
  tcu::DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.runtime_version = 13000;
  d.driver_version = 13000;
  d.cccl_version = 3000001;
  const std::string j = tcu::JsonObject().add("device", d).dump();
  CHECK(j.find("\"compute_capability\": \"9.0\"") != std::string::npos);
  CHECK(j.find("\"cccl\": \"3.0.1\"") != std::string::npos);
  CHECK(j.find("\"cuda_runtime\": \"13.0\"") != std::string::npos);
}

TEST_CASE("JsonObject: keys in the order added, tables as arrays, non-finite numbers as null") {
  tcu::Table t({{"variant"}, {"ms"}});
  t.add_row({std::string("a\"b"), 1.5});
  tcu::JsonObject inner;
  inner.add("integrated", false);
  const std::string j = tcu::JsonObject()
                            .add("program", "prog")
                            .add("n", std::int64_t{12})
                            .add("gb_per_s", NAN)
                            .add("platform", inner)
                            .add("results", t)
                            .add("all_passed", true)
                            .dump();
  CHECK(j ==
        "{\n \"program\": \"prog\",\n \"n\": 12,\n \"gb_per_s\": null,\n \"platform\": {\n  \"integrated\": false\n },\n"
        " \"results\": [\n  {\n   \"variant\": \"a\\\"b\",\n   \"ms\": 1.5\n  }\n ],\n \"all_passed\": true\n}\n");
}

TEST_CASE("write_text_file writes, and fails clearly on a bad path") {
  const std::string path = "test_report_tmp.csv";
  tcu::write_text_file(path, "x,y\n1,2\n");
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str() == "x,y\n1,2\n");
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(tcu::write_text_file("/nonexistent-dir/x.csv", "x"),
                       doctest::Contains("/nonexistent-dir/x.csv"), std::runtime_error);
}
