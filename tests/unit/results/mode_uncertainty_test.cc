// The fit's covariance carried to predicted modes (fit/mode_uncertainty.h):
//   - the linearised 1σ of every mode's frequency and damping ratio equals gᵀ Cov g with g taken
//     by central finite differences of the modes themselves (an independent path: no eigenvalue
//     perturbation formula, no coefficient Jacobian);
//   - a covariance of another model's parameters gives NaN, not a wrong number;
//   - on noisy data, the fitted modes' 1σ is calibrated: the errors against the truth are within
//     2σ about 95 % of the time, with a median |z| near 0.67 (a σ half or twice as large fails);
//   - `frfit modal --params RESULT.h5` prints and reports the 1σ.
#include "frfit/results/mode_uncertainty.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

// A covariance over the model's stiffnesses and dampings (every parameter whose name starts with
// k_ or d_), with σ of a few percent and random correlations.
Identifiability RandomCovariance(const Model& model, const std::vector<double>& values,
                                 std::vector<int>* index, unsigned seed) {
  for (int i = 0; i < model.num_parameters(); ++i) {
    const std::string& name = model.parameters[i].name;
    if (name.rfind("k_", 0) == 0 || name.rfind("d_", 0) == 0) index->push_back(i);
  }
  const int p = static_cast<int>(index->size());
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd a(p, p);
  for (int r = 0; r < p; ++r)
    for (int c = 0; c < p; ++c) a(r, c) = normal(rng);
  const Eigen::MatrixXd s = a * a.transpose() + 0.5 * Eigen::MatrixXd::Identity(p, p);
  Identifiability id;
  for (int j = 0; j < p; ++j) {
    ParameterIdentifiability q;
    q.name = model.parameters[(*index)[j]].name;
    q.value = values[(*index)[j]];
    q.std_absolute = (0.01 + 0.04 * std::abs(normal(rng))) * std::abs(q.value);
    id.per_parameter.push_back(q);
  }
  for (int r = 0; r < p; ++r)
    for (int c = 0; c < p; ++c) id.correlation.push_back(s(r, c) / std::sqrt(s(r, r) * s(c, c)));
  return id;
}

TEST(ModeUncertainty, MatchesFiniteDifferencesOfTheModes) {
  const Model model = LoadModel(kData + "kuka_kr90/model.yaml");
  const std::vector<double> values = model.InitialParameters();
  std::vector<int> index;
  const Identifiability id = RandomCovariance(model, values, &index, 3);
  const int p = static_cast<int>(index.size());
  for (const std::string posture_name : {"milling", "reach"}) {
    const Posture posture = Linearize(model, posture_name);
    const std::vector<Mode> modes =
        ComputeModes(posture, Coefficients(model, values, posture.q));
    const std::vector<ModeSigma> sigma = PropagateModeSigmas(posture, model, values, id);
    ASSERT_EQ(sigma.size(), modes.size());
    // g[k][j]: central differences with a step of 1e-5 of the parameter.
    std::vector<std::vector<double>> gf(modes.size(), std::vector<double>(p)),
        gz(modes.size(), std::vector<double>(p));
    for (int j = 0; j < p; ++j) {
      const double h = 1e-5 * std::abs(values[index[j]]);
      std::vector<double> up = values, down = values;
      up[index[j]] += h, down[index[j]] -= h;
      const auto mu = ComputeModes(posture, Coefficients(model, up, posture.q));
      const auto md = ComputeModes(posture, Coefficients(model, down, posture.q));
      ASSERT_EQ(mu.size(), modes.size());
      for (size_t k = 0; k < modes.size(); ++k) {
        gf[k][j] = (mu[k].frequency_hz - md[k].frequency_hz) / (2 * h);
        gz[k][j] = (mu[k].damping_ratio - md[k].damping_ratio) / (2 * h);
      }
    }
    for (size_t k = 0; k < modes.size(); ++k) {
      double vf = 0.0, vz = 0.0;
      for (int a = 0; a < p; ++a)
        for (int b = 0; b < p; ++b) {
          const double cov = id.per_parameter[a].std_absolute * id.per_parameter[b].std_absolute *
                             id.correlation[a * p + b];
          vf += gf[k][a] * gf[k][b] * cov;
          vz += gz[k][a] * gz[k][b] * cov;
        }
      EXPECT_NEAR(sigma[k].frequency_hz, std::sqrt(vf), 1e-4 * std::sqrt(vf))
          << posture_name << " mode " << k + 1;
      EXPECT_NEAR(sigma[k].damping_ratio, std::sqrt(vz), 1e-4 * std::sqrt(vz))
          << posture_name << " mode " << k + 1;
      EXPECT_GT(sigma[k].frequency_hz, 0.0);
    }
  }
}

TEST(ModeUncertainty, AnotherModelsCovarianceGivesNaN) {
  const Model model = LoadModel(kData + "kuka_kr90/model.yaml");
  const std::vector<double> values = model.InitialParameters();
  std::vector<int> index;
  Identifiability id = RandomCovariance(model, values, &index, 4);
  id.per_parameter[0].name = "k_elsewhere";
  const Posture posture = Linearize(model, "milling");
  for (const ModeSigma& s : PropagateModeSigmas(posture, model, values, id)) {
    EXPECT_TRUE(std::isnan(s.frequency_hz));
    EXPECT_TRUE(std::isnan(s.damping_ratio));
  }
}

class ModeUncertaintyCli : public test::TempDirTest {};

// 20 noisy measurements of the 3-joint example (3 % relative noise and a 0.1 % floor, as an
// impact test), each fitted; its modes against the true ones (the model's initial values).
TEST_F(ModeUncertaintyCli, FittedModesSigmaIsCalibratedOnNoisyData) {
  const std::string model = kData + "paper_3dof/model.yaml";
  const auto truth = nlohmann::json::parse(
      Run({"modal", "--model", model, "--posture", "milling", "--json"}).out)["modes"];
  std::vector<double> z_frequency, z_damping;
  for (int seed = 1; seed <= 20; ++seed) {
    const std::string frf = Path("frf.h5"), result = Path("result.h5");
    ASSERT_EQ(Run({"simulate", "--model", model, "--posture", "milling", "--band", "1:100:0.25",
                   "--noise", "0.03:0.001", "--seed", std::to_string(seed), "--out", frf})
                  .status,
              0);
    ASSERT_EQ(Run({"fit", "--model", model, "--config", kData + "paper_3dof/fit.yaml", "--frf",
                   frf, "--quiet", "--out", result})
                  .status,
              0);
    const test::CliResult r = Run({"modal", "--model", model, "--posture", "milling", "--params",
                                   result, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto modes = nlohmann::json::parse(r.out)["modes"];
    ASSERT_EQ(modes.size(), truth.size());
    for (size_t k = 0; k < modes.size(); ++k) {
      z_frequency.push_back((modes[k]["frequency_hz"].get<double>() -
                             truth[k]["frequency_hz"].get<double>()) /
                            modes[k]["frequency_sigma_hz"].get<double>());
      z_damping.push_back((modes[k]["damping_ratio"].get<double>() -
                           truth[k]["damping_ratio"].get<double>()) /
                          modes[k]["damping_ratio_sigma"].get<double>());
    }
  }
  for (std::vector<double>* z : {&z_frequency, &z_damping}) {
    for (double& v : *z) v = std::abs(v);
    std::sort(z->begin(), z->end());
    const double within = std::count_if(z->begin(), z->end(), [](double v) { return v < 2; });
    EXPECT_GE(within / z->size(), 0.85) << (z == &z_frequency ? "frequency" : "damping");
    const double median = (*z)[z->size() / 2];
    EXPECT_GT(median, 0.4) << (z == &z_frequency ? "frequency" : "damping");
    EXPECT_LT(median, 1.0) << (z == &z_frequency ? "frequency" : "damping");
  }
}

TEST_F(ModeUncertaintyCli, ModalWithoutAResultHasNoSigma) {
  const test::CliResult r = Run({"modal", "--model", kData + "paper_3dof/model.yaml", "--posture",
                                 "milling", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& m : nlohmann::json::parse(r.out)["modes"])
    EXPECT_TRUE(m["frequency_sigma_hz"].is_null());
  const test::CliResult text =
      Run({"modal", "--model", kData + "paper_3dof/model.yaml", "--posture", "milling"});
  EXPECT_EQ(text.out.find("1σ"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace frfit
