#pragma once
// Copying a ROWS×COLS tile of a row-major fp16 matrix into (padded) shared memory, zero-filled
// outside the matrix — the loader of steps 9, 10 and 11. Three ways, chosen by the launcher:
//
//   CopyMode::scalar     one 2-byte load per element: any leading dimension, any alignment
//   CopyMode::vector16   one 16-byte load per 8 elements (rows must start 16-byte aligned)
//   CopyMode::cp_async16 cp.async.cg 16 bytes global → shared, no registers, asynchronous
//                        (sm_80+); src-size < 16 zero-fills the rest of the chunk, so the
//                        last, partial chunk of a row never reads past the matrix
//
// 16-byte chunks need every row of the matrix to start on a 16-byte boundary (ld % 8 == 0 and
// an aligned base pointer, see rows_allow_16B_copies); otherwise the launcher picks scalar.
#include <cuda_fp16.h>

#include <cstdint>

#include "02_gemm_variants/gemm_problem.hpp"

namespace tcu::gemm {

enum class CopyMode { scalar, vector16, cp_async16 };

__device__ __forceinline__ void cp_async_16_zfill(void* smem, const void* gmem, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
#else
  (void)smem; (void)gmem; (void)src_bytes;
  __trap();  // launchers refuse cp.async before sm_80
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Wait until at most `kPending` committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

// Tile rows [row0, row0 + ROWS) × columns [col0, col0 + COLS) of `src` (row-major, leading
// dimension ld, rows_extent × cols_extent valid) into smem[ROWS][LDS]. All kThreads threads call it.
template <int ROWS, int COLS, int LDS, int kThreads, CopyMode kMode>
__device__ __forceinline__ void load_tile(__half* smem, const __half* src, std::int64_t ld, int row0, int col0,
                                          int rows_extent, int cols_extent) {
  static_assert(COLS % 8 == 0 && LDS % 8 == 0, "tile rows are whole 16-byte chunks, rows start 16-byte aligned");
  static_assert(LDS >= COLS, "the shared-memory row holds the tile row");
  constexpr int kChunksPerRow = COLS / 8;
  constexpr int kChunks = ROWS * kChunksPerRow;
  static_assert(kChunks % kThreads == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int it = 0; it < kChunks / kThreads; ++it) {
    const int chunk = it * kThreads + static_cast<int>(threadIdx.x);
    const int r = chunk / kChunksPerRow, c = (chunk % kChunksPerRow) * 8;
    const int gr = row0 + r, gc = col0 + c;
    const int valid = gr < rows_extent ? valid_in_chunk(gc, cols_extent, 8) : 0;
    __half* dst = smem + r * LDS + c;
    const __half* from = src + static_cast<std::int64_t>(gr) * ld + gc;
    if constexpr (kMode == CopyMode::cp_async16) {
      cp_async_16_zfill(dst, valid > 0 ? from : src, valid * 2);  // src-size 0: nothing read
    } else if constexpr (kMode == CopyMode::vector16) {
      uint4 v = make_uint4(0, 0, 0, 0);
      if (valid == 8) {
        v = *reinterpret_cast<const uint4*>(from);
      } else if (valid > 0) {
        alignas(16) __half tmp[8];
#pragma unroll
        for (int e = 0; e < 8; ++e) tmp[e] = e < valid ? from[e] : __float2half(0.0f);
        v = *reinterpret_cast<const uint4*>(tmp);
      }
      *reinterpret_cast<uint4*>(dst) = v;
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) dst[e] = e < valid ? from[e] : __float2half(0.0f);
    }
  }
}

// The same copy for the k-loop of steps 10 and 11, with the address arithmetic done once.
// load_tile recomputes every chunk's row, column, 64-bit address and zero-fill size each
// k-tile (~300 instructions per thread per k-tile in SASS, all issued between the barrier
// and the tensor-core work). Along the k-loop only the k offset moves: a thread's chunks keep
// their shared-memory offsets and their rows (A) or columns (B), so whether they lie inside
// M or N is known once. A TileStream keeps a global pointer and one number, 4 registers:
//   A (kKAlongRows = false; ROWS = BM, COLS = BK): rows_left = rows of M from its first chunk on
//   B (kKAlongRows = true;  ROWS = BK, COLS = BN): col_bytes = bytes of its chunk inside N
// and copies a whole k-tile with kPerThread cp.async and a few additions (copy_next); only a
// partial last k-tile checks k as well (copy_last). Where nothing is read (src-size 0) the
// address still points inside the matrix: at the thread's first chunk, or at `fallback`.
template <int ROWS, int COLS, int LDS, int kThreads, bool kKAlongRows>
struct TileStream {
  static_assert(COLS % 8 == 0 && LDS % 8 == 0, "tile rows are whole 16-byte chunks, rows start 16-byte aligned");
  static constexpr int kChunksPerRow = COLS / 8;
  static_assert(kThreads % kChunksPerRow == 0 && (ROWS * kChunksPerRow) % kThreads == 0,
                "every thread copies chunks of one column, kRowStep rows apart");
  static constexpr int kRowStep = kThreads / kChunksPerRow;  // rows between a thread's chunks
  static constexpr int kPerThread = ROWS / kRowStep;

  const __half* src;  // this thread's first chunk of the next k-tile
  int limit;          // A: rows_left; B: col_bytes

  __device__ static int chunk_row() { return static_cast<int>(threadIdx.x) / kChunksPerRow; }
  __device__ static int chunk_col() { return (static_cast<int>(threadIdx.x) % kChunksPerRow) * 8; }

  // The tile at (row0, col0) of a matrix with rows_extent rows and cols_extent columns.
  __device__ TileStream(const __half* base, std::int64_t ld, int row0, int col0, int rows_extent, int cols_extent) {
    const int r = row0 + chunk_row(), c = col0 + chunk_col();
    if (kKAlongRows) {
      limit = 2 * valid_in_chunk(c, cols_extent, 8);
      src = base + static_cast<std::int64_t>(r) * ld + (limit > 0 ? c : 0);
    } else {
      limit = rows_extent - r;
      src = base + static_cast<std::int64_t>(limit > 0 ? r : 0) * ld + c;
    }
  }

  // Bytes of chunk `it` in a k-tile that is whole along k.
  __device__ __forceinline__ int chunk_bytes(int it) const {
    return kKAlongRows ? limit : (it * kRowStep < limit ? 16 : 0);
  }

  // Copy the next k-tile (whole along k: BK columns of A or BK rows of B), then step along k.
  __device__ __forceinline__ void copy_next(__half* slot_base, std::int64_t ld) {
    const int dst = chunk_row() * LDS + chunk_col();
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      const int bytes = chunk_bytes(it);
      const std::int64_t rows = bytes > 0 ? it * kRowStep : 0;
      cp_async_16_zfill(slot_base + dst + it * kRowStep * LDS, src + rows * ld, bytes);
    }
    src += kKAlongRows ? ROWS * ld : COLS;
  }

  // The last k-tile when only k_left (< the tile's k extent) of it lies inside K.
  __device__ __forceinline__ void copy_last(__half* slot_base, std::int64_t ld, int k_left, const __half* fallback) {
    const int dst = chunk_row() * LDS + chunk_col();
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      const int k_bytes = kKAlongRows ? (chunk_row() + it * kRowStep < k_left ? 16 : 0)
                                      : 2 * valid_in_chunk(chunk_col(), k_left, 8);
      const int bytes = k_bytes < chunk_bytes(it) ? k_bytes : chunk_bytes(it);
      const __half* from = bytes > 0 ? src + static_cast<std::int64_t>(it * kRowStep) * ld : fallback;
      cp_async_16_zfill(slot_base + dst + it * kRowStep * LDS, from, bytes);
    }
  }
};

// The last step of steps 9 and 10: a BM×BN fp32 tile staged in shared memory (leading
// dimension LDS) goes to C with predication; 16-byte stores where C's rows allow them.
template <int BM, int BN, int LDS, int kThreads>
__device__ __forceinline__ void store_tile_from_smem(const float* cs, const GemmArgs<__half>& g, int row0, int col0,
                                                     bool c_rows_16B) {
  static_assert(BN % 4 == 0, "rows of whole float4s");
  constexpr int kQuadsPerRow = BN / 4;
  for (int q = static_cast<int>(threadIdx.x); q < BM * kQuadsPerRow; q += kThreads) {
    const int r = q / kQuadsPerRow, c = (q % kQuadsPerRow) * 4;
    const int gr = row0 + r, gc = col0 + c;
    if (gr >= g.p.m) continue;
    const int valid = valid_in_chunk(gc, g.p.n, 4);
    float* out = g.c + static_cast<std::int64_t>(gr) * g.ldc + gc;
    if (valid == 4 && c_rows_16B) {
      *reinterpret_cast<float4*>(out) = *reinterpret_cast<const float4*>(cs + r * LDS + c);
    } else {
      for (int e = 0; e < valid; ++e) out[e] = cs[r * LDS + c + e];
    }
  }
}

}  // namespace tcu::gemm
