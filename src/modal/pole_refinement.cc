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

double ModalModelCost(const FrfSet& set, const std::vector<int>& lines,
                      const std::vector<std::complex<double>>& poles) {
  return Project(set, lines, poles, RelativeWeights(set, lines), nullptr, nullptr);
}

PoleRefinement RefinePoles(const FrfSet& set, const std::vector<int>& lines,
                           const std::vector<std::complex<double>>& poles, int max_iterations) {
  PoleRefinement out;
  out.poles = poles;
  if (poles.empty()) return out;
  const std::vector<double> weights = RelativeWeights(set, lines);
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
  return out;
}

}  // namespace frfit
