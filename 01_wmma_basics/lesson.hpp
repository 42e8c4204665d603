#pragma once
// The lesson the executable walks through: one function per section, each running its kernels,
// checking every result against the CPU and explaining what it shows. main.cu only parses the
// flags and calls these.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/data.cuh"
#include "common/report.hpp"
#include "common/verify.hpp"

namespace tcu::wmma_basics {

// The sections, in the order the lesson runs them (the --algo choices).
inline const std::vector<std::string> kLessonSections = {"products",     "shapes",  "layouts",   "elementwise",
                                                         "fragment_map", "ptx_mma", "alignment", "constants"};

struct LessonOptions {
  Dist dist = Dist::uniform;
  std::uint64_t seed = 20261122;
  int seeds = 3;            // every product is checked with inputs from seeds seed, seed + 1, ...
  bool verify = true;       // false: --no-verify (run, compare nothing)
  bool broken_demo = true;  // false: --no-broken-demo (no child processes)
  int device = 0;
};

// One row per check: section, check, shape, types, max_abs_err, max_rel_err, result, note.
// result is PASS or FAIL (verdicts), SKIP (needs a newer GPU, or turned off) or INFO (a
// demonstration with no right answer, e.g. undefined behaviour); only FAIL fails the run.
class LessonReport {
 public:
  explicit LessonReport(std::ostream& out);

  std::ostream& out;  // the explanations; a discarding stream under --json

  void add_verified(const std::string& section, const std::string& check, const std::string& shape,
                    const std::string& types, const VerifyResult& r, const Tolerance& tol, bool verified);
  void add_verdict(const std::string& section, const std::string& check, const std::string& shape,
                   const std::string& types, bool pass, const std::string& note = "");
  void add_note(const std::string& section, const std::string& check, const std::string& shape,
                const std::string& types, const std::string& result, const std::string& note);

  const Table& table() const { return table_; }
  int failures() const { return failures_; }
  bool all_passed() const { return failures_ == 0; }

 private:
  Table table_;
  int failures_ = 0;
};

void lesson_products(const LessonOptions& o, LessonReport& rep);
void lesson_shapes(const LessonOptions& o, LessonReport& rep);
void lesson_layouts(const LessonOptions& o, LessonReport& rep);
void lesson_elementwise(const LessonOptions& o, LessonReport& rep);
void lesson_fragment_map(const LessonOptions& o, LessonReport& rep);
void lesson_ptx_mma(const LessonOptions& o, LessonReport& rep);
void lesson_alignment(const LessonOptions& o, LessonReport& rep);
void lesson_constants(const LessonOptions& o, LessonReport& rep);

// Runs the section named `name` (one of kLessonSections).
void run_lesson_section(const std::string& name, const LessonOptions& o, LessonReport& rep);

}  // namespace tcu::wmma_basics
