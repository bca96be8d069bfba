// Model: the immutable description of a flexible multibody system — bodies, the kinematic chain
// as products of elementary transforms (paper Eqs. 2–4), the elastic degrees of freedom with the
// bounds of their parameters, the sensor frame, gravity and the named postures.
//
// A Model holds no derived quantities and no scratch: linearising it at a posture is a free
// function (posture/linearize.h). Angles are radians and lengths metres here; the YAML file uses
// degrees for angles (model/model_yaml.h converts).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "frfit/model/beam.h"
#include "frfit/model/bounds.h"

namespace frfit {

enum class DofKind { kRotational, kTranslational };
std::string ToString(DofKind kind);  // "rotational" | "translational"

// How energy is dissipated in the elastic joints (DESIGN.md §2):
//  viscous    — a dashpot d_j per DOF (the paper): C0 = diag(d)
//  structural — a loss factor η_j per DOF: K0 gains i·diag(η_j k_j), independent of frequency
//  rayleigh   — C0 = α·M0 + β·diag(k), two parameters for the whole model
enum class DampingModel { kViscous, kStructural, kRayleigh };
std::string ToString(DampingModel model);
bool FromString(const std::string& text, DampingModel* model);

// A basis function of the posture coordinates (rad / m) for a posture-dependent stiffness law:
// 1, s, cos(s) or sin(s) with s = Σ factor·q_coordinate.
struct BasisFunction {
  enum class Kind { kOne, kLinear, kCos, kSin };
  Kind kind = Kind::kOne;
  std::vector<std::pair<int, double>> terms;  // (coordinate, factor)
  std::string text;                           // as written in the model file
  double Evaluate(const std::vector<double>& q) const;
};

// One term of a stiffness law k(q) = Σ coefficient_t · basis_t(q); the coefficient is fitted.
struct StiffnessTerm {
  BasisFunction basis;
  Bounds coefficient;  // may be negative for non-constant terms (linear search scale then)
};

struct Dof {
  std::string name;           // "z1", "x2", ... ; parameters are named k_<name>, d_<name>, eta_<name>
  DofKind kind = DofKind::kRotational;
  Bounds stiffness;           // N·m/rad (rotational) or N/m (translational)
  // Beyond the paper: when not empty, the stiffness depends on the posture through this law and
  // its coefficients k_<name>_0, k_<name>_1, ... replace the parameter k_<name>.
  std::vector<StiffnessTerm> stiffness_law;
  Bounds damping;             // d: N·m·s/rad or N·s/m (viscous); η: 1 (structural); unused (rayleigh)
  // False for a beam's elastic coordinate (model/beam.h): no joint spring and no k_/d_/eta_
  // parameters; its stiffness comes from the beam's affine parts, its diagonal coefficients are 0.
  bool spring = true;
};

// One elementary transform of a frame's chain: rotation about a local axis, translation along one,
// or a constant displacement. The amount is `value` plus, when `coordinate` >= 0, the current value
// of that coordinate (an elastic DOF when coordinate < Model::num_dofs(), a rigid one otherwise).
struct TransformStep {
  enum class Kind { kRotX, kRotY, kRotZ, kTransX, kTransY, kTransZ, kDisp };
  Kind kind = Kind::kDisp;
  double value = 0.0;              // rad or m
  Eigen::Vector3d disp = Eigen::Vector3d::Zero();  // kDisp only, m
  int coordinate = -1;
};
bool IsRotation(TransformStep::Kind kind);

// A frame placed relative to its parent (-1 = the ground frame "ground", frame 0 of the paper).
// Frames are stored parents first.
struct Frame {
  std::string name;
  int parent = -1;
  std::vector<TransformStep> steps;
};

// A rigid body attached to a frame. Its centre of mass sits at `com_m` in that frame; its inertia
// tensor (about the centre of mass, in the frame's axes) is stored as tensor entries, whatever
// convention the file used.
//
// Beyond the paper: a body whose mass is not known (a tool, a payload) may have it fitted, as the
// parameter m_<body> within `fitted_mass`; `mass_kg` is then its initial value. Its centre of mass
// stays where the file puts it and its inertia scales with its mass (inertia_kg_m2 · m / mass_kg:
// the same shape, a uniformly denser or lighter body), so M0 and K_gravity are linear in m.
struct Body {
  std::string name;
  int frame = -1;
  double mass_kg = 0.0;
  Eigen::Vector3d com_m = Eigen::Vector3d::Zero();
  Eigen::Matrix3d inertia_kg_m2 = Eigen::Matrix3d::Zero();
  bool has_fitted_mass = false;
  Bounds fitted_mass;  // kg; when has_fitted_mass
};

// A named reference configuration: one value per coordinate (elastic DOFs first, then rigid).
// For a closed-chain model (Model::closure) the loader solves the loop closure, so q closes
// every loop; `singularity_distance` is then the closure's distance to a singularity (posture/
// closure.h), and 0 for an open chain.
struct PostureSpec {
  std::string name;
  std::vector<double> q;  // rad or m
  double singularity_distance = 0.0;
};

// A point (and, for revolute and universal joints, an axis) fixed in a frame.
struct FramePoint {
  int frame = -1;  // -1: the ground frame
  Eigen::Vector3d at_m = Eigen::Vector3d::Zero();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();  // unit
};

// A joint that closes a loop: it joins a point of its parent to a point of its child, a frame
// that already has a parent in the tree of frames. Its equations (posture/closure.h):
//   spherical  the two points coincide (3)
//   universal  the points coincide and the two axes stay perpendicular (4)
//   revolute   the points coincide and the two axes stay parallel (5)
//   bar        a two-force bar of length `length_m` with spherical ends: |p_child − p_parent| = L
//              (1); its mass, when not 0, is a uniform slender rod's (no spin about its own axis).
struct LoopJoint {
  enum class Kind { kSpherical, kUniversal, kRevolute, kBar };
  std::string name;
  Kind kind = Kind::kSpherical;
  FramePoint parent;
  FramePoint child;
  double length_m = 0.0;  // bar only
  double mass_kg = 0.0;   // bar only
};

// The loops of a closed-chain model and how its postures close them. The passive coordinates
// (rigid coordinates, indices into the model's coordinates) are solved from the loop equations;
// the elastic DOFs are the independent coordinates of the linearisation (papers/003 Eqs. 28–31).
struct Closure {
  std::vector<LoopJoint> joints;
  std::vector<int> passive;        // coordinate indices
  std::vector<double> start;       // Newton's start for every coordinate (the branch rule)
  int end_effector = -1;           // frame a posture may place by `position`, -1: none
  bool closed() const { return !joints.empty(); }
};

// kYoungsModulus (E_<beam>, Pa) and kBeamLossFactor (eta_<beam>) belong to beam bodies.
enum class ParameterKind {
  kStiffness, kDamping, kLossFactor, kRayleighAlpha, kRayleighBeta, kMass, kYoungsModulus,
  kBeamLossFactor
};

// One elastic parameter as the optimisers and files see it.
struct ParameterSpec {
  std::string name;  // k_z1, d_z1, eta_z1, rayleigh_alpha, rayleigh_beta, m_tool
  ParameterKind kind = ParameterKind::kStiffness;
  int dof = -1;      // -1 for the Rayleigh coefficients and masses
  int term = -1;     // index into Dof::stiffness_law for a law coefficient, else -1
  Bounds bounds;
  std::string unit;
  bool log_scale = true;  // searched on a log scale (false for coefficients that may be <= 0)
  int body = -1;     // a mass's body (index into Model::bodies), else -1
  int beam = -1;     // a beam parameter's beam (index into Model::beams), else -1
};

struct Model {
  std::string name;
  std::string source;                       // file it was read from (for messages and provenance)
  std::vector<std::string> files;           // every file read: source, and an overlay's URDF
  Eigen::Vector3d gravity_m_s2 = Eigen::Vector3d(0.0, 0.0, -9.81);  // in the ground frame
  DampingModel damping_model = DampingModel::kViscous;
  std::vector<Dof> dofs;
  std::vector<std::string> rigid_coordinates;  // set by postures, never elastic
  std::vector<Frame> frames;
  std::vector<Body> bodies;
  // Flexible beam bodies (model/beam.h): their elastic coordinates are the DOFs after every joint
  // DOF; their lumped masses are Bodies on generated frames.
  std::vector<Beam> beams;
  int sensor_frame = -1;
  std::vector<PostureSpec> postures;
  Bounds rayleigh_alpha;                    // 1/s, rayleigh only
  Bounds rayleigh_beta;                     // s, rayleigh only
  Closure closure;                          // loops; empty for an open chain
  // Derived once by FinalizeModel: the parameters in their canonical order — every stiffness (DOF
  // order), then the damping parameters (DOF order, or alpha, beta), then the fitted masses (body
  // order), then every beam's E_<beam> (beam order), then every beam's eta_<beam>.
  std::vector<ParameterSpec> parameters;
  // The bodies whose mass is fitted, in body order: the order of JointCoefficients::masses and
  // of Posture::mass_parts. Derived by FinalizeModel.
  std::vector<int> mass_bodies;
  // The number of affine coefficients (JointCoefficients::parts), numbered per beam by
  // FinalizeModel (Beam::part_*).
  int num_parts = 0;

  int num_dofs() const { return static_cast<int>(dofs.size()); }
  int num_coordinates() const { return num_dofs() + static_cast<int>(rigid_coordinates.size()); }
  int num_parameters() const { return static_cast<int>(parameters.size()); }
  int num_masses() const { return static_cast<int>(mass_bodies.size()); }
  bool has_posture_dependent_stiffness() const;
  // Index lookups; -1 when absent.
  int FindDof(const std::string& name) const;
  int FindCoordinate(const std::string& name) const;
  int FindFrame(const std::string& name) const;
  int FindPosture(const std::string& name) const;
  // "milling, reach, folded": the named postures, for messages that ask for one.
  std::string PostureNames() const;
  int FindParameter(const std::string& name) const;
  const PostureSpec& posture(const std::string& name) const;  // throws Error naming the model
  std::vector<double> InitialParameters() const;
};

// Fills Model::parameters from the DOFs, the damping model, the fitted masses and the beams, and
// numbers the beams' affine coefficients. Called by every loader.
void FinalizeModel(Model* model);

}  // namespace frfit
