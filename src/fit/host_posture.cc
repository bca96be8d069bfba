#include "frfit/fit/host_posture.h"

#include "frfit/posture/reduction.h"

namespace frfit {

JointCoefficients HostPosture::CoefficientsAt(const Model& model,
                                              std::span<const double> parameters) const {
  JointCoefficients c = Coefficients(model, parameters, full->q);
  if (reduction == nullptr) return c;
  return ReducedCoefficients(c, reduction->joints, posture->n);
}

std::vector<double> HostPosture::CoefficientJacobianAt(const Model& model,
                                                       std::span<const double> parameters) const {
  std::vector<double> jacobian = CoefficientJacobian(model, parameters, full->q);
  if (reduction == nullptr) return jacobian;
  const size_t np = static_cast<size_t>(model.num_parameters());
  const int n = full->n, r = posture->n, joints = reduction->joints;
  const int rows = static_cast<int>(jacobian.size() / np);
  std::vector<double> out;
  out.reserve(static_cast<size_t>(rows - 3 * (n - r)) * np);
  auto append_row = [&](int row) {  // −1: a zero row
    for (size_t j = 0; j < np; ++j) out.push_back(row < 0 ? 0.0 : jacobian[row * np + j]);
  };
  for (int block = 0; block < 3; ++block)  // k, viscous, hysteretic: the joints', then zeros
    for (int i = 0; i < r; ++i) append_row(i < joints ? block * n + i : -1);
  for (int row = 3 * n; row < rows; ++row) append_row(row);  // α, masses, parts as they are
  return out;
}

Eigen::MatrixXd HostPosture::InPosture(const Eigen::MatrixXd& full_basis) const {
  return reduction == nullptr ? full_basis : ReducedPointBasis(*reduction, full_basis);
}

HostPosture HostPostureOf(const ProblemPosture& pp) {
  HostPosture host = FullHostPosture(pp.posture);
  host.points = PointsOf(pp);
  if (pp.reduction == nullptr || pp.assess_on_full) return host;
  host.reduction = pp.reduction.get();
  host.posture = &pp.reduction->posture;
  host.points.excitation_basis = host.InPosture(host.points.excitation_basis);
  host.points.response_basis = host.InPosture(host.points.response_basis);
  return host;
}

HostPosture FullHostPosture(const Posture& posture) {
  HostPosture host;
  host.full = host.posture = &posture;
  return host;
}

}  // namespace frfit
