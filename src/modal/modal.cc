#include "frfit/modal/modal.h"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <functional>

#include "frfit/common/error.h"

namespace frfit {

std::vector<Mode> ComputeModes(const Posture& posture, const JointCoefficients& coefficients) {
  return AnalyseModes(posture, coefficients).modes;
}

void SeeShapesAt(const Eigen::MatrixXd& basis, std::vector<Mode>* modes) {
  for (Mode& mode : *modes)
    mode.sensor_shape = basis.transpose().cast<std::complex<double>>() * mode.shape;
}

namespace {

using Cplx = std::complex<double>;

// The first-order form of Eq. 18–19 as a standard eigenproblem: ẋ = A x, x = [Δq; Δq̇].
struct FirstOrder {
  Eigen::PartialPivLU<Eigen::MatrixXcd> mass_lu;
  Eigen::VectorXcd eigenvalues;
  Eigen::MatrixXcd eigenvectors;  // columns v = [Δq; Δq̇] in the model's coordinates
};

// A beam's nodal rotary masses are orders of magnitude below its translational ones, so M⁻¹K
// has rows of very different size and the unsymmetric eigensolver (which does not balance) loses
// 1e-6 to 1e-4 of the low frequencies. With D = diag(M)^(−1/2) and Δq = D Δq̃ the pencil
// D M D, D K D, D C D has unit mass diagonal and the same eigenvalues; the eigenvectors come back
// as [D ṽ_top; D ṽ_bottom]. Only models with affine (beam) parts take this path: every lumped
// model keeps the unscaled solve and its bits.
Eigen::VectorXd MassScaling(const Posture& posture, const Eigen::MatrixXcd& mass) {
  if (posture.affine_parts.empty()) return Eigen::VectorXd();
  Eigen::VectorXd d(posture.n);
  for (int i = 0; i < posture.n; ++i) {
    const double m = mass(i, i).real();
    d(i) = m > 0.0 && std::isfinite(m) ? 1.0 / std::sqrt(m) : 1.0;
  }
  return d;
}

// The state matrix's eigenvalues carry an absolute error of about ε·ω_max² (its norm), so a
// beam model's low modes, with ω_max/ω above 1e4, lose up to 1e-5 of their frequency even when
// scaled. Each oscillating eigenpair is refined on the n×n quadratic pencil Q(λ) = λ²M + λC + K
// (M, C, K complex symmetric: the left eigenvector is the right one transposed): inverse
// iteration x ← Q(λ)⁻¹ Q'(λ) x, then λ ← the root, nearest λ, of xᵀQ(λ)x = 0. Its error is
// relative to the mode's own stiffness, not to the stiffest mode's.
void RefineEigenpair(const Eigen::MatrixXcd& M, const Eigen::MatrixXcd& C, const Eigen::MatrixXcd& K,
                     Cplx* lambda, Eigen::VectorXcd* x) {
  for (int iteration = 0; iteration < 2; ++iteration) {
    const Eigen::MatrixXcd Q = (*lambda) * (*lambda) * M + (*lambda) * C + K;
    const Eigen::VectorXcd next = Q.partialPivLu().solve((2.0 * (*lambda) * M + C) * (*x));
    if (!next.allFinite() || next.norm() == 0.0) return;
    *x = next / next.norm();
    const Cplx a = x->transpose() * M * (*x), b = x->transpose() * C * (*x),
               c = x->transpose() * K * (*x);
    const Cplx root = std::sqrt(b * b - 4.0 * a * c);
    const Cplx r1 = (-b + root) / (2.0 * a), r2 = (-b - root) / (2.0 * a);
    const Cplx best = std::abs(r1 - *lambda) <= std::abs(r2 - *lambda) ? r1 : r2;
    if (!std::isfinite(best.real()) || !std::isfinite(best.imag())) return;
    *lambda = best;
  }
}

FirstOrder SolveFirstOrder(const Posture& posture, const JointCoefficients& coefficients) {
  const int n = posture.n;
  const Eigen::MatrixXcd M = MassMatrix(posture, coefficients).cast<Cplx>();
  const Eigen::MatrixXcd K = TangentStiffness(posture, coefficients);
  const Eigen::MatrixXcd C = TangentDamping(posture, coefficients).cast<Cplx>();
  FirstOrder out;
  out.mass_lu.compute(M);
  const Eigen::VectorXd d = MassScaling(posture, M);
  Eigen::MatrixXcd A = Eigen::MatrixXcd::Zero(2 * n, 2 * n);
  A.topRightCorner(n, n).setIdentity();
  if (d.size() == 0) {
    A.bottomLeftCorner(n, n) = -out.mass_lu.solve(K);
    A.bottomRightCorner(n, n) = -out.mass_lu.solve(C);
  } else {
    const Eigen::MatrixXcd Ds = d.cast<Cplx>().asDiagonal();
    const Eigen::PartialPivLU<Eigen::MatrixXcd> scaled_lu(Ds * M * Ds);
    A.bottomLeftCorner(n, n) = -scaled_lu.solve(Ds * K * Ds);
    A.bottomRightCorner(n, n) = -scaled_lu.solve(Ds * C * Ds);
  }
  // A coefficient near the largest double (a sampled or typed 1e300) overflows M⁻¹K or M⁻¹C: the
  // eigensolver then returns NaN vectors, and normalising a shape by its largest entry indexed
  // out of range. Refused here, for every caller.
  if (!A.allFinite())
    throw Error("posture " + posture.name, "modes",
                "the state matrix is not finite: a stiffness or damping coefficient is too large "
                "(or not a number) for double precision");
  Eigen::ComplexEigenSolver<Eigen::MatrixXcd> solver(A);
  if (solver.info() != Eigen::Success || !solver.eigenvectors().allFinite())
    throw Error("posture " + posture.name, "modes", "the eigenvalue problem did not converge");
  out.eigenvalues = solver.eigenvalues();
  out.eigenvectors = solver.eigenvectors();
  if (d.size() != 0) {
    out.eigenvectors.topRows(n) = d.cast<Cplx>().asDiagonal() * out.eigenvectors.topRows(n);
    for (int k = 0; k < 2 * n; ++k) {
      Cplx lambda = out.eigenvalues(k);
      if (!(std::abs(lambda.imag()) > 1e-9 * std::abs(lambda))) continue;  // real: no mode
      Eigen::VectorXcd x = out.eigenvectors.col(k).head(n);
      RefineEigenpair(M, C, K, &lambda, &x);
      out.eigenvalues(k) = lambda;
      out.eigenvectors.col(k) << x, lambda * x;
    }
  }
  return out;
}

// Whether eigenvalue λ is a mode's (Im λ > 0, not a real one, not near-critical): the columns of
// the solver that ComputeModes and every derivative of the modes report, in order of frequency.
// A pair damped at kNearCriticalDamping or more has no resonance peak (none above 1/√2) and is
// no mode (docs/decisions.md): two nearly equal real eigenvalues of overdamped DOFs, or a free
// base's rigid-body motion, can come back from the solver as such a pair far below every mode.
bool IsNearCritical(Cplx lambda) {
  return -lambda.real() >= kNearCriticalDamping * std::abs(lambda);
}
bool IsMode(Cplx lambda) {
  return lambda.imag() > 1e-9 * std::abs(lambda) && !IsNearCritical(lambda);
}

// A rigid-body motion (a free base: coordinates without springs) has λ = 0 twice, a defective
// pair that the eigensolver returns as two tiny eigenvalues, which are no modes. "Tiny" is
// relative to the largest |λ| of an oscillating eigenvalue (an overdamped one may be huge): 1e-8
// of it lies far below any mode of a structure with springs.
bool IsRigidBody(Cplx lambda, double largest) { return std::abs(lambda) <= 1e-8 * largest; }

double LargestOscillating(const Eigen::VectorXcd& eigenvalues) {
  double largest = 0.0;
  for (const Cplx& lambda : eigenvalues)
    if (std::abs(lambda.imag()) > 1e-9 * std::abs(lambda)) largest = std::max(largest, std::abs(lambda));
  return largest;
}

std::vector<int> ModeColumns(const Eigen::VectorXcd& eigenvalues) {
  std::vector<int> columns;
  const double largest = LargestOscillating(eigenvalues);
  for (int k = 0; k < eigenvalues.size(); ++k)
    if (IsMode(eigenvalues(k)) && !IsRigidBody(eigenvalues(k), largest)) columns.push_back(k);
  std::stable_sort(columns.begin(), columns.end(), [&](int a, int b) {
    return eigenvalues(a).imag() < eigenvalues(b).imag();
  });
  return columns;
}

}  // namespace

ModalAnalysis AnalyseModes(const Posture& posture, const JointCoefficients& coefficients) {
  const int n = posture.n;
  const FirstOrder first = SolveFirstOrder(posture, coefficients);
  ModalAnalysis out;
  const double largest = LargestOscillating(first.eigenvalues);
  for (int k = 0; k < 2 * n; ++k) {
    const Cplx lambda = first.eigenvalues(k);
    if (IsRigidBody(lambda, largest))
      ++out.rigid_body_eigenvalues;
    else if (!(std::abs(lambda.imag()) > 1e-9 * std::abs(lambda)))
      out.real_eigenvalues.push_back(lambda.real());
    else if (lambda.imag() > 0.0 && IsNearCritical(lambda))
      out.near_critical.push_back(lambda);
  }
  std::sort(out.near_critical.begin(), out.near_critical.end(),
            [](Cplx a, Cplx b) { return a.imag() < b.imag(); });
  for (int k : ModeColumns(first.eigenvalues)) {
    const Cplx lambda = first.eigenvalues(k);
    Mode mode;
    mode.eigenvalue = lambda;
    mode.frequency_hz = lambda.imag() / (2.0 * M_PI);
    mode.damping_ratio = -lambda.real() / std::abs(lambda);
    Eigen::VectorXcd shape = first.eigenvectors.col(k).head(n);
    Eigen::Index largest;
    shape.cwiseAbs().maxCoeff(&largest);
    shape /= shape(largest);
    mode.shape = shape;
    mode.sensor_shape = posture.sensor_basis.transpose().cast<Cplx>() * shape;
    out.modes.push_back(std::move(mode));
  }
  std::sort(out.real_eigenvalues.begin(), out.real_eigenvalues.end(), std::greater<double>());
  return out;
}

// First-order perturbation of a simple eigenvalue: dλ_k = w_k (dA) v_k with v_k the k-th column
// of the eigenvector matrix V and w_k the k-th row of V⁻¹. A joint coefficient changes only the
// bottom blocks of A: −M⁻¹K (stiffness k_j: e_j e_jᵀ, hysteretic: i·e_j e_jᵀ) and −M⁻¹C
// (viscous: e_j e_jᵀ, mass-proportional α: M), so with x = v_k's top half (Δq), ẋ = its bottom
// half (λ·x) and z = (w_k's bottom half)·M⁻¹:
//   ∂λ/∂k_j = −z_j x_j,  ∂λ/∂η_j k_j = −i z_j x_j,  ∂λ/∂d_j = −z_j ẋ_j,  ∂λ/∂α = −(w_k's bottom
//   half)·ẋ.
// A fitted mass m_b moves M (by mass_b), K (gravity_b) and C (α·mass_b); with M⁻¹(Kx + Cẋ) = −λẋ
// from the eigenproblem itself this gives  ∂λ/∂m_b = −z·(gravity_b x + (λ + α) mass_b ẋ).
std::vector<Cplx> ModeEigenvalueDerivatives(const Posture& posture,
                                            const JointCoefficients& coefficients) {
  const int n = posture.n;
  const FirstOrder first = SolveFirstOrder(posture, coefficients);
  const Eigen::MatrixXcd& V = first.eigenvectors;
  const Eigen::MatrixXcd W = V.partialPivLu().inverse();
  const int masses = static_cast<int>(posture.mass_parts.size());
  const int parts = static_cast<int>(coefficients.parts.size());
  const int stride = 3 * n + 1 + masses + parts;
  std::vector<Cplx> out;
  for (int k : ModeColumns(first.eigenvalues)) {
    const Eigen::VectorXcd x = V.col(k).head(n);
    const Eigen::VectorXcd xdot = V.col(k).tail(n);
    const Eigen::RowVectorXcd w = W.row(k).tail(n);
    // z = w·M⁻¹, i.e. zᵀ = M⁻ᵀ wᵀ.
    const Eigen::VectorXcd z = first.mass_lu.transpose().solve(w.transpose());
    std::vector<Cplx> d(stride);
    for (int j = 0; j < n; ++j) {
      d[j] = -z(j) * x(j);
      d[n + j] = -z(j) * xdot(j);
      d[2 * n + j] = Cplx(0.0, -1.0) * z(j) * x(j);
    }
    d[3 * n] = -(w * xdot).value();
    const Cplx lambda = first.eigenvalues(k);
    for (int b = 0; b < masses; ++b) {
      const MassPart& part = posture.mass_parts[b];
      const Eigen::VectorXcd moved = part.gravity.cast<Cplx>() * x +
                                     (lambda + coefficients.mass_proportional) *
                                         (part.mass.cast<Cplx>() * xdot);
      d[3 * n + 1 + b] = -z.cwiseProduct(moved).sum();  // z·v without conjugation, as above
    }
    // An affine part scaled by its coefficient moves K (i·K for a loss part), C or M as a
    // spring, a dashpot or a fitted mass does: −z·(K_a x), −i z·(K_a x), −z·(C_a ẋ),
    // −z·((λ + α) M_a ẋ); parts sharing a coefficient add up.
    for (const AffinePart& part : posture.affine_parts) {
      using T = AffinePart::Target;
      const bool moves_rate = part.target == T::kDamping || part.target == T::kMass;
      const Eigen::VectorXcd moved = part.matrix.cast<Cplx>() * (moves_rate ? xdot : x);
      Cplx term = -z.cwiseProduct(moved).sum();
      if (part.target == T::kLossStiffness) term *= Cplx(0.0, 1.0);
      if (part.target == T::kMass) term *= lambda + coefficients.mass_proportional;
      d[3 * n + 1 + masses + part.coefficient] += term;
    }
    out.insert(out.end(), d.begin(), d.end());
  }
  return out;
}

std::vector<double> ModeFrequencyDerivatives(const Posture& posture,
                                             const JointCoefficients& coefficients) {
  std::vector<double> out;
  for (const Cplx& d : ModeEigenvalueDerivatives(posture, coefficients))
    out.push_back(d.imag() / (2.0 * M_PI));
  return out;
}

namespace {

// The generalised forces U (n×stride) by which each coefficient moves mode v = [x; ẋ] with
// eigenvalue λ: the first-order A changes by dA with dA v = [0; −M⁻¹ U_c] — the same terms
// ModeEigenvalueDerivatives dots with z (stiffness e_j x_j, viscous e_j ẋ_j, hysteretic i e_j x_j,
// α M ẋ, a fitted mass gravity_b x + (λ + α) mass_b ẋ, affine parts as there).
Eigen::MatrixXcd MovingForces(const Posture& posture, const JointCoefficients& coefficients,
                              const Eigen::MatrixXcd& mass, const Eigen::VectorXcd& x,
                              const Eigen::VectorXcd& xdot, Cplx lambda) {
  const int n = posture.n;
  const int masses = static_cast<int>(posture.mass_parts.size());
  const int stride = 3 * n + 1 + masses + static_cast<int>(coefficients.parts.size());
  Eigen::MatrixXcd u = Eigen::MatrixXcd::Zero(n, stride);
  for (int j = 0; j < n; ++j) {
    u(j, j) = x(j);
    u(j, n + j) = xdot(j);
    u(j, 2 * n + j) = Cplx(0.0, 1.0) * x(j);
  }
  u.col(3 * n) = mass * xdot;
  const Cplx rate = lambda + coefficients.mass_proportional;
  for (int b = 0; b < masses; ++b) {
    const MassPart& part = posture.mass_parts[b];
    u.col(3 * n + 1 + b) = part.gravity.cast<Cplx>() * x + rate * (part.mass.cast<Cplx>() * xdot);
  }
  for (const AffinePart& part : posture.affine_parts) {
    using T = AffinePart::Target;
    const bool moves_rate = part.target == T::kDamping || part.target == T::kMass;
    Eigen::VectorXcd moved = part.matrix.cast<Cplx>() * (moves_rate ? xdot : x);
    if (part.target == T::kLossStiffness) moved *= Cplx(0.0, 1.0);
    if (part.target == T::kMass) moved *= rate;
    u.col(3 * n + 1 + masses + part.coefficient) += moved;
  }
  return u;
}

}  // namespace

std::vector<Eigen::MatrixXcd> ModeShapeDerivatives(const Posture& posture,
                                                   const JointCoefficients& coefficients) {
  const int n = posture.n;
  const FirstOrder first = SolveFirstOrder(posture, coefficients);
  const Eigen::MatrixXcd& V = first.eigenvectors;
  const Eigen::VectorXcd& lambdas = first.eigenvalues;
  const Eigen::MatrixXcd W = V.partialPivLu().inverse();
  const Eigen::MatrixXcd mass = MassMatrix(posture, coefficients).cast<Cplx>();
  std::vector<Eigen::MatrixXcd> out;
  for (int k : ModeColumns(first.eigenvalues)) {
    const Eigen::VectorXcd x = V.col(k).head(n), xdot = V.col(k).tail(n);
    const Eigen::MatrixXcd forces = MovingForces(posture, coefficients, mass, x, xdot, lambdas(k));
    // W·dA·v_k with dA v_k = [0; −M⁻¹U]: only W's right half meets it.
    Eigen::MatrixXcd a = -(W.rightCols(n) * first.mass_lu.solve(forces));
    for (int m = 0; m < 2 * n; ++m)
      a.row(m) = m == k ? Eigen::RowVectorXcd::Zero(a.cols()).eval()
                        : (a.row(m) / (lambdas(k) - lambdas(m))).eval();
    const Eigen::MatrixXcd dx = V.topRows(n) * a;
    // Mode::shape = x / x_l, l its largest entry (the same choice as AnalyseModes).
    Eigen::Index l;
    x.cwiseAbs().maxCoeff(&l);
    const Eigen::VectorXcd shape = x / x(l);
    out.push_back((dx - shape * dx.row(l)) / x(l));
  }
  return out;
}

Eigen::MatrixXd Mac(const std::vector<Eigen::VectorXcd>& a,
                    const std::vector<Eigen::VectorXcd>& b) {
  Eigen::MatrixXd mac(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) {
      const double cross = std::norm(a[i].dot(b[j]));  // dot conjugates its first argument
      mac(i, j) = cross / (a[i].squaredNorm() * b[j].squaredNorm());
    }
  return mac;
}

}  // namespace frfit
