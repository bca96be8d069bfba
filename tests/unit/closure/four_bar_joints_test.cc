// The loop joints the Delta does not use, each on the planar four-bar of four_bar_reference.h
// and against its one-DOF Lagrangian in the crank angle:
// - a universal joint: the coupler hangs from the crank on three rotations (a spherical joint)
//   and meets the rocker in a cross (point plus coupler y ⟂ rocker z), which keeps the motion
//   planar; gravity has an out-of-plane part and the coupler's centre of mass lies off its axis,
//   so the cross and the out-of-plane rows carry forces and their curvature enters K_gravity,
//   although along the planar motion neither does any work;
// - a massive bar: the coupler is a two-force bar of mass m2 between the crank's end and the
//   rocker's, whose kinetic energy and weight must equal those of a rigid uniform rod.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "frfit/common/error.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/kinematics.h"
#include "frfit/posture/posture.h"
#include "four_bar_reference.h"

namespace frfit {
namespace {

using namespace four_bar_reference;
constexpr double m1 = 1.0, m2 = 2.0, m3 = 1.5, kG = 9.81;

// A uniform rod along x of its frame; its centre of mass may sit `off_z` off its axis.
std::string Rod(const std::string& name, const std::string& frame, double m, double L,
                double off_z = 0.0) {
  const std::string I = FormatDouble(m * L * L / 12.0);
  return "  - {name: " + name + ", frame: " + frame + ", mass: " + FormatDouble(m) + ", com: [" +
         FormatDouble(L / 2) + ", 0, " + FormatDouble(off_z) + "], inertia: {xx: 1.0e-6, yy: " +
         I + ", zz: " + I + ", xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n";
}

const std::string kHeader = R"(format: frfit-model-1
name: four_bar
dofs:
  - {name: a, type: rotational, stiffness: {initial: 500, min: 10, max: 1.0e4},
     damping: {initial: 1, min: 0.1, max: 10}}
)";

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

void ExpectLagrangian(const Model& model, const char* name) {
  const std::vector<double>& q = model.posture(name).q;
  const double phi = q[model.FindCoordinate("th")];
  const double psi = q[model.FindCoordinate("p2")];
  const Posture posture = Linearize(model, name);
  ASSERT_EQ(posture.n, 1);
  const OneDof ref = Lagrangian(phi, psi, m1, m2, m3, kG);
  EXPECT_NEAR(posture.mass(0, 0) / ref.M, 1.0, 1e-8) << name;
  EXPECT_NEAR(posture.gravity_stiffness(0, 0), ref.K_gravity, 1e-6 * 500.0) << name;
  const double k = 500.0;
  EXPECT_NEAR(std::sqrt((k + posture.gravity_stiffness(0, 0)) / posture.mass(0, 0)) /
                  std::sqrt((k + ref.K_gravity) / ref.M),
              1.0, 1e-6) << name;
}

TEST(FourBarJoints, UniversalLoopJointEqualsThePlanarLagrangian) {
  const Model model = ParseModelText(kUniversal, "four_bar.yaml");
  for (const char* name : {"p60", "p140"}) {
    const std::vector<double>& q = model.posture(name).q;
    // The cross keeps the coupler in the plane: no tilt, no spin; the points meet.
    EXPECT_LT(std::abs(q[model.FindCoordinate("p3")]), 1e-10) << name;
    EXPECT_LT(std::abs(q[model.FindCoordinate("p4")]), 1e-10) << name;
    const double phi = q[model.FindCoordinate("th")], psi = q[model.FindCoordinate("p2")];
    const double gamma = phi + q[model.FindCoordinate("p1")];
    const Eigen::Vector2d end_coupler(kCrank * std::cos(phi) + kCoupler * std::cos(gamma),
                                      kCrank * std::sin(phi) + kCoupler * std::sin(gamma));
    const Eigen::Vector2d end_rocker(kGround + kRocker * std::cos(psi), kRocker * std::sin(psi));
    EXPECT_LT((end_coupler - end_rocker).norm(), 1e-12) << name;
    ExpectLagrangian(model, name);
  }
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
