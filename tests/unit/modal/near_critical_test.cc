// A complex pair damped at kNearCriticalDamping (0.99) of critical or more is no mode
// (docs/decisions.md, "A near-critical pair is not a mode"): two rotors on their own shafts, each
// on a spring and a damper, so the pencil splits into two 1-DOF ones, m s² + c s + k, whose
// roots the test writes in closed form. The rotor damped at ζ = 0.995 leaves the modes (and the
// derivatives' columns) and is listed apart; the one at ζ = 0.9 stays a mode.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "test_support.h"

namespace frfit {
namespace {

using Cplx = std::complex<double>;

// Rotor i: a body of mass m at 0.5 m from its shaft with a central inertia j about the shaft, so
// m·0.5² + j about it; spring k, damper c chosen for damping ratio ζ = c / (2√(k I)).
struct Rotor {
  double mass, central_inertia, stiffness, zeta;
  double Inertia() const { return central_inertia + mass * 0.25; }
  double Damper() const { return 2.0 * zeta * std::sqrt(stiffness * Inertia()); }
  // The root with Im > 0 of I s² + c s + k.
  Cplx Eigenvalue() const {
    const double i = Inertia(), c = Damper();
    return Cplx(-c, std::sqrt(4.0 * i * stiffness - c * c)) / (2.0 * i);
  }
};

std::string Number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// Shafts on the ground (a tree: every frame's parent), parallel and 1 m apart, no gravity: no
// rotor moves another, so M, C and K are diagonal. The sensor is on the last rotor.
std::string RotorsModel(const std::vector<Rotor>& rotors) {
  std::string text =
      "format: frfit-model-1\nname: rotors\ngravity: [0, 0, 0]\ndamping_model: viscous\ndofs:\n";
  std::string frames = "frames:\n", bodies = "bodies:\n", posture = "postures:\n  rest: {";
  for (size_t i = 0; i < rotors.size(); ++i) {
    const Rotor& r = rotors[i];
    const std::string n = std::to_string(i + 1), j = Number(r.central_inertia);
    text += "  - {name: z" + n + ", type: rotational, stiffness: {initial: " + Number(r.stiffness) +
            ", min: 1.0, max: 1.0e9}, damping: {initial: " + Number(r.Damper()) +
            ", min: 1.0e-3, max: 1.0e9}}\n";
    frames += "  - {name: shaft" + n + ", parent: ground, transforms: [{disp: [0, " +
              std::to_string(i) + ", 0]}, {rotz: z" + n + "}]}\n";
    bodies += "  - {name: rotor" + n + ", frame: shaft" + n + ", mass: " + Number(r.mass) +
              ", com: [0.5, 0, 0], inertia: {xx: " + j + ", yy: " + j + ", zz: " + j +
              ", xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n";
    posture += (i ? ", z" : "z") + n + ": 0";
  }
  frames += "  - {name: tip, parent: shaft" + std::to_string(rotors.size()) +
            ", transforms: [{disp: [0.5, 0, 0]}]}\n";
  return text + frames + bodies + "sensor: tip\n" + posture + "}\n";
}
std::string TwoRotorModel(const Rotor& a, const Rotor& b) { return RotorsModel({a, b}); }

// Rotor 1 near-critical (ζ = 0.995), rotor 2 an ordinary damped mode (ζ = 0.9).
const Rotor kNearCritical{4.0, 0.25, 1.0e4, 0.995};
const Rotor kDamped{2.0, 0.1, 2.0e4, 0.9};

void ExpectEigenvalue(Cplx computed, Cplx exact) {
  EXPECT_LT(std::abs(computed - exact), 1e-10 * std::abs(exact)) << computed << " vs " << exact;
}

TEST(NearCriticalPairs, AreNoModesAndAreListedApart) {
  const Model model = ParseModelText(TwoRotorModel(kNearCritical, kDamped), "two_rotors.yaml");
  const Posture posture = Linearize(model, "rest");
  const JointCoefficients c = Coefficients(model, model.InitialParameters(), posture.q);

  const std::vector<Mode> modes = ComputeModes(posture, c);
  ASSERT_EQ(modes.size(), 1u);
  ExpectEigenvalue(modes[0].eigenvalue, kDamped.Eigenvalue());
  EXPECT_NEAR(modes[0].damping_ratio, 0.9, 1e-10);
  EXPECT_NEAR(modes[0].frequency_hz, kDamped.Eigenvalue().imag() / (2 * M_PI), 1e-10);

  const ModalAnalysis analysis = AnalyseModes(posture, c);
  ASSERT_EQ(analysis.modes.size(), 1u);
  ASSERT_EQ(analysis.near_critical.size(), 1u);
  ExpectEigenvalue(analysis.near_critical[0], kNearCritical.Eigenvalue());
  const Cplx lambda = analysis.near_critical[0];
  EXPECT_NEAR(-lambda.real() / std::abs(lambda), 0.995, 1e-10);
  EXPECT_TRUE(analysis.real_eigenvalues.empty());
  EXPECT_EQ(analysis.rigid_body_eigenvalues, 0);
}

// The derivatives have one column block per mode of ComputeModes, in its order: the ζ = 0.9
// rotor's, whose f = √(4Ik − c²)/(4πI) gives ∂f/∂k = 1/(2π√(4Ik − c²)) and
// ∂f/∂c = −c/(4πI√(4Ik − c²)); the near-critical rotor's coefficients do not move it.
TEST(NearCriticalPairs, DerivativeColumnsAreTheModes) {
  const Model model = ParseModelText(TwoRotorModel(kNearCritical, kDamped), "two_rotors.yaml");
  const Posture posture = Linearize(model, "rest");
  const JointCoefficients c = Coefficients(model, model.InitialParameters(), posture.q);
  const int n = posture.n;
  ASSERT_EQ(n, 2);
  const int stride = 3 * n + 1 + model.num_masses() + static_cast<int>(c.parts.size());
  const std::vector<double> df = ModeFrequencyDerivatives(posture, c);
  ASSERT_EQ(df.size(), static_cast<size_t>(stride));
  EXPECT_EQ(ModeEigenvalueDerivatives(posture, c).size(), static_cast<size_t>(stride));
  EXPECT_EQ(ModeShapeDerivatives(posture, c).size(), 1u);
  const double i = kDamped.Inertia(), d = kDamped.Damper();
  const double root = std::sqrt(4.0 * i * kDamped.stiffness - d * d);
  EXPECT_NEAR(df[1], 1.0 / (2 * M_PI * root), 1e-9 / (2 * M_PI * root));
  EXPECT_NEAR(df[n + 1], -d / (4 * M_PI * i * root), 1e-9 * d / (4 * M_PI * i * root));
  EXPECT_NEAR(df[0], 0.0, 1e-12 / (2 * M_PI * root));
  EXPECT_NEAR(df[n], 0.0, 1e-12 * d / (4 * M_PI * i * root));
}

// Four rotors near-critical, given in scrambled orders: no mode, every pair listed, sorted by
// Im λ. Their |λ| = ω_n (50, 200, 300, 100 rad/s) runs in another order than Im λ = ω_n√(1 − ζ²)
// (5.0, 8.9, 9.5, 12.6 1/s), so an order by modulus (the eigensolver's) would not pass.
TEST(NearCriticalPairs, AreSortedByFrequency) {
  const std::vector<Rotor> by_frequency = {{2.0, 0.1, 1.5e3, 0.995},
                                           {1.0, 0.05, 1.2e4, 0.999},
                                           {2.0, 0.1, 5.4e4, 0.9995},
                                           {4.0, 0.25, 1.25e4, 0.992}};
  for (size_t k = 1; k < by_frequency.size(); ++k)
    ASSERT_LT(by_frequency[k - 1].Eigenvalue().imag(), by_frequency[k].Eigenvalue().imag());
  for (const std::vector<int>& order : {std::vector<int>{0, 1, 2, 3}, {3, 1, 0, 2}, {2, 3, 1, 0}}) {
    std::vector<Rotor> rotors;
    for (int i : order) rotors.push_back(by_frequency[i]);
    const Model model = ParseModelText(RotorsModel(rotors), "rotors.yaml");
    const Posture posture = Linearize(model, "rest");
    const JointCoefficients c = Coefficients(model, model.InitialParameters(), posture.q);
    const ModalAnalysis analysis = AnalyseModes(posture, c);
    EXPECT_TRUE(analysis.modes.empty());
    ASSERT_EQ(analysis.near_critical.size(), by_frequency.size());
    for (size_t k = 0; k < by_frequency.size(); ++k)
      ExpectEigenvalue(analysis.near_critical[k], by_frequency[k].Eigenvalue());
    EXPECT_TRUE(ModeFrequencyDerivatives(posture, c).empty());
  }
}

class NearCriticalCli : public test::TempDirTest {};

// `frfit modal --json` lists the pair under near_critical_pairs and counts its DOF among those
// that do not oscillate; the text gives it one line and no "overdamped" line (no real eigenvalue).
TEST_F(NearCriticalCli, ModalListsThePairApart) {
  std::ofstream(Path("model.yaml")) << TwoRotorModel(kNearCritical, kDamped);
  test::CliResult r = Run({"modal", "--model", Path("model.yaml"), "--posture", "rest", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["dofs"], 2);
  ASSERT_EQ(json["modes"].size(), 1u);
  const double f_mode = kDamped.Eigenvalue().imag() / (2 * M_PI);
  EXPECT_NEAR(json["modes"][0]["frequency_hz"].get<double>(), f_mode, 1e-10 * f_mode);
  EXPECT_EQ(json["overdamped_dofs"], 1);
  EXPECT_TRUE(json["real_eigenvalues_1_per_s"].empty());
  ASSERT_EQ(json["near_critical_pairs"].size(), 1u);
  const double f_pair = kNearCritical.Eigenvalue().imag() / (2 * M_PI);
  EXPECT_NEAR(json["near_critical_pairs"][0]["frequency_hz"].get<double>(), f_pair, 1e-10 * f_pair);
  EXPECT_NEAR(json["near_critical_pairs"][0]["damping_ratio"].get<double>(), 0.995, 1e-10);

  r = Run({"modal", "--model", Path("model.yaml"), "--posture", "rest"});
  ASSERT_EQ(r.status, 0) << r.err;
  char line[96];
  std::snprintf(line, sizeof line, "near-critical pair at %.4g Hz, damping ratio 0.9950", f_pair);
  EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("overdamped"), std::string::npos) << r.out;

  // Without the near-critical rotor's damper pushed that far, no such key.
  std::ofstream(Path("model.yaml")) << TwoRotorModel({4.0, 0.25, 1.0e4, 0.5}, kDamped);
  r = Run({"modal", "--model", Path("model.yaml"), "--posture", "rest", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["modes"].size(), 2u);
  EXPECT_FALSE(nlohmann::json::parse(r.out).contains("near_critical_pairs")) << r.out;
}

}  // namespace
}  // namespace frfit
