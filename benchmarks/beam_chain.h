// A beam riding on the paper's 3-joint posture (milling), for the reduction's tests and
// benchmarks (posture/reduction.h): `nodes` beam coordinates after the three joints, in a floating
// frame — node i sits at u_i + G_i·x (G a transport matrix of lever arms), its kinetic energy
// ½·m·|u + Gx|², its elastic energy ½·E·uᵀD2ᵀD2u with D2 the second difference of a beam clamped
// in the moving frame — so that
//     M = [[M_j + GᵀmG, Gᵀm], [mG, m]],   K = K_j ⊕ E·D2ᵀD2,
// with E, η·E and a tip mass as affine parts (coefficients 0, 1, 2) and no spring on the beam's
// coordinates, as beam bodies lay them out. The sensor sees the joints' basis plus the tip's and
// mid-span's node displacements.
#pragma once

#include <Eigen/Core>
#include <random>
#include <string>

#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"

namespace frfit::bench {

struct BeamChain {
  Posture posture;
  Eigen::MatrixXd k_unit;  // n×n, per unit E (the beam rows)
  Eigen::MatrixXd tip;     // 1×n: the tip node's absolute displacement
  JointCoefficients nominal;
  int joints = 3;
};

constexpr double kBeamNodeMass = 1.0;  // kg
constexpr double kBeamE = 1.3e10;      // puts the first fixed-interface mode near 40 Hz at 40 nodes

// The coefficients at joint stiffness (and damping) × k_scale, E × e_scale, loss factor eta and
// tip mass tip_kg.
inline JointCoefficients BeamChainAt(const BeamChain& beam, double k_scale, double e_scale,
                                     double eta, double tip_kg) {
  JointCoefficients c = beam.nominal;
  for (int j = 0; j < beam.joints; ++j) c.stiffness[j] *= k_scale, c.viscous[j] *= k_scale;
  c.parts = {kBeamE * e_scale, kBeamE * e_scale * eta, tip_kg};
  return c;
}

inline BeamChain MakeBeamChain(int nodes) {
  const Model model = LoadModel(std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/model.yaml");
  const Posture joints = Linearize(model, "milling");
  const int nj = joints.n, n = nj + nodes;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd g(nodes, nj);  // lever arms, m
  for (int i = 0; i < nodes; ++i)
    for (int j = 0; j < nj; ++j) g(i, j) = (1.0 + i) / nodes * (0.5 + 0.3 * u(rng));
  BeamChain beam;
  beam.joints = nj;
  Posture& p = beam.posture;
  p = joints;
  p.n = n;
  p.mass = Eigen::MatrixXd::Zero(n, n);
  p.mass.topLeftCorner(nj, nj) = joints.mass + kBeamNodeMass * g.transpose() * g;
  p.mass.topRightCorner(nj, nodes) = kBeamNodeMass * g.transpose();
  p.mass.bottomLeftCorner(nodes, nj) = kBeamNodeMass * g;
  p.mass.bottomRightCorner(nodes, nodes) = kBeamNodeMass * Eigen::MatrixXd::Identity(nodes, nodes);
  p.gravity_stiffness = Eigen::MatrixXd::Zero(n, n);
  p.gravity_stiffness.topLeftCorner(nj, nj) = joints.gravity_stiffness;
  Eigen::MatrixXd d2 = Eigen::MatrixXd::Zero(nodes, nodes);
  for (int i = 0; i < nodes; ++i) {
    d2(i, i) = 1.0;
    if (i >= 1) d2(i, i - 1) = -2.0;
    if (i >= 2) d2(i, i - 2) = 1.0;
  }
  // The same beam at any node count: E·D2ᵀD2 scaled so its lowest modes do not move with it.
  const double scale = std::pow(40.0 / nodes, 4);
  beam.k_unit = Eigen::MatrixXd::Zero(n, n);
  beam.k_unit.bottomRightCorner(nodes, nodes) = scale * d2.transpose() * d2;
  beam.tip = Eigen::MatrixXd::Zero(1, n);
  beam.tip.leftCols(nj) = g.row(nodes - 1);
  beam.tip(0, n - 1) = 1.0;
  p.affine_parts = {{AffinePart::Target::kStiffness, 0, beam.k_unit},
                    {AffinePart::Target::kLossStiffness, 1, beam.k_unit},
                    {AffinePart::Target::kMass, 2, beam.tip.transpose() * beam.tip}};
  Eigen::MatrixXd s = Eigen::MatrixXd::Zero(nodes, 3);
  s(nodes - 1, 0) = 1.0, s(nodes - 1, 1) = 0.2, s(nodes / 2, 1) = 1.0, s(nodes / 2, 2) = 0.3;
  p.sensor_basis = Eigen::MatrixXd(n, 3);
  p.sensor_basis.topRows(nj) = joints.sensor_basis + g.transpose() * s;
  p.sensor_basis.bottomRows(nodes) = s;
  p.sensor_jacobian = p.sensor_basis.transpose();
  p.sensor_rotation.setIdentity();
  JointCoefficients& c = beam.nominal;
  c = Coefficients(model, model.InitialParameters(), joints.q);
  for (auto* v : {&c.stiffness, &c.viscous, &c.hysteretic}) v->resize(n, 0.0);
  c.parts = {kBeamE, 0.01 * kBeamE, 2.0};
  return beam;
}

}  // namespace frfit::bench
