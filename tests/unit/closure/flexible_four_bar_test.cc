// A planar four-bar whose crank and rocker are beam bodies (Euler–Bernoulli, docs/model-format.md,
// "Beam bodies") closed by a two-force bar of mass between their tips, with the crank's motor
// spring `a`:
// - its modes, all 31, equal those of a dense finite-element assembly written here in absolute
//   nodal coordinates — the textbook 12-DOF beam element (axial, torsion with the polar inertia
//   ρ(Iy + Iz), bending in both planes, consistent masses), each beam's root clamped to its turning
//   pivot, the bar's constraint e·(u_rocker tip − u_crank tip) = 0 eliminated by a null-space
//   basis — without gravity, where the floating frame's linearisation and the absolute one agree
//   exactly; and so do the 49 modes of the four-bar with every link a beam (the coupler hanging
//   from the crank's tip on two rotations, meeting the rocker's tip in a spherical joint);
// - under gravity, as the beams grow stiff, its lowest mode tends to the rigid four-bar's
//   Lagrangian (four_bar_reference.h) with the beams' masses as slender rods: the beams' weight
//   is taken through the loop.
// Both sides' M, K, C go through the same well-scaled eigensolver (DampedModes), so that the
// comparison is of the linearisations; frfit modal runs on the model end to end.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "four_bar_reference.h"
#include "test_support.h"

namespace frfit {
namespace {

using namespace four_bar_reference;
constexpr double kPi = 3.14159265358979323846;
constexpr double kDensity = 7850.0, kArea = 2.0e-4, kIy = 1.0e-9, kIz = 2.0e-9, kJ = 1.5e-9;
constexpr double kBarMass = 0.5, kSpring = 500.0, kDamper = 0.2;

std::string ModelText(double E, double gravity, int crank_elements, int rocker_elements) {
  std::ostringstream s;
  s.precision(17);
  auto beam = [&](const char* name, const char* frame, double length, int elements,
                  const char* tip) {
    s << "  - name: " << name << "\n    frame: " << frame << "\n    beam:\n      length: "
      << length << "\n      material: {E: " << E << ", G: " << E / 2.6 << ", density: "
      << kDensity << "}\n      section: {shape: properties, A: " << kArea << ", Iy: " << kIy
      << ", Iz: " << kIz << ", J: " << kJ << "}\n      theory: euler_bernoulli\n      elements: "
      << elements << "\n      stations:\n        - {name: " << tip << ", x: " << length << "}\n";
  };
  s << "format: frfit-model-1\nname: flexible_four_bar\ngravity: [0, " << -gravity
    << ", 0]\ndamping_model: viscous\ndofs:\n"
    << "  - {name: a, type: rotational, stiffness: {initial: 500, min: 1, max: 1.0e4},\n"
    << "     damping: {initial: 0.2, min: 0.01, max: 10}}\n"
    << "rigid_coordinates: [th, p2]\nframes:\n"
    << "  - {name: crank, parent: ground, transforms: [{rotz: th}, {rotz: a}]}\n"
    << "  - {name: rocker, parent: ground, transforms: [{disp: [0.4, 0, 0]}, {rotz: p2}]}\n"
    << "bodies:\n";
  beam("crank_beam", "crank", kCrank, crank_elements, "crank_tip");
  beam("rocker_beam", "rocker", kRocker, rocker_elements, "rocker_tip");
  s << "sensor: crank_tip\nclosure:\n  passive: [p2]\n  start: {p2: 100}\n  joints:\n"
    << "    - {name: coupler, type: bar, length: 0.35, mass: " << kBarMass << ",\n"
    << "       parent: {frame: crank_tip}, child: {frame: rocker_tip}}\n"
    << "postures:\n  p60: {th: 60}\n";
  return s.str();
}

// The textbook 3-D Euler–Bernoulli element in its own axes (DOFs u v w θx θy θz at each end):
// stiffness and consistent mass.
void Element(double E, double G, double l, Eigen::Matrix<double, 12, 12>* K,
             Eigen::Matrix<double, 12, 12>* M) {
  K->setZero();
  M->setZero();
  auto put = [](Eigen::Matrix<double, 12, 12>* A, const std::vector<int>& dofs,
                const Eigen::MatrixXd& block) {
    for (size_t a = 0; a < dofs.size(); ++a)
      for (size_t b = 0; b < dofs.size(); ++b) (*A)(dofs[a], dofs[b]) += block(a, b);
  };
  Eigen::Matrix2d bar;
  bar << 1, -1, -1, 1;
  Eigen::Matrix2d lumped;
  lumped << 2, 1, 1, 2;
  put(K, {0, 6}, E * kArea / l * bar);
  put(K, {3, 9}, G * kJ / l * bar);
  put(M, {0, 6}, kDensity * kArea * l / 6.0 * lumped);
  put(M, {3, 9}, kDensity * (kIy + kIz) * l / 6.0 * lumped);
  Eigen::Matrix4d kb, mb;
  kb << 12, 6 * l, -12, 6 * l, 6 * l, 4 * l * l, -6 * l, 2 * l * l, -12, -6 * l, 12, -6 * l,
      6 * l, 2 * l * l, -6 * l, 4 * l * l;
  mb << 156, 22 * l, 54, -13 * l, 22 * l, 4 * l * l, 13 * l, -3 * l * l, 54, 13 * l, 156,
      -22 * l, -13 * l, -3 * l * l, -22 * l, 4 * l * l;
  kb /= l * l * l;
  mb *= kDensity * kArea * l / 420.0;
  // x–y plane: (v, θz) with θz = v'; x–z plane: (w, θy) with θy = −w', the same matrices with
  // the rotations' signs flipped.
  put(K, {1, 5, 7, 11}, E * kIz * kb);
  put(M, {1, 5, 7, 11}, mb);
  const Eigen::Vector4d flip(1, -1, 1, -1);
  put(K, {2, 4, 8, 10}, E * kIy * flip.asDiagonal() * kb * flip.asDiagonal());
  put(M, {2, 4, 8, 10}, flip.asDiagonal() * mb * flip.asDiagonal());
}

struct Dense {
  Eigen::MatrixXd M, K, C;
};

// Adds a beam of `elements` equal elements from `root` along the in-plane direction at angle
// `angle`: its nodes 1.. take global DOFs first_dof + 6(k − 1) + c (translations then
// rotations, ground axes); its root's rotation about z is the DOF `root_dof`, the rest clamped.
void AddBeam(double E, double length, int elements, double angle, int root_dof, int first_dof,
             Dense* d) {
  Eigen::Matrix3d R;  // columns: the element's axes in the ground frame
  R << std::cos(angle), -std::sin(angle), 0, std::sin(angle), std::cos(angle), 0, 0, 0, 1;
  Eigen::Matrix<double, 12, 12> T = Eigen::Matrix<double, 12, 12>::Zero();
  for (int b = 0; b < 4; ++b) T.block<3, 3>(3 * b, 3 * b) = R.transpose();
  const double l = length / elements;
  Eigen::Matrix<double, 12, 12> Ke, Me;
  Element(E, E / 2.6, l, &Ke, &Me);
  const Eigen::Matrix<double, 12, 12> Kg = T.transpose() * Ke * T, Mg = T.transpose() * Me * T;
  for (int e = 0; e < elements; ++e) {
    // The global DOF of each of the element's 12 (−1: clamped; the root's θz: root_dof).
    std::array<int, 12> dofs;
    for (int c = 0; c < 6; ++c) {
      dofs[c] = e == 0 ? (c == 5 ? root_dof : -1) : first_dof + 6 * (e - 1) + c;
      dofs[6 + c] = first_dof + 6 * e + c;
    }
    for (int a = 0; a < 12; ++a)
      for (int b = 0; b < 12; ++b)
        if (dofs[a] >= 0 && dofs[b] >= 0) {
          d->K(dofs[a], dofs[b]) += Kg(a, b);
          d->M(dofs[a], dofs[b]) += Mg(a, b);
        }
  }
}

// AddBeam with a root that moves: its six DOFs (translations then rotations, ground axes) are
// `root` (6 × n) times the global DOFs.
void AddMappedBeam(double E, double length, int elements, double angle, const Eigen::MatrixXd& root,
                   int first_dof, Dense* d) {
  Eigen::Matrix3d R;
  R << std::cos(angle), -std::sin(angle), 0, std::sin(angle), std::cos(angle), 0, 0, 0, 1;
  Eigen::Matrix<double, 12, 12> T = Eigen::Matrix<double, 12, 12>::Zero();
  for (int b = 0; b < 4; ++b) T.block<3, 3>(3 * b, 3 * b) = R.transpose();
  Eigen::Matrix<double, 12, 12> Ke, Me;
  Element(E, E / 2.6, length / elements, &Ke, &Me);
  const Eigen::MatrixXd Kg = T.transpose() * Ke * T, Mg = T.transpose() * Me * T;
  const int n = static_cast<int>(d->K.rows());
  for (int e = 0; e < elements; ++e) {
    Eigen::MatrixXd L = Eigen::MatrixXd::Zero(12, n);  // the element's 12 DOFs from the global ones
    if (e == 0) L.topRows(6) = root;
    else L.block(0, first_dof + 6 * (e - 1), 6, 6).setIdentity();
    L.block(6, first_dof + 6 * e, 6, 6).setIdentity();
    d->K += L.transpose() * Kg * L;
    d->M += L.transpose() * Mg * L;
  }
}

struct RefMode {
  double f, zeta;
};

// The damped modes of M, K, C (ascending) by the first-order form in mass-normalised coordinates
// (L Lᵀ = M), its velocity half scaled by the highest natural frequency s: [0, s·I; −K̃/s, −C̃].
// Its norm is then about s, where [0, I; −M⁻¹K, −M⁻¹C] reaches 1e15 here (the beam nodes' rotary
// masses are 1e-6 kg·m²) and costs the low eigenvalues their last five digits.
std::vector<RefMode> DampedModes(const Eigen::MatrixXd& M, const Eigen::MatrixXd& K,
                                 const Eigen::MatrixXd& C) {
  const int m = static_cast<int>(M.rows());
  const Eigen::LLT<Eigen::MatrixXd> llt(M);
  const Eigen::MatrixXd Linv = llt.matrixL().solve(Eigen::MatrixXd::Identity(m, m));
  const Eigen::MatrixXd Kt = Linv * K * Linv.transpose(), Ct = Linv * C * Linv.transpose();
  const double s = std::sqrt(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Kt).eigenvalues().maxCoeff());
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(2 * m, 2 * m);
  S.topRightCorner(m, m) = s * Eigen::MatrixXd::Identity(m, m);
  S.bottomLeftCorner(m, m) = -Kt / s;
  S.bottomRightCorner(m, m) = -Ct;
  const Eigen::VectorXcd lambda = Eigen::EigenSolver<Eigen::MatrixXd>(S).eigenvalues();
  std::vector<RefMode> out;
  for (int j = 0; j < 2 * m; ++j)
    if (lambda(j).imag() > 0.0)
      out.push_back({lambda(j).imag() / (2.0 * kPi), -lambda(j).real() / std::abs(lambda(j))});
  std::sort(out.begin(), out.end(), [](const RefMode& a, const RefMode& b) { return a.f < b.f; });
  return out;
}

// The dense model's modes at crank angle phi, rocker angle psi.
std::vector<RefMode> DenseModes(double E, int nc, int nr, double phi, double psi) {
  const int n = 2 + 6 * (nc + nr);  // a, ψ, the crank's nodes, the rocker's
  Dense d{Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Zero(n, n)};
  AddBeam(E, kCrank, nc, phi, 0, 2, &d);
  AddBeam(E, kRocker, nr, psi, 1, 2 + 6 * nc, &d);
  d.K(0, 0) += kSpring;
  d.C(0, 0) += kDamper;
  const int tip_c = 2 + 6 * (nc - 1), tip_r = 2 + 6 * (nc + nr - 1);
  const Eigen::Vector3d pc(kCrank * std::cos(phi), kCrank * std::sin(phi), 0.0);
  const Eigen::Vector3d pr(kGround + kRocker * std::cos(psi), kRocker * std::sin(psi), 0.0);
  const Eigen::Vector3d e = (pr - pc).normalized();
  // The bar: a uniform rod's kinetic energy m/6 (v_a² + v_a·v_b + v_b²) on its ends.
  for (int c = 0; c < 3; ++c) {
    d.M(tip_c + c, tip_c + c) += kBarMass / 3.0;
    d.M(tip_r + c, tip_r + c) += kBarMass / 3.0;
    d.M(tip_c + c, tip_r + c) += kBarMass / 6.0;
    d.M(tip_r + c, tip_c + c) += kBarMass / 6.0;
  }
  Eigen::RowVectorXd A = Eigen::RowVectorXd::Zero(n);
  A.segment<3>(tip_r) = e.transpose();
  A.segment<3>(tip_c) = -e.transpose();
  const Eigen::MatrixXd N = Eigen::FullPivLU<Eigen::MatrixXd>(A).kernel();
  return DampedModes(N.transpose() * d.M * N, N.transpose() * d.K * N, N.transpose() * d.C * N);
}

// Every link a beam: the coupler (0.35 m, 3 elements) hangs from the crank's tip on two
// rotations (rotz p1, roty p4) and meets the rocker's tip in a spherical joint; the passive p1,
// p4 and p2 close the loop for any deformation.
std::string AllFlexibleText(double E) {
  std::string text = ModelText(E, 0.0, 2, 3);
  const std::string rocker = "  - {name: rocker, parent: ground";
  text.insert(text.find(rocker),
              "  - {name: coupler, parent: crank_tip, transforms: [{rotz: p1}, {roty: p4}]}\n");
  std::ostringstream beam;
  beam.precision(17);
  beam << "  - name: coupler_beam\n    frame: coupler\n    beam:\n      length: " << kCoupler
       << "\n      material: {E: " << E << ", G: " << E / 2.6 << ", density: " << kDensity
       << "}\n      section: {shape: properties, A: " << kArea << ", Iy: " << kIy << ", Iz: "
       << kIz << ", J: " << kJ << "}\n      theory: euler_bernoulli\n      elements: 3\n"
       << "      stations:\n        - {name: coupler_tip, x: " << kCoupler << "}\n";
  text.insert(text.find("sensor: crank_tip"), beam.str());
  auto replace = [&](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  replace("rigid_coordinates: [th, p2]", "rigid_coordinates: [th, p1, p2, p4]");
  replace("passive: [p2]\n  start: {p2: 100}", "passive: [p1, p2, p4]\n  start: {p1: -40, p2: 100}");
  const std::string bar = text.substr(text.find("    - {name: coupler, type: bar"));
  replace(bar.substr(0, bar.find("postures:")),
          "    - {name: pin, type: spherical, parent: {frame: coupler_tip}, child: {frame: rocker_tip}}\n");
  return text;
}

std::vector<RefMode> AllFlexibleModes(double E, double phi, double psi, double gamma) {
  const int nc = 2, nk = 3, nr = 3;
  // a, ψ, p1, p4, the crank's nodes, the coupler's, the rocker's
  const int crank = 4, coupler = crank + 6 * nc, rocker = coupler + 6 * nk, n = rocker + 6 * nr;
  Dense d{Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Zero(n, n)};
  Eigen::MatrixXd root = Eigen::MatrixXd::Zero(6, n);
  root(5, 0) = 1.0;
  AddMappedBeam(E, kCrank, nc, phi, root, crank, &d);
  root.setZero();
  root(5, 1) = 1.0;
  AddMappedBeam(E, kRocker, nr, psi, root, rocker, &d);
  // The coupler's root: the crank tip's translation and rotation, turned by p1 about z and by p4
  // about the coupler's own y axis.
  root.setZero();
  root.block(0, crank + 6 * (nc - 1), 6, 6).setIdentity();
  root(5, 2) += 1.0;
  root.block<3, 1>(3, 3) += Eigen::Vector3d(-std::sin(gamma), std::cos(gamma), 0.0);
  AddMappedBeam(E, kCoupler, nk, gamma, root, coupler, &d);
  d.K(0, 0) += kSpring;
  d.C(0, 0) += kDamper;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(3, n);  // the spherical joint: the tips meet
  A.block(0, coupler + 6 * (nk - 1), 3, 3).setIdentity();
  A.block(0, rocker + 6 * (nr - 1), 3, 3) -= Eigen::Matrix3d::Identity();
  const Eigen::MatrixXd N = Eigen::FullPivLU<Eigen::MatrixXd>(A).kernel();
  return DampedModes(N.transpose() * d.M * N, N.transpose() * d.K * N, N.transpose() * d.C * N);
}

// frfit's linearisation of the model at p60 with k_a = k, d_a = kDamper: its modes by DampedModes.
std::vector<RefMode> LinearisedModes(const Model& model, double k) {
  const std::vector<double> parameters = {k, kDamper};  // k_a, d_a: the model's only parameters
  const std::vector<double>& q = model.posture("p60").q;
  const Posture posture = Linearize(model, "p60");
  const JointCoefficients c = Coefficients(model, parameters, q);
  return DampedModes(MassMatrix(posture, c), TangentStiffness(posture, c).real(),
                     TangentDamping(posture, c));
}

TEST(FlexibleFourBar, ModesEqualADenseFiniteElementAssembly) {
  const double E = 2.1e11;
  const Model model = ParseModelText(ModelText(E, 0.0, 2, 3), "model.yaml");
  ASSERT_EQ(model.parameters.size(), 2u);
  const std::vector<double>& q = model.posture("p60").q;
  const double phi = q[model.FindCoordinate("th")], psi = q[model.FindCoordinate("p2")];
  const std::vector<RefMode> got = LinearisedModes(model, kSpring);
  const std::vector<RefMode> ref = DenseModes(E, 2, 3, phi, psi);
  ASSERT_EQ(ref.size(), 31u);
  ASSERT_EQ(got.size(), ref.size());
  for (size_t m = 0; m < ref.size(); ++m) {
    EXPECT_NEAR(got[m].f / ref[m].f, 1.0, 1e-8) << "mode " << m;
    EXPECT_NEAR(got[m].zeta, ref[m].zeta, 1e-8 * ref[m].zeta + 1e-12) << "mode " << m;
  }
  // The bar keeps its length.
  const Eigen::Vector2d pc(kCrank * std::cos(phi), kCrank * std::sin(phi));
  const Eigen::Vector2d pr(kGround + kRocker * std::cos(psi), kRocker * std::sin(psi));
  EXPECT_NEAR((pr - pc).norm(), kCoupler, 1e-12);
}

TEST(FlexibleFourBar, EveryLinkABeamEqualsADenseFiniteElementAssembly) {
  const double E = 2.1e11;
  const Model model = ParseModelText(AllFlexibleText(E), "model.yaml");
  const std::vector<double>& q = model.posture("p60").q;
  const double phi = q[model.FindCoordinate("th")], psi = q[model.FindCoordinate("p2")];
  const double gamma = phi + q[model.FindCoordinate("p1")];
  EXPECT_LT(std::abs(q[model.FindCoordinate("p4")]), 1e-12);
  const std::vector<RefMode> got = LinearisedModes(model, kSpring);
  const std::vector<RefMode> ref = AllFlexibleModes(E, phi, psi, gamma);
  ASSERT_EQ(ref.size(), 49u);
  ASSERT_EQ(got.size(), ref.size());
  for (size_t m = 0; m < ref.size(); ++m) {
    EXPECT_NEAR(got[m].f / ref[m].f, 1.0, 1e-8) << "mode " << m;
    EXPECT_NEAR(got[m].zeta, ref[m].zeta, 1e-8 * ref[m].zeta + 1e-12) << "mode " << m;
  }
}

// The lowest mode's relative distance to the rigid Lagrangian's (crank and rocker as slender
// rods of the beams' masses, the bar as a rod), with a soft motor spring so that gravity counts.
double RigidLimitError(double E) {
  const double k = 5.0;
  const Model model = ParseModelText(ModelText(E, 9.81, 2, 2), "model.yaml");
  const std::vector<double>& q = model.posture("p60").q;
  const double phi = q[model.FindCoordinate("th")], psi = q[model.FindCoordinate("p2")];
  const OneDof ref = Lagrangian(phi, psi, kDensity * kArea * kCrank, kBarMass,
                                kDensity * kArea * kRocker, 9.81);
  const double s = kDamper / (2.0 * ref.M);
  const double f_ref = std::sqrt((k + ref.K_gravity) / ref.M - s * s) / (2.0 * kPi);
  return std::abs(LinearisedModes(model, k)[0].f / f_ref - 1.0);
}

TEST(FlexibleFourBar, StiffBeamsUnderGravityTendToTheRigidLagrangian) {
  const double coarse = RigidLimitError(2.1e13), fine = RigidLimitError(2.1e15);
  EXPECT_LT(fine, 1e-6) << coarse << " then " << fine;
  EXPECT_LT(fine, coarse / 30.0) << coarse << " then " << fine;
}

// The whole chain from the file: frfit modal runs on the flexible four-bar and finds its 31 modes.
TEST(FlexibleFourBar, ModalRunsEndToEnd) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/flexible_four_bar.yaml") << ModelText(2.1e11, 9.81, 2, 3);
  const test::CliResult r = test::RunCli({"modal", "--model", dir + "/flexible_four_bar.yaml",
                                          "--posture", "p60", "--json"},
                                         dir + "/modal_out.txt", dir + "/modal_err.txt");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["modes"].size(), 31u);
}

// A revolute pin at the end of a beam holds the beam's out-of-plane bending and twist there,
// which no passive coordinate can take up: the embedding would leave the loop open to first order.
TEST(FlexibleFourBarRefusal, ALoopThatHoldsABeamsDofsIsAnError) {
  const std::string text = R"(format: frfit-model-1
name: pinned_beam
gravity: [0, -9.81, 0]
dofs:
  - {name: a, type: rotational, stiffness: {initial: 500, min: 10, max: 1.0e4},
     damping: {initial: 1, min: 0.1, max: 10}}
rigid_coordinates: [th, p1, p2]
frames:
  - {name: crank, parent: ground, transforms: [{rotz: th}, {rotz: a}]}
  - {name: coupler, parent: crank_tip, transforms: [{rotz: p1}]}
  - {name: rocker, parent: ground, transforms: [{disp: [0.4, 0, 0]}, {rotz: p2}]}
bodies:
  - name: crank_beam
    frame: crank
    beam:
      length: 0.1
      material: {E: 2.1e11, G: 8.1e10, density: 7850}
      section: {shape: rectangle, y: 0.02, z: 0.01}
      theory: euler_bernoulli
      elements: 2
      stations:
        - {name: crank_tip, x: 0.1}
  - {name: coupler, frame: coupler, mass: 2.0, com: [0.175, 0, 0],
     inertia: {xx: 1.0e-6, yy: 0.02, zz: 0.02, xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}
  - {name: rocker, frame: rocker, mass: 1.5, com: [0.125, 0, 0],
     inertia: {xx: 1.0e-6, yy: 0.008, zz: 0.008, xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}
sensor: crank_tip
closure:
  passive: [p1, p2]
  start: {p1: -40, p2: 100}
  joints:
    - {name: pin, type: revolute, parent: {frame: coupler, at: [0.35, 0, 0], axis: [0, 0, 1]},
       child: {frame: rocker, at: [0.25, 0, 0], axis: [0, 0, 1]}}
postures:
  p60: {th: 60}
)";
  const std::string error = test::ErrorOf([&] { Linearize(ParseModelText(text, "model.yaml"), "p60"); });
  EXPECT_NE(error.find("postures.p60"), std::string::npos) << error;
  EXPECT_NE(error.find("hold the elastic DOFs"), std::string::npos) << error;
}

}  // namespace
}  // namespace frfit
