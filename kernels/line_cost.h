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

// fit_order: 0 receptance, 1 mobility, 2 inertance. Returns the weighted line cost; on a
// singular system returns 0 and sets *status (the caller turns the individual's cost into +inf).
// kCapacity sizes the scratch arrays (n <= kCapacity); loops run to n, so every capacity gives
// the same bits and a GPU kernel may pick a small one to stay in registers.
template <int kCapacity = kMaxDofs>
FRFIT_HOST_DEVICE inline double LineCost(const PostureArrays& posture, const double* coefficients,
                                         const LineTarget& line, int fit_order, int cost_kind,
                                         int phase_mode, unsigned* status) {
  const int n = posture.n;
  const double omega = line.omega_rad_s;
  const double omega2 = omega * omega;
  const double* k = coefficients;
  const double* c = coefficients + n;
  const double* h = coefficients + 2 * n;
  const double omega_alpha = omega * coefficients[3 * n];

  Cplx z[kCapacity * kCapacity];
  Cplx x[kCapacity * 3];
  Cplx inverse_pivot[kCapacity];
  for (int r = 0; r < n; ++r) {
    for (int col = 0; col < n; ++col) {
      const double m = posture.mass[r * n + col];
      z[r * n + col] = {posture.gravity[r * n + col] - omega2 * m, omega_alpha * m};
    }
    z[r * n + r].re = z[r * n + r].re + k[r];
    z[r * n + r].im = z[r * n + r].im + (omega * c[r] + h[r]);
    for (int j = 0; j < 3; ++j) x[r * 3 + j] = {posture.basis[r * 3 + j], 0.0};
  }

  // Elimination with partial pivoting; the right-hand sides are reduced alongside, so L is never
  // stored and only columns k.. of the pivot rows need swapping.
  for (int p = 0; p < n; ++p) {
    int pivot = p;
    double best = Magnitude1(z[p * n + p]);
    for (int r = p + 1; r < n; ++r) {
      const double size = Magnitude1(z[r * n + p]);
      if (size > best) best = size, pivot = r;
    }
    if (!(best > 0.0) || !(best < 1.7976931348623157e308)) {
      *status |= kLineSingular;
      return 0.0;
    }
    if (pivot != p) {
      for (int col = p; col < n; ++col) {
        const Cplx t = z[p * n + col];
        z[p * n + col] = z[pivot * n + col];
        z[pivot * n + col] = t;
      }
      for (int j = 0; j < 3; ++j) {
        const Cplx t = x[p * 3 + j];
        x[p * 3 + j] = x[pivot * 3 + j];
        x[pivot * 3 + j] = t;
      }
    }
    inverse_pivot[p] = Reciprocal(z[p * n + p]);
    for (int r = p + 1; r < n; ++r) {
      const Cplx f = Mul(z[r * n + p], inverse_pivot[p]);
      for (int col = p + 1; col < n; ++col)
        z[r * n + col] = Sub(z[r * n + col], Mul(f, z[p * n + col]));
      for (int j = 0; j < 3; ++j) x[r * 3 + j] = Sub(x[r * 3 + j], Mul(f, x[p * 3 + j]));
    }
  }
  for (int r = n - 1; r >= 0; --r)
    for (int j = 0; j < 3; ++j) {
      Cplx s = x[r * 3 + j];
      for (int col = r + 1; col < n; ++col) s = Sub(s, Mul(z[r * n + col], x[col * 3 + j]));
      x[r * 3 + j] = Mul(s, inverse_pivot[r]);
    }

  double cost = 0.0;
  for (int e = 0; e < 9; ++e) {
    const double w = line.weight[e];
    if (w == 0.0) continue;
    const int i = e / 3, j = e % 3;
    Cplx hs = {0.0, 0.0};
    for (int r = 0; r < n; ++r) hs = Add(hs, Scale(x[r * 3 + j], posture.basis[r * 3 + i]));
    if (fit_order == 1) hs = {-hs.im * omega, hs.re * omega};
    else if (fit_order == 2) hs = {-hs.re * omega2, -hs.im * omega2};
    const double t0 = line.target[2 * e], t1 = line.target[2 * e + 1];
    double err;
    if (cost_kind == kCostNormalizedComplex) {
      const double dr = hs.re - t0, di = hs.im - t1;
      err = dr * dr + di * di;
    } else {
      const double dm = det::LogAbs(hs.re, hs.im) - t0;
      err = dm * dm;
      if (cost_kind == kCostLogComplex) {
        double dp = det::Atan2(hs.im, hs.re) - t1;
        if (phase_mode == kPhaseWrapped) {
          if (dp > det::kPi) dp = dp - 2.0 * det::kPi;
          else if (dp <= -det::kPi) dp = dp + 2.0 * det::kPi;
        }
        err = err + dp * dp;
      }
    }
    cost = cost + w * err;
  }
  if (!(cost - cost == 0.0)) *status |= kLineNonFinite;
  return cost;
}

}  // namespace frfit::kernels
