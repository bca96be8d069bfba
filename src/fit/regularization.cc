// The regularisation weight's curve and its choice (evidence or GCV) on a linearised cost (fit/regularization.h).
// The fit loop that linearises and refits is FitRegularized in src/results/fit_call.cc.
#include "frfit/fit/regularization.h"

#include <Eigen/Dense>
#include <cmath>
#include <limits>

#include "frfit/common/error.h"

namespace frfit {
namespace {

struct Dense {
  Eigen::MatrixXd a;
  Eigen::VectorXd g, x, mask;
};

Dense ToDense(const LinearizedCost& c) {
  const Eigen::Index p = static_cast<Eigen::Index>(c.x.size());
  if (c.a.size() != static_cast<size_t>(p * p) || c.g.size() != c.x.size() ||
      c.mask.size() != c.x.size() || p == 0)
    throw Error("", "regularization", "expected a p×p matrix and three p-vectors, p > 0");
  Dense d;
  d.a = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      c.a.data(), p, p);
  d.g = Eigen::Map<const Eigen::VectorXd>(c.g.data(), p);
  d.x = Eigen::Map<const Eigen::VectorXd>(c.x.data(), p);
  d.mask = Eigen::Map<const Eigen::VectorXd>(c.mask.data(), p);
  return d;
}

// E(λ) (fit/regularization.h) from the curve's F(λ) and x(λ). The data's Hessian of F is 2A and
// the penalty's λL: 2A + λL is the posterior precision, its log det the Laplace (here exact)
// volume term, and −r log λ the prior's normalisation. Eigenvalues are taken so that directions
// no term sees (an unregularised parameter the data do not see) drop out as a constant in λ
// instead of making the determinant 0.
double Evidence(const Dense& d, double cost, const Eigen::VectorXd& x, double weight) {
  const Eigen::MatrixXd precision = 2.0 * d.a + weight * Eigen::MatrixXd(d.mask.asDiagonal());
  const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(
                                  precision, Eigen::EigenvaluesOnly).eigenvalues();
  const double floor = 1e-14 * std::max(eig.maxCoeff(), 0.0);
  double log_det = 0.0;
  for (double e : eig)
    if (e > floor) log_det += std::log(e);
  const double penalty = weight * d.mask.cwiseProduct(x).squaredNorm();
  return 2.0 * cost + penalty + log_det - d.mask.sum() * std::log(weight);
}

WeightCurvePoint Evaluate(const Dense& d, const LinearizedCost& c, double weight) {
  const double mu = 0.5 * weight;  // the penalty ½λ‖Lx‖² against the data's ‖ρ‖²
  const Eigen::MatrixXd m = d.a + mu * Eigen::MatrixXd(d.mask.asDiagonal());
  // Complete orthogonal decomposition: A + μL may be singular where unregularised parameters are
  // not seen by the data; its minimum-norm solution is then the one taken.
  const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> solve(m);
  const Eigen::VectorXd x = solve.solve(d.a * d.x - d.g);
  const Eigen::VectorXd dx = x - d.x;
  WeightCurvePoint point;
  point.weight = weight;
  const double cost = std::max(0.0, c.cost + 2.0 * d.g.dot(dx) + dx.dot(d.a * dx));
  point.residual_norm = std::sqrt(cost);
  point.regularization_norm = d.mask.cwiseProduct(x).norm();
  const double n = c.residuals, trace = solve.solve(d.a).trace();
  point.gcv = n > trace ? n * cost / ((n - trace) * (n - trace))
                        : std::numeric_limits<double>::infinity();
  point.evidence = Evidence(d, cost, x, weight);
  return point;
}

double Value(const WeightCurvePoint& p, WeightRule rule) {
  return rule == WeightRule::kGcv ? p.gcv : p.evidence;
}

}  // namespace

WeightCurvePoint EvaluateWeight(const LinearizedCost& cost, double weight) {
  return Evaluate(ToDense(cost), cost, weight);
}

WeightCurve ScanWeights(const LinearizedCost& cost, WeightRule rule) {
  const Dense d = ToDense(cost);
  const Eigen::MatrixXd lal = d.mask.asDiagonal() * d.a * d.mask.asDiagonal();
  const double largest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(lal).eigenvalues().maxCoeff();
  if (!(largest > 0.0) || !std::isfinite(largest))
    throw Error("", "regularization", "expected data that see the regularised parameters");
  const double top = std::log10(20.0 * largest);
  WeightCurve curve;
  curve.rule = rule;
  const int count = kWeightsPerDecade * kWeightDecades + 1;
  for (int i = 0; i < count; ++i) {
    const double weight =
        std::pow(10.0, top - kWeightDecades + static_cast<double>(i) / kWeightsPerDecade);
    curve.points.push_back(Evaluate(d, cost, weight));
    if (curve.chosen < 0 || Value(curve.points.back(), rule) < Value(curve.points[curve.chosen], rule))
      curve.chosen = i;
  }
  return curve;
}

}  // namespace frfit
