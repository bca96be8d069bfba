// The elimination of the per-line solve (kernels/line_cost.h, SolveLineTeam) for one host thread
// over SIMD vectors of lines — the cpu backend's vector path — in loops ordered for a CPU core,
// and the row swap that it shares with the teams' loop.
//
// The vector elimination gives every element the operations of the team loop in SolveLineTeam in
// the same order, so its bits are the scalar path's (tests/unit/evaluator/cpu_simd_test.cc compares
// them with ==). What it changes is the work around those operations, about a third of the
// instructions at n = 9 (docs/cpu-backend.md):
//   - two rows are updated per pass of the column loop, so each pivot-row element is loaded once
//     for both, and each row's factor stays in registers;
//   - the pivot's size clears the sign bits (ClearSign) rather than selecting −x, and the
//     candidate row is counted in a vector rather than splatted anew;
//   - the loop over rows that swaps pivot rows runs only in the rare steps where some slot's
//     pivot row is not p.
#pragma once

#include "frfit/common/host_device.h"
#include "kernels/complex.h"
#include "kernels/det_math.h"
#include "kernels/real.h"
#include "kernels/team.h"

namespace frfit::kernels {

// Keeps x in a register from here on. The row updates read each pivot-row element twice (once per
// product); on host vectors the compiler folds both reads into the multiplies as memory operands,
// six vector loads per element where four suffice. Changes no operation.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE void InRegister(Real& x) {
#if !defined(__CUDA_ARCH__) && defined(__x86_64__)
  if constexpr (WidthOf<Real>() > 1) asm("" : "+v"(x));
#else
  (void)x;
#endif
}

// A copy of v whose parts are kept in registers (InRegister): what the row updates multiply by.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> InRegisters(ComplexOf<Real> v) {
  InRegister(v.re);
  InRegister(v.im);
  return v;
}

// Swaps columns p.. of Z's rows p and r, and the rows of X, in the slots of `take`.
template <typename Team, typename Real, typename Mask>
FRFIT_HOST_DEVICE FRFIT_INLINE void SwapRowTails(const Team& team, ComplexOf<Real>* z,
                                                 ComplexOf<Real>* x, int n, int p, int r,
                                                 Mask take) {
  team.ForRange(p, n + 3, [&](int col) {
    ComplexOf<Real>* a = col < n ? &z[p * n + col] : &x[p * 3 + col - n];
    ComplexOf<Real>* b = col < n ? &z[r * n + col] : &x[r * 3 + col - n];
    const ComplexOf<Real> t = *a, u = *b;
    *a = {Select(take, u.re, t.re), Select(take, u.im, t.im)};
    *b = {Select(take, t.re, u.re), Select(take, t.im, u.im)};
  });
}

// Rows r … r + kRows − 1 of Z (columns p + 1 …) and of X minus their factors (in column p) times
// pivot row p. The factors are copied to registers once, and each pivot-row element is loaded
// once for all kRows rows.
template <int kRows, typename Real>
inline void SubtractPivotRow(ComplexOf<Real>* z, ComplexOf<Real>* x, int n, int p, int r) {
  ComplexOf<Real> f[kRows];
  for (int i = 0; i < kRows; ++i) f[i] = z[(r + i) * n + p];
  ComplexOf<Real>* const rows = z + r * n;
  const ComplexOf<Real>* const pivot_row = z + p * n;
  for (int c = p + 1; c < n; ++c) {
    const ComplexOf<Real> pivot = InRegisters(pivot_row[c]);
    for (int i = 0; i < kRows; ++i) rows[i * n + c] = Sub(rows[i * n + c], Mul(f[i], pivot));
  }
  ComplexOf<Real>* const rows_x = x + r * 3;
  const ComplexOf<Real>* const pivot_x = x + p * 3;
  for (int j = 0; j < 3; ++j) {
    const ComplexOf<Real> pivot = InRegisters(pivot_x[j]);
    for (int i = 0; i < kRows; ++i) rows_x[i * 3 + j] = Sub(rows_x[i * 3 + j], Mul(f[i], pivot));
  }
}

// SolveLineTeam's elimination with partial pivoting of Z (n×n) with X (n×3) alongside, on one
// host thread; returns the singular slots and leaves what the team loop leaves: U and its inverse
// pivots, the reduced X.
template <typename Real>
inline MaskOf<Real> EliminateOnVectors(ComplexOf<Real>* z, ComplexOf<Real>* x,
                                       ComplexOf<Real>* inverse_pivot, int n) {
  MaskOf<Real> singular = NoSlots<Real>();
  for (int p = 0; p < n; ++p) {
    // The first row of largest |re|+|im| at or below p, as in SolveLineTeam.
    const Real diagonal = Magnitude1(z[p * n + p]);
    Real best_size = Splat<Real>(-1.0);
    IntOf<Real> best_row = SplatInt<Real>(-1);
    IntOf<Real> row = SplatInt<Real>(p);
    for (int r = p; r < n; ++r) {
      const Real size = Magnitude1(z[r * n + p]);
      const auto larger = size > best_size;
      best_size = Select(larger, size, best_size);
      best_row = Select(larger, row, best_row);
      row = row + 1;
    }
    const MaskOf<Real> fails =
        Or(Or(diagonal != diagonal, best_size <= 0.0), best_size >= det::kMaxFinite);
    if (Any<Real>(fails)) {
      singular = Or(singular, fails);
      if (All<Real>(singular)) return singular;
    }
    // Each slot swaps with its own pivot row (none where the slot is singular: row −1).
    if (Any<Real>(best_row != SplatInt<Real>(p))) {
      for (int r = p + 1; r < n; ++r) {
        const MaskOf<Real> take = best_row == r;
        if (Any<Real>(take)) SwapRowTails(SerialTeam{}, z, x, n, p, r, take);
      }
    }
    const ComplexOf<Real> inverse = Reciprocal(z[p * n + p]);
    inverse_pivot[p].re = inverse.re;
    inverse_pivot[p].im = inverse.im;
    // All factors before the row updates: computed in the row loop, the inverse stayed live beside
    // the two rows' factors, and GCC kept those on the stack (a load for every product).
    for (int r = p + 1; r < n; ++r) z[r * n + p] = Mul(z[r * n + p], inverse);
    // Two rows at a time: twice the work per load of the pivot row and per loop step.
    int r = p + 1;
    for (; r + 1 < n; r += 2) SubtractPivotRow<2>(z, x, n, p, r);
    if (r < n) SubtractPivotRow<1>(z, x, n, p, r);
  }
  return singular;
}

}  // namespace frfit::kernels
