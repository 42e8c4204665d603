#pragma once
// The tile shapes of every GPU step in one place (the kernels take them as template
// parameters; the kernels' static_asserts check them). Host tests read them too.
namespace tcu::gemm {

inline constexpr int kTiledTile = 16;     // steps 3 and 5: the study's TILE_WIDTH
inline constexpr int kWarpTileWarps = 4;  // steps 6, 7, 8: warps (16×16 tiles) per block

struct WmmaShmemConfig {  // step 9: 64×64 block tile, 4 warps of 32×32, k-tile 32
  static constexpr int kBM = 64, kBN = 64, kBK = 32, kWM = 32, kWN = 32;
};
// Steps 10 and 11: 128×128 block tile, 4 warps of 64×64, k-tile 32, 4 stages (74 KB of shared
// memory: two blocks per SM). A 128×256×64, 3-stage variant (8 warps, 153 KB, one block per
// SM, a third less L2 traffic per FLOP) measured the same at 4096³ (~290 TFLOP/s for both
// kernels, H100) and less at 1024-2048, so the smaller tile stays; see the README.
struct WmmaPipelinedConfig {
  static constexpr int kBM = 128, kBN = 128, kBK = 32, kWM = 64, kWN = 64, kStages = 4;
};
struct MmaSyncConfig {
  static constexpr int kBM = 128, kBN = 128, kBK = 32, kWM = 64, kWN = 64, kStages = 4;
};

}  // namespace tcu::gemm
