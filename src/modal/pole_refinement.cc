#include "frfit/modal/pole_refinement.h"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "frfit/frf/frf_format.h"
#include "frfit/modal/lsfd.h"

namespace frfit {
namespace {

// The weighted cost of the best residues for `poles` and, when J is given, Kaufman's Jacobian of
// the projected residual with respect to (Re λ_p, Im λ_p) and that residual.
double Project(const FrfSet& set, const std::vector<int>& lines,
               const std::vector<std::complex<double>>& poles, const std::vector<double>& weights,
               Eigen::MatrixXd* J, Eigen::VectorXd* residual) {
  const int n = static_cast<int>(lines.size()), np = static_cast<int>(poles.size());
  const Eigen::MatrixXd A = Stacked(ModalBasis(set, lines, poles));
  // ∂(column)/∂(Re λ, Im λ) of each pole's two columns, per line.
  Eigen::MatrixXcd d_col(n, 4 * np);
  if (J) {
    const std::complex<double> i(0.0, 1.0);
    const int order = DerivativeOrder(set.format);
    for (int r = 0; r < n; ++r) {
      const std::complex<double> s = i * (2.0 * std::numbers::pi * set.frequency_hz[lines[r]]);
      const std::complex<double> f = std::pow(s, order);
      for (int p = 0; p < np; ++p) {
        const std::complex<double> a = 1.0 / (s - poles[p]), b = 1.0 / (s - std::conj(poles[p]));
        const std::complex<double> sum = f * (a * a + b * b), diff = f * i * (a * a - b * b);
        d_col(r, 4 * p + 0) = sum;   // column 2p by Re λ
        d_col(r, 4 * p + 1) = diff;  // column 2p by Im λ
        d_col(r, 4 * p + 2) = diff;  // column 2p+1 by Re λ
        d_col(r, 4 * p + 3) = -sum;  // column 2p+1 by Im λ
      }
    }
  }
  int present = 0;
  for (bool p : set.present) present += p;
  if (J) J->setZero(2 * n * present, 2 * np), residual->resize(2 * n * present);
  double cost = 0.0;
  int block = 0;
  for (int e = 0; e < 9; ++e) {
    if (!set.present[e]) continue;
    const EntryLeastSquares fit = SolveEntry(A, set, lines, e, weights);
    cost += fit.residual.squaredNorm();
    if (!J) continue;
    const Eigen::VectorXd& x = fit.x;
    const Eigen::VectorXd& w = fit.weights;
    const Eigen::MatrixXd& Q = fit.q;
    residual->segment(block * 2 * n, 2 * n) = fit.residual;
    for (int p = 0; p < np; ++p)
      for (int t = 0; t < 2; ++t) {
        const Eigen::VectorXcd v =
            d_col.col(4 * p + t) * x(2 * p) + d_col.col(4 * p + 2 + t) * x(2 * p + 1);
        Eigen::VectorXd stacked(2 * n);
        stacked << v.real(), v.imag();
        stacked = w.asDiagonal() * stacked;
        J->block(block * 2 * n, 2 * p + t, 2 * n, 1) = -(stacked - Q * (Q.transpose() * stacked));
      }
    ++block;
  }
  return cost;
}

// s²(JᵀJ)⁻¹ with s² the weighted residual's variance over its degrees of freedom: the residual
// values, less the poles' 2P unknowns and the residues' (the basis columns, per present entry).
std::vector<double> PoleCovariance(const FrfSet& set, const std::vector<int>& lines,
                                   const std::vector<std::complex<double>>& poles,
                                   const Eigen::MatrixXd& J, const Eigen::VectorXd& residual,
                                   double cost, bool noise_weighted) {
  int present = 0;
  for (bool p : set.present) present += p;
  const Eigen::Index columns = Stacked(ModalBasis(set, lines, poles)).cols();
  const Eigen::Index dof = residual.size() - J.cols() - columns * present;
  if (dof <= 0 || J.cols() == 0) return {};
  const Eigen::MatrixXd information = J.transpose() * J;
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(information);
  if (ldlt.info() != Eigen::Success) return {};
  const Eigen::MatrixXd inverse = ldlt.solve(Eigen::MatrixXd::Identity(J.cols(), J.cols()));
  if (noise_weighted) {
    // Weighted by 1/σ of complex noise: each real and imaginary residual has variance 1/2 when the
    // model explains the data; a larger residual (reduced χ² above 1) widens the covariance.
    const double reduced_chi2 = 2.0 * cost / static_cast<double>(dof);
    const Eigen::MatrixXd covariance = 0.5 * std::max(1.0, reduced_chi2) * inverse;
    return std::vector<double>(covariance.data(), covariance.data() + covariance.size());
  }
  // The sandwich (JᵀJ)⁻¹ Jᵀ diag(r²) J (JᵀJ)⁻¹, scaled to the degrees of freedom: the relative
  // weights leave the residual far from uniform (the noise floor dominates where |H| is small), and
  // one s² for every line would take the floor's scatter for the resonances'.
  const Eigen::MatrixXd meat = J.transpose() * residual.array().square().matrix().asDiagonal() * J;
  const double scale = static_cast<double>(residual.size()) / static_cast<double>(dof);
  const Eigen::MatrixXd covariance = scale * inverse * meat * inverse;
  std::vector<double> out(covariance.size());
  for (Eigen::Index r = 0; r < covariance.rows(); ++r)
    for (Eigen::Index c = 0; c < covariance.cols(); ++c) out[r * covariance.cols() + c] = covariance(r, c);
  return out;
}

}  // namespace

std::vector<double> RelativeWeights(const FrfSet& set, const std::vector<int>& lines) {
  const int n = static_cast<int>(lines.size());
  std::vector<double> w(static_cast<size_t>(n) * 9, 0.0);
  for (int e = 0; e < 9; ++e) {
    if (!set.present[e]) continue;
    double sum = 0.0;
    for (int k : lines) sum += std::norm(set.H[k * 9 + e]);
    const double floor = 1e-3 * std::sqrt(sum / std::max(n, 1));
    for (int r = 0; r < n; ++r) {
      const double magnitude = std::max(std::abs(set.H[lines[r] * 9 + e]), floor);
      w[r * 9 + e] = magnitude > 0.0 ? 1.0 / magnitude : 0.0;
    }
  }
  return w;
}

double WeightedResponse(const FrfSet& set, const std::vector<int>& lines) {
  const std::vector<double> w = RelativeWeights(set, lines);
  double sum = 0.0;
  for (size_t r = 0; r < lines.size(); ++r)
    for (int e = 0; e < 9; ++e)
      if (set.present[e]) sum += std::norm(w[r * 9 + e] * set.H[lines[r] * 9 + e]);
  return sum;
}

double ModalModelCost(const FrfSet& set, const std::vector<int>& lines,
                      const std::vector<std::complex<double>>& poles) {
  return Project(set, lines, poles, RelativeWeights(set, lines), nullptr, nullptr);
}

// Levenberg-Marquardt on the poles with fixed `weights`.
static PoleRefinement Refine(const FrfSet& set, const std::vector<int>& lines,
                             const std::vector<std::complex<double>>& poles,
                             const std::vector<double>& weights, bool noise_weighted,
                             int max_iterations) {
  PoleRefinement out;
  out.poles = poles;
  if (poles.empty()) return out;
  Eigen::MatrixXd J;
  Eigen::VectorXd residual;
  double cost = Project(set, lines, out.poles, weights, &J, &residual);
  out.initial_cost = cost;
  double mu = -1.0;
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    const Eigen::MatrixXd H = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * residual;
    if (mu < 0.0) mu = 1e-3;
    bool accepted = false;
    while (!accepted && mu < 1e12) {
      // Marquardt's scaling: the step is invariant to the units of Re λ and Im λ.
      Eigen::MatrixXd damped = H;
      for (int j = 0; j < H.rows(); ++j) damped(j, j) += mu * std::max(H(j, j), 1e-300);
      const Eigen::VectorXd step = damped.ldlt().solve(-g);
      std::vector<std::complex<double>> trial = out.poles;
      bool valid = step.allFinite();
      for (size_t p = 0; p < trial.size() && valid; ++p) {
        trial[p] += std::complex<double>(step(2 * p), step(2 * p + 1));
        valid = trial[p].real() < 0.0 && trial[p].imag() > 0.0;
      }
      const double trial_cost =
          valid ? Project(set, lines, trial, weights, nullptr, nullptr) : INFINITY;
      if (trial_cost < cost) {
        const double gain = cost - trial_cost;
        out.poles = trial;
        cost = Project(set, lines, out.poles, weights, &J, &residual);
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
  out.covariance = PoleCovariance(set, lines, out.poles, J, residual, cost, noise_weighted);
  return out;
}


PoleRefinement RefinePoles(const FrfSet& set, const std::vector<int>& lines,
                           const std::vector<std::complex<double>>& poles, int max_iterations) {
  const PoleRefinement first =
      Refine(set, lines, poles, RelativeWeights(set, lines), false, max_iterations);
  if (first.poles.empty() || set.noise_variance.size() != set.H.size()) return first;
  // With a noise model, a second fit weighs each line by 1/σ of its noise: the maximum-likelihood
  // estimate, whose covariance is the one the 1σ reports. (1/|H_measured| weights lean towards the
  // noise — largest where it happened to lower |H| — and bias a resonance's damping by about 1σ
  // at 3 % noise.)
  std::vector<double> noise_weights(lines.size() * 9, 0.0);
  for (size_t r = 0; r < lines.size(); ++r)
    for (int e = 0; e < 9; ++e) {
      const double variance = set.noise_variance[lines[r] * 9 + e];
      if (set.present[e] && variance > 0.0) noise_weights[r * 9 + e] = 1.0 / std::sqrt(variance);
    }
  PoleRefinement second = Refine(set, lines, first.poles, noise_weights, true, max_iterations);
  second.initial_cost = first.initial_cost;
  second.iterations += first.iterations;
  return second;
}

}  // namespace frfit
