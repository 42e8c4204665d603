#pragma once
// What happens when the WMMA rules are broken — shown without harming the caller.
//
// A kernel that faults on a misaligned address leaves a *sticky* error: the CUDA context is
// dead and every later CUDA call in that process fails. So each broken case runs in a child
// process — this same executable, re-run with the hidden flag --internal-broken-case=N —
// which calls the unchecked kernel, looks at what happened, and prints one "outcome:" line.
#include <cstdint>
#include <string>
#include <vector>

#include "common/data.cuh"

namespace tcu::wmma_basics {

struct BrokenCase {
  int id;
  const char* name;     // short, for the results table
  const char* details;  // which rule it breaks and how
};

inline constexpr BrokenCase kBrokenCases[] = {
    {1, "A pointer + 2 bytes", "A starts 1 half (2 bytes) past an aligned address: not even 16-byte aligned"},
    {2, "A pointer + 16 bytes", "A starts 8 halves (16 bytes) in: 16-byte aligned, but not the 32 bytes WMMA asks"},
    {3, "lda = 20 halves", "A is aligned but its rows are 20 halves (40 bytes) apart: not a multiple of 16 bytes"},
};
inline constexpr int kBrokenCaseCount = static_cast<int>(sizeof(kBrokenCases) / sizeof(kBrokenCases[0]));

// The child's side: run case `id` in THIS process with the unchecked kernel, print the
// "outcome: ..." line on stdout, return the exit code (0 when the case ran, whatever it did).
int run_broken_case_here(int id, Dist dist, std::uint64_t seed, int device);

struct BrokenCaseReport {
  bool observed = false;  // the child reported an outcome (or died in a way that is one)
  std::string outcome;    // what it saw, or why the demo itself failed
};

// The parent's side: run case `id` in a child process (/proc/self/exe --internal-broken-case=id
// plus `extra_args`), and report what it saw.
BrokenCaseReport run_broken_case_in_child(int id, const std::vector<std::string>& extra_args);

}  // namespace tcu::wmma_basics
