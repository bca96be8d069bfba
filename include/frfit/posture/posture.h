// Posture: a Model linearised at one reference configuration q_ref (paper Eqs. 8, 14–17).
// Computed once per posture on the CPU in double precision with exact derivatives; immutable after.
//
// The linearised equations are  M0 Δq̈ + C0 Δq̇ + K0 Δq = τ  with
//   M0 = Σ_i m_i J_S,iᵀ J_S,i + J_ω,iᵀ R_0,i Φ_G,i R_0,iᵀ J_ω,i                     (Eq. 8)
//   K0 = K_gravity + diag(k)           K_gravity = −Σ_i m_i ∂²(gᵀ e_i)/∂q²       (Eq. 17)
//   C0 = diag(d)                       (other damping models: model/joint_coefficients.h)
// Each spring acts on its own coordinate (potential ½ k_j (q_j − q_j,ref)²), so k_j and d_j enter
// K0 and C0 on the diagonal only. This equals the paper's moment formulation (Eq. 12) whenever the
// virtual joints' reference angles are zero, as in every posture of the paper; docs/decisions.md.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model.h"

namespace frfit {

// A body with a fitted mass (Model::mass_bodies): its share of M0 and of K_gravity per kg, so that
// at masses m_b  M0 = M_rest + Σ_b m_b·mass_b  and  K_gravity = G_rest + Σ_b m_b·gravity_b (its
// inertia scales with its mass: model/model.h, Body).
struct MassPart {
  Eigen::MatrixXd mass;     // n×n, kg·m²/kg (the body's term of Eq. 8 divided by its mass)
  Eigen::MatrixXd gravity;  // n×n, per kg
  double nominal_kg = 0.0;  // the body's mass in the model file (Body::mass_kg)
};

// Beyond lumped joints (DESIGN.md §8): a constant n×n matrix that enters the linearised equations
// scaled by one affine coefficient, so that at coefficients c
//   M = M0 + Σ_a c.parts[a]·M_a    K = K0 + Σ_a c.parts[a]·K_a + i·Σ_a c.parts[a]·K''_a
//   C = C0 + Σ_a c.parts[a]·C_a
// with each part's target saying which of M, K (real), K'' (imaginary: structural loss) or C it
// adds to. A beam body's stiffness per unit E (or G), its loss per unit η·E and its Rayleigh share
// per unit β·E are parts; what each coefficient is, and its derivative with respect to the
// parameters, is the Model's business (model/joint_coefficients.h). Several parts may share one
// coefficient. Every model without beams has none, and every result of those models keeps its bits.
struct AffinePart {
  enum class Target { kStiffness, kLossStiffness, kDamping, kMass };
  Target target = Target::kStiffness;
  int coefficient = 0;     // index into JointCoefficients::parts
  Eigen::MatrixXd matrix;  // n×n, symmetric
};

struct Posture {
  std::string name;
  std::vector<double> q;                   // every coordinate, rad / m
  int n = 0;                               // elastic DOFs
  // M0 and K_gravity at the masses of the model file. With fitted masses the matrices at other
  // masses are MassMatrix / GravityStiffness below, which every user with coefficients takes.
  Eigen::MatrixXd mass;                    // M0, n×n, symmetric positive definite
  Eigen::MatrixXd gravity_stiffness;       // K_gravity, n×n, symmetric
  std::vector<MassPart> mass_parts;        // one per fitted mass, Model::mass_bodies order
  std::vector<AffinePart> affine_parts;    // beam bodies' parts; empty for lumped-joint models
  Eigen::Matrix3Xd sensor_jacobian;        // J_S of the sensor origin in the ground frame, 3×n
  Eigen::Matrix3d sensor_rotation;         // R_0,S
  Eigen::Vector3d sensor_position_m;       // e_S in the ground frame
  // B = J_Sᵀ R_0,S (n×3): maps a force along the sensor axes to generalised forces (Eq. 24), and
  // its transpose maps Δq to the sensor displacement in sensor axes (Eqs. 26–28).
  Eigen::MatrixXd sensor_basis;
};

// Linearises `model` at coordinates q (rad / m, DOFs then rigid).
Posture Linearize(const Model& model, const std::vector<double>& q, const std::string& name);
// Linearises at a named posture of the model.
Posture Linearize(const Model& model, const std::string& posture_name);

// A pair of measurement points at a posture (a multi-point FRF set): the frame the response is
// measured in (a) and the frame the force is applied in (b), each with its basis B_f = J_fᵀ R_0,f
// (n×3, the sensor_basis of that frame's origin). The FRF between them is H = B_aᵀ Z⁻¹ B_b;
// a = b = the sensor is the tool-tip FRF of every earlier version. Names as the FRF set gives
// them: empty means the model's sensor.
struct MeasurementPoints {
  std::string response_frame;
  std::string excitation_frame;
  Eigen::MatrixXd response_basis;
  Eigen::MatrixXd excitation_basis;

  bool same_point() const { return response_basis == excitation_basis; }
};

// The points named `response_frame` and `excitation_frame` ("" = the sensor) at `posture` (which
// must be `model` linearised). An unknown frame is an Error naming `what` and the model's frames.
MeasurementPoints PointsAt(const Model& model, const Posture& posture,
                           const std::string& response_frame, const std::string& excitation_frame,
                           const std::string& what);

// M0 and K_gravity at the masses of `c` (c.masses, one per posture.mass_parts; empty: the file's
// masses, and then posture.mass itself). Rest parts (`masses` all 0) are what the kernels start
// from (cost/problem.cc). MassMatrix includes the affine parts that target M.
Eigen::MatrixXd MassMatrix(const Posture& posture, const JointCoefficients& c);
Eigen::MatrixXd GravityStiffness(const Posture& posture, const JointCoefficients& c);

// ∂Z/∂m_b = gravity_b − ω²·mass_b + iω·α·mass_b of fitted mass b (posture.mass_parts[b]) at
// angular frequency ω, Z = K0 + iωC0 − ω²M0 being the dynamic stiffness at coefficients `c`.
Eigen::MatrixXcd MassPartDerivative(const Posture& posture, const JointCoefficients& c, int b,
                                    double omega);

// The tangent matrices for one set of joint coefficients: K0 (complex: structural damping puts
// i·η·k on the diagonal; fitted masses move K_gravity) and C0 (α·M0 at the fitted masses), each
// with the affine parts that target it.
Eigen::MatrixXcd TangentStiffness(const Posture& posture, const JointCoefficients& c);
Eigen::MatrixXd TangentDamping(const Posture& posture, const JointCoefficients& c);

}  // namespace frfit
