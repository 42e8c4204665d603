#pragma once
// Answers of the CUDA runtime that cannot change while the process runs (a kernel's image, its
// occupancy at a shape, an attribute once set), asked once per kernel, key and device: a small
// call's time is mostly host calls. Kept for the process: no cudaDeviceReset between calls.
#include <cstddef>

namespace tcu {

// The value kept for (kernel, a, b) on the current device, else compute(kernel, a, b)'s, kept
// when it is >= 0 (a negative value is a failure: returned, not kept). a and b tell the questions
// apart: the image (0, 0), the shared-memory attribute (-1, bytes), the occupancy (threads, bytes).
using MemoQuestion = int (*)(const void* kernel, int a, std::size_t b);
int remember_per_device(const void* kernel, int a, std::size_t b, MemoQuestion compute);

}  // namespace tcu
