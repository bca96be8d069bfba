// datasets/free_free_beam and datasets/beam_frame: structures on a free base (six coordinates
// without springs), 30 coordinates each, which the evaluators solve in full. The free-free bar's
// six rigid-body modes and its bending modes against the continuous bar (cos βL cosh βL = 1,
// written here from the README's numbers) within its 4 elements' discretisation error, and both
// fits recovering the truth their FRFs were simulated from.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

TEST(BeamDatasets, FreeFreeBarModesEqualTheContinuousBar) {
  const Model model = LoadModel(kData + "free_free_beam/model.yaml");
  const std::vector<double> p = LoadParameters(kData + "free_free_beam/params_truth.yaml", model);
  const Posture posture = Linearize(model, "hung");
  const JointCoefficients c = Coefficients(model, p);
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(
      TangentStiffness(posture, c).real(), MassMatrix(posture, c));
  const Eigen::VectorXd lambda = solver.eigenvalues();
  int rigid = 0;
  std::vector<double> fe;
  for (int i = 0; i < lambda.size(); ++i) {
    if (std::abs(lambda(i)) < 1e-8 * lambda.maxCoeff()) ++rigid;
    else if (std::sqrt(lambda(i)) < 2 * M_PI * 1000.0) fe.push_back(std::sqrt(lambda(i)) / (2 * M_PI));
  }
  EXPECT_EQ(rigid, 6);
  // 0.8 m, 40 × 20 mm steel, E = 205 GPa; the first three roots of cos x cosh x = 1.
  const double L = 0.8, e = 2.05e11, rho_a = 7850 * 0.04 * 0.02;
  std::vector<double> exact;
  for (double inertia : {0.04 * std::pow(0.02, 3) / 12, 0.02 * std::pow(0.04, 3) / 12})
    for (double bl : {4.730040744862704, 7.853204624095838, 10.995607838001671}) {
      const double f = bl * bl / (L * L) * std::sqrt(e * inertia / rho_a) / (2 * M_PI);
      if (f < 1000.0) exact.push_back(f);
    }
  std::sort(exact.begin(), exact.end());
  ASSERT_EQ(fe.size(), exact.size());  // torsion (1.5 kHz) and axial lie above
  for (size_t i = 0; i < exact.size(); ++i) {
    std::printf("free-free bar mode %zu: %.4f Hz (continuous %.4f Hz)\n", i + 1, fe[i], exact[i]);
    // Hermite cubics with consistent mass are stiff, by (h⁴): 0.11 % on the first mode, 0.79 %
    // on the third of the x–z plane with 4 elements.
    EXPECT_GT(fe[i], exact[i]);
    EXPECT_LT(fe[i] / exact[i] - 1.0, 1e-2);
  }
}

class BeamDatasetFit : public test::TempDirTest {};

TEST_F(BeamDatasetFit, FreeStructuresRecoverTheirTruth) {
  for (const std::string name : {"free_free_beam", "beam_frame"}) {
    const std::string dir = kData + name + "/";
    const test::CliResult r =
        Run({"fit", "--model", dir + "model.yaml", "--frf", dir + "frf_hung_inertance.h5", "--config",
             dir + "fit.yaml", "--backend", "cpu", "--seed", "1", "--json"});
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    const auto json = nlohmann::json::parse(r.out);
    EXPECT_FALSE(json.contains("reduction")) << name;  // 30 coordinates: the full solve
    const Model model = LoadModel(dir + "model.yaml");
    const std::vector<double> truth = LoadParameters(dir + "params_truth.yaml", model);
    for (const auto& [parameter, value] : json["parameters"].items())
      EXPECT_NEAR(value.get<double>() / truth[model.FindParameter(parameter)], 1.0, 1e-6)
          << name << " " << parameter;
  }
}

}  // namespace
}  // namespace frfit
