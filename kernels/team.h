// A team is the set of lanes that share the work of one frequency line (kernels/line_cost.h):
// one host thread or one GPU thread (SerialTeam, this file), a GPU tile of 8–32 threads
// (src/evaluator/cuda/tile_team.cuh), or host threads standing in for a tile in the tests. Every
// element of a line's arrays is computed by exactly one lane with the same operations in the same
// order, whatever the team, so the team changes who computes an element, never its bits.
//
// What a team provides:
//   lane(), size()       this lane's index and the team's size;
//   Sync()               a barrier: writes before it are seen by every lane after it;
//   ForRange(b, e, f)    f(i) for every i in [b, e), spread over the lanes;
//   ForGrid(rows, cols, row)  row(r)(c) for every cell of a rows × cols grid, spread over the
//                        lanes: row(r) reads what the cells of row r share (a row factor) and
//                        returns the function of one cell, so a serial team hoists it out of
//                        the column loop where a compiler could not (it cannot tell the cell's
//                        stores from the factor's load);
//   FirstMax(choice)     combines every lane's PivotChoice (below); every lane gets the result,
//                        and it is also a barrier.
//
// A team shares one line, whose numbers are doubles; only SerialTeam also runs the per-line code
// on SIMD vectors of lines (kernels/real.h), one line per slot, each slot with its own pivots.
#pragma once

#include "frfit/common/host_device.h"
#include "kernels/real.h"

namespace frfit::kernels {

// A lane's best pivot candidate: the largest size seen, the lowest row on ties, NaN never chosen
// (size −1, row −1: none seen). Sizes are exact, so combining lanes in any order gives one answer.
template <typename Real>
struct PivotChoiceOf {
  Real size;
  IntOf<Real> row;
};
using PivotChoice = PivotChoiceOf<double>;

FRFIT_HOST_DEVICE FRFIT_INLINE PivotChoice Better(PivotChoice a, PivotChoice b) {
  return b.size > a.size || (b.size == a.size && b.row < a.row) ? b : a;
}

// The cells a lane of a team of `lanes` visits in a rows × cols grid (row-major cell index
// lane, lane + lanes, ...), walked without a division per cell.
template <typename Row>
FRFIT_HOST_DEVICE FRFIT_INLINE void StridedGrid(int lane, int lanes, int rows, int cols,
                                                Row&& row) {
  if (rows <= 0 || cols <= 0) return;
  int r = lane / cols, c = lane % cols;
  const int dr = lanes / cols, dc = lanes % cols;
  while (r < rows) {
    row(r)(c);
    r += dr;
    c += dc;
    if (c >= cols) c -= cols, ++r;
  }
}

// One lane doing everything: the cpu backend and the GPU's thread-per-line kernel.
struct SerialTeam {
  FRFIT_HOST_DEVICE FRFIT_INLINE int lane() const { return 0; }
  FRFIT_HOST_DEVICE FRFIT_INLINE int size() const { return 1; }
  FRFIT_HOST_DEVICE FRFIT_INLINE void Sync() const {}
  template <typename F>
  FRFIT_HOST_DEVICE FRFIT_INLINE void ForRange(int begin, int end, F&& f) const {
    for (int i = begin; i < end; ++i) f(i);
  }
  template <typename Row>
  FRFIT_HOST_DEVICE FRFIT_INLINE void ForGrid(int rows, int cols, Row&& row) const {
    for (int r = 0; r < rows; ++r) {
      const auto cell = row(r);
      for (int c = 0; c < cols; ++c) cell(c);
    }
  }
  template <typename Choice>
  FRFIT_HOST_DEVICE FRFIT_INLINE Choice FirstMax(Choice mine) const {
    return mine;
  }
};

}  // namespace frfit::kernels
