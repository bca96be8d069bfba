// The loop joints the Delta does not use, each on the planar four-bar of four_bar_reference.h
// and against its one-DOF Lagrangian in the crank angle:
// - a universal joint: the coupler hangs from the crank on three rotations (a spherical joint)
//   and meets the rocker in a cross (point plus coupler y ⟂ rocker z), which keeps the motion
//   planar; gravity has an out-of-plane part and the coupler's centre of mass lies off its axis,
//   so the cross and the out-of-plane rows carry forces, although along the planar motion
//   neither does any work; then the same cross on a spatial linkage (the rocker's axis tilted),
//   where the cross's curvature enters K_gravity, against a Lagrangian with its own kinematics;
// - a massive bar: the coupler is a two-force bar of mass m2 between the crank's end and the
//   rocker's, whose kinetic energy and weight must equal those of a rigid uniform rod.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <cmath>
#include <string>

#include "frfit/common/error.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/kinematics.h"
#include "frfit/posture/posture.h"
#include "four_bar_model.h"

namespace frfit {
namespace {

using namespace four_bar_model;

const std::string kUniversal = kHeader + R"(gravity: [0, -9.81, -4.0]
rigid_coordinates: [th, p1, p2, p3, p4]
frames:
  - {name: crank, parent: ground, transforms: [{rotz: th}, {rotz: a}]}
  - {name: crank_end, parent: crank, transforms: [{disp: [0.1, 0, 0]}]}
  - {name: coupler, parent: crank_end, transforms: [{rotz: p1}, {roty: p4}, {rotx: p3}]}
  - {name: rocker, parent: ground, transforms: [{disp: [0.4, 0, 0]}, {rotz: p2}]}
bodies:
)" + Rod("crank", "crank", m1, kCrank) + Rod("coupler", "coupler", m2, kCoupler, 0.03) +
                               Rod("rocker", "rocker", m3, kRocker) + R"(sensor: crank_end
closure:
  passive: [p1, p2, p3, p4]
  start: {p1: -40, p2: 100}
  joints:
    - {name: cross, type: universal, parent: {frame: coupler, at: [0.35, 0, 0], axis: [0, 1, 0]},
       child: {frame: rocker, at: [0.25, 0, 0], axis: [0, 0, 1]}}
postures:
  p60: {th: 60}
  p140: {th: 140}
)";

const std::string kMassiveBar = kHeader + R"(gravity: [0, -9.81, 0]
rigid_coordinates: [th, p2]
frames:
  - {name: crank, parent: ground, transforms: [{rotz: th}, {rotz: a}]}
  - {name: crank_end, parent: crank, transforms: [{disp: [0.1, 0, 0]}]}
  - {name: rocker, parent: ground, transforms: [{disp: [0.4, 0, 0]}, {rotz: p2}]}
bodies:
)" + Rod("crank", "crank", m1, kCrank) + Rod("rocker", "rocker", m3, kRocker) + R"(sensor: crank_end
closure:
  passive: [p2]
  start: {p2: 100}
  joints:
    - {name: coupler, type: bar, length: 0.35, mass: 2.0,
       parent: {frame: crank_end}, child: {frame: rocker, at: [0.25, 0, 0]}}
postures:
  p60: {th: 60}
  p140: {th: 140}
)";

TEST(FourBarJoints, UniversalLoopJointEqualsThePlanarLagrangian) {
  const Model model = ParseModelText(kUniversal, "four_bar.yaml");
  for (const char* name : {"p60", "p140"}) {
    const std::vector<double>& q = model.posture(name).q;
    // The cross keeps the coupler in the plane: no tilt, no spin; the points meet.
    EXPECT_LT(std::abs(q[model.FindCoordinate("p3")]), 1e-10) << name;
    EXPECT_LT(std::abs(q[model.FindCoordinate("p4")]), 1e-10) << name;
    EXPECT_LT(CouplerRockerGap(model, q), 1e-12) << name;
    ExpectLagrangian(model, name);
  }
}

// A spatial linkage with the same cross: the rocker turns about an axis tilted 20° about x, so
// the coupler's direction and spin change along the motion and the cross's curvature enters
// K_gravity (the planar case above never reaches it). Its reference is the one-DOF Lagrangian in
// the crank angle φ written here: the linkage's own rotation matrices, its four closure equations
// solved by this file's Newton (numerical Jacobian), the kinetic energy from central differences
// of the bodies' centres and orientations along φ, gravity's stiffness from the second
// difference of the potential.
const std::string kSpatial = kHeader + R"(gravity: [0, -9.81, -4.0]
rigid_coordinates: [th, p1, p2, p3, p4]
frames:
  - {name: crank, parent: ground, transforms: [{rotz: th}, {rotz: a}]}
  - {name: crank_end, parent: crank, transforms: [{disp: [0.1, 0, 0]}]}
  - {name: coupler, parent: crank_end, transforms: [{rotz: p1}, {roty: p4}, {rotx: p3}]}
  - {name: rocker, parent: ground, transforms: [{disp: [0.4, 0, 0]}, {rotx: 20}, {rotz: p2}]}
bodies:
)" + Rod("crank", "crank", m1, kCrank) + Rod("coupler", "coupler", m2, kCoupler, 0.03) +
                             Rod("rocker", "rocker", m3, kRocker) + R"(sensor: crank_end
closure:
  passive: [p1, p2, p3, p4]
  start: {p1: -40, p2: 100}
  joints:
    - {name: cross, type: universal, parent: {frame: coupler, at: [0.35, 0, 0], axis: [0, 1, 0]},
       child: {frame: rocker, at: [0.25, 0, 0], axis: [0, 0, 1]}}
postures:
  p60: {th: 60}
)";

Eigen::Matrix3d Rot(const Eigen::Vector3d& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis).toRotationMatrix();
}

// The spatial linkage at crank angle phi and passive angles p = (p1, p2, p3, p4).
struct SpatialPose {
  Eigen::Matrix3d R[3];  // crank, coupler, rocker
  Eigen::Vector3d o[3];  // their frames' origins
};
SpatialPose Pose(double phi, const Eigen::Vector4d& p) {
  const Eigen::Vector3d X = Eigen::Vector3d::UnitX(), Y = Eigen::Vector3d::UnitY(),
                        Z = Eigen::Vector3d::UnitZ();
  SpatialPose out;
  out.R[0] = Rot(Z, phi);
  out.o[0].setZero();
  out.R[1] = out.R[0] * Rot(Z, p(0)) * Rot(Y, p(3)) * Rot(X, p(2));
  out.o[1] = out.R[0] * (kCrank * X);
  out.R[2] = Rot(X, 20.0 * 3.14159265358979323846 / 180.0) * Rot(Z, p(1));
  out.o[2] = kGround * X;
  return out;
}
Eigen::Vector4d Loop(double phi, const Eigen::Vector4d& p) {
  const SpatialPose s = Pose(phi, p);
  const Eigen::Vector3d gap = s.o[1] + s.R[1] * (kCoupler * Eigen::Vector3d::UnitX()) - s.o[2] -
                              s.R[2] * (kRocker * Eigen::Vector3d::UnitX());
  Eigen::Vector4d out;
  out << gap, (s.R[1] * Eigen::Vector3d::UnitY()).dot(s.R[2] * Eigen::Vector3d::UnitZ());
  return out;
}
Eigen::Vector4d CloseSpatial(double phi, Eigen::Vector4d p) {
  for (int it = 0; it < 50 && Loop(phi, p).cwiseAbs().maxCoeff() > 1e-15; ++it) {
    Eigen::Matrix4d J;
    for (int k = 0; k < 4; ++k) {
      const Eigen::Vector4d e = Eigen::Vector4d::Unit(k) * 1e-7;
      J.col(k) = (Loop(phi, p + e) - Loop(phi, p - e)) / 2e-7;
    }
    p -= J.partialPivLu().solve(Loop(phi, p));
  }
  return p;
}

TEST(FourBarJoints, UniversalLoopJointOnASpatialLinkageEqualsItsLagrangian) {
  const Model model = ParseModelText(kSpatial, "spatial.yaml");
  const std::vector<double>& q = model.posture("p60").q;
  const double phi = q[model.FindCoordinate("th")];
  const Eigen::Vector4d p(q[model.FindCoordinate("p1")], q[model.FindCoordinate("p2")],
                          q[model.FindCoordinate("p3")], q[model.FindCoordinate("p4")]);
  EXPECT_LT(Loop(phi, p).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_GT(std::abs(p(2)) + std::abs(p(3)), 0.05);  // the coupler leaves the plane
  const double masses[3] = {m1, m2, m3};
  const Eigen::Vector3d com[3] = {{kCrank / 2, 0, 0}, {kCoupler / 2, 0, 0.03}, {kRocker / 2, 0, 0}};
  const double lengths[3] = {kCrank, kCoupler, kRocker};
  const Eigen::Vector3d g(0, -9.81, -4.0);
  auto potential = [&](double f) {
    const SpatialPose s = Pose(f, CloseSpatial(f, p));
    double V = 0.0;
    for (int b = 0; b < 3; ++b) V -= masses[b] * g.dot(s.o[b] + s.R[b] * com[b]);
    return V;
  };
  const double h = 1e-6;
  const SpatialPose s0 = Pose(phi, p), sp = Pose(phi + h, CloseSpatial(phi + h, p)),
                    sm = Pose(phi - h, CloseSpatial(phi - h, p));
  double M = 0.0;
  for (int b = 0; b < 3; ++b) {
    const Eigen::Vector3d v = ((sp.o[b] + sp.R[b] * com[b]) - (sm.o[b] + sm.R[b] * com[b])) / (2 * h);
    const Eigen::Matrix3d W = (sp.R[b] - sm.R[b]) / (2 * h) * s0.R[b].transpose();
    const Eigen::Vector3d w(W(2, 1), W(0, 2), W(1, 0));
    const double I = masses[b] * lengths[b] * lengths[b] / 12.0;
    const Eigen::Matrix3d inertia = Eigen::Vector3d(1e-6, I, I).asDiagonal();
    M += masses[b] * v.squaredNorm() + w.dot(s0.R[b] * inertia * s0.R[b].transpose() * w);
  }
  const double H = 1e-4;
  const double K_gravity = (potential(phi + H) - 2.0 * potential(phi) + potential(phi - H)) / (H * H);
  const Posture posture = Linearize(model, "p60");
  ASSERT_EQ(posture.n, 1);
  EXPECT_NEAR(posture.mass(0, 0) / M, 1.0, 1e-8);
  EXPECT_NEAR(posture.gravity_stiffness(0, 0), K_gravity, 1e-6 * 500.0)
      << posture.gravity_stiffness(0, 0) << " vs " << K_gravity;
}

TEST(FourBarJoints, MassiveBarEqualsARigidRodCoupler) {
  const Model model = ParseModelText(kMassiveBar, "four_bar.yaml");
  for (const char* name : {"p60", "p140"}) {
    const std::vector<double>& q = model.posture(name).q;
    const double phi = q[model.FindCoordinate("th")], psi = q[model.FindCoordinate("p2")];
    const Eigen::Vector2d crank_end(kCrank * std::cos(phi), kCrank * std::sin(phi));
    const Eigen::Vector2d end_rocker(kGround + kRocker * std::cos(psi), kRocker * std::sin(psi));
    EXPECT_NEAR((end_rocker - crank_end).norm(), kCoupler, 1e-12) << name;
    ExpectLagrangian(model, name);
  }
}

}  // namespace
}  // namespace frfit
