#pragma once
// The tile shapes of every GPU step in one place (the kernels take them as template
// parameters; the kernels' static_asserts check them). Host tests read them too.
namespace tcu::gemm {

inline constexpr int kTiledTile = 16;     // steps 3 and 5: the study's TILE_WIDTH
inline constexpr int kWarpTileWarps = 4;  // steps 6, 7, 8: warps (16×16 tiles) per block

// Steps 3a-3d, the fp32 CUDA-core ladder after step 3. Each thread computes several outputs
// from registers (kTM rows × kTN columns), so every value it reads from shared memory feeds
// several FMAs.
struct Blocktile1dConfig {  // step 3a: 64×64 block tile, a column of 8 outputs per thread
  static constexpr int kBM = 64, kBN = 64, kBK = 8, kTM = 8;
};
struct Blocktile2dConfig {  // steps 3b and 3c: 128×128 block tile, 8×8 outputs per thread
  static constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
};
// Step 3d: 128×128 block tile of 8 warps (2 × 4), 64×32 per warp. A warp covers its tile in
// kWMIter × kWNIter sub-tiles of (8 lanes · 4) × (4 lanes · 4): a lane holds 4×4 outputs of
// each sub-tile, 64 in all, and reads them from shared memory as float4s.
struct WarptileConfig {
  static constexpr int kBM = 128, kBN = 128, kBK = 8, kWM = 64, kWN = 32, kWMIter = 2, kWNIter = 2, kTM = 4,
                       kTN = 4;
};

struct WmmaShmemConfig {  // step 9: 64×64 block tile, 4 warps of 32×32, k-tile 32
  static constexpr int kBM = 64, kBN = 64, kBK = 32, kWM = 32, kWN = 32;
};
// Steps 10 and 11 share two tile shapes; the launcher picks one per problem. Both have
// 64×64 warp tiles, 32-wide k-tiles, 4 cp.async stages, and run kGroupRows block rows at a
// time (L2 locality, see block_tile_origin).
//
// Large: 128×256, 8 warps, one block per SM (registers: 8 warps × 32 × ~250). The block
// reads (128 + 256)·32 halves of A and B from L2 per k-tile for 2·128·256·32 FLOP — a quarter
// fewer L2 bytes per FLOP than 128×128. That is what counts: with 128×128 tiles the kernels
// ran into L2 bandwidth at large sizes (Nsight Compute: the L2 near its peak, the tensor pipe
// half idle), and the larger tile relieved it (docs/results/: the ladder at 4096³).
struct PipelinedLargeConfig {
  static constexpr int kBM = 128, kBN = 256, kBK = 32, kWM = 64, kWN = 64, kStages = 4, kGroupRows = 8;
};
// Small: 128×128, 4 warps, two blocks per SM — for problems whose large tiles would not give
// every SM a block (fewer large tiles than SMs: the smaller sizes).
struct PipelinedSmallConfig {
  static constexpr int kBM = 128, kBN = 128, kBK = 32, kWM = 64, kWN = 64, kStages = 4, kGroupRows = 8;
};

// Step 12 (sm_90a): one warpgroup per 128×128 tile, 64-wide k-tiles (one 128-byte swizzle row
// of A), 4 TMA slots of 32 KB; block rows grouped for L2 as in steps 10 and 11.
struct WgmmaTmaConfig {
  static constexpr int kBM = 128, kBN = 128, kBK = 64, kStages = 4, kGroupRows = 8;
};

// Step 13 (sm_90a): warp-specialised, 128×256 tiles. A producer warpgroup (one thread issues
// the TMA copies) and two consumer warpgroups of 64×256 each; 4 slots of 48 KB (192 KB of the
// 227 KB a block may have). Registers: the block is capped at 168 per thread at launch (384
// threads, one block per SM); the producer drops to kProducerRegs, the consumers rise to
// kConsumerRegs: 128·40 + 256·232 = 64512 ≤ 65536 registers of an SM.
struct WgmmaWsConfig {
  static constexpr int kBM = 128, kBN = 256, kBK = 64, kStages = 4, kGroupRows = 8;
  static constexpr int kConsumers = 2, kProducerRegs = 40, kConsumerRegs = 232;
};

}  // namespace tcu::gemm
