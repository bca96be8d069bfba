// A beam fit that was reduced (fit/reduce_problem.h) is assessed on its reduced posture
// (fit/host_posture.h, docs/reduction.md): on datasets/flexible_arm the fitted and reference modes
// `frfit fit` reports equal the modes of the full 121-coordinate model — a dense eigensolution of
// its matrices assembled here — within ten times the reduction error the fit reports, and the
// model check's verdict and reduced χ² equal those of `reduction: {assess_on: full}`, which
// assesses on the full model.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <complex>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/fit/load_problem.h"
#include "frfit/fit/reduce_problem.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kArm = std::string(FRFIT_SOURCE_DIR) + "/datasets/flexible_arm/";

struct DenseMode {
  double frequency_hz, damping_ratio;
};

// The full posture's eigenvalues with Im λ > 0 from its matrices, λ²M + λC + K = 0 (K complex:
// structural loss), by Eigen's dense solver.
std::vector<DenseMode> DenseModes(const Posture& p, const JointCoefficients& c) {
  const int n = p.n;
  Eigen::MatrixXcd K = p.gravity_stiffness.cast<std::complex<double>>();
  Eigen::MatrixXcd C = Eigen::MatrixXcd::Zero(n, n);
  Eigen::MatrixXd M = p.mass;
  EXPECT_TRUE(p.mass_parts.empty());  // the arm fits no masses
  for (int i = 0; i < n; ++i) {
    K(i, i) += std::complex<double>(c.stiffness[i], c.hysteretic[i]);
    C(i, i) += c.viscous[i];
  }
  for (const AffinePart& part : p.affine_parts) {
    const double v = c.parts[part.coefficient];
    switch (part.target) {
      case AffinePart::Target::kStiffness: K += (v * part.matrix).cast<std::complex<double>>(); break;
      case AffinePart::Target::kLossStiffness:
        K += std::complex<double>(0.0, v) * part.matrix.cast<std::complex<double>>();
        break;
      case AffinePart::Target::kDamping: C += (v * part.matrix).cast<std::complex<double>>(); break;
      case AffinePart::Target::kMass: M += v * part.matrix; break;
    }
  }
  // Structural damping only (no viscous part, no α), so λ² = −μ with K x = μ M x: with M = L Lᵀ,
  // the eigenvalues μ of the complex symmetric L⁻¹ K L⁻ᵀ, whose rounding is eps·|μ_max| — not
  // the first-order system's, which its non-normality and 1e5 Hz spectrum spoil to ~1e-4 in the
  // band (docs/decisions.md, "Mode frequencies of a beam model").
  EXPECT_EQ(C.norm(), 0.0);
  EXPECT_EQ(c.mass_proportional, 0.0);
  const Eigen::LLT<Eigen::MatrixXd> llt(M);
  const Eigen::MatrixXcd L = Eigen::MatrixXd(llt.matrixL()).cast<std::complex<double>>();
  Eigen::MatrixXcd A = L.triangularView<Eigen::Lower>().solve(K);
  A = L.triangularView<Eigen::Lower>().solve(A.transpose().eval()).transpose().eval();
  Eigen::ComplexEigenSolver<Eigen::MatrixXcd> solver(A, false);
  std::vector<DenseMode> out;
  for (const std::complex<double>& mu : solver.eigenvalues()) {
    const std::complex<double> l = std::complex<double>(0.0, 1.0) * std::sqrt(mu);  // Im λ > 0
    out.push_back({l.imag() / (2.0 * M_PI), -l.real() / std::abs(l)});
  }
  return out;
}

const DenseMode& Nearest(const std::vector<DenseMode>& modes, double frequency_hz) {
  const DenseMode* best = &modes.front();
  for (const DenseMode& m : modes)
    if (std::abs(m.frequency_hz - frequency_hz) < std::abs(best->frequency_hz - frequency_hz))
      best = &m;
  return *best;
}

class ReducedAssessment : public test::TempDirTest {};

TEST_F(ReducedAssessment, ModesAndModelCheckEqualTheFullModels) {
  auto fit = [&](const std::string& config) {
    const test::CliResult r =
        Run({"fit", "--model", kArm + "model.yaml", "--frf", kArm + "frf_straight_inertance.h5",
             "--config", config, "--backend", "cpu", "--seed", "1", "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  {
    std::ifstream in(kArm + "fit.yaml");
    std::ofstream out(Path("fit.yaml"));
    out << in.rdbuf() << "\nreduction: {assess_on: full}\n";
  }
  const nlohmann::json reduced = fit(kArm + "fit.yaml"), full = fit(Path("fit.yaml"));
  const double error = reduced["reduction"]["straight"]["max_relative_error"].get<double>();
  ASSERT_GT(error, 0.0);
  ASSERT_LE(error, 1e-6);
  const double tolerance = 10.0 * error;  // relative in frequency, absolute in damping ratio

  // The full posture's modes, at the fitted parameters and at the truth the FRFs were made from
  // (the reference the fit compares with).
  const auto model = std::make_shared<const Model>(LoadModel(kArm + "model.yaml"));
  const Posture posture = Linearize(*model, "straight");
  ASSERT_EQ(posture.n, 121);
  std::vector<double> fitted = LoadParameters(kArm + "params_truth.yaml", *model);
  const std::vector<DenseMode> truth_modes = DenseModes(posture, Coefficients(*model, fitted, posture.q));
  for (const auto& [name, value] : reduced["parameters"].items())
    fitted[model->FindParameter(name)] = value.get<double>();
  const std::vector<DenseMode> fitted_modes = DenseModes(posture, Coefficients(*model, fitted, posture.q));

  const auto& rows = reduced["postures"][0]["modes"];
  ASSERT_GE(rows.size(), 3u);  // the arm's modes in 1–400 Hz
  for (const auto& row : rows) {
    const double f = row["fitted_frequency_hz"].get<double>();
    const DenseMode& m = Nearest(fitted_modes, f);
    EXPECT_NEAR(f / m.frequency_hz, 1.0, tolerance) << f;
    EXPECT_NEAR(row["fitted_damping_ratio"].get<double>(), m.damping_ratio, tolerance) << f;
    const double fr = row["reference_frequency_hz"].get<double>();
    const DenseMode& t = Nearest(truth_modes, fr);
    EXPECT_NEAR(fr / t.frequency_hz, 1.0, tolerance) << fr;
    EXPECT_NEAR(row["reference_damping_ratio"].get<double>(), t.damping_ratio, tolerance) << fr;
  }
  // The model check as the full model gives it. These FRFs are noise-free: the reduced χ² (on
  // the noise the check estimates from the data) is rounding and reduction error, ~1e-8 on both,
  // so its difference is bounded absolutely, far below the verdict's scale of 1.
  EXPECT_EQ(reduced["model_check"]["verdict"], full["model_check"]["verdict"]);
  const double chi2 = reduced["model_check"]["reduced_chi2"].get<double>();
  const double full_chi2 = full["model_check"]["reduced_chi2"].get<double>();
  EXPECT_NEAR(chi2, full_chi2, tolerance);
  // The modes' 1σ, through the reduced posture's eigenvalue sensitivities and the remapped
  // coefficient Jacobian: the full model's, once each is scaled by its own √χ² (σ widens on it).
  const auto& full_rows = full["postures"][0]["modes"];
  ASSERT_EQ(full_rows.size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k)
    for (const char* sigma : {"fitted_frequency_sigma_hz", "fitted_damping_sigma"})
      EXPECT_NEAR(rows[k][sigma].get<double>() / full_rows[k][sigma].get<double>(),
                  std::sqrt(chi2 / full_chi2), 1e-3)
          << k << " " << sigma;
}

}  // namespace
}  // namespace frfit
