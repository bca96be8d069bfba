// The Delta robot of datasets/delta (a closed chain: posture/closure.h) against a computation
// written from the geometry alone (delta_reference.h): the arms' angles from the platform centre in
// closed form (each arm's circle meets the sphere of its parallelogram), the platform from the
// three closure equations by this file's own Newton, and the 3-DOF Lagrangian in the arm
// rotations — the mass matrix from the implicit Jacobian of the platform position, the gravity
// stiffness from numerical second derivatives of the potential on the constraint manifold.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/kinematics.h"
#include "frfit/posture/posture.h"
#include "delta_reference.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kDelta = std::string(FRFIT_SOURCE_DIR) + "/datasets/delta/";
using namespace delta_reference;

Eigen::VectorXd Frequencies(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M) {
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(K, M);
  return eig.eigenvalues().cwiseSqrt() / (2.0 * kPi);
}

const Eigen::Vector3d kC1(0.0, 0.0, -1.1), kC2(0.19, -0.33, -0.9);

TEST(DeltaPosture, PlacesThePlatformAndClosesEveryLoop) {
  const Model model = LoadModel(kDelta + "model.yaml");
  for (const auto& [name, E] : {std::pair{"C1", kC1}, std::pair{"C2", kC2}}) {
    const PostureSpec& p = model.posture(name);
    const std::vector<Mat4> poses = FramePoses(model, p.q);
    const Mat4& platform = poses[model.FindFrame("platform")];
    EXPECT_LT((platform.block<3, 1>(0, 3) - E).norm(), 1e-9) << name;
    // The parallelograms keep the platform's orientation.
    EXPECT_LT((platform.block<3, 3>(0, 0) - Eigen::Matrix3d::Identity()).norm(), 1e-9) << name;
    for (int i = 0; i < 3; ++i) {
      const Mat4& elbow = poses[model.FindFrame("elbow" + std::to_string(i + 1))];
      const Eigen::Vector3d axis = elbow.block<3, 1>(0, 1);
      const Eigen::Vector3d v = Eigen::Vector3d::UnitZ().cross(U(i));
      for (double s : {0.0625, -0.0625}) {
        const Eigen::Vector3d a = elbow.block<3, 1>(0, 3) + s * axis;
        const Eigen::Vector3d b = platform.block<3, 1>(0, 3) + kPlatform * U(i) + s * v;
        EXPECT_NEAR((b - a).norm(), kBar, 1e-12) << name << " arm " << i + 1;
      }
      // The elbow-outward branch: the arm's angle equals the closed form's.
      const double th = p.q[model.FindCoordinate("th" + std::to_string(i + 1))];
      EXPECT_NEAR(th, ArmAngle(i, E), 1e-10) << name << " arm " << i + 1;
      EXPECT_GT(th, 0.0);
    }
    EXPECT_GT(p.singularity_distance, 1e-3) << name;
  }
}

// The Delta's model text with posture C1 moved to `position`.
std::string WithC1At(const std::string& position) {
  std::string text = test::ReadText(kDelta + "model.yaml");
  const std::string c1 = "C1: {position: [0, 0, -1.1]}";
  text.replace(text.find(c1), c1.size(), "C1: {position: " + position + "}");
  return text;
}

TEST(DeltaPosture, OutOfReachOrSingularIsAnErrorNamingThePosture) {
  // 2 m below the base: no arm reaches (0.75 + 0.95 m).
  const std::string far = test::ErrorOf([] { ParseModelText(WithC1At("[0, 0, -2.0]"), "delta.yaml"); });
  EXPECT_NE(far.find("delta.yaml: postures.C1"), std::string::npos) << far;
  EXPECT_NE(far.find("out of reach"), std::string::npos) << far;
  // Every arm horizontal: the bars lie flat (0.30 + 0.75 − 0.10 = 0.95 m) and the platform can
  // move vertically — a singularity of the loops, 1e-6 from where the 1e-12 residual leaves it.
  std::string text = test::ReadText(kDelta + "model.yaml");
  const std::string c1 = "C1: {position: [0, 0, -1.1]}";
  text.replace(text.find(c1), c1.size(), "C1: {th1: 0, th2: 0, th3: 0}");
  const std::string singular = test::ErrorOf([&] { ParseModelText(text, "delta.yaml"); });
  EXPECT_NE(singular.find("delta.yaml: postures.C1"), std::string::npos) << singular;
  EXPECT_NE(singular.find("distance to singularity"), std::string::npos) << singular;
  EXPECT_NE(singular.find("singular"), std::string::npos) << singular;
}

TEST(DeltaModes, EqualTheLagrangianInTheArmAngles) {
  const Model model = LoadModel(kDelta + "model.yaml");
  const std::vector<double> k = {3.1e4, 2.2e4, 4.7e4};
  for (const auto& [name, E] : {std::pair{"C1", kC1}, std::pair{"C2", kC2}}) {
    const Posture posture = Linearize(model, name);
    const Lagrangian ref = Independent(E);
    Eigen::MatrixXd K_ref = ref.K_gravity;
    for (int i = 0; i < 3; ++i) K_ref(i, i) += k[i];
    Eigen::MatrixXd K = posture.gravity_stiffness;
    for (int i = 0; i < 3; ++i) K(i, i) += k[i];
    EXPECT_LT((posture.mass - ref.M).norm() / ref.M.norm(), 1e-9) << name;
    EXPECT_LT((posture.gravity_stiffness - ref.K_gravity).norm() / ref.K_gravity.norm(), 1e-6)
        << name << "\n" << posture.gravity_stiffness << "\n" << ref.K_gravity;
    const Eigen::VectorXd f = Frequencies(K, posture.mass), f_ref = Frequencies(K_ref, ref.M);
    for (int m = 0; m < 3; ++m) EXPECT_NEAR(f(m) / f_ref(m), 1.0, 1e-6) << name << " mode " << m;
    // The sensor (platform centre) moves as the platform does: B = J_Eᵀ.
    Eigen::Matrix3d fE, fa = Eigen::Matrix3d::Zero();
    for (int i = 0; i < 3; ++i) {
      const double t = ArmAngle(i, E);
      const Eigen::Vector3d d = Elbow(i, t) - E - kPlatform * U(i);
      fE.row(i) = -2.0 * d.transpose();
      fa(i, i) = 2.0 * d.dot(dElbow(i, t));
    }
    const Eigen::Matrix3d JE = -fE.inverse() * fa;
    EXPECT_LT((posture.sensor_basis - JE.transpose()).norm() / JE.norm(), 1e-9) << name;
  }
}

}  // namespace
}  // namespace frfit
