#include "src/campaign/campaign_modal_model.h"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "frfit/frf/frf_set.h"
#include "frfit/modal/lsfd.h"

namespace frfit::campaign {
namespace {

// The weighted least squares of every FRF against one basis, and what the Jacobian needs.
struct Projection {
  Eigen::MatrixXd X;      // [unknowns][F], unscaled
  Eigen::MatrixXd res;    // [2L][F], line-weighted residuals (without the FRF weight)
  Eigen::MatrixXd q;      // [2L][rank], orthonormal basis of the weighted columns
  Eigen::MatrixXd normal_inverse;  // (AᵀA)⁻¹ of the weighted, unscaled basis (FitResidues)
  double cost = 0.0;
};

Eigen::MatrixXcd Basis(const FrfBlock& b, const std::vector<std::complex<double>>& poles) {
  FrfSet axis;  // ModalBasis reads the axis and the format only
  axis.frequency_hz = b.frequency_hz;
  axis.format = b.format;
  return ModalBasis(axis, b.lines, poles);
}

Projection Project(const FrfBlock& b, const std::vector<std::complex<double>>& poles,
                   bool keep_q, bool keep_inverse) {
  const Eigen::Index n = static_cast<Eigen::Index>(b.lines.size());
  const Eigen::Index frfs = static_cast<Eigen::Index>(b.frf.size());
  const Eigen::MatrixXd stacked = Stacked(Basis(b, poles));
  Eigen::VectorXd w(2 * n);
  for (Eigen::Index k = 0; k < n; ++k) w(k) = w(n + k) = b.line_weight[k];
  Eigen::MatrixXd A = w.asDiagonal() * stacked;
  // Columns scaled to unit norm: the basis spans decades between residual and resonant terms.
  Eigen::VectorXd scale = A.colwise().norm().transpose();
  for (Eigen::Index c = 0; c < scale.size(); ++c) scale(c) = scale(c) > 0.0 ? 1.0 / scale(c) : 1.0;
  A = A * scale.asDiagonal();
  Eigen::MatrixXd B(2 * n, frfs);
  for (Eigen::Index r = 0; r < frfs; ++r)
    for (Eigen::Index k = 0; k < n; ++k) {
      const std::complex<double> h = b.frf[r][b.lines[k]];
      B(k, r) = w(k) * h.real();
      B(n + k, r) = w(k) * h.imag();
    }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
  Projection out;
  const Eigen::MatrixXd x_scaled = qr.solve(B);
  out.res = B - A * x_scaled;
  out.X = scale.asDiagonal() * x_scaled;
  for (Eigen::Index r = 0; r < frfs; ++r)
    out.cost += b.frf_weight[r] * b.frf_weight[r] * out.res.col(r).squaredNorm();
  if (keep_q) out.q = qr.householderQ() * Eigen::MatrixXd::Identity(2 * n, qr.rank());
  if (keep_inverse) {
    const Eigen::MatrixXd normal = A.transpose() * A;
    out.normal_inverse = scale.asDiagonal() *
                         normal.ldlt().solve(Eigen::MatrixXd::Identity(A.cols(), A.cols())) *
                         scale.asDiagonal();
  }
  return out;
}

// ∂(weighted stacked column)/∂(Re λ, Im λ), projected off the basis: [2L][4P], column 4p + 2i + t
// for the pole's column 2p + i by parameter t (0 Re, 1 Im) (pole_refinement.cc's derivatives).
Eigen::MatrixXd ProjectedDerivatives(const FrfBlock& b,
                                     const std::vector<std::complex<double>>& poles,
                                     const Eigen::MatrixXd& q) {
  const Eigen::Index n = static_cast<Eigen::Index>(b.lines.size());
  const int np = static_cast<int>(poles.size()), order = DerivativeOrder(b.format);
  const std::complex<double> i(0.0, 1.0);
  Eigen::MatrixXd G(2 * n, 4 * np);
  for (Eigen::Index r = 0; r < n; ++r) {
    const std::complex<double> s = i * (2.0 * std::numbers::pi * b.frequency_hz[b.lines[r]]);
    const std::complex<double> f = std::pow(s, order);
    const double w = b.line_weight[r];
    for (int p = 0; p < np; ++p) {
      const std::complex<double> a = 1.0 / (s - poles[p]), c = 1.0 / (s - std::conj(poles[p]));
      const std::complex<double> sum = f * (a * a + c * c), diff = f * i * (a * a - c * c);
      const std::complex<double> d[4] = {sum, diff, diff, -sum};
      for (int t = 0; t < 4; ++t) {
        G(r, 4 * p + t) = w * d[t].real();
        G(n + r, 4 * p + t) = w * d[t].imag();
      }
    }
  }
  return G - q * (q.transpose() * G);
}

// JᵀJ and Jᵀr of the projected residual over all FRFs, from GᵀG and GᵀR alone.
void NormalEquations(const FrfBlock& b, const Projection& pr, const Eigen::MatrixXd& G,
                     Eigen::MatrixXd* JtJ, Eigen::VectorXd* Jtr) {
  const Eigen::Index np2 = G.cols() / 2, frfs = pr.X.cols();
  Eigen::VectorXd s2(frfs);
  for (Eigen::Index r = 0; r < frfs; ++r) s2(r) = b.frf_weight[r] * b.frf_weight[r];
  const Eigen::MatrixXd Xp = pr.X.topRows(np2);  // [2P][F]: Re R_p, Im R_p
  const Eigen::MatrixXd C = Xp * s2.asDiagonal() * Xp.transpose();
  const Eigen::MatrixXd gram = G.transpose() * G;
  const Eigen::MatrixXd E = G.transpose() * pr.res;  // [4P][F]
  JtJ->setZero(np2, np2);
  Jtr->setZero(np2);
  for (Eigen::Index p = 0; p < np2 / 2; ++p)
    for (int t = 0; t < 2; ++t) {
      const Eigen::Index a = 2 * p + t;
      for (int i = 0; i < 2; ++i)
        (*Jtr)(a) -= (Xp.row(2 * p + i).array() * E.row(4 * p + 2 * i + t).array() *
                      s2.transpose().array()).sum();
      for (Eigen::Index q = 0; q < np2 / 2; ++q)
        for (int u = 0; u < 2; ++u)
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
              (*JtJ)(a, 2 * q + u) +=
                  C(2 * p + i, 2 * q + j) * gram(4 * p + 2 * i + t, 4 * q + 2 * j + u);
    }
}

// The sandwich (JᵀJ)⁻¹ Jᵀdiag(r²)J (JᵀJ)⁻¹, scaled to the degrees of freedom: as the single-set
// refinement reports, for relative weights that leave the residual far from uniform.
std::vector<double> Covariance(const FrfBlock& b, const Projection& pr, const Eigen::MatrixXd& G,
                               const Eigen::MatrixXd& JtJ) {
  const Eigen::Index np2 = JtJ.rows(), frfs = pr.X.cols(), rows = pr.res.rows();
  const double dof = static_cast<double>(rows * frfs - np2 - pr.X.rows() * frfs);
  if (!(dof > 0.0) || np2 == 0) return {};
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(JtJ);
  if (ldlt.info() != Eigen::Success) return {};
  const Eigen::MatrixXd inverse = ldlt.solve(Eigen::MatrixXd::Identity(np2, np2));
  Eigen::MatrixXd meat = Eigen::MatrixXd::Zero(np2, np2), J(rows, np2);
  for (Eigen::Index r = 0; r < frfs; ++r) {
    const double s2 = b.frf_weight[r] * b.frf_weight[r];
    for (Eigen::Index p = 0; p < np2 / 2; ++p)
      for (int t = 0; t < 2; ++t)
        J.col(2 * p + t) =
            G.col(4 * p + t) * pr.X(2 * p, r) + G.col(4 * p + 2 + t) * pr.X(2 * p + 1, r);
    const Eigen::VectorXd r2 = pr.res.col(r).array().square();
    meat += s2 * s2 * (J.transpose() * r2.asDiagonal() * J);
  }
  const Eigen::MatrixXd cov = static_cast<double>(rows * frfs) / dof * inverse * meat * inverse;
  std::vector<double> out(cov.size());
  for (Eigen::Index r = 0; r < np2; ++r)
    for (Eigen::Index c = 0; c < np2; ++c) out[r * np2 + c] = cov(r, c);
  return out;
}

}  // namespace

void SetWeights(FrfBlock* b) {
  const size_t n = b->lines.size(), frfs = b->frf.size();
  b->frf_weight.assign(frfs, 1.0);
  std::vector<double> mean_square(n, 0.0);
  for (size_t r = 0; r < frfs; ++r) {
    double sum = 0.0;
    for (int k : b->lines) sum += std::norm(b->frf[r][k]);
    const double rms = std::sqrt(sum / std::max<size_t>(n, 1));
    const double quality = b->quality.empty() ? 1.0 : b->quality[r];
    b->frf_weight[r] = rms > 0.0 ? quality / rms : 0.0;
    if (rms > 0.0)
      for (size_t k = 0; k < n; ++k) mean_square[k] += std::norm(b->frf[r][b->lines[k]]) / (rms * rms);
  }
  double mean = 0.0;
  for (double& v : mean_square) v = std::sqrt(v / std::max<size_t>(frfs, 1)), mean += v / n;
  b->line_weight.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const double magnitude = std::max(mean_square[k], 1e-3 * mean);
    b->line_weight[k] = magnitude > 0.0 ? 1.0 / magnitude : 1.0;
  }
}

ResidueFit FitResidues(const FrfBlock& b, const std::vector<std::complex<double>>& poles) {
  const Projection pr = Project(b, poles, false, true);
  const Eigen::Index frfs = pr.X.cols(), np = static_cast<Eigen::Index>(poles.size());
  const double dof = static_cast<double>(pr.res.rows() - pr.X.rows());
  ResidueFit fit;
  fit.cost = pr.cost;
  fit.residues.resize(frfs, np);
  fit.sigma.resize(frfs, np);
  for (Eigen::Index r = 0; r < frfs; ++r) {
    const double variance = dof > 0.0 ? pr.res.col(r).squaredNorm() / dof : NAN;
    for (Eigen::Index p = 0; p < np; ++p) {
      fit.residues(r, p) = {pr.X(2 * p, r), pr.X(2 * p + 1, r)};
      fit.sigma(r, p) = std::sqrt(
          variance * (pr.normal_inverse(2 * p, 2 * p) + pr.normal_inverse(2 * p + 1, 2 * p + 1)));
    }
  }
  return fit;
}

double ModalModelCost(const FrfBlock& b, const std::vector<std::complex<double>>& poles) {
  return Project(b, poles, false, false).cost;
}

double ModalModelCost(const FrfBlock& b, const std::vector<std::complex<double>>& poles,
                      double from_hz, double to_hz) {
  const Projection pr = Project(b, poles, false, false);
  const Eigen::Index n = static_cast<Eigen::Index>(b.lines.size());
  double cost = 0.0;
  for (Eigen::Index k = 0; k < n; ++k) {
    const double f = b.frequency_hz[b.lines[k]];
    if (f < from_hz || f > to_hz) continue;
    for (Eigen::Index r = 0; r < pr.res.cols(); ++r)
      cost += b.frf_weight[r] * b.frf_weight[r] *
              (pr.res(k, r) * pr.res(k, r) + pr.res(n + k, r) * pr.res(n + k, r));
  }
  return cost;
}

double WeightedResponse(const FrfBlock& b) {
  double sum = 0.0;
  for (size_t r = 0; r < b.frf.size(); ++r)
    for (size_t k = 0; k < b.lines.size(); ++k)
      sum += b.frf_weight[r] * b.frf_weight[r] * b.line_weight[k] * b.line_weight[k] *
             std::norm(b.frf[r][b.lines[k]]);
  return sum;
}

PoleRefinement RefinePoles(const FrfBlock& b, const std::vector<std::complex<double>>& poles,
                           int max_iterations) {
  PoleRefinement out;
  out.poles = poles;
  if (poles.empty()) return out;
  Projection pr = Project(b, out.poles, true, false);
  Eigen::MatrixXd G = ProjectedDerivatives(b, out.poles, pr.q), H;
  Eigen::VectorXd g;
  NormalEquations(b, pr, G, &H, &g);
  double cost = out.initial_cost = pr.cost, mu = 1e-3;
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    bool accepted = false;
    while (!accepted && mu < 1e12) {
      // Marquardt's scaling: the step is invariant to the units of Re λ and Im λ.
      Eigen::MatrixXd damped = H;
      for (Eigen::Index j = 0; j < H.rows(); ++j) damped(j, j) += mu * std::max(H(j, j), 1e-300);
      const Eigen::VectorXd step = damped.ldlt().solve(-g);
      std::vector<std::complex<double>> trial = out.poles;
      bool valid = step.allFinite();
      for (size_t p = 0; p < trial.size() && valid; ++p) {
        trial[p] += std::complex<double>(step(2 * p), step(2 * p + 1));
        valid = trial[p].real() < 0.0 && trial[p].imag() > 0.0;
      }
      const double trial_cost = valid ? ModalModelCost(b, trial) : INFINITY;
      if (trial_cost < cost) {
        const double gain = cost - trial_cost;
        out.poles = trial;
        pr = Project(b, out.poles, true, false);
        cost = pr.cost;
        G = ProjectedDerivatives(b, out.poles, pr.q);
        NormalEquations(b, pr, G, &H, &g);
        mu = std::max(mu / 3.0, 1e-12);
        accepted = true;
        out.iterations = iteration + 1;
        if (gain <= 1e-12 * cost) iteration = max_iterations;  // converged
      } else {
        mu *= 4.0;
      }
    }
    if (!accepted) break;
  }
  out.cost = cost;
  out.covariance = Covariance(b, pr, G, H);
  return out;
}

}  // namespace frfit::campaign
