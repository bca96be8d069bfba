// Beam: a flexible body of a Model, a straight beam along its frame's x axis from 0 to `length_m`,
// discretised into finite elements in the floating frame of reference (docs/model-format.md,
// "Beam bodies"; docs/decisions.md, "Beam bodies").
//
// Its root node is clamped to its frame; every other node carries six elastic coordinates
// (u_x, u_y, u_z, θ_x, θ_y, θ_z in the beam frame), which are Model::dofs entries with no spring
// placed after every joint DOF. Its strain energy is ½ūᵀ(E·K_E + G·K_G)ū: K_E holds the axial
// and bending stiffness per unit E, K_G the torsion and (Timoshenko) shear stiffness per unit G.
#pragma once

#include <Eigen/Core>
#include <array>
#include <string>
#include <vector>

#include "frfit/model/bounds.h"

namespace frfit {

enum class BeamTheory { kEulerBernoulli, kTimoshenko };

// Section properties about the principal axes y, z of the beam frame.
struct BeamSection {
  double area_m2 = 0.0;
  double iy_m4 = 0.0;       // ∫z² dA: bending in the x–z plane
  double iz_m4 = 0.0;       // ∫y² dA: bending in the x–y plane
  double torsion_m4 = 0.0;  // torsion constant J (St-Venant)
  double shear_coefficient = 0.0;  // κ (Timoshenko only), the same for both planes
};

struct Beam {
  std::string name;          // the body's name: parameters E_<name>, eta_<name>
  int frame = -1;            // the beam lies along this frame's x axis
  std::string frame_name;    // as the model file names it (the frame is resolved later)
  double length_m = 0.0;
  Bounds youngs_modulus;     // Pa; initial = the file's E (the only value when not fitted)
  bool fitted_modulus = false;
  double shear_modulus_pa = 0.0;
  double density_kg_m3 = 0.0;
  BeamSection section;
  BeamTheory theory = BeamTheory::kEulerBernoulli;
  std::vector<double> nodes_m;  // x of every node after the root, ascending; the last is length
  int first_dof = -1;           // node k (1-based) has DOFs first_dof + 6(k−1) + 0..5
  bool has_loss_factor = false;
  Bounds loss_factor;           // η (1), parameter eta_<name>
  // Indices into JointCoefficients::parts (FinalizeModel), −1 when absent: E, G, η·E, η·G and,
  // under Rayleigh damping, β·E, β·G.
  int part_e = -1, part_g = -1, part_loss_e = -1, part_loss_g = -1, part_beta_e = -1,
      part_beta_g = -1;

  int num_nodes() const { return static_cast<int>(nodes_m.size()); }  // without the root
  // The DOF of node k (0 = the root: −1) and component c (0..5: u_x u_y u_z θ_x θ_y θ_z).
  int Dof(int node, int component) const {
    return node == 0 ? -1 : first_dof + 6 * (node - 1) + component;
  }
  double NodeX(int node) const { return node == 0 ? 0.0 : nodes_m[node - 1]; }
};

// Torsion constant of a solid rectangle of sides a, b (m) by the series of St-Venant's solution.
double RectangleTorsionConstant(double a, double b);

// One element of length l at local coordinate ξ ∈ [0, 1], its 12 local DOFs being node a's six
// then node b's six (u_x u_y u_z θ_x θ_y θ_z). Hermite cubics for bending (Euler–Bernoulli) or the
// interdependent-interpolation shape functions (Timoshenko, phi_y/phi_z = 12EI/(κGAl²) of the x–y
// and x–z planes); linear for axial and torsion.
struct BeamShape {
  Eigen::Matrix<double, 3, 12> translation;  // displacement of the axis point in the beam frame
  Eigen::Matrix<double, 3, 12> rotation;     // small rotation of the section
  Eigen::Matrix<double, 1, 12> axial, twist, curvature_y, curvature_z, shear_y, shear_z;  // strains
};
BeamShape BeamShapeAt(double l, double xi, double phi_xy, double phi_xz);

// 4-point Gauss–Legendre on [0, 1]: exact for the polynomials of degree <= 7 that the element's
// products reach (cubic × cubic, cubic × linear).
extern const std::array<double, 4> kGaussPoints;
extern const std::array<double, 4> kGaussWeights;

// Φ of the element of length l in the x–y (bending about z) and x–z planes; 0 for
// Euler–Bernoulli. Frozen at the file's E/G ratio.
void ShearParameters(const Beam& beam, double l, double* phi_xy, double* phi_xz);

}  // namespace frfit
