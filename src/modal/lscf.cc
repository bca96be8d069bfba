#include "frfit/modal/lscf.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "frfit/common/error.h"

namespace frfit {

LscfLayout ChooseLayout(const std::array<bool, 9>& present) {
  LscfLayout layout;
  int count = 0;
  for (bool p : present) count += p;
  // The largest full block of outputs × references (at least two references).
  int best_rows = 0;
  std::vector<int> best_refs;
  for (int mask = 1; mask < 8; ++mask) {
    std::vector<int> refs;
    for (int j = 0; j < 3; ++j)
      if (mask & (1 << j)) refs.push_back(j);
    if (refs.size() < 2) continue;
    int rows = 0;
    for (int i = 0; i < 3; ++i) {
      bool full = true;
      for (int j : refs) full = full && present[EntryIndex(i, j)];
      rows += full;
    }
    if (rows * static_cast<int>(refs.size()) > best_rows * static_cast<int>(best_refs.size()))
      best_rows = rows, best_refs = refs;
  }
  // Poly-reference only when that block is every measured entry: dropping measured FRFs to gain
  // participation vectors would throw information away.
  if (best_rows > 0 && best_rows * static_cast<int>(best_refs.size()) == count) {
    layout.poly_reference = true;
    layout.references = best_refs;
    for (int i = 0; i < 3; ++i) {
      std::vector<int> row;
      for (int j : best_refs)
        if (present[EntryIndex(i, j)]) row.push_back(EntryIndex(i, j));
      if (row.size() == best_refs.size()) layout.rows.push_back(row);
    }
    return layout;
  }
  for (int e = 0; e < 9; ++e)
    if (present[e]) layout.rows.push_back({e});
  return layout;
}

int MaxOrderFor(int lines, const LscfLayout& layout) {
  const long rows = static_cast<long>(layout.rows.size()), m = layout.m();
  if (rows == 0) return 0;
  int order = 0;
  for (long n = 1; n + 1 <= 2L * lines - 2; ++n) {
    const long unknowns = rows * (n + 1) * m + n * m * m;
    if (unknowns >= 2L * lines * m * rows) break;
    order = static_cast<int>(n);
  }
  return order;
}

LscfEstimator::LscfEstimator(const FrfSet& set, const std::vector<int>& lines,
                             const LscfLayout& layout, int max_order)
    : layout_(layout) {
  max_order_ = std::min(max_order, MaxOrderFor(static_cast<int>(lines.size()), layout));
  if (max_order_ < 1) return;
  Accumulate(set.frequency_hz, lines, layout.rows.size(), {},
             [&](size_t r, int j, int k) { return set.H[k * 9 + layout_.rows[r][j]]; });
}

LscfEstimator::LscfEstimator(const std::vector<double>& frequency_hz, const std::vector<int>& lines,
                             const std::vector<std::vector<const std::complex<double>*>>& rows,
                             const std::vector<double>& row_weight, int max_order) {
  const int m = rows.empty() ? 0 : static_cast<int>(rows.front().size());
  layout_.poly_reference = m > 1;
  for (int j = 0; j < m && m > 1; ++j) layout_.references.push_back(j);
  layout_.rows.assign(rows.size(), std::vector<int>(m, 0));
  max_order_ = std::min(max_order, MaxOrderFor(static_cast<int>(lines.size()), layout_));
  if (max_order_ < 1) return;
  Accumulate(frequency_hz, lines, rows.size(), row_weight,
             [&](size_t r, int j, int k) { return rows[r][j][k]; });
}

template <typename Value>
void LscfEstimator::Accumulate(const std::vector<double>& frequency_hz,
                               const std::vector<int>& lines, size_t rows,
                               const std::vector<double>& row_weight, Value value) {
  const int n_lines = static_cast<int>(lines.size());
  double f_max = 0.0;
  for (int k : lines) f_max = std::max(f_max, frequency_hz[k]);
  dt_ = 1.0 / (2.0 * f_max);
  const int n = max_order_, m = layout_.m(), lags = 2 * n + 1;

  // Each row scaled to unit rms: only the relative weight of the rows changes, not the model
  // class (a row scale is absorbed by that row's numerator), and the sums stay near 1.
  std::vector<double> row_scale(rows, 0.0);
  for (size_t r = 0; r < rows; ++r) {
    double sum = 0.0;
    for (int k : lines)
      for (int j = 0; j < m; ++j) sum += std::norm(value(r, j, k));
    row_scale[r] = sum > 0.0 ? 1.0 / std::sqrt(sum / (n_lines * m)) : 1.0;
    if (!row_weight.empty()) row_scale[r] *= row_weight[r];
  }

  c_.assign(lags, 0.0);
  p_.assign(rows, std::vector<Eigen::VectorXcd>(lags, Eigen::VectorXcd::Zero(m)));
  q_.assign(rows, std::vector<Eigen::MatrixXcd>(lags, Eigen::MatrixXcd::Zero(m, m)));
  Eigen::VectorXcd h(m);
  for (int k : lines) {
    const double theta = 2.0 * std::numbers::pi * frequency_hz[k] * dt_;
    for (int d = -n; d <= n; ++d) {
      // e^{−idθ} directly rather than by recurrence: no rounding drift at high lags.
      const std::complex<double> e = std::polar(1.0, -d * theta);
      c_[d + n] += e.real();
      for (size_t r = 0; r < rows; ++r) {
        for (int j = 0; j < m; ++j) h(j) = row_scale[r] * value(r, j, k);
        p_[r][d + n] += e * h;
        q_[r][d + n] += e * (h.conjugate() * h.transpose());
      }
    }
  }
}

std::vector<LscfPole> LscfEstimator::Poles(int order) const {
  std::vector<LscfPole> poles;
  if (order < 1 || order > max_order_) return poles;
  const int n = order, m = layout_.m(), nb = n + 1, na = nb * m, big = max_order_;
  const size_t rows = layout_.rows.size();
  // Re(XᴴX), Re(XᴴY_r), Re(Y_rᴴY_r) of this order, from the lag sums (lag b − a).
  Eigen::MatrixXd R(nb, nb);
  for (int a = 0; a < nb; ++a)
    for (int b = 0; b < nb; ++b) R(a, b) = c_[b - a + big];
  const Eigen::LDLT<Eigen::MatrixXd> r_factor(R);
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(na, na);
  std::vector<Eigen::MatrixXd> r_inv_s(rows);
  for (size_t r = 0; r < rows; ++r) {
    Eigen::MatrixXd S(nb, na), T(na, na);
    for (int a = 0; a < nb; ++a)
      for (int b = 0; b < nb; ++b) {
        const int lag = b - a + big;
        for (int j = 0; j < m; ++j) {
          S(a, b * m + j) = -p_[r][lag](j).real();
          for (int i = 0; i < m; ++i) T(a * m + i, b * m + j) = q_[r][lag](i, j).real();
        }
      }
    r_inv_s[r] = r_factor.solve(S);
    M += T - S.transpose() * r_inv_s[r];
  }
  // α_n = I: the other coefficients solve M_aa α = −M_ab.
  const int nt = n * m;
  Eigen::MatrixXd alpha(na, m);
  alpha.topRows(nt) = M.topLeftCorner(nt, nt).ldlt().solve(-M.topRightCorner(nt, m));
  alpha.bottomRows(m).setIdentity();
  if (!alpha.allFinite()) return poles;

  // Block companion matrix of A(z) = Σ α_a z^a: C u = z u with u = [v; z v; …; z^{n−1} v].
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(nt, nt);
  for (int a = 0; a + 1 < n; ++a) C.block(a * m, (a + 1) * m, m, m).setIdentity();
  for (int a = 0; a < n; ++a) C.block((n - 1) * m, a * m, m, m) = -alpha.block(a * m, 0, m, m);
  const Eigen::EigenSolver<Eigen::MatrixXd> eig(C, false);
  if (eig.info() != Eigen::Success) return poles;

  // Numerator coefficients β_r = −R⁻¹S_r α, for the residue directions.
  std::vector<Eigen::MatrixXd> beta(rows);
  for (size_t r = 0; r < rows; ++r) beta[r] = -r_inv_s[r] * alpha;
  for (int p = 0; p < nt; ++p) {
    const std::complex<double> z = eig.eigenvalues()(p);
    const std::complex<double> s = -std::log(z) / dt_;
    if (!(s.imag() > 0.0) || !std::isfinite(s.real())) continue;
    Eigen::MatrixXcd A = Eigen::MatrixXcd::Zero(m, m);
    std::complex<double> zp = 1.0;
    std::vector<std::complex<double>> powers(nb);
    for (int a = 0; a < nb; ++a, zp *= z) {
      powers[a] = zp;
      A += zp * alpha.block(a * m, 0, m, m).cast<std::complex<double>>();
    }
    Eigen::VectorXcd v = Eigen::VectorXcd::Ones(m), w = Eigen::VectorXcd::Ones(m);
    if (m > 1) {
      const Eigen::JacobiSVD<Eigen::MatrixXcd> svd(A, Eigen::ComputeFullU | Eigen::ComputeFullV);
      v = svd.matrixV().col(m - 1);
      w = svd.matrixU().col(m - 1).conjugate();
    }
    LscfPole pole;
    pole.eigenvalue = s;
    pole.vector.resize(static_cast<Eigen::Index>(rows) * m);
    for (size_t r = 0; r < rows; ++r) {
      std::complex<double> psi = 0.0;
      for (int a = 0; a < nb; ++a)
        psi += powers[a] * (beta[r].row(a).cast<std::complex<double>>() * v)(0);
      for (int j = 0; j < m; ++j) pole.vector(r * m + j) = psi * w(j);
    }
    poles.push_back(std::move(pole));
  }
  return poles;
}

}  // namespace frfit
