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
//
// The numbers are Reals (kernels/real.h): doubles for one line, or SIMD vectors holding one line
// per slot, each slot doing the double's operations in the double's order (the cpu backend's
// vector path, src/evaluator/cpu/cpu_line_kernels.cc). What differs between slots — pivot rows,
// singular systems, unweighted entries — is chosen per slot with masks.
#pragma once

#include <type_traits>

#include "kernels/complex.h"
#include "kernels/det_math.h"
#include "kernels/elimination_vectors.h"
#include "kernels/real.h"
#include "kernels/team.h"

namespace frfit::kernels {

// Largest number of elastic DOFs the per-line code handles (stack arrays are sized by it).
constexpr int kMaxDofs = 64;
// Largest number of fitted body masses (PostureArrays) the per-line derivatives handle.
constexpr int kMaxMasses = 8;
// Largest number of affine parts (PostureArrays) per posture the per-line derivatives handle.
constexpr int kMaxParts = 16;

// Which matrix an affine part adds to (posture/posture.h, AffinePart::Target, in its order):
// K (real), K'' (the imaginary, structural loss, stiffness), C or M.
enum PartTarget : int { kPartStiffness = 0, kPartLossStiffness = 1, kPartDamping = 2, kPartMass = 3 };

enum CostKind : int {
  kCostLogComplex = 0,         // |log H_s − log H|², paper Eq. 22
  kCostLogMagnitude = 1,       // (log|H_s| − log|H|)²
  kCostNormalizedComplex = 2,  // |H_s − H|² (weights carry 1/Σ w|H|², papers/003)
};

enum PhaseMode : int {
  kPhaseWrapped = 0,        // arg H_s − arg H wrapped into (−π, π]: the principal log of H_s/H
  kPhasePrincipalLogs = 1,  // Log H_s − Log H with each principal log taken separately
};

// The robust loss ρ applied to each entry's weighted error s = w·|δ|² (docs/noise.md): with noise
// weights s is the squared residual in units of its noise, 1 on average. c is the loss's scale.
//   none    ρ(s) = s
//   huber   ρ(s) = s for s ≤ c², 2c·√s − c² above: linear growth of |δ| beyond c noise deviations
//   cauchy  ρ(s) = c²·log(1 + s/c²): a residual far beyond c counts only logarithmically
// A least-squares step weights each residual by ρ'(s) at the current point (iteratively
// reweighted least squares); ρ(s) ≤ s, and ρ(s) = s for every s when the loss is none, so the
// plain cost keeps its bits.
enum LossKind : int { kLossNone = 0, kLossHuber = 1, kLossCauchy = 2 };

template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real RobustLoss(Real s, int loss, double scale) {
  if (loss == kLossNone) return s;
  const double c2 = scale * scale;
  if (loss == kLossHuber) return Select(s <= c2, s, (2.0 * scale) * Sqrt(s) - c2);
  return c2 * det::Log(1.0 + s / c2);
}

// ρ'(s), the weight IRLS gives the residual (1 where the loss is quadratic).
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real RobustLossSlope(Real s, int loss, double scale) {
  if (loss == kLossNone) return Splat<Real>(1.0);
  if (loss == kLossHuber) return Select(s <= scale * scale, Splat<Real>(1.0), scale / Sqrt(s));
  return 1.0 / (1.0 + s / (scale * scale));
}

enum LineStatus : unsigned {
  kLineOk = 0,
  kLineSingular = 1,   // a zero (or non-finite) pivot: Z(ω) is singular for these parameters
  kLineNonFinite = 2,  // the line's cost is NaN or infinite
};

// One posture's matrices, row-major: mass and gravity n×n, basis n×3. `basis` is the excitation
// point's B_b (the right-hand sides: X = Z⁻¹B_b) and `response` the response point's B_a (the
// projection: H = B_aᵀX); a tool-tip set has one point, and `response` is `basis` itself (or
// null, which means the same), so its arithmetic is the one-point arithmetic to the bit.
//
// With fitted body masses (PackedProblem::masses) `mass` and `gravity` are the rest of M0 and
// K_gravity (those masses at 0) and mass_parts / gravity_parts, [masses][n][n], each fitted mass's
// share per kg; the masses themselves are the last coefficients (CoefficientStride). Without
// them (masses 0) M0 and K_gravity are `mass` and `gravity` as they are.
//
// Affine parts (posture/posture.h, AffinePart): `parts` constant n×n matrices, part_matrices
// [parts][n][n], each scaled by one coefficient and added to the matrix its target names;
// part_layout [parts][2] holds (PartTarget, coefficient index) as doubles (small integers, exact),
// so that the cuda backend's one resident array of doubles carries them too. Part a's coefficient
// is coefficients[3n + 1 + masses + part_layout[2a + 1]] (CoefficientStride); several parts may
// share one. Mass-targeted parts are part of M (MassAt), so αM includes them. Without parts
// (parts 0) no operation is added anywhere.
struct PostureArrays {
  int n;
  const double* mass;
  const double* gravity;
  const double* basis;
  const double* response = nullptr;
  int masses = 0;
  const double* mass_parts = nullptr;
  const double* gravity_parts = nullptr;
  int parts = 0;
  const double* part_matrices = nullptr;
  const double* part_layout = nullptr;

  FRFIT_HOST_DEVICE FRFIT_INLINE int PartTargetOf(int a) const {
    return static_cast<int>(part_layout[2 * a]);
  }
  // Part a's coefficient in `coefficients`.
  FRFIT_HOST_DEVICE FRFIT_INLINE double PartCoefficient(int a, const double* coefficients) const {
    return coefficients[3 * n + 1 + masses + static_cast<int>(part_layout[2 * a + 1])];
  }
  // Cell i (row-major) of M0 at the fitted masses and part coefficients of `coefficients`, each
  // mass's share added in mass order, then the mass-targeted parts in part order (no operation at
  // all without fitted masses and parts).
  FRFIT_HOST_DEVICE FRFIT_INLINE double MassAt(int i, const double* coefficients) const {
    double m = mass[i];
    for (int b = 0; b < masses; ++b) m += coefficients[3 * n + 1 + b] * mass_parts[b * n * n + i];
    for (int a = 0; a < parts; ++a)
      if (PartTargetOf(a) == kPartMass)
        m += PartCoefficient(a, coefficients) * part_matrices[a * n * n + i];
    return m;
  }
  FRFIT_HOST_DEVICE FRFIT_INLINE double GravityAt(int i, const double* coefficients) const {
    double g = gravity[i];
    for (int b = 0; b < masses; ++b)
      g += coefficients[3 * n + 1 + b] * gravity_parts[b * n * n + i];
    return g;
  }

  FRFIT_HOST_DEVICE FRFIT_INLINE const double* Response() const {
    return response != nullptr ? response : basis;
  }
  // Whether the response point differs from the excitation point: then the Jacobian needs
  // Y = Z⁻¹B_a beside X (kernels/line_normal.h).
  FRFIT_HOST_DEVICE FRFIT_INLINE bool TwoPoints() const {
    return response != nullptr && response != basis;
  }
};

// What the cost compares against on one line: for each of the nine entries a weight (0: entry
// not fitted) and a target pair — (log|H|, arg H) for the log costs, (Re H, Im H) otherwise —
// both already in the fitted format; and the robust loss its entries' weighted errors go through
// (LossKind, its scale c). With W lines per Real the slots are innermost: weight [9][W],
// target [9][2][W] (W = 1: [9] and [9][2]).
template <typename Real>
struct LineTargetOf {
  Real omega_rad_s;
  const double* weight;
  const double* target;
  int loss = kLossNone;
  double loss_scale = 0.0;
  FRFIT_HOST_DEVICE FRFIT_INLINE Real Weight(int e) const {
    return Load<Real>(weight + e * WidthOf<Real>());
  }
  // part 0: log|H| or Re H; part 1: arg H or Im H.
  FRFIT_HOST_DEVICE FRFIT_INLINE Real Target(int e, int part) const {
    return Load<Real>(target + (2 * e + part) * WidthOf<Real>());
  }
};
using LineTarget = LineTargetOf<double>;

// Coefficients of one individual at one posture, packed as [k(n), c(n), h(n), α, m(masses),
// a(parts)]: stiffness, viscous damping, hysteretic (η·k), mass-proportional damping, the fitted
// body masses in kg and the affine parts' coefficients (PostureArrays). Size 3n + 1 + masses +
// parts, `parts` counting coefficients (not the parts that use them).
FRFIT_HOST_DEVICE FRFIT_INLINE int CoefficientStride(int n, int masses = 0, int parts = 0) {
  return 3 * n + 1 + masses + parts;
}

// Scratch of one line, in whatever memory its team shares (stack, GPU shared memory):
// z n×n and x n×3 row-major, the n inverse pivots, the nine weighted entry errors.
template <typename Real>
struct LineScratchOf {
  ComplexOf<Real>* z;
  ComplexOf<Real>* x;
  ComplexOf<Real>* inverse_pivot;
  Real* terms;
};
using LineScratch = LineScratchOf<double>;

// Bytes of a LineScratch for n DOFs, laid out as LineScratchAt carves it.
template <typename Real = double>
FRFIT_HOST_DEVICE FRFIT_INLINE int LineScratchBytes(int n) {
  return static_cast<int>(sizeof(ComplexOf<Real>)) * (n * n + 4 * n) +
         static_cast<int>(sizeof(Real)) * 9;
}
template <typename Real = double>
FRFIT_HOST_DEVICE FRFIT_INLINE LineScratchOf<Real> LineScratchAt(void* memory, int n) {
  ComplexOf<Real>* z = static_cast<ComplexOf<Real>*>(memory);
  return {z, z + n * n, z + n * n + 3 * n, reinterpret_cast<Real*>(z + n * n + 4 * n)};
}

// Entry e = 3i + j of the 3×3 FRF in the fitted format, from the solved X = Z⁻¹B whose entry
// (r, j) is x[r·row_stride + j·column_stride] (3, 1 here; 1, n for cuBLAS's column-major X in the
// batched tier, which scores its lines with these same functions), projected on `basis`: the
// response point's B_a (PostureArrays::Response).
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> FittedEntry(int e, int n, const ComplexOf<Real>* x,
                                                           int row_stride, int column_stride,
                                                           const double* basis, Real omega,
                                                           int fit_order) {
  const Real omega2 = omega * omega;
  const int i = e / 3, j = e % 3;
  ComplexOf<Real> hs = SplatComplex<Real>(0.0, 0.0);
  for (int r = 0; r < n; ++r)
    hs = Add(hs, Scale(x[r * row_stride + j * column_stride], basis[r * 3 + i]));
  if (fit_order == 1) hs = {-hs.im * omega, hs.re * omega};
  else if (fit_order == 2) hs = {-hs.re * omega2, -hs.im * omega2};
  return hs;
}

// The phase part of kCostLogComplex's residual: arg H_s − t1, wrapped as phase_mode says.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real PhaseResidual(Real arg, Real t1, int phase_mode) {
  Real dp = arg - t1;
  if (phase_mode == kPhaseWrapped)
    dp = Select(dp > det::kPi, dp - 2.0 * det::kPi,
                Select(dp <= -det::kPi, dp + 2.0 * det::kPi, dp));
  return dp;
}

// The residual δ of one entry against its target (t0, t1), whose squared modulus is the entry's
// unweighted error: (log|H_s| − t0, phase difference) for kCostLogComplex, (log|H_s| − t0, 0) for
// kCostLogMagnitude, H_s − (t0 + i·t1) for kCostNormalizedComplex.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> EntryResidual(ComplexOf<Real> hs, Real t0, Real t1,
                                                             int cost_kind, int phase_mode) {
  if (cost_kind == kCostNormalizedComplex) return {hs.re - t0, hs.im - t1};
  const Real dm = det::LogAbs(hs.re, hs.im) - t0;
  if (cost_kind != kCostLogComplex) return {dm, Splat<Real>(0.0)};
  return {dm, PhaseResidual(det::Atan2(hs.im, hs.re), t1, phase_mode)};
}

// w·|δ|² of a residual; for kCostLogMagnitude δ.im is 0 and adding 0² changes no bit.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real WeightedError(Real weight, ComplexOf<Real> residual) {
  return weight * (residual.re * residual.re + residual.im * residual.im);
}

// The weighted error w_e·err_e of entry e (see FittedEntry for x's layout).
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE Real EntryTerm(int e, int n, const ComplexOf<Real>* x,
                                              int row_stride, int column_stride,
                                              const double* basis, const LineTargetOf<Real>& line,
                                              int fit_order, int cost_kind, int phase_mode) {
  const ComplexOf<Real> hs =
      FittedEntry(e, n, x, row_stride, column_stride, basis, line.omega_rad_s, fit_order);
  return RobustLoss(WeightedError(line.Weight(e), EntryResidual(hs, line.Target(e, 0),
                                                                line.Target(e, 1), cost_kind,
                                                                phase_mode)),
                    line.loss, line.loss_scale);
}

// Whether the code runs on one host thread over SIMD vectors of lines. There a loop order of its
// own can suit the CPU better than the lanes' split, as long as every element gets the same
// operations in the same order.
template <typename Team, typename Real>
constexpr bool kSerialVectors = std::is_same_v<Team, SerialTeam> && (WidthOf<Real>() > 1);

// Z = K_gravity + diag(k) − ω²M0 + i(ω(diag(c) + αM0) + diag(η·k)) for one line, cell by cell,
// with the affine parts: Σ a·K_a in the real part, Σ a·K''_a + ω·Σ a·C_a in the imaginary part,
// Σ a·M_a in M0 (PostureArrays):
// Cell(i) is cell i's mass and gravity terms (row-major), Diagonal adds row r's joint terms to
// its diagonal cell. Both solve paths assemble Z with it, in loops of their own.
template <typename Real>
struct ZAssembly {
  FRFIT_HOST_DEVICE FRFIT_INLINE ZAssembly(const PostureArrays& posture, const double* coefficients,
                                           Real omega)
      : posture(posture),
        coefficients(coefficients),
        k(coefficients),
        c(coefficients + posture.n),
        h(coefficients + 2 * posture.n),
        omega(omega),
        omega2(omega * omega),
        omega_alpha(omega * coefficients[3 * posture.n]) {}
  FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> Cell(int i) const {
    const double m = posture.MassAt(i, coefficients);
    const ComplexOf<Real> v = {posture.GravityAt(i, coefficients) - omega2 * m, omega_alpha * m};
    return posture.parts == 0 ? v : WithParts(v, i);
  }
  // Cell i's stiffness, loss and damping parts added to v, in part order (mass parts are in m).
  FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> WithParts(ComplexOf<Real> v, int i) const {
    const int n = posture.n;
    for (int a = 0; a < posture.parts; ++a) {
      const double term = posture.PartCoefficient(a, coefficients) * posture.part_matrices[a * n * n + i];
      const int target = posture.PartTargetOf(a);
      if (target == kPartStiffness) v.re = v.re + term;
      else if (target == kPartLossStiffness) v.im = v.im + term;
      else if (target == kPartDamping) v.im = v.im + omega * term;
    }
    return v;
  }
  FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> Diagonal(ComplexOf<Real> v, int r) const {
    return {v.re + k[r], v.im + (omega * c[r] + h[r])};
  }
  const PostureArrays& posture;
  const double *coefficients, *k, *c, *h;
  Real omega, omega2, omega_alpha;
};

// SolveLineTeam (below) on one host thread over SIMD vectors of lines: every element gets the
// same operations in the same order, in loops ordered for a CPU core (kernels/elimination_vectors.h
// says how).
template <typename Real>
inline MaskOf<Real> SolveLineOnVectors(const LineScratchOf<Real>& scratch,
                                       const PostureArrays& posture, const double* coefficients,
                                       Real omega) {
  const int n = posture.n;
  ComplexOf<Real>* const z = scratch.z;
  ComplexOf<Real>* const x = scratch.x;
  // Z and B as SolveLineTeam assembles them, the diagonal terms added in a second pass rather
  // than tested for in every cell.
  const ZAssembly<Real> assembly(posture, coefficients, omega);
  for (int i = 0; i < n * n; ++i) z[i] = assembly.Cell(i);
  for (int r = 0; r < n; ++r) z[r * n + r] = assembly.Diagonal(z[r * n + r], r);
  for (int i = 0; i < 3 * n; ++i) x[i] = SplatComplex<Real>(posture.basis[i], 0.0);
  const MaskOf<Real> singular = EliminateOnVectors(z, x, scratch.inverse_pivot, n);
  if (All<Real>(singular)) return singular;
  // Back-substitution with the three sums in one loop: each factor z[r][col] is loaded once for
  // the three, and the loop's own instructions are paid once. Each sum keeps its order.
  for (int r = n - 1; r >= 0; --r) {
    ComplexOf<Real> s0 = x[r * 3], s1 = x[r * 3 + 1], s2 = x[r * 3 + 2];
    for (int col = r + 1; col < n; ++col) {
      const ComplexOf<Real> a = z[r * n + col];
      s0 = Sub(s0, Mul(a, x[col * 3]));
      s1 = Sub(s1, Mul(a, x[col * 3 + 1]));
      s2 = Sub(s2, Mul(a, x[col * 3 + 2]));
    }
    x[r * 3] = Mul(s0, scratch.inverse_pivot[r]);
    x[r * 3 + 1] = Mul(s1, scratch.inverse_pivot[r]);
    x[r * 3 + 2] = Mul(s2, scratch.inverse_pivot[r]);
  }
  return singular;
}

// Assembles Z for one line and solves X = Z⁻¹B into scratch.x (row-major n×3), the team sharing
// `scratch`. Returns the slots whose system is singular (a zero or non-finite pivot); a double
// stops at once, a vector goes on with the other slots and the singular ones' results are
// meaningless. On return scratch.z holds the LU factors (U above the diagonal, its inverse pivots
// in scratch.inverse_pivot).
//
// Every element is computed by one lane with a fixed sequence of operations, and every sum
// (back-substitution, projection) runs in one lane in index order, so the bits do not depend on
// the team (kernels/team.h). The barriers separate the phases in which an element written by one
// lane is read by another.
template <typename Team, typename Real>
FRFIT_HOST_DEVICE inline MaskOf<Real> SolveLineTeam(const Team& team,
                                                    const LineScratchOf<Real>& scratch,
                                                    const PostureArrays& posture,
                                                    const double* coefficients, Real omega) {
  if constexpr (kSerialVectors<Team, Real>) {
    return SolveLineOnVectors(scratch, posture, coefficients, omega);
  } else {
    const int n = posture.n;
    ComplexOf<Real>* const z = scratch.z;
    ComplexOf<Real>* const x = scratch.x;
    // Z (ZAssembly); X starts as B = basis.
    const ZAssembly<Real> assembly(posture, coefficients, omega);
    team.ForGrid(n, n, [&](int r) {
      return [&, r](int col) {
        const ComplexOf<Real> v = assembly.Cell(r * n + col);
        z[r * n + col] = r == col ? assembly.Diagonal(v, r) : v;
      };
    });
    team.ForRange(0, 3 * n, [&](int i) { x[i] = SplatComplex<Real>(posture.basis[i], 0.0); });
    team.Sync();

    MaskOf<Real> singular = NoSlots<Real>();
    // Elimination with partial pivoting; the right-hand sides are reduced alongside, so L is never
    // stored (column p below the pivot holds the row factors during step p) and only columns p..
    // of the pivot rows need swapping.
    for (int p = 0; p < n; ++p) {
      // The first row of largest |re|+|im| at or below p; a NaN candidate is never chosen (so the
      // best size is never NaN), and a NaN on the diagonal makes the system singular.
      const Real diagonal = Magnitude1(z[p * n + p]);
      PivotChoiceOf<Real> mine = {Splat<Real>(-1.0), SplatInt<Real>(-1)};
      team.ForRange(p, n, [&](int r) {
        const Real size = Magnitude1(z[r * n + p]);
        const auto larger = size > mine.size;
        mine = {Select(larger, size, mine.size), Select(larger, SplatInt<Real>(r), mine.row)};
      });
      const PivotChoiceOf<Real> best = team.FirstMax(mine);
      const MaskOf<Real> fails =
          Or(Or(diagonal != diagonal, best.size <= 0.0), best.size >= det::kMaxFinite);
      if (Any<Real>(fails)) {
        singular = Or(singular, fails);
        if (All<Real>(singular)) return singular;
      }
      if (best.row != p) {
        SwapRowTails(team, z, x, n, p, best.row, true);
        team.Sync();
      }
      const ComplexOf<Real> inverse = Reciprocal(z[p * n + p]);
      if (team.lane() == 0) {  // part by part, as the factors below (a whole copy is slower)
        scratch.inverse_pivot[p].re = inverse.re;
        scratch.inverse_pivot[p].im = inverse.im;
      }
      team.ForRange(p + 1, n, [&](int r) { z[r * n + p] = Mul(z[r * n + p], inverse); });
      team.Sync();
      const int rest = n - p - 1;
      team.ForGrid(rest, rest, [&](int dr) {
        ComplexOf<Real>* const row = z + (p + 1 + dr) * n;
        return [row, f_re = row[p].re, f_im = row[p].im, pivot_row = z + p * n, p](int dc) {
          row[p + 1 + dc] =
              Sub(row[p + 1 + dc], Mul(ComplexOf<Real>{f_re, f_im}, pivot_row[p + 1 + dc]));
        };
      });
      team.ForGrid(rest, 3, [&](int dr) {
        ComplexOf<Real>* const row = x + (p + 1 + dr) * 3;
        const ComplexOf<Real> f = z[(p + 1 + dr) * n + p];
        return [row, f_re = f.re, f_im = f.im, pivot_row = x + p * 3](int j) {
          row[j] = Sub(row[j], Mul(ComplexOf<Real>{f_re, f_im}, pivot_row[j]));
        };
      });
      team.Sync();
    }
    // Back-substitution, a row at a time, the three columns of X side by side (one lane each;
    // on one thread the three independent sums overlap, which a column at a time would not).
    for (int r = n - 1; r >= 0; --r) {
      team.ForRange(0, 3, [&](int j) {
        ComplexOf<Real> s = x[r * 3 + j];
        for (int col = r + 1; col < n; ++col) s = Sub(s, Mul(z[r * n + col], x[col * 3 + j]));
        x[r * 3 + j] = Mul(s, scratch.inverse_pivot[r]);
      });
      team.Sync();
    }
    return singular;
  }
}

// The terms of kEntries weighted entries (entry[0 … kEntries−1]) for EntryTermsInStages.
// kEntries is a constant so that every stage is a loop GCC knows the length of: it copies the body
// three times a pass (FRFIT_UNROLL_3) rather than once per entry, which would leave the scoring's
// code too large for the processor's cache of decoded instructions beside the elimination's.
template <int kEntries, typename Real>
inline void EntryTermsOfLogs(const int* entry, int n, const ComplexOf<Real>* x, const double* basis,
                             const LineTargetOf<Real>& line, int fit_order, int cost_kind,
                             int phase_mode, Real* terms) {
  Real hs_re[kEntries], hs_im[kEntries], big[kEntries], q[kEntries], de_abs[kEntries];
  Real s[kEntries], s2[kEntries], de[kEntries];
  Real value[kEntries];  // the log series, then log|H_s|
  FRFIT_UNROLL_3
  for (int i = 0; i < kEntries; ++i) {
    const ComplexOf<Real> hs =
        FittedEntry(entry[i], n, x, 3, 1, basis, line.omega_rad_s, fit_order);
    hs_re[i] = hs.re, hs_im[i] = hs.im;
  }
  FRFIT_UNROLL_3
  for (int i = 0; i < kEntries; ++i) det::LogAbsStart(hs_re[i], hs_im[i], big[i], q[i], de_abs[i]);
  FRFIT_UNROLL_3
  for (int i = 0; i < kEntries; ++i) det::LogStart(q[i], s[i], s2[i], de[i]);
  det::LogSeries(s2, value, kEntries);
  FRFIT_UNROLL_3
  for (int i = 0; i < kEntries; ++i)
    value[i] =
        det::LogAbsFinish(big[i], de_abs[i], det::LogFinish(q[i], s[i], s2[i], de[i], value[i]));
  if (cost_kind != kCostLogComplex) {  // kCostLogMagnitude
    for (int i = 0; i < kEntries; ++i)
      terms[entry[i]] = RobustLoss(
          WeightedError(line.Weight(entry[i]),
                        ComplexOf<Real>{value[i] - line.Target(entry[i], 0), Splat<Real>(0.0)}),
          line.loss, line.loss_scale);
    return;
  }
  // Atan2 in the arrays log|H_s| is done with: its argument t, halved twice, t², the series.
  Real* const t = s;
  Real* const t2 = s2;
  Real* const poly = q;
  FRFIT_UNROLL_3
  for (int i = 0; i < kEntries; ++i) t[i] = det::Atan2Ratio(hs_im[i], hs_re[i]);
  FRFIT_UNROLL_3
  for (int i = 0; i < kEntries; ++i) t[i] = det::AtanHalve(t[i]);
  FRFIT_UNROLL_3
  for (int i = 0; i < kEntries; ++i) t[i] = det::AtanHalve(t[i]);
  FRFIT_UNROLL_3
  for (int i = 0; i < kEntries; ++i) t2[i] = t[i] * t[i];
  det::AtanSeries(t2, poly, kEntries);
  FRFIT_UNROLL_3
  for (int i = 0; i < kEntries; ++i) {
    const int e = entry[i];
    const Real arg = det::Atan2Finish(hs_im[i], hs_re[i], det::AtanOfHalved(t[i], t2[i], poly[i]));
    const Real dp = PhaseResidual(arg, line.Target(e, 1), phase_mode);
    terms[e] = RobustLoss(
        WeightedError(line.Weight(e), ComplexOf<Real>{value[i] - line.Target(e, 0), dp}),
        line.loss, line.loss_scale);
  }
}

// EntryTerm of every weighted entry into terms[e], on one host thread over vectors of lines, with
// log and atan2 in stages (det_math.h): each stage runs over all the weighted entries before the
// next starts. One entry's chain of dependent operations is longer than the processor can hold
// waiting (its FP scheduler fills, benchmarks/RESULTS.md), so entry after entry it would work on
// little more than one chain at a time; a stage is short enough for several entries' chains to be
// in flight together. Every entry goes through EntryTerm's operations in EntryTerm's order. The
// weighted entries are padded to 3, 6 or 9 with copies of the first (whose term is then written
// more than once, the same value each time). For the log costs only: kCostNormalizedComplex has
// no long chain to overlap.
template <typename Real>
inline void EntryTermsInStages(int n, const ComplexOf<Real>* x, const double* basis,
                               const LineTargetOf<Real>& line, int fit_order, int cost_kind,
                               int phase_mode, Real* terms) {
  int entry[9];  // the weighted ones
  int count = 0;
  for (int e = 0; e < 9; ++e)
    if (Any<Real>(line.Weight(e) != 0.0)) entry[count++] = e;
  if (count == 0) return;
  const int padded = (count + 2) / 3 * 3;
  for (int i = count; i < padded; ++i) entry[i] = entry[0];
  if (padded == 9)
    EntryTermsOfLogs<9>(entry, n, x, basis, line, fit_order, cost_kind, phase_mode, terms);
  else if (padded == 6)
    EntryTermsOfLogs<6>(entry, n, x, basis, line, fit_order, cost_kind, phase_mode, terms);
  else
    EntryTermsOfLogs<3>(entry, n, x, basis, line, fit_order, cost_kind, phase_mode, terms);
}

// Steps 3–4 for a line that SolveLineTeam has solved into scratch.x, `singular` being what it
// returned. fit_order: 0 receptance, 1 mobility, 2 inertance. Returns the weighted line cost, the
// same on every lane of `team`; on a singular system returns 0 and sets kLineSingular in *status
// (the caller turns the individual's cost into +inf). Each lane passes its own status. The nine
// entries are scored by one lane each and summed in one lane in entry order; an unweighted entry
// is not added (with vectors: not in that slot). Reads scratch.x, writes scratch.terms.
template <typename Team, typename Real>
FRFIT_HOST_DEVICE inline Real ScoreLineTeam(const Team& team, const LineScratchOf<Real>& scratch,
                                            const PostureArrays& posture,
                                            const LineTargetOf<Real>& line, int fit_order,
                                            int cost_kind, int phase_mode, MaskOf<Real> singular,
                                            StatusOf<Real>* status) {
  if (Any<Real>(singular)) {
    MarkStatus<Real>(status, singular, kLineSingular);
    if (All<Real>(singular)) return Splat<Real>(0.0);
  }
  const int n = posture.n;
  const ComplexOf<Real>* const x = scratch.x;
  const auto entry_by_entry = [&] {
    team.ForRange(0, 9, [&](int e) {
      if (Any<Real>(line.Weight(e) != 0.0))
        scratch.terms[e] =
            EntryTerm(e, n, x, 3, 1, posture.Response(), line, fit_order, cost_kind, phase_mode);
    });
    team.Sync();
  };
  if constexpr (kSerialVectors<Team, Real>) {
    if (cost_kind != kCostNormalizedComplex)
      EntryTermsInStages(n, x, posture.Response(), line, fit_order, cost_kind, phase_mode,
                         scratch.terms);
    else
      entry_by_entry();
  } else {
    entry_by_entry();
  }
  Real cost = Splat<Real>(0.0);
  for (int e = 0; e < 9; ++e) {
    const MaskOf<Real> weighted = line.Weight(e) != 0.0;
    if (Any<Real>(weighted)) cost = Select(weighted, cost + scratch.terms[e], cost);
  }
  cost = Select(singular, Splat<Real>(0.0), cost);
  MarkStatus<Real>(status, AndNot(cost - cost != 0.0, singular), kLineNonFinite);
  return cost;
}

// Steps 1–4: the weighted cost of one line (see ScoreLineTeam), the team sharing `scratch`.
template <typename Team, typename Real>
FRFIT_HOST_DEVICE inline Real LineCostTeam(const Team& team, const LineScratchOf<Real>& scratch,
                                           const PostureArrays& posture,
                                           const double* coefficients,
                                           const LineTargetOf<Real>& line, int fit_order,
                                           int cost_kind, int phase_mode,
                                           StatusOf<Real>* status) {
  return ScoreLineTeam(team, scratch, posture, line, fit_order, cost_kind, phase_mode,
                       SolveLineTeam(team, scratch, posture, coefficients, line.omega_rad_s),
                       status);
}

// The line cost computed by one thread with its scratch on the stack (the cpu backend, the GPU's
// thread-per-line kernel). kCapacity sizes the arrays (n <= kCapacity); loops run to n, so every
// capacity gives the same bits.
template <int kCapacity = kMaxDofs, typename Real>
FRFIT_HOST_DEVICE inline Real LineCost(const PostureArrays& posture, const double* coefficients,
                                       const LineTargetOf<Real>& line, int fit_order,
                                       int cost_kind, int phase_mode, StatusOf<Real>* status) {
  ComplexOf<Real> z[kCapacity * kCapacity];
  ComplexOf<Real> x[kCapacity * 3];
  ComplexOf<Real> inverse_pivot[kCapacity];
  Real terms[9];
  return LineCostTeam(SerialTeam{}, LineScratchOf<Real>{z, x, inverse_pivot, terms}, posture,
                      coefficients, line, fit_order, cost_kind, phase_mode, status);
}

}  // namespace frfit::kernels
