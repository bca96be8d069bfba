// A planar four-bar closed by a revolute loop joint (docs/model-format.md, "Closed chains"): its
// one mode against the one-DOF Lagrangian in the crank angle of four_bar_reference.h — the
// rocker's angle from the loop's closure by its own Newton, gravity's stiffness and the mass from
// numerical derivatives of the links' positions along the mechanism's motion.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "frfit/common/error.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "four_bar_reference.h"

namespace frfit {
namespace {

using namespace four_bar_reference;
constexpr double m1 = 1.0, m2 = 2.0, m3 = 1.5, kG = 9.81;

std::string Rod(const std::string& name, const std::string& frame, double m, double L) {
  const std::string I = FormatDouble(m * L * L / 12.0);
  return "  - {name: " + name + ", frame: " + frame + ", mass: " + FormatDouble(m) +
         ", com: [" + FormatDouble(L / 2) + ", 0, 0], inertia: {xx: 1.0e-6, yy: " + I +
         ", zz: " + I + ", xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n";
}

const std::string kModel = R"(format: frfit-model-1
name: four_bar
gravity: [0, -9.81, 0]
dofs:
  - {name: a, type: rotational, stiffness: {initial: 500, min: 10, max: 1.0e4},
     damping: {initial: 1, min: 0.1, max: 10}}
rigid_coordinates: [th, p1, p2]
frames:
  - {name: crank, parent: ground, transforms: [{rotz: th}, {rotz: a}]}
  - {name: crank_end, parent: crank, transforms: [{disp: [0.1, 0, 0]}]}
  - {name: coupler, parent: crank_end, transforms: [{rotz: p1}]}
  - {name: rocker, parent: ground, transforms: [{disp: [0.4, 0, 0]}, {rotz: p2}]}
bodies:
)" + Rod("crank", "crank", m1, kCrank) + Rod("coupler", "coupler", m2, kCoupler) +
                           Rod("rocker", "rocker", m3, kRocker) + R"(sensor: crank_end
closure:
  passive: [p1, p2]
  start: {p1: -40, p2: 100}
  joints:
    - {name: pin, type: revolute, parent: {frame: coupler, at: [0.35, 0, 0], axis: [0, 0, 1]},
       child: {frame: rocker, at: [0.25, 0, 0], axis: [0, 0, 1]}}
postures:
  p60: {th: 60}
)";

TEST(FourBar, RevoluteLoopEqualsTheOneDofLagrangian) {
  const Model model = ParseModelText(kModel, "four_bar.yaml");
  const std::vector<double>& q = model.posture("p60").q;
  const double phi = q[model.FindCoordinate("th")];
  const double psi = q[model.FindCoordinate("p2")];
  // The loop is closed: the coupler's end on the rocker's.
  const double gamma = phi + q[model.FindCoordinate("p1")];
  const Eigen::Vector2d end_coupler(kCrank * std::cos(phi) + kCoupler * std::cos(gamma),
                                    kCrank * std::sin(phi) + kCoupler * std::sin(gamma));
  const Eigen::Vector2d end_rocker(kGround + kRocker * std::cos(psi), kRocker * std::sin(psi));
  EXPECT_LT((end_coupler - end_rocker).norm(), 1e-12);

  const Posture posture = Linearize(model, "p60");
  ASSERT_EQ(posture.n, 1);
  const OneDof ref = Lagrangian(phi, psi, m1, m2, m3, kG);
  const double M = ref.M, K_gravity = ref.K_gravity;
  EXPECT_NEAR(posture.mass(0, 0) / M, 1.0, 1e-8);
  EXPECT_NEAR(posture.gravity_stiffness(0, 0), K_gravity, 1e-6 * 500.0);
  const double k = 500.0;
  EXPECT_NEAR(std::sqrt((k + posture.gravity_stiffness(0, 0)) / posture.mass(0, 0)) /
                  std::sqrt((k + K_gravity) / M),
              1.0, 1e-6);
}

}  // namespace
}  // namespace frfit
