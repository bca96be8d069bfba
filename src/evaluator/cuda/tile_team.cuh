// The GPU team of kernels/team.h: a tile of kLanes threads (4, 8, 16 or 32) of one warp sharing one
// frequency line, its scratch in shared memory. Included only by src/evaluator/cuda/*.cu.
#pragma once

#include <cooperative_groups.h>

#include "kernels/team.h"

namespace frfit::kernels {

template <int kLanes>
struct TileTeam {
  static_assert(kLanes == 4 || kLanes == 8 || kLanes == 16 || kLanes == 32,
                "a tile is 4, 8, 16 or 32 lanes");
  cooperative_groups::thread_block_tile<kLanes> tile;

  __device__ __forceinline__ int lane() const { return static_cast<int>(tile.thread_rank()); }
  __device__ __forceinline__ int size() const { return kLanes; }
  __device__ __forceinline__ void Sync() const { tile.sync(); }
  template <typename F>
  __device__ __forceinline__ void ForRange(int begin, int end, F&& f) const {
    for (int i = begin + lane(); i < end; i += kLanes) f(i);
  }
  template <typename Row>
  __device__ __forceinline__ void ForGrid(int rows, int cols, Row&& row) const {
    StridedGrid(lane(), kLanes, rows, cols, row);
  }
  // Butterfly over the tile: Better is a maximum under a total order, so every lane ends with
  // the same choice. The closing sync orders the candidates' reads before the pivot swap.
  __device__ __forceinline__ PivotChoice FirstMax(PivotChoice mine) const {
    for (int mask = kLanes / 2; mask > 0; mask /= 2)
      mine =
          Better(mine, PivotChoice{tile.shfl_xor(mine.size, mask), tile.shfl_xor(mine.row, mask)});
    tile.sync();
    return mine;
  }
};

}  // namespace frfit::kernels
