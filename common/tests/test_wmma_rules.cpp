#include <doctest/doctest.h>

#include <cstdint>

#include "common/wmma_rules.cuh"

TEST_CASE("WMMA pointers must be 32-byte aligned") {
  alignas(64) static unsigned char buf[128];
  CHECK(tcu::wmma_pointer_ok(buf));
  CHECK(tcu::wmma_pointer_ok(buf + 32));
  CHECK_FALSE(tcu::wmma_pointer_ok(buf + 2));   // one __half off
  CHECK_FALSE(tcu::wmma_pointer_ok(buf + 16));  // 16-byte aligned is not enough
  CHECK(tcu::wmma_load_problem(buf + 16, 16, 2).find("16 bytes past a 32-byte boundary") != std::string::npos);
  CHECK(tcu::wmma_load_problem(buf, 16, 2).empty());
}

TEST_CASE("ldm must be a multiple of 16 bytes") {
  CHECK(tcu::wmma_ldm_ok(8, 2));    // 8 halves
  CHECK(tcu::wmma_ldm_ok(16, 2));
  CHECK_FALSE(tcu::wmma_ldm_ok(12, 2));
  CHECK_FALSE(tcu::wmma_ldm_ok(0, 2));
  CHECK(tcu::wmma_ldm_ok(4, 4));    // 4 floats
  CHECK_FALSE(tcu::wmma_ldm_ok(6, 4));
  alignas(64) static unsigned char buf[64];
  const std::string both = tcu::wmma_load_problem(buf + 8, 12, 2);
  CHECK(both.find("pointer") != std::string::npos);
  CHECK(both.find("ldm = 12") != std::string::npos);
  CHECK(both.find("multiple of 8 elements") != std::string::npos);
}
