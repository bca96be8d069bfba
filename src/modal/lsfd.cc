#include "frfit/modal/lsfd.h"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "frfit/frf/frf_format.h"

namespace frfit {

Eigen::MatrixXcd ModalBasis(const FrfSet& set, const std::vector<int>& lines,
                            const std::vector<std::complex<double>>& poles) {
  const int n_lines = static_cast<int>(lines.size()), n_poles = static_cast<int>(poles.size());
  const int d = DerivativeOrder(set.format);
  Eigen::MatrixXcd basis(n_lines, 2 * n_poles + kResidualTerms);
  const std::complex<double> i(0.0, 1.0);
  for (int r = 0; r < n_lines; ++r) {
    const double omega = 2.0 * std::numbers::pi * set.frequency_hz[lines[r]];
    const std::complex<double> s = i * omega, factor = std::pow(s, d);
    for (int p = 0; p < n_poles; ++p) {
      const std::complex<double> a = 1.0 / (s - poles[p]), b = 1.0 / (s - std::conj(poles[p]));
      basis(r, 2 * p) = factor * (a + b);
      basis(r, 2 * p + 1) = factor * i * (a - b);
    }
    basis(r, 2 * n_poles) = factor / (s * s);
    basis(r, 2 * n_poles + 1) = factor;
    basis(r, 2 * n_poles + 2) = factor * s;
    basis(r, 2 * n_poles + 3) = factor * s * s;
  }
  return basis;
}

EntryLeastSquares SolveEntry(const Eigen::MatrixXd& stacked_basis, const FrfSet& set,
                             const std::vector<int>& lines, int entry,
                             const std::vector<double>& weights) {
  const int n = static_cast<int>(lines.size()), u = static_cast<int>(stacked_basis.cols());
  EntryLeastSquares out;
  out.weights = Eigen::VectorXd::Ones(2 * n);
  Eigen::VectorXd b(2 * n);
  for (int r = 0; r < n; ++r) {
    if (!weights.empty()) out.weights(r) = out.weights(n + r) = weights[r * 9 + entry];
    b(r) = out.weights(r) * set.H[lines[r] * 9 + entry].real();
    b(n + r) = out.weights(r) * set.H[lines[r] * 9 + entry].imag();
  }
  // Columns scaled to unit norm: the basis spans many decades between the residual terms and
  // the resonant ones.
  Eigen::MatrixXd A = out.weights.asDiagonal() * stacked_basis;
  Eigen::VectorXd scale = A.colwise().norm().transpose();
  for (int c = 0; c < u; ++c) scale(c) = scale(c) > 0.0 ? 1.0 / scale(c) : 1.0;
  A = A * scale.asDiagonal();
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
  const Eigen::VectorXd x_scaled = qr.solve(b);
  out.x = scale.asDiagonal() * x_scaled;
  out.residual = b - A * x_scaled;
  out.q = qr.householderQ() * Eigen::MatrixXd::Identity(2 * n, qr.rank());
  return out;
}

Eigen::MatrixXd Stacked(const Eigen::MatrixXcd& basis) {
  Eigen::MatrixXd A(2 * basis.rows(), basis.cols());
  A << basis.real(), basis.imag();
  return A;
}

LsfdFit FitResidues(const FrfSet& set, const std::vector<int>& lines,
                    const std::vector<std::complex<double>>& poles,
                    const std::vector<double>& weights) {
  const int n_lines = static_cast<int>(lines.size()), n_poles = static_cast<int>(poles.size());
  const Eigen::MatrixXcd basis = ModalBasis(set, lines, poles);
  const Eigen::MatrixXd stacked = Stacked(basis);
  LsfdFit fit;
  fit.residues.assign(n_poles, {});
  fit.synthesized = set;
  fit.synthesized.frequency_hz.clear();
  fit.synthesized.H.assign(static_cast<size_t>(n_lines) * 9, 0.0);
  fit.synthesized.provenance = {{"synthesized_by", "frfit ema (LSFD modal model)"}};
  for (int r = 0; r < n_lines; ++r)
    fit.synthesized.frequency_hz.push_back(set.frequency_hz[lines[r]]);
  for (int e = 0; e < 9; ++e) {
    if (!set.present[e]) continue;
    const Eigen::VectorXd x = SolveEntry(stacked, set, lines, e, weights).x;
    for (int p = 0; p < n_poles; ++p) fit.residues[p][e] = {x(2 * p), x(2 * p + 1)};
    fit.lower_residual[e] = x(2 * n_poles);
    for (int t = 0; t < 3; ++t) fit.upper_residual[e][t] = x(2 * n_poles + 1 + t);
    const Eigen::VectorXcd model = basis * x.cast<std::complex<double>>();
    for (int r = 0; r < n_lines; ++r) fit.synthesized.H[r * 9 + e] = model(r);
  }
  return fit;
}

Eigen::Vector3cd ShapeFromResidues(const std::array<std::complex<double>, 9>& residues,
                                   const std::array<bool, 9>& present) {
  // The symmetric residue matrix from the present entries (a measured pair is averaged).
  Eigen::Matrix3cd S = Eigen::Matrix3cd::Zero();
  bool known[3][3] = {};
  bool observed[3] = {};
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      const bool a = present[EntryIndex(i, j)], b = present[EntryIndex(j, i)];
      if (!a && !b) continue;
      const std::complex<double> v =
          a && b ? 0.5 * (residues[EntryIndex(i, j)] + residues[EntryIndex(j, i)])
                 : residues[a ? EntryIndex(i, j) : EntryIndex(j, i)];
      S(i, j) = S(j, i) = v;
      known[i][j] = known[j][i] = true;
      observed[i] = observed[j] = true;
    }
  const double nan = std::nan("");
  Eigen::Vector3cd phi = Eigen::Vector3cd::Zero();
  // Start: the strongest known diagonal, the others through their cross entry with it (which
  // fixes their sign) or their own diagonal; then Gauss-Newton on all known entries.
  int k = -1;
  for (int i = 0; i < 3; ++i)
    if (known[i][i] && (k < 0 || std::abs(S(i, i)) > std::abs(S(k, k)))) k = i;
  if (k >= 0) {
    phi(k) = std::sqrt(S(k, k));
    for (int i = 0; i < 3; ++i) {
      if (i == k || !observed[i]) continue;
      if (known[i][k] && std::abs(phi(k)) > 0.0)
        phi(i) = S(i, k) / phi(k);
      else if (known[i][i])
        phi(i) = std::sqrt(S(i, i));
    }
    // A component started from its own diagonal takes its sign from a cross entry with the
    // third axis where there is one (Gauss-Newton would not flip it).
    for (int i = 0; i < 3; ++i) {
      if (i == k || known[i][k] || !known[i][i]) continue;
      for (int j = 0; j < 3; ++j)
        if (j != i && j != k && known[i][j] &&
            std::real(std::conj(S(i, j)) * phi(i) * phi(j)) < 0.0)
          phi(i) = -phi(i);
    }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      if (known[i][j] && phi(i) == 0.0 && phi(j) == 0.0) phi(i) = phi(j) = std::sqrt(S(i, j));
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j)
      if (known[i][j]) pairs.push_back({i, j});
  for (int iteration = 0; iteration < 20 && !pairs.empty(); ++iteration) {
    // φ_iφ_j is holomorphic in φ: complex Gauss-Newton, ∂(φ_iφ_j)/∂φ_l = δ_il φ_j + δ_jl φ_i.
    Eigen::MatrixXcd J = Eigen::MatrixXcd::Zero(pairs.size(), 3);
    Eigen::VectorXcd residual(pairs.size());
    for (size_t r = 0; r < pairs.size(); ++r) {
      const auto [i, j] = pairs[r];
      residual(r) = S(i, j) - phi(i) * phi(j);
      J(r, i) += phi(j);
      J(r, j) += phi(i);
    }
    const Eigen::VectorXcd step = J.completeOrthogonalDecomposition().solve(residual);
    phi += step;
    if (step.norm() <= 1e-14 * phi.norm()) break;
  }
  Eigen::Index largest = 0;
  phi.cwiseAbs().maxCoeff(&largest);
  if (std::abs(phi(largest)) > 0.0) phi /= phi(largest);
  for (int i = 0; i < 3; ++i)
    if (!observed[i]) phi(i) = {nan, nan};
  return phi;
}

namespace {

// One half step of the alternating least squares for R ≈ u vᵀ over the known entries: each
// component of `out` from its known entries against `other` (rows of R when by_row, else columns);
// a component whose known entries meet only zeros of `other` is left as it was.
void LeastSquaresFactor(const Eigen::Matrix3cd& R, const bool (&known)[3][3], bool by_row,
                        const Eigen::Vector3cd& other, Eigen::Vector3cd* out) {
  for (int i = 0; i < 3; ++i) {
    std::complex<double> numerator = 0.0;
    double denominator = 0.0;
    for (int j = 0; j < 3; ++j) {
      if (!(by_row ? known[i][j] : known[j][i])) continue;
      numerator += (by_row ? R(i, j) : R(j, i)) * std::conj(other(j));
      denominator += std::norm(other(j));
    }
    if (denominator > 0.0) (*out)(i) = numerator / denominator;
  }
}

}  // namespace

Eigen::Vector3cd ResponseShapeFromResidues(const std::array<std::complex<double>, 9>& residues,
                                           const std::array<bool, 9>& present) {
  Eigen::Matrix3cd R = Eigen::Matrix3cd::Zero();
  bool known[3][3] = {};
  int column = -1;  // the excitation axis with the largest residues starts the fit
  double largest = -1.0;
  for (int j = 0; j < 3; ++j) {
    double sum = -1.0;
    for (int i = 0; i < 3; ++i)
      if ((known[i][j] = present[EntryIndex(i, j)])) {
        R(i, j) = residues[EntryIndex(i, j)];
        sum = std::max(sum, 0.0) + std::norm(R(i, j));
      }
    if (sum > largest) largest = sum, column = j;
  }
  Eigen::Vector3cd u = Eigen::Vector3cd::Zero(), v = Eigen::Vector3cd::Zero();
  if (column >= 0) v(column) = 1.0;
  // With every entry known this is the power iteration of R Rᴴ: u and v become the leading
  // singular pair, at a rate (σ₂/σ₁)² per step — a few steps for a mode's residues.
  for (int iteration = 0; iteration < 200 && column >= 0; ++iteration) {
    const Eigen::Vector3cd before = u;
    LeastSquaresFactor(R, known, true, v, &u);
    LeastSquaresFactor(R, known, false, u, &v);
    if (iteration > 0 && (u - before).norm() <= 1e-14 * u.norm()) break;
  }
  Eigen::Index at = 0;
  u.cwiseAbs().maxCoeff(&at);
  if (std::abs(u(at)) > 0.0) u /= u(at);
  // A response axis is unknown without a present entry in a column the fit reached (e.g. a
  // transfer set of xx and yy alone: their relative scale is not in the data).
  for (int i = 0; i < 3; ++i) {
    bool reached = false;
    for (int j = 0; j < 3; ++j) reached = reached || (known[i][j] && v(j) != 0.0);
    if (!reached) u(i) = {std::nan(""), std::nan("")};
  }
  return u;
}

}  // namespace frfit
