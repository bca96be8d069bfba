// The Delta robot of datasets/delta (a closed chain: posture/closure.h) against a computation
// written here from the geometry alone: the arms' angles from the platform centre in
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
#include "test_support.h"

namespace frfit {
namespace {

const std::string kDelta = std::string(FRFIT_SOURCE_DIR) + "/datasets/delta/";
constexpr double kPi = 3.14159265358979323846;
constexpr double kBase = 0.30, kArm = 0.75, kBar = 0.95, kPlatform = 0.10;
constexpr double kArmMass = 4.0, kArmInertia = 0.75, kPlatformMass = 6.64, kG = 9.81;

Eigen::Vector3d U(int i) {
  const double phi = 2.0 * kPi * i / 3.0;
  return {std::cos(phi), std::sin(phi), 0.0};
}
Eigen::Vector3d Elbow(int i, double angle) {
  return kBase * U(i) + kArm * (std::cos(angle) * U(i) - std::sin(angle) * Eigen::Vector3d::UnitZ());
}
Eigen::Vector3d dElbow(int i, double angle) {
  return kArm * (-std::sin(angle) * U(i) - std::cos(angle) * Eigen::Vector3d::UnitZ());
}

// The arm angle (below the horizontal) that reaches platform centre E with the elbow outward:
// of the two solutions of |elbow(θ) − P_i| = L, the one whose elbow lies farther from the axis.
double ArmAngle(int i, const Eigen::Vector3d& E) {
  const Eigen::Vector3d w = E + kPlatform * U(i) - kBase * U(i);
  const double wu = w.dot(U(i)), wz = w.z();
  const double K = (kArm * kArm + w.squaredNorm() - kBar * kBar) / (2.0 * kArm);
  const double R = std::hypot(wu, wz), alpha = std::atan2(wz, wu);
  const double a = std::acos(K / R);
  const double t1 = a - alpha, t2 = -a - alpha;
  return Elbow(i, t1).dot(U(i)) > Elbow(i, t2).dot(U(i)) ? t1 : t2;
}

// The platform centre closing the three loops at arm angles t, by Newton from E0.
Eigen::Vector3d Platform(const std::array<double, 3>& t, Eigen::Vector3d E) {
  for (int it = 0; it < 50; ++it) {
    Eigen::Vector3d f;
    Eigen::Matrix3d J;
    for (int i = 0; i < 3; ++i) {
      const Eigen::Vector3d d = Elbow(i, t[i]) - E - kPlatform * U(i);
      f(i) = d.squaredNorm() - kBar * kBar;
      J.row(i) = -2.0 * d.transpose();
    }
    E -= J.partialPivLu().solve(f);
    if (f.cwiseAbs().maxCoeff() < 1e-15) break;
  }
  return E;
}

struct Lagrangian {
  Eigen::Matrix3d M, K_gravity;
};

Lagrangian Independent(const Eigen::Vector3d& E) {
  std::array<double, 3> t;
  for (int i = 0; i < 3; ++i) t[i] = ArmAngle(i, E);
  // ∂E/∂a = −(∂f/∂E)⁻¹ ∂f/∂a with f_i = |elbow_i − E − 0.1 u_i|² − L².
  Eigen::Matrix3d fE, fa = Eigen::Matrix3d::Zero();
  for (int i = 0; i < 3; ++i) {
    const Eigen::Vector3d d = Elbow(i, t[i]) - E - kPlatform * U(i);
    fE.row(i) = -2.0 * d.transpose();
    fa(i, i) = 2.0 * d.dot(dElbow(i, t[i]));
  }
  const Eigen::Matrix3d JE = -fE.inverse() * fa;
  Lagrangian out;
  out.M = kArmInertia * Eigen::Matrix3d::Identity() + kPlatformMass * JE.transpose() * JE;
  // Potential m g z: the arms' analytically, the platform's by central differences of E_z(a).
  auto platform_z = [&](const Eigen::Vector3d& a) {
    std::array<double, 3> ta{t[0] + a(0), t[1] + a(1), t[2] + a(2)};
    return Platform(ta, E).z();
  };
  const double h = 1e-4;
  for (int p = 0; p < 3; ++p)
    for (int r = 0; r < 3; ++r) {
      Eigen::Vector3d ep = Eigen::Vector3d::Unit(p) * h, er = Eigen::Vector3d::Unit(r) * h;
      const double d2 = (platform_z(ep + er) - platform_z(ep - er) - platform_z(-ep + er) +
                         platform_z(-ep - er)) / (4.0 * h * h);
      out.K_gravity(p, r) = kPlatformMass * kG * d2;
    }
  for (int i = 0; i < 3; ++i) out.K_gravity(i, i) += kArmMass * kG * 0.5 * kArm * std::sin(t[i]);
  return out;
}

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
