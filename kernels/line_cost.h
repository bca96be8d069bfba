// The per-line arithmetic of the cost (DESIGN.md §2–3), written once for both backends: the cpu
// evaluator calls it from host threads and the cuda evaluator from a kernel. For one posture, one
// frequency line and one individual's joint coefficients it
//   1. assembles Z = K_gravity + diag(k) − ω²M0 + i(ω(diag(c) + αM0) + diag(η·k)),
//   2. factorises Z by Gaussian elimination with partial pivoting, carrying the three right-hand
//      sides B = J_Sᵀ R_0,S along, and back-substitutes: X = Z⁻¹B,
//   3. projects H_s = BᵀX (3×3 receptance in sensor axes) and converts it to the fitted format,
//   4. compares it with the measured entries and returns Σ_e w_e·err_e over the nine entries,
//      in entry order xx, xy, ..., zz.
// Nothing here may call a library transcendental, use atomics, or depend on thread count.
#pragma once

#include "kernels/complex.h"
#include "kernels/det_math.h"
#include "kernels/team.h"

namespace frfit::kernels {

// Largest number of elastic DOFs the per-line code handles (stack arrays are sized by it).
constexpr int kMaxDofs = 32;

enum CostKind : int {
  kCostLogComplex = 0,         // |log H_s − log H|², paper Eq. 22
  kCostLogMagnitude = 1,       // (log|H_s| − log|H|)²
  kCostNormalizedComplex = 2,  // |H_s − H|² (weights carry 1/Σ w|H|², papers/003)
};

enum PhaseMode : int {
  kPhaseWrapped = 0,        // arg H_s − arg H wrapped into (−π, π]: the principal log of H_s/H
  kPhasePrincipalLogs = 1,  // Log H_s − Log H with each principal log taken separately
};

enum LineStatus : unsigned {
  kLineOk = 0,
  kLineSingular = 1,   // a zero (or non-finite) pivot: Z(ω) is singular for these parameters
  kLineNonFinite = 2,  // the line's cost is NaN or infinite
};

// One posture's matrices, row-major: mass and gravity n×n, basis n×3.
struct PostureArrays {
  int n;
  const double* mass;
  const double* gravity;
  const double* basis;
};

// What the cost compares against on one line: for each of the nine entries a weight (0: entry
// not fitted) and a target pair — (log|H|, arg H) for the log costs, (Re H, Im H) otherwise —
// both already in the fitted format.
struct LineTarget {
  double omega_rad_s;
  const double* weight;  // [9]
  const double* target;  // [9][2]
};

// Coefficients of one individual at one posture, packed as [k(n), c(n), h(n), α]: stiffness,
// viscous damping, hysteretic (η·k) and mass-proportional damping. Size 3n + 1.
FRFIT_HOST_DEVICE FRFIT_INLINE int CoefficientStride(int n) { return 3 * n + 1; }

// Scratch of one line, in whatever memory its team shares (stack, GPU shared memory):
// z n×n and x n×3 row-major, the n inverse pivots, the nine weighted entry errors.
struct LineScratch {
  Cplx* z;
  Cplx* x;
  Cplx* inverse_pivot;
  double* terms;
};

// Bytes of a LineScratch for n DOFs, laid out as LineScratchAt carves it.
FRFIT_HOST_DEVICE FRFIT_INLINE int LineScratchBytes(int n) {
  return static_cast<int>(sizeof(Cplx)) * (n * n + 4 * n) + static_cast<int>(sizeof(double)) * 9;
}
FRFIT_HOST_DEVICE FRFIT_INLINE LineScratch LineScratchAt(void* memory, int n) {
  Cplx* z = static_cast<Cplx*>(memory);
  return {z, z + n * n, z + n * n + 3 * n, reinterpret_cast<double*>(z + n * n + 4 * n)};
}

// Entry e = 3i + j of the 3×3 FRF in the fitted format, from the solved X = Z⁻¹B whose entry
// (r, j) is x[r·row_stride + j·column_stride] (3, 1 here; 1, n for cuBLAS's column-major X in the
// batched tier, which scores its lines with these same functions).
FRFIT_HOST_DEVICE FRFIT_INLINE Cplx FittedEntry(int e, int n, const Cplx* x, int row_stride,
                                                int column_stride, const double* basis,
                                                double omega, int fit_order) {
  const double omega2 = omega * omega;
  const int i = e / 3, j = e % 3;
  Cplx hs = {0.0, 0.0};
  for (int r = 0; r < n; ++r)
    hs = Add(hs, Scale(x[r * row_stride + j * column_stride], basis[r * 3 + i]));
  if (fit_order == 1) hs = {-hs.im * omega, hs.re * omega};
  else if (fit_order == 2) hs = {-hs.re * omega2, -hs.im * omega2};
  return hs;
}

// The residual δ of one entry against its target (t0, t1), whose squared modulus is the entry's
// unweighted error: (log|H_s| − t0, phase difference) for kCostLogComplex, (log|H_s| − t0, 0) for
// kCostLogMagnitude, H_s − (t0 + i·t1) for kCostNormalizedComplex.
FRFIT_HOST_DEVICE FRFIT_INLINE Cplx EntryResidual(Cplx hs, double t0, double t1, int cost_kind,
                                                  int phase_mode) {
  if (cost_kind == kCostNormalizedComplex) return {hs.re - t0, hs.im - t1};
  const double dm = det::LogAbs(hs.re, hs.im) - t0;
  if (cost_kind != kCostLogComplex) return {dm, 0.0};
  double dp = det::Atan2(hs.im, hs.re) - t1;
  if (phase_mode == kPhaseWrapped) {
    if (dp > det::kPi) dp = dp - 2.0 * det::kPi;
    else if (dp <= -det::kPi) dp = dp + 2.0 * det::kPi;
  }
  return {dm, dp};
}

// w·|δ|² of a residual; for kCostLogMagnitude δ.im is 0 and adding 0² changes no bit.
FRFIT_HOST_DEVICE FRFIT_INLINE double WeightedError(double weight, Cplx residual) {
  return weight * (residual.re * residual.re + residual.im * residual.im);
}

// The weighted error w_e·err_e of entry e (see FittedEntry for x's layout).
FRFIT_HOST_DEVICE FRFIT_INLINE double EntryTerm(int e, int n, const Cplx* x, int row_stride,
                                                int column_stride, const double* basis,
                                                const LineTarget& line, int fit_order,
                                                int cost_kind, int phase_mode) {
  const Cplx hs =
      FittedEntry(e, n, x, row_stride, column_stride, basis, line.omega_rad_s, fit_order);
  return WeightedError(line.weight[e], EntryResidual(hs, line.target[2 * e], line.target[2 * e + 1],
                                                     cost_kind, phase_mode));
}

// Assembles Z for one line and solves X = Z⁻¹B into scratch.x (row-major n×3), the team sharing
// `scratch`. Returns false, with kLineSingular in *status, on a zero or non-finite pivot. On
// return scratch.z holds the LU factors (U above the diagonal, its inverse pivots in
// scratch.inverse_pivot).
//
// Every element is computed by one lane with a fixed sequence of operations, and every sum
// (back-substitution, projection) runs in one lane in index order, so the bits do not depend on
// the team (kernels/team.h). The barriers separate the phases in which an element written by one
// lane is read by another.
template <typename Team>
FRFIT_HOST_DEVICE inline bool SolveLineTeam(const Team& team, const LineScratch& scratch,
                                            const PostureArrays& posture,
                                            const double* coefficients, double omega,
                                            unsigned* status) {
  const int n = posture.n;
  const double omega2 = omega * omega;
  const double* k = coefficients;
  const double* c = coefficients + n;
  const double* h = coefficients + 2 * n;
  const double omega_alpha = omega * coefficients[3 * n];
  Cplx* const z = scratch.z;
  Cplx* const x = scratch.x;
  // Z = K_gravity + diag(k) − ω²M0 + i(ω(diag(c) + αM0) + diag(η·k)); X starts as B = basis.
  team.ForGrid(n, n, [&](int r) {
    return [&, r](int col) {
      const double m = posture.mass[r * n + col];
      Cplx v = {posture.gravity[r * n + col] - omega2 * m, omega_alpha * m};
      if (r == col) {
        v.re = v.re + k[r];
        v.im = v.im + (omega * c[r] + h[r]);
      }
      z[r * n + col] = v;
    };
  });
  team.ForRange(0, 3 * n, [&](int i) { x[i] = {posture.basis[i], 0.0}; });
  team.Sync();

  // Elimination with partial pivoting; the right-hand sides are reduced alongside, so L is never
  // stored (column p below the pivot holds the row factors during step p) and only columns p..
  // of the pivot rows need swapping.
  for (int p = 0; p < n; ++p) {
    // The first row of largest |re|+|im| at or below p; a NaN candidate is never chosen, and a
    // NaN on the diagonal makes the system singular.
    const double diagonal = Magnitude1(z[p * n + p]);
    PivotChoice mine = {-1.0, -1};
    team.ForRange(p, n, [&](int r) {
      const double size = Magnitude1(z[r * n + p]);
      if (size > mine.size) mine = {size, r};
    });
    const PivotChoice best = team.FirstMax(mine);
    if (!(diagonal == diagonal) || !(best.size > 0.0) || !(best.size < 1.7976931348623157e308)) {
      *status |= kLineSingular;
      return false;
    }
    const int pivot = best.row;
    if (pivot != p) {
      team.ForRange(p, n + 3, [&](int col) {
        Cplx* a = col < n ? &z[p * n + col] : &x[p * 3 + col - n];
        Cplx* b = col < n ? &z[pivot * n + col] : &x[pivot * 3 + col - n];
        const Cplx t = *a;
        *a = *b;
        *b = t;
      });
      team.Sync();
    }
    const Cplx inverse = Reciprocal(z[p * n + p]);
    if (team.lane() == 0) scratch.inverse_pivot[p] = inverse;
    team.ForRange(p + 1, n, [&](int r) { z[r * n + p] = Mul(z[r * n + p], inverse); });
    team.Sync();
    const int rest = n - p - 1;
    team.ForGrid(rest, rest, [&](int dr) {
      Cplx* const row = z + (p + 1 + dr) * n;
      return [row, f = row[p], pivot_row = z + p * n, p](int dc) {
        row[p + 1 + dc] = Sub(row[p + 1 + dc], Mul(f, pivot_row[p + 1 + dc]));
      };
    });
    team.ForGrid(rest, 3, [&](int dr) {
      Cplx* const row = x + (p + 1 + dr) * 3;
      return [row, f = z[(p + 1 + dr) * n + p], pivot_row = x + p * 3](int j) {
        row[j] = Sub(row[j], Mul(f, pivot_row[j]));
      };
    });
    team.Sync();
  }
  // Back-substitution, a row at a time, the three columns of X side by side (one lane each;
  // on one thread the three independent sums overlap, which a column at a time would not).
  for (int r = n - 1; r >= 0; --r) {
    team.ForRange(0, 3, [&](int j) {
      Cplx s = x[r * 3 + j];
      for (int col = r + 1; col < n; ++col) s = Sub(s, Mul(z[r * n + col], x[col * 3 + j]));
      x[r * 3 + j] = Mul(s, scratch.inverse_pivot[r]);
    });
    team.Sync();
  }

  return true;
}

// fit_order: 0 receptance, 1 mobility, 2 inertance. Returns the weighted line cost, the same on
// every lane of `team`; on a singular system returns 0 and sets *status (the caller turns the
// individual's cost into +inf). The team shares `scratch`; each lane passes its own status.
// The nine entries are scored by one lane each and summed in one lane in entry order.
template <typename Team>
FRFIT_HOST_DEVICE inline double LineCostTeam(const Team& team, const LineScratch& scratch,
                                             const PostureArrays& posture,
                                             const double* coefficients, const LineTarget& line,
                                             int fit_order, int cost_kind, int phase_mode,
                                             unsigned* status) {
  if (!SolveLineTeam(team, scratch, posture, coefficients, line.omega_rad_s, status)) return 0.0;
  const int n = posture.n;
  const Cplx* const x = scratch.x;
  team.ForRange(0, 9, [&](int e) {
    if (line.weight[e] != 0.0)
      scratch.terms[e] =
          EntryTerm(e, n, x, 3, 1, posture.basis, line, fit_order, cost_kind, phase_mode);
  });
  team.Sync();
  double cost = 0.0;
  for (int e = 0; e < 9; ++e)
    if (line.weight[e] != 0.0) cost = cost + scratch.terms[e];
  if (!(cost - cost == 0.0)) *status |= kLineNonFinite;
  return cost;
}

// The line cost computed by one thread with its scratch on the stack (the cpu backend, the GPU's
// thread-per-line kernel). kCapacity sizes the arrays (n <= kCapacity); loops run to n, so every
// capacity gives the same bits.
template <int kCapacity = kMaxDofs>
FRFIT_HOST_DEVICE inline double LineCost(const PostureArrays& posture, const double* coefficients,
                                         const LineTarget& line, int fit_order, int cost_kind,
                                         int phase_mode, unsigned* status) {
  Cplx z[kCapacity * kCapacity];
  Cplx x[kCapacity * 3];
  Cplx inverse_pivot[kCapacity];
  double terms[9];
  return LineCostTeam(SerialTeam{}, LineScratch{z, x, inverse_pivot, terms}, posture,
                      coefficients, line, fit_order, cost_kind, phase_mode, status);
}

}  // namespace frfit::kernels
