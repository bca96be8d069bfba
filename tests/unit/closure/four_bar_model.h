// The planar four-bar of four_bar_reference.h as frfit models it, shared by the closed-chain tests
// (four_bar_test.cc, four_bar_joints_test.cc): the links' masses, each link a uniform rod, the
// model file's head (the crank's motor spring `a`), and the checks every closure of it must pass —
// the loop closed, and its one mode equal to the one-DOF Lagrangian.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/model/model.h"
#include "frfit/posture/posture.h"
#include "four_bar_reference.h"

namespace frfit::four_bar_model {

using namespace four_bar_reference;
constexpr double m1 = 1.0, m2 = 2.0, m3 = 1.5, kG = 9.81;

// A uniform rod along x of its frame; its centre of mass may sit `off_z` off its axis.
inline std::string Rod(const std::string& name, const std::string& frame, double m, double L,
                       double off_z = 0.0) {
  const std::string I = FormatDouble(m * L * L / 12.0);
  return "  - {name: " + name + ", frame: " + frame + ", mass: " + FormatDouble(m) + ", com: [" +
         FormatDouble(L / 2) + ", 0, " + FormatDouble(off_z) + "], inertia: {xx: 1.0e-6, yy: " +
         I + ", zz: " + I + ", xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n";
}

// The model file up to its gravity: format, name and the crank's motor spring.
inline const std::string kHeader = R"(format: frfit-model-1
name: four_bar
dofs:
  - {name: a, type: rotational, stiffness: {initial: 500, min: 10, max: 1.0e4},
     damping: {initial: 1, min: 0.1, max: 10}}
)";

// How far the coupler's end (crank th, coupler th + p1, in the plane) is from the rocker's (p2).
inline double CouplerRockerGap(const Model& model, const std::vector<double>& q) {
  const double phi = q[model.FindCoordinate("th")], psi = q[model.FindCoordinate("p2")];
  const double gamma = phi + q[model.FindCoordinate("p1")];
  const Eigen::Vector2d end_coupler(kCrank * std::cos(phi) + kCoupler * std::cos(gamma),
                                    kCrank * std::sin(phi) + kCoupler * std::sin(gamma));
  const Eigen::Vector2d end_rocker(kGround + kRocker * std::cos(psi), kRocker * std::sin(psi));
  return (end_coupler - end_rocker).norm();
}

// The posture's one mode against the Lagrangian of four_bar_reference.h: mass, gravity's
// stiffness and, with the motor spring's 500 N·m/rad, the frequency.
inline void ExpectLagrangian(const Model& model, const char* name) {
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

}  // namespace frfit::four_bar_model
