// Beam bodies (model/beam.h) against closed forms written here, not frfit's output: the natural
// frequencies of free-free, clamped-free and pinned-pinned beams (Euler–Bernoulli and Timoshenko)
// from the model's M and K, the boundary conditions made by the root joints' springs (0: free) or
// by removing coordinates in the test.
//
// Tolerances from the elements' convergence. Hermite cubics with consistent mass converge as h⁴:
// with 40 elements the first three Euler–Bernoulli modes sit below 4e-6 relative (the fourth at
// 1.1e-5), so 1e-5 on three. The Timoshenko interdependent-interpolation element holds the shear
// strain constant in an element — exact in statics (checked below), but under distributed inertia
// the frequencies converge as h² (1e-3 on the fourth mode with 40 elements, a quarter of it
// with 80): its first mode is held to 1e-5 directly, and all four through the Richardson
// extrapolation (4ω₄₀ − ω₂₀)/3 of the h² term, to 2e-5. A wrong shape function, a missing rotary
// inertia or shear term, or a wrong rigid–elastic coupling fails by orders of magnitude.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>
#include <vector>

#include "beam_closed_forms.h"
#include "frfit/common/error.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

using test::Section;

// A square steel bar, 1 m, on a root frame that translates along y (y0) and turns about z (z0).
// Thick (L/r ≈ 35) so that Timoshenko's shear and rotary inertia move the frequencies by percents.
constexpr double kLength = 1.0, kSide = 0.1, kE = 210e9, kG = 81e9, kRho = 7850, kKappa = 0.85;

std::string BarModel(const std::string& theory, int elements) {
  const double a = kSide * kSide, i = std::pow(kSide, 4) / 12.0;
  return "format: frfit-model-1\nname: bar\ngravity: [0, 0, 0]\ndamping_model: structural\n"
         "dofs:\n"
         "  - {name: y0, type: translational, stiffness: {initial: 1, min: 1.0e-3, max: 1.0e3},"
         " loss_factor: {initial: 0.01, min: 1.0e-4, max: 1}}\n"
         "  - {name: z0, type: rotational, stiffness: {initial: 1, min: 1.0e-3, max: 1.0e3},"
         " loss_factor: {initial: 0.01, min: 1.0e-4, max: 1}}\n"
         "frames:\n  - {name: root, parent: ground, transforms: [{transy: y0}, {rotz: z0}]}\n"
         "bodies:\n  - name: bar\n    frame: root\n    beam:\n"
         "      length: " + FormatDouble(kLength) + "\n"
         "      material: {E: " + FormatDouble(kE) + ", G: " + FormatDouble(kG) +
         ", density: " + FormatDouble(kRho) + "}\n"
         "      section: {shape: properties, A: " + FormatDouble(a) + ", Iy: " + FormatDouble(i) +
         ", Iz: " + FormatDouble(i) + ", J: " + FormatDouble(2 * i) +
         ", shear_coefficient: " + FormatDouble(kKappa) + "}\n"
         "      theory: " + theory + "\n      elements: " + std::to_string(elements) + "\n"
         "sensor: root\npostures: {straight: }\n";
}

Section BarSection() {
  return {kE, kG, kRho, kSide * kSide, std::pow(kSide, 4) / 12.0, kKappa};
}

// The in-plane (x–y) coordinates of the bar: y0, z0, then u_y and θ_z of every node.
struct InPlane {
  Eigen::MatrixXd M, K;
  std::vector<int> node_uy;  // index of node k's u_y in M (k = 1..)
};

InPlane InPlaneMatrices(const std::string& theory, int elements) {
  const Model model = ParseModelText(BarModel(theory, elements), "bar");
  const Posture posture = Linearize(model, "straight");
  std::vector<double> p(model.num_parameters(), 0.0);  // springs 0: a free root
  const JointCoefficients c = Coefficients(model, p);
  const Eigen::MatrixXd M = MassMatrix(posture, c);
  const Eigen::MatrixXd K = TangentStiffness(posture, c).real();
  std::vector<int> keep = {0, 1};
  InPlane out;
  const Beam& beam = model.beams[0];
  for (int k = 1; k <= beam.num_nodes(); ++k) {
    out.node_uy.push_back(static_cast<int>(keep.size()));
    keep.push_back(beam.Dof(k, 1));
    keep.push_back(beam.Dof(k, 5));
  }
  const int m = static_cast<int>(keep.size());
  out.M.resize(m, m);
  out.K.resize(m, m);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) {
      out.M(a, b) = M(keep[a], keep[b]);
      out.K(a, b) = K(keep[a], keep[b]);
    }
  return out;
}

// Natural frequencies (rad/s) of (K, M) in the coordinates q = T·r, ascending, without the rigid
// (zero) modes.
std::vector<double> Omegas(const InPlane& p, const Eigen::MatrixXd& T) {
  const Eigen::MatrixXd M = T.transpose() * p.M * T, K = T.transpose() * p.K * T;
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(K, M);
  std::vector<double> omegas;
  const double top = solver.eigenvalues().maxCoeff();
  for (int i = 0; i < solver.eigenvalues().size(); ++i)
    if (solver.eigenvalues()(i) > 1e-10 * top) omegas.push_back(std::sqrt(solver.eigenvalues()(i)));
  return omegas;
}

// Columns of the identity without the coordinates `drop`.
Eigen::MatrixXd Keep(int m, const std::vector<int>& drop) {
  std::vector<int> cols;
  for (int i = 0; i < m; ++i)
    if (std::find(drop.begin(), drop.end(), i) == drop.end()) cols.push_back(i);
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(m, static_cast<int>(cols.size()));
  for (size_t c = 0; c < cols.size(); ++c) T(cols[c], static_cast<int>(c)) = 1.0;
  return T;
}

// Pinned-pinned: y0 = 0 (root pin) and the tip's deflection in the ground, L·z0 + u_y(L), zero:
// u_y(L) = −L·z0 (the beam's coordinates are in its frame, which z0 turns).
Eigen::MatrixXd PinnedPinned(const InPlane& p) {
  const int m = static_cast<int>(p.M.rows()), tip = p.node_uy.back();
  Eigen::MatrixXd T = Keep(m, {0, tip});
  T(tip, 0) = -kLength;  // column 0 of T is z0 (y0 was dropped)
  return T;
}

double WorstRelative(const std::vector<double>& fe, const std::vector<double>& exact, size_t count) {
  EXPECT_GE(fe.size(), count);
  EXPECT_GE(exact.size(), count);
  double worst = 0.0;
  for (size_t i = 0; i < count && i < fe.size() && i < exact.size(); ++i)
    worst = std::max(worst, std::abs(fe[i] - exact[i]) / exact[i]);
  return worst;
}

TEST(BeamModes, EulerBernoulliFreeFreeClampedFreePinnedPinned) {
  const InPlane p = InPlaneMatrices("euler_bernoulli", 40);
  const Section s = BarSection();
  const int m = static_cast<int>(p.M.rows());
  const double free_free = WorstRelative(Omegas(p, Keep(m, {})),
                                         test::EulerBernoulliOmegas(s, kLength, 1.0, 3), 3);
  const double clamped = WorstRelative(Omegas(p, Keep(m, {0, 1})),
                                       test::EulerBernoulliOmegas(s, kLength, -1.0, 3), 3);
  std::vector<double> pinned_exact;
  for (int n = 1; n <= 3; ++n)
    pinned_exact.push_back(std::pow(n * M_PI / kLength, 2) * std::sqrt(kE * s.I / (kRho * s.A)));
  const double pinned = WorstRelative(Omegas(p, PinnedPinned(p)), pinned_exact, 3);
  std::printf("Euler-Bernoulli, 40 elements, first 3 modes: free-free %.2e, clamped-free %.2e, "
              "pinned-pinned %.2e (worst relative error)\n", free_free, clamped, pinned);
  EXPECT_LT(free_free, 1e-5);
  EXPECT_LT(clamped, 1e-5);
  EXPECT_LT(pinned, 1e-5);
}

// The two closed forms' frequencies against the model's with `elements` elements: the worst
// relative error of the first mode, and of the first four after Richardson extrapolation from
// elements/2 (h² term).
TEST(BeamModes, TimoshenkoClampedFreeAndPinnedPinned) {
  const Section s = BarSection();
  std::vector<double> pinned_exact;
  for (int n = 1; n <= 4; ++n) pinned_exact.push_back(test::TimoshenkoPinnedOmega(s, kLength, n));
  const std::vector<double> clamped_exact = test::Roots(
      [&](double w) { return test::TimoshenkoClampedFreeDeterminant(s, kLength, w); }, 10.0,
      3.0e4, 30000, 4);
  const InPlane fine = InPlaneMatrices("timoshenko", 40), coarse = InPlaneMatrices("timoshenko", 20);
  auto extrapolated = [](const std::vector<double>& f, const std::vector<double>& c) {
    std::vector<double> out;
    for (size_t i = 0; i < 4; ++i) out.push_back((4.0 * f[i] - c[i]) / 3.0);
    return out;
  };
  const std::vector<double> pinned_fine = Omegas(fine, PinnedPinned(fine));
  const std::vector<double> clamped_fine = Omegas(fine, Keep(static_cast<int>(fine.M.rows()), {0, 1}));
  const double pinned1 = WorstRelative(pinned_fine, pinned_exact, 1);
  const double clamped1 = WorstRelative(clamped_fine, clamped_exact, 1);
  const double pinned4 = WorstRelative(
      extrapolated(pinned_fine, Omegas(coarse, PinnedPinned(coarse))), pinned_exact, 4);
  const double clamped4 = WorstRelative(
      extrapolated(clamped_fine, Omegas(coarse, Keep(static_cast<int>(coarse.M.rows()), {0, 1}))),
      clamped_exact, 4);
  // The shear and rotary inertia matter here: Euler–Bernoulli's fourth pinned mode is far off.
  const double eb4 = std::pow(4 * M_PI / kLength, 2) * std::sqrt(kE * s.I / (kRho * s.A));
  EXPECT_GT(eb4 / pinned_exact[3] - 1.0, 0.05);
  std::printf("Timoshenko, 40 elements, first mode: clamped-free %.2e, pinned-pinned %.2e; "
              "first 4 modes extrapolated from 20 and 40: %.2e, %.2e (worst relative error)\n",
              clamped1, pinned1, clamped4, pinned4);
  EXPECT_LT(clamped1, 1e-5);
  EXPECT_LT(pinned1, 1e-5);
  EXPECT_LT(clamped4, 2e-5);
  EXPECT_LT(pinned4, 2e-5);
}

// The Timoshenko element is exact in statics: a cantilever's tip deflection under a tip load,
// PL³/3EI + PL/κGA, with two elements.
TEST(BeamModes, TimoshenkoCantileverStaticDeflectionIsExact) {
  const Section s = BarSection();
  const InPlane p = InPlaneMatrices("timoshenko", 2);
  const Eigen::MatrixXd T = Keep(static_cast<int>(p.M.rows()), {0, 1});
  const Eigen::MatrixXd K = T.transpose() * p.K * T;
  Eigen::VectorXd f = Eigen::VectorXd::Zero(K.rows());
  const int tip = p.node_uy.back() - 2;  // y0 and z0 dropped
  f(tip) = 1.0;
  const double fe = K.ldlt().solve(f)(tip);
  const double exact = std::pow(kLength, 3) / (3 * kE * s.I) + kLength / (kKappa * kG * s.A);
  EXPECT_NEAR(fe / exact, 1.0, 1e-12);
}

}  // namespace
}  // namespace frfit

namespace frfit {
namespace {

// A free-free beam on a free base: six DOFs with `free: true` (no spring, no parameter) carry
// its frame. Six rigid-body (zero) modes, then the bending modes of both planes, each
// cos βL cosh βL = 1 with its own I, to 1e-5 (Hermite cubics, 40 elements); the rigid modes
// need the exact coupling of the six base coordinates with the distributed mass.
TEST(BeamModes, FreeBaseGivesSixRigidModesAndFreeFreeBending) {
  const double L = 1.0, E = 70e9, G = 26e9, rho = 2700, A = 1e-3, Iy = 2e-7, Iz = 1e-7;
  std::string dofs;
  for (const char* name : {"x0", "y0", "z0"})
    dofs += std::string("  - {name: ") + name + ", type: translational, free: true}\n";
  for (const char* name : {"r0", "p0", "w0"})
    dofs += std::string("  - {name: ") + name + ", type: rotational, free: true}\n";
  const std::string text =
      "format: frfit-model-1\nname: free\ngravity: [0, 0, 0]\ndofs:\n" + dofs +
      "frames:\n  - {name: base, parent: ground, transforms: [{transx: x0}, {transy: y0}, "
      "{transz: z0}, {rotx: r0}, {roty: p0}, {rotz: w0}]}\n"
      "bodies:\n  - name: bar\n    frame: base\n    beam:\n      length: 1.0\n"
      "      material: {E: 7.0e10, G: 2.6e10, density: 2700}\n"
      "      section: {shape: properties, A: 1.0e-3, Iy: 2.0e-7, Iz: 1.0e-7, J: 1.5e-7}\n"
      "      theory: euler_bernoulli\n      elements: 40\n"
      "sensor: base\npostures: {rest: }\n";
  const Model model = ParseModelText(text, "free");
  EXPECT_EQ(model.num_parameters(), 0);
  const Posture posture = Linearize(model, "rest");
  const JointCoefficients c = Coefficients(model, std::vector<double>{});
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(
      TangentStiffness(posture, c).real(), MassMatrix(posture, c));
  const Eigen::VectorXd lambda = solver.eigenvalues();
  int rigid = 0;
  std::vector<double> fe;
  for (int i = 0; i < lambda.size(); ++i) {
    if (std::abs(lambda(i)) < 1e-8 * lambda.maxCoeff()) ++rigid;
    else if (std::sqrt(lambda(i)) < 6500.0) fe.push_back(std::sqrt(lambda(i)));
  }
  EXPECT_EQ(rigid, 6);
  // Bending about z (I = Iz) and about y (I = Iy) below 6500 rad/s; torsion (6.9e3) and axial
  // (1.6e4) lie above.
  std::vector<double> exact;
  for (double inertia : {Iz, Iy})
    for (double w : test::EulerBernoulliOmegas({E, G, rho, A, inertia, 0.0}, L, 1.0, 4))
      if (w < 6500.0) exact.push_back(w);
  std::sort(exact.begin(), exact.end());
  ASSERT_EQ(fe.size(), exact.size());
  const double worst = WorstRelative(fe, exact, exact.size());
  std::printf("free base, 40 elements: 6 rigid modes, %zu bending modes below 6500 rad/s within "
              "%.2e\n", exact.size(), worst);
  EXPECT_LT(worst, 1e-5);
}

}  // namespace
}  // namespace frfit
