// A linear-in-parameters least-squares problem on the paper's 3-joint model, shared by the tests
// that check a fit against its closed form (prior_test.cc, constraints_test.cc):
// y = X θ/θ₀ + e with 1σ noise `sigma` on each of m residuals, θ the three joint stiffnesses
// (log-scaled in the fit's u). Columns 1 and 2 differ only by `difference`·cos(3t): the data see
// the stiffnesses' sum well and their difference hardly. Each test forms its own Jacobian; the
// normal-equation terms it hands the fit are packed here.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/line_normal.h"

namespace frfit::test {

inline const std::string kPaperModel =
    std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/model.yaml";

struct LinearStiffnessData {
  static constexpr int m = 12;
  static constexpr double theta0 = 1e6, sigma = 0.05;
  Eigen::MatrixXd x{m, 3};
  Eigen::VectorXd y{m};
  explicit LinearStiffnessData(double difference) {
    const Eigen::Vector3d truth(1.2, 0.8, 2.0);
    for (int i = 0; i < m; ++i) {
      const double t = 0.3 * i;
      x(i, 0) = 1.0 + std::sin(t);
      x(i, 1) = 1.0 + std::sin(t) + difference * std::cos(3 * t);
      x(i, 2) = 0.5 + 0.1 * i;
      y(i) = x.row(i).dot(truth) + sigma * std::sin(7.1 * i + 0.4);  // a fixed "noise" draw
    }
  }
};

// The fit's normal-equation terms (kernels/line_normal.h) of residuals r with Jacobian jac in u:
// F = Σ w r² with w = 1/(2σ²), g = JᵀWr, A = JᵀWJ.
inline std::vector<double> NormalTerms(const Eigen::VectorXd& r, const Eigen::MatrixXd& jac,
                                       double sigma) {
  const int n = static_cast<int>(jac.cols());
  const double w = 1.0 / (2 * sigma * sigma);
  std::vector<double> terms(kernels::NormalTermCount(n));
  terms[0] = w * r.squaredNorm();
  for (int j = 0; j < n; ++j) {
    terms[1 + j] = w * jac.col(j).dot(r);
    for (int k = j; k < n; ++k)
      terms[kernels::NormalTermIndex(n, j, k)] = w * jac.col(j).dot(jac.col(k));
  }
  return terms;
}

}  // namespace frfit::test
