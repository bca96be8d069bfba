// The per-line terms of the least-squares normal equations (cost, gradient JᵀWr, Gauss–Newton
// matrix JᵀWJ), written once for both backends like the cost itself (kernels/line_cost.h), whose
// factorisation and entry residuals it reuses, so a line's cost here has the cost path's bits.
//
// The residuals of one line are the real and imaginary parts of each fitted entry's δ_e
// (EntryResidual), weighted by w_e: cost = Σ_e w_e |δ_e|². Z is complex symmetric (M0 and
// K_gravity are symmetric, the joint terms diagonal), so with X = Z⁻¹B_b and Y = Z⁻¹B_a
// (H_s = B_aᵀX = YᵀB_b)
//     ∂H_s/∂θ = −Yᵀ (∂Z/∂θ) X,   ∂Z/∂k_r = e_r e_rᵀ,  ∂Z/∂c_r = iω e_r e_rᵀ,  ∂Z/∂h_r = i e_r e_rᵀ,
//     ∂Z/∂α = iω M0,   ∂Z/∂m_b = gravity_b − ω² mass_b + iωα mass_b (a fitted mass, PostureArrays),
//     ∂Z/∂a = Σ over the parts of coefficient a of P·(1 for K, i for K'', iω for C, −ω² + iωα for M),
// i.e. entry (i, j) of ∂H_s/∂k_r is −Y_ri X_rj. At one point (the tool tip) Y is X and the
// derivatives need no extra solve; two points (a multi-point set) solve for Y as well. The chain to the optimiser's parameters u comes
// in as a sensitivity matrix D = ∂(coefficients)/∂u per individual and posture (the parameter map
// builds it: laws, η·k, β·k and the log-scaled bounds are all in D), so this file knows nothing
// about which physical quantity a parameter is.
//
// Output of one line, `p` free parameters, T = NormalTermCount(p) terms at out[t·stride]:
//   t = 0            the line's weighted cost (the bits of LineCostTeam's)
//   t = 1 .. p       g_j = Σ w (Re δ ∂Re δ/∂u_j + Im δ ∂Im δ/∂u_j)
//   t = 1 + p + ...  the upper triangle of A_jk = Σ w (∂Re δ_j ∂Re δ_k + ∂Im δ_j ∂Im δ_k), row by
//                    row (j <= k): see NormalTermIndex.
// The cost's gradient is 2g and its Gauss–Newton Hessian 2A. Entries are visited in order
// xx … zz and every sum runs in index order. With a robust loss (line_cost.h) the cost term is
// Σ_e ρ(w_e|δ_e|²) and w in g and A becomes w·ρ'(w|δ|²): the gradient is exact and A is the
// IRLS (Gauss–Newton) matrix at the current point.
#pragma once

#include "kernels/line_cost.h"

namespace frfit::kernels {

// Largest number of free parameters the per-line derivative code handles.
constexpr int kMaxParameters = 64;

FRFIT_HOST_DEVICE FRFIT_INLINE int NormalTermCount(int p) { return 1 + p + p * (p + 1) / 2; }

// Index of A_jk (j <= k) among a line's terms.
FRFIT_HOST_DEVICE FRFIT_INLINE int NormalTermIndex(int p, int j, int k) {
  return 1 + p + j * p - j * (j - 1) / 2 + (k - j);
}

// −(Yᵀ (∂Z/∂m_b) X)_{i,jj} = −Σ_r Y_ri Σ_c (gravity_b − ω² mass_b + iωα mass_b)_rc X_c,jj: entry
// (i, jj) of ∂H_s/∂m_b for fitted mass b. Recomputed per entry rather than kept as an n×3 product
// per mass, which would cost a thread on the GPU more local memory than the rest of the line.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> MassTerm(const PostureArrays& posture, int b,
                                                        const ComplexOf<Real>* x,
                                                        const ComplexOf<Real>* y, int i, int jj,
                                                        Real omega2, Real omega_alpha) {
  const int n = posture.n;
  const double* const mass = posture.mass_parts + b * n * n;
  const double* const gravity = posture.gravity_parts + b * n * n;
  ComplexOf<Real> q = SplatComplex<Real>(0.0, 0.0);
  for (int r = 0; r < n; ++r) {
    ComplexOf<Real> dzx = SplatComplex<Real>(0.0, 0.0);
    for (int c = 0; c < n; ++c) {
      const double m = mass[r * n + c];
      const ComplexOf<Real> dz = {gravity[r * n + c] - omega2 * m, omega_alpha * m};
      dzx = Add(dzx, Mul(dz, x[c * 3 + jj]));
    }
    q = Add(q, Mul(y[r * 3 + i], dzx));
  }
  return {-q.re, -q.im};
}

// −(Yᵀ (∂Z/∂a) X)_{i,jj} of affine part a (its matrix P times its target's factor: 1, i, iω or
// −ω² + iωα; PostureArrays) per unit of its coefficient, recomputed per entry as MassTerm is.
template <typename Real>
FRFIT_HOST_DEVICE FRFIT_INLINE ComplexOf<Real> PartTerm(const PostureArrays& posture, int a,
                                                        const ComplexOf<Real>* x,
                                                        const ComplexOf<Real>* y, int i, int jj,
                                                        Real omega, Real omega2,
                                                        Real omega_alpha) {
  const int n = posture.n;
  const double* const matrix = posture.part_matrices + a * n * n;
  ComplexOf<Real> q = SplatComplex<Real>(0.0, 0.0);  // (Yᵀ P X)_{i,jj}
  for (int r = 0; r < n; ++r) {
    ComplexOf<Real> px = SplatComplex<Real>(0.0, 0.0);
    for (int c = 0; c < n; ++c) px = Add(px, Scale(x[c * 3 + jj], matrix[r * n + c]));
    q = Add(q, Mul(y[r * 3 + i], px));
  }
  const int target = posture.PartTargetOf(a);
  ComplexOf<Real> unit = SplatComplex<Real>(1.0, 0.0);
  if (target == kPartLossStiffness) unit = SplatComplex<Real>(0.0, 1.0);
  else if (target == kPartDamping) unit = {Splat<Real>(0.0), omega};
  else if (target == kPartMass) unit = {-omega2, omega_alpha};
  const ComplexOf<Real> dq = Mul(unit, q);
  return {-dq.re, -dq.im};
}

// One line's terms (see the file comment) from its solutions X = Z⁻¹B_b and Y = Z⁻¹B_a (x and y,
// row-major n×3, as SolveLineTeam leaves them; y is x when posture has one point; `singular` is
// what the solves returned) at `coefficients`, by one thread. `sensitivity` is D,
// row-major [3n + 1 + masses + part coefficients][p] in the coefficient order of CoefficientStride. Sets *status like
// LineCost; on a singular system every term is 0. With W lines per Real (kernels/real.h) term t
// of the W lines is out[t·stride .. t·stride + W).
template <int kCapacity = kMaxDofs, typename Real>
FRFIT_HOST_DEVICE inline void NormalTermsOfSolution(const PostureArrays& posture,
                                                    const ComplexOf<Real>* x,
                                                    const ComplexOf<Real>* y,
                                                    const double* coefficients,
                                                    const double* sensitivity, int p,
                                                    const LineTargetOf<Real>& line, int fit_order,
                                                    int cost_kind, int phase_mode, double* out,
                                                    long long stride, MaskOf<Real> singular,
                                                    StatusOf<Real>* status) {
  using C = ComplexOf<Real>;
  const int terms = NormalTermCount(p);
  for (int t = 0; t < terms; ++t) Store(out + t * stride, Splat<Real>(0.0));
  if (Any<Real>(singular)) {
    MarkStatus<Real>(status, singular, kLineSingular);
    if (All<Real>(singular)) return;
  }
  const Real omega = line.omega_rad_s;
  const int n = posture.n;
  const double* const d_alpha = sensitivity + 3 * n * p;
  const double* const d_mass = sensitivity + (3 * n + 1) * p;  // [masses][p]
  const double* const d_part = d_mass + posture.masses * p;   // [part coefficients][p]

  // (XᵀM0X) is needed only when some parameter moves α (Rayleigh damping).
  bool moves_alpha = false;
  for (int j = 0; j < p; ++j) moves_alpha = moves_alpha || d_alpha[j] != 0.0;
  C mx[kCapacity * 3];
  if (moves_alpha)
    for (int r = 0; r < n; ++r)
      for (int b = 0; b < 3; ++b) {
        C s = SplatComplex<Real>(0.0, 0.0);
        for (int c = 0; c < n; ++c)
          s = Add(s, Scale(x[c * 3 + b], posture.MassAt(r * n + c, coefficients)));
        mx[r * 3 + b] = s;
      }
  const Real omega_alpha = omega * coefficients[3 * n];

  const Real omega2 = omega * omega;
  Real cost = Splat<Real>(0.0);
  C s[kCapacity];
  C derivative[kMaxParameters];
  for (int e = 0; e < 9; ++e) {
    const Real w = line.Weight(e);
    const MaskOf<Real> weighted = w != 0.0;
    if (!Any<Real>(weighted)) continue;
    const int i = e / 3, jj = e % 3;
    const C hs = FittedEntry(e, n, x, 3, 1, posture.Response(), omega, fit_order);
    const C delta = EntryResidual(hs, line.Target(e, 0), line.Target(e, 1), cost_kind, phase_mode);
    const Real error = WeightedError(w, delta);
    cost = Select(weighted, cost + RobustLoss(error, line.loss, line.loss_scale), cost);
    // IRLS: the residual weighted by ρ'(s) at this point; w itself without a loss (same bits).
    const Real wl =
        line.loss == kLossNone ? w : w * RobustLossSlope(error, line.loss, line.loss_scale);

    // ∂δ/∂H_s (receptance) = format factor × (1/H_s for the log costs, 1 otherwise).
    C factor = fit_order == 1   ? C{Splat<Real>(0.0), omega}
               : fit_order == 2 ? C{-omega2, Splat<Real>(0.0)}
                                : SplatComplex<Real>(1.0, 0.0);
    if (cost_kind != kCostNormalizedComplex) factor = Mul(factor, Reciprocal(hs));
    for (int r = 0; r < n; ++r) {
      const C product = Mul(y[r * 3 + i], x[r * 3 + jj]);
      s[r] = {-product.re, -product.im};
    }
    C alpha_term = SplatComplex<Real>(0.0, 0.0);  // −iω (YᵀM0X)_{i,jj}
    if (moves_alpha) {
      C q = SplatComplex<Real>(0.0, 0.0);
      for (int r = 0; r < n; ++r) q = Add(q, Mul(y[r * 3 + i], mx[r * 3 + jj]));
      alpha_term = {q.im * omega, -q.re * omega};
    }
    C mass_term[kMaxMasses];  // −(Yᵀ (∂Z/∂m_b) X)_{i,jj} of each fitted mass
    for (int b = 0; b < posture.masses; ++b)
      mass_term[b] = MassTerm(posture, b, x, y, i, jj, omega2, omega_alpha);
    C part_term[kMaxParts];  // −(Yᵀ (∂Z/∂a) X)_{i,jj} of each affine part
    for (int a = 0; a < posture.parts; ++a)
      part_term[a] = PartTerm(posture, a, x, y, i, jj, omega, omega2, omega_alpha);
    for (int j = 0; j < p; ++j) {
      C acc = SplatComplex<Real>(0.0, 0.0);
      for (int r = 0; r < n; ++r) {
        const C dz = {Splat<Real>(sensitivity[r * p + j]),
                      omega * sensitivity[(n + r) * p + j] + sensitivity[(2 * n + r) * p + j]};
        acc = Add(acc, Mul(s[r], dz));
      }
      if (moves_alpha) acc = Add(acc, Scale(alpha_term, d_alpha[j]));
      for (int b = 0; b < posture.masses; ++b) acc = Add(acc, Scale(mass_term[b], d_mass[b * p + j]));
      for (int a = 0; a < posture.parts; ++a)
        acc = Add(acc, Scale(part_term[a],
                             d_part[static_cast<int>(posture.part_layout[2 * a + 1]) * p + j]));
      C dj = Mul(factor, acc);
      if (cost_kind == kCostLogMagnitude) dj.im = Splat<Real>(0.0);
      derivative[j] = dj;
    }
    // out += w·(...) in the weighted slots only: an unweighted slot's terms may be NaN.
    auto accumulate = [&](double* term, Real add) {
      const Real old = Load<Real>(term);
      Store(term, Select(weighted, old + add, old));
    };
    for (int j = 0; j < p; ++j) {
      const C dj = derivative[j];
      accumulate(out + (1 + j) * stride, wl * (delta.re * dj.re + delta.im * dj.im));
      double* const row = out + NormalTermIndex(p, j, j) * stride;
      for (int k = j; k < p; ++k) {
        const C dk = derivative[k];
        accumulate(row + (k - j) * stride, wl * (dj.re * dk.re + dj.im * dk.im));
      }
    }
  }
  Store(out, cost);
  MaskOf<Real> non_finite = cost - cost != 0.0;
  for (int t = 1; t < terms; ++t) {
    const Real v = Load<Real>(out + t * stride);
    non_finite = Or(non_finite, v - v != 0.0);
  }
  if (Any<Real>(singular))
    for (int t = 0; t < terms; ++t)
      Store(out + t * stride, Select(singular, Splat<Real>(0.0), Load<Real>(out + t * stride)));
  MarkStatus<Real>(status, AndNot(non_finite, singular), kLineNonFinite);
}

// One line's terms, solve included, by one thread with its scratch on the stack (see
// NormalTermsOfSolution).
template <int kCapacity = kMaxDofs, typename Real>
FRFIT_HOST_DEVICE inline void LineNormalTerms(const PostureArrays& posture,
                                              const double* coefficients,
                                              const double* sensitivity, int p,
                                              const LineTargetOf<Real>& line, int fit_order,
                                              int cost_kind, int phase_mode, double* out,
                                              long long stride, StatusOf<Real>* status) {
  ComplexOf<Real> z[kCapacity * kCapacity];
  ComplexOf<Real> x[kCapacity * 3];
  ComplexOf<Real> inverse_pivot[kCapacity];
  MaskOf<Real> singular = NoSlots<Real>();
  ComplexOf<Real> y_store[kCapacity * 3];
  const ComplexOf<Real>* y = x;
  if (posture.TwoPoints()) {
    // Y = Z⁻¹B_a first, by the same solve with the response point on the right.
    PostureArrays response = posture;
    response.basis = posture.Response();
    singular = SolveLineTeam(SerialTeam{}, LineScratchOf<Real>{z, y_store, inverse_pivot, nullptr},
                             response, coefficients, line.omega_rad_s);
    y = y_store;
  }
  singular = Or(singular, SolveLineTeam(SerialTeam{},
                                        LineScratchOf<Real>{z, x, inverse_pivot, nullptr},
                                        posture, coefficients, line.omega_rad_s));
  NormalTermsOfSolution<kCapacity>(posture, x, y, coefficients, sensitivity, p, line, fit_order,
                                   cost_kind,
                                   phase_mode, out, stride, singular, status);
}

}  // namespace frfit::kernels
