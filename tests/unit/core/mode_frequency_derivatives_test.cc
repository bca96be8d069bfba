// ModeFrequencyDerivatives (modal/modal.h), the exact first-order derivatives of every mode's
// frequency by the joint coefficients that the fleet's drift report turns into a frequency's 1σ,
// checked against central differences of ComputeModes itself: each coefficient (stiffness,
// viscous, hysteretic per DOF, the mass-proportional α and a fitted body mass) moved by ±h,
// Richardson-extrapolated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;

// The coefficient `row` of the packed order (stiffness, viscous, hysteretic per DOF, α, masses).
double& Entry(JointCoefficients& c, int n, int row) {
  if (row < n) return c.stiffness[row];
  if (row < 2 * n) return c.viscous[row - n];
  if (row < 3 * n) return c.hysteretic[row - 2 * n];
  if (row == 3 * n) return c.mass_proportional;
  return c.masses[row - 3 * n - 1];
}

std::vector<double> Frequencies(const Posture& posture, const JointCoefficients& c) {
  std::vector<double> f;
  for (const Mode& m : ComputeModes(posture, c)) f.push_back(m.frequency_hz);
  return f;
}

void ExpectDerivativesMatchDifferences(const std::string& model_file,
                                       const std::string& params_file,
                                       const std::string& posture_name) {
  const Model model = LoadModel(model_file);
  const Posture posture = Linearize(model, posture_name);
  const JointCoefficients base = Coefficients(model, LoadParameters(params_file, model), posture.q);
  const int n = posture.n;
  const int stride = 3 * n + 1 + model.num_masses();
  const std::vector<double> modes = Frequencies(posture, base);
  const std::vector<double> exact = ModeFrequencyDerivatives(posture, base);
  ASSERT_FALSE(modes.empty());
  ASSERT_EQ(exact.size(), modes.size() * stride);
  for (int row = 0; row < stride; ++row) {
    // A step of a thousandth of the coefficient's size (of the stiffness of the same DOF for the
    // hysteretic part, which is 0 with viscous damping; 1/s for α): the eigenvalues carry
    // rounding of about 1e-11 of the largest, which smaller steps would amplify.
    const double size = row < n       ? base.stiffness[row]
                        : row < 2 * n ? std::max(std::fabs(base.viscous[row - n]), 1.0)
                        : row < 3 * n ? base.stiffness[row - 2 * n]
                        : row == 3 * n ? 1.0
                                       : base.masses[row - 3 * n - 1];
    auto difference = [&](double h) {
      JointCoefficients up = base, down = base;
      Entry(up, n, row) += h;
      Entry(down, n, row) -= h;
      const std::vector<double> a = Frequencies(posture, up), b = Frequencies(posture, down);
      std::vector<double> d(modes.size());
      for (size_t k = 0; k < modes.size(); ++k) d[k] = (a.at(k) - b.at(k)) / (2 * h);
      return d;
    };
    const double h = 1e-3 * size;
    const std::vector<double> coarse = difference(h), fine = difference(h / 2);
    for (size_t k = 0; k < modes.size(); ++k) {
      const double richardson = (4 * fine[k] - coarse[k]) / 3;
      // Agreement to 1e-6 of the frequency per relative change of the coefficient: a wrong term
      // is off by the derivative itself, up to 0.01–0.5 of the frequency here.
      EXPECT_NEAR(exact[k * stride + row], richardson, 1e-6 * modes[k] / size)
          << posture_name << " mode " << k + 1 << " (" << modes[k] << " Hz), coefficient row "
          << row;
    }
  }
}

TEST(ModeFrequencyDerivatives, KukaMatchesCentralDifferences) {
  ExpectDerivativesMatchDifferences(kRoot + "/datasets/kuka_kr90/model.yaml",
                                    kRoot + "/datasets/kuka_kr90/params_from34.yaml", "milling");
}

// ∂λ/∂m of a fitted tool mass, which moves M0, K_gravity and (with α) C0 at once.
TEST(ModeFrequencyDerivatives, KukaWithAFittedToolMassMatchesCentralDifferences) {
  ExpectDerivativesMatchDifferences(kRoot + "/datasets/kuka_kr90/model_tool.yaml",
                                    kRoot + "/datasets/kuka_kr90/params_tool_78kg.yaml", "folded");
}

TEST(ModeFrequencyDerivatives, ThreeJointRobotMatchesCentralDifferences) {
  ExpectDerivativesMatchDifferences(kRoot + "/datasets/paper_3dof/model.yaml",
                                    kRoot + "/datasets/paper_3dof/params_table1.yaml", "milling");
}

}  // namespace
}  // namespace frfit

namespace frfit {
namespace {

// A coefficient that overflows the state matrix (1e300 N·m·s/rad, from a typed parameter file or
// a draw far out of a wide covariance) is refused with an Error naming the posture: the
// eigensolver returned NaN vectors, and normalising a mode shape by its largest entry indexed out
// of range (a segmentation fault).
TEST(ModalAnalysis, CoefficientsBeyondDoublePrecisionAreRefused) {
  const Model model = LoadModel(kRoot + "/datasets/kuka_kr90/model.yaml");
  const Posture posture = Linearize(model, "milling");
  JointCoefficients c = Coefficients(model, model.InitialParameters(), posture.q);
  for (const auto& [viscous, message] :
       {std::pair<double, const char*>{1e300, "the eigenvalue problem did not converge"},
        {INFINITY, "the state matrix is not finite"}})
  for (auto* analyse : {+[](const Posture& p, const JointCoefficients& k) { AnalyseModes(p, k); },
                        +[](const Posture& p, const JointCoefficients& k) { ModeEigenvalueDerivatives(p, k); }}) {
    try {
      c.viscous[1] = viscous;
      analyse(posture, c);
      ADD_FAILURE() << "accepted " << viscous;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("posture milling: modes: ") + message),
                std::string::npos)
          << e.what();
    }
  }
  c.viscous[1] = 1e30;  // large, but representable: still analysed
  EXPECT_FALSE(AnalyseModes(posture, c).modes.empty());
}

}  // namespace
}  // namespace frfit
