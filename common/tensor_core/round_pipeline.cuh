#pragma once
// The software pipeline of every streaming tensor-core kernel, written once (in the spirit of
// chapter 02's run_k_pipeline): a warp walks its rounds, and the global loads of the NEXT round
// are issued as soon as the current round sits in shared memory, so they are in flight while
// this round's MMAs, shared-memory round trips and stores run.
//
//   load(round)   issue the round's global loads into registers the caller owns (no waiting)
//   stage()       write those registers to the warp's shared memory
//   work(round)   the algorithm on the staged round (reads shared memory only)
//
//   load(r0) │ stage │ load(r1) │ work(r0) │ stage │ load(r2) │ work(r1) │ …
//                      └─ in flight ─────────┘
//
// The kernel body keeps only the algorithm: work() reads like the paper's pseudo-code.
// A walk is any cursor with done() and advance(); StridedRounds is the usual grid-stride one.
#include <cstdint>

namespace tcu::tc {

// Rounds first, first + stride, … below count (a warp's grid-stride share of `count` rounds).
struct StridedRounds {
  std::int64_t round, stride, count;
  __device__ bool done() const { return round >= count; }
  __device__ void advance() { round += stride; }
};

template <class Cursor, class Load, class Stage, class Work>
__device__ __forceinline__ void run_round_pipeline(Cursor walk, Load&& load, Stage&& stage, Work&& work) {
  if (!walk.done()) load(walk);
  while (!walk.done()) {
    stage();
    __syncwarp();  // the round is in shared memory for every lane
    const Cursor now = walk;
    walk.advance();
    if (!walk.done()) load(walk);  // the next round, in flight during work(now)
    work(now);
    __syncwarp();  // every lane is done with the round before the next one is staged
  }
}

}  // namespace tcu::tc
