// A closed loop in the limit of a stiff bushing: the Delta (datasets/delta) cut open at its twelve
// bars — the tree alone, nine coordinates (the arms' rotations and the platform's six) — with each
// bar replaced by a spring of stiffness k_b on its length, ½ k_b Σ Φ_k², and brought to its static
// equilibrium under gravity by this file's Newton, has three low modes that tend to the closed
// chain's (the embedding of posture/closure.h) as k_b grows, the difference falling like 1/k_b.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>
#include <vector>

#include "frfit/model/model_yaml.h"
#include "frfit/posture/closure.h"
#include "frfit/posture/kinematics.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

const std::string kDelta = std::string(FRFIT_SOURCE_DIR) + "/datasets/delta/";
constexpr double kPi = 3.14159265358979323846;

// Gradient of the gravity potential of `open`'s bodies with respect to its DOFs at q.
Eigen::VectorXd GravityGradient(const Model& open, const std::vector<double>& q) {
  const std::vector<TransformJet> jets = FrameJets(open, q, false);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(open.num_dofs());
  for (const Body& body : open.bodies) {
    const TransformJet jet = Offset(jets[body.frame], body.com_m);
    for (int k = 0; k < open.num_dofs(); ++k)
      g(k) -= body.mass_kg * open.gravity_m_s2.dot(jet.d[k].block<3, 1>(0, 3));
  }
  return g;
}

// The lowest three frequencies of the cut-open Delta closed by bushings of stiffness kb.
Eigen::Vector3d BushingFrequencies(const Model& model, const std::vector<double>& q_closed,
                                   const std::vector<double>& k, double kb) {
  const Embedding embedding = EmbeddingAt(model, q_closed, "test");
  Model open = embedding.tree.model;
  const Closure loops = open.closure;
  open.closure = Closure{};  // cut open: a tree
  Model with_loops = open;
  with_loops.closure = loops;
  std::vector<double> q = embedding.q;
  const int n = 3, N = open.num_dofs();
  // Static equilibrium of the platform's six coordinates (the arms held at a = 0).
  Eigen::MatrixXd H;
  for (int it = 0; it < 30; ++it) {
    const LoopEquations eq = EvaluateLoops(with_loops, FrameJets(with_loops, q, true), true);
    const Posture tree = Linearize(open, q, "open");
    H = tree.gravity_stiffness + kb * eq.jacobian.transpose() * eq.jacobian;
    for (int r = 0; r < eq.value.size(); ++r) H += kb * eq.value(r) * eq.hessian[r];
    const Eigen::VectorXd gradient =
        GravityGradient(open, q) + kb * eq.jacobian.transpose() * eq.value;
    const Eigen::VectorXd step =
        H.bottomRightCorner(N - n, N - n).ldlt().solve(-gradient.tail(N - n));
    for (int w = 0; w < N - n; ++w) q[n + w] += step(w);
    if (step.norm() < 1e-15) break;
  }
  Eigen::MatrixXd K = H;
  for (int j = 0; j < n; ++j) K(j, j) += k[j];
  const Eigen::MatrixXd M = Linearize(open, q, "open").mass;
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(K, M);
  return eig.eigenvalues().head(3).cwiseSqrt() / (2.0 * kPi);
}

TEST(ClosedLoop, EqualsTheStiffBushingLimit) {
  const Model model = LoadModel(kDelta + "model.yaml");
  const std::vector<double> k = {3.1e4, 2.2e4, 4.7e4};
  for (const char* name : {"C1", "C2"}) {
    const Posture closed = Linearize(model, name);
    Eigen::MatrixXd K = closed.gravity_stiffness;
    for (int j = 0; j < 3; ++j) K(j, j) += k[j];
    Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(K, closed.mass);
    const Eigen::Vector3d f = eig.eigenvalues().cwiseSqrt() / (2.0 * kPi);
    std::vector<double> error;
    for (double kb : {1e9, 1e12}) {
      const Eigen::Vector3d fb = BushingFrequencies(model, model.posture(name).q, k, kb);
      error.push_back((fb.cwiseQuotient(f) - Eigen::Vector3d::Ones()).cwiseAbs().maxCoeff());
    }
    EXPECT_LT(error[1], 1e-6) << name;
    EXPECT_LT(error[1], error[0] / 300.0) << name << ": " << error[0] << " then " << error[1];
  }
}

}  // namespace
}  // namespace frfit
