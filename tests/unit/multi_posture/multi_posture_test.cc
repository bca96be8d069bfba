// Multi-posture identification (beyond the paper's single posture): FRFs of several postures
// fitted at once pin down parameters one posture leaves weakly determined, and a posture-dependent
// stiffness law fitted on three postures predicts a fourth.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "frfit/common/error.h"
#include "frfit/results/modal_comparison.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;

// Runs `frfit fit ... --json` and returns its JSON (fails the test on a non-zero exit).
nlohmann::json Fit(const std::string& dataset, const std::string& frf_list, int seed) {
  const std::string d = kRoot + "/datasets/" + dataset;
  const std::string command = std::string(FRFIT_CLI_PATH) + " fit --backend cpu --model " + d +
                              "/model.yaml --config " + d + "/fit.yaml --frf " + frf_list +
                              " --seed " + std::to_string(seed) + " --json 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  EXPECT_EQ(status, 0) << command;
  return nlohmann::json::parse(out);
}

std::string Frfs(const std::string& dataset, std::initializer_list<const char*> postures) {
  std::string list;
  for (const char* p : postures)
    list += (list.empty() ? "" : ",") + kRoot + "/datasets/" + dataset + "/frf_" + p + "_inertance.h5";
  return list;
}

// The KUKA model has four modes below 30 Hz at a posture but nine DOFs: one posture leaves
// parameters weakly determined (the paper's Table 5: "Fit on model" differs from "From [34]"
// while the FRFs coincide). Three postures see the joints in three configurations. With 2 %
// measurement noise the identifiability report says so, and its 1σ is what the fitted values
// actually miss the truth by.
TEST(MultiPostureKuka, ThreePosturesPinDownWhatOnePostureLeavesOpen) {
  const Model model = LoadModel(kRoot + "/datasets/kuka_kr90/model.yaml");
  const std::vector<double> truth = LoadParameters(kRoot + "/datasets/kuka_kr90/params_from34.yaml", model);
  const std::string dir =
      std::filesystem::temp_directory_path() / ("frfit_multi_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  std::string noisy[3];
  const char* postures[] = {"milling", "reach", "folded"};
  for (int k = 0; k < 3; ++k) {
    FrfSet set = ReadFrfSet(kRoot + "/datasets/kuka_kr90/frf_" + postures[k] + "_inertance.h5");
    for (auto& h : set.H) {
      const double re = normal(rng), im = normal(rng);
      h *= std::complex<double>(1.0 + 0.02 * re / std::sqrt(2.0), 0.02 * im / std::sqrt(2.0));
    }
    noisy[k] = dir + "/" + postures[k] + ".h5";
    WriteFrfSet(noisy[k], set);
  }
  const nlohmann::json one = Fit("kuka_kr90", noisy[0], 1);
  const nlohmann::json three = Fit("kuka_kr90", noisy[0] + "," + noisy[1] + "," + noisy[2], 1);
  std::filesystem::remove_all(dir);
  auto sigma = [](const nlohmann::json& fit, const std::string& name) {
    return fit["identifiability"]["parameters"][name]["std_relative"].get<double>();
  };
  double one_k = 0.0, three_k = 0.0;
  for (int p = 0; p < model.num_parameters(); ++p) {
    const std::string& name = model.parameters[p].name;
    const double error = three["parameters"][name].get<double>() / truth[p] - 1.0;
    std::printf(
        "%-6s 1σ: one posture %9.3f %%, three postures %9.3f %%; three postures' error %8.3f %%\n",
        name.c_str(), 100 * sigma(one, name), 100 * sigma(three, name), 100 * error);
    if (model.parameters[p].kind != ParameterKind::kStiffness) continue;
    one_k += sigma(one, name);
    three_k += sigma(three, name);
    // Three postures pin every stiffness to 1 %, and the fit lies within 4σ of the truth.
    EXPECT_LT(sigma(three, name), 0.01) << name;
    EXPECT_LT(std::abs(error), 4.0 * sigma(three, name)) << name;
  }
  EXPECT_GT(one_k, 5.0 * three_k) << "the stiffnesses' summed 1σ, one posture against three";
  // k_x3, the weakest stiffness of one posture, is loosely determined there (about 6 % with the
  // noise weights, which use every line's information; 45 % with the paper's peak weights); and
  // the dampings of DOFs whose modes lie above the 30 Hz band stay open either way.
  EXPECT_GT(sigma(one, "k_x3"), 0.03);
  EXPECT_GT(sigma(one, "k_x3"), 10.0 * sigma(three, "k_x3"));
  for (const char* name : {"d_x2", "d_y3"}) {
    EXPECT_GT(sigma(one, name), 1.0) << name;
    EXPECT_GT(sigma(three, name), 1.0) << name;
  }
}

TEST(MultiPostureLaw, LawFittedOnThreePosturesPredictsTheFourth) {
  const Model model = LoadModel(kRoot + "/datasets/paper_3dof_law/model.yaml");
  const std::vector<double> truth =
      LoadParameters(kRoot + "/datasets/paper_3dof_law/params_truth.yaml", model);
  const nlohmann::json result = Fit("paper_3dof_law", Frfs("paper_3dof_law", {"milling", "reach", "folded"}), 1);
  std::vector<double> fitted;
  for (const ParameterSpec& p : model.parameters) fitted.push_back(result["parameters"][p.name].get<double>());
  // The posture `check` (z2 = 50°, z3 = −70°) was never fitted.
  const Posture check = Linearize(model, "check");
  const std::vector<Mode> predicted = ComputeModes(check, Coefficients(model, fitted, check.q));
  const std::vector<Mode> actual = ComputeModes(check, Coefficients(model, truth, check.q));
  ASSERT_EQ(predicted.size(), actual.size());
  for (size_t k = 0; k < actual.size(); ++k) {
    EXPECT_NEAR(predicted[k].frequency_hz, actual[k].frequency_hz, 0.01 * actual[k].frequency_hz)
        << "mode " << k + 1;
    std::printf("check posture mode %zu: predicted %.4f Hz, actual %.4f Hz\n", k + 1,
                predicted[k].frequency_hz, actual[k].frequency_hz);
  }
  // A constant stiffness fitted at one posture predicts the fourth worse than 1 %: the law matters.
  const Posture milling = Linearize(model, "milling");
  std::vector<double> frozen = truth;  // the law's value at milling, held constant
  for (int j : {1, 2}) {
    double k = 0.0;
    for (size_t t = 0; t < model.dofs[j].stiffness_law.size(); ++t)
      k += truth[model.FindParameter("k_" + model.dofs[j].name + "_" + std::to_string(t))] *
           model.dofs[j].stiffness_law[t].basis.Evaluate(milling.q);
    frozen[model.FindParameter("k_" + model.dofs[j].name + "_0")] = k;
    frozen[model.FindParameter("k_" + model.dofs[j].name + "_1")] = 0.0;
  }
  const std::vector<Mode> constant = ComputeModes(check, Coefficients(model, frozen, check.q));
  double worst = 0.0;
  for (size_t k = 0; k < actual.size(); ++k)
    worst = std::max(worst, std::abs(constant[k].frequency_hz / actual[k].frequency_hz - 1.0));
  EXPECT_GT(worst, 0.01);
}

// The law dataset's FRF files name the parameters they were synthesised from, one of them a
// negative law coefficient: the modal comparison's reference is the model with those parameters
// (the truth), not the peak picking used when no such parameters are known.
TEST(MultiPostureLaw, ModalReferenceIsTheLawTheFrfsWereSynthesisedFrom) {
  const Model model = LoadModel(kRoot + "/datasets/paper_3dof_law/model.yaml");
  const std::vector<double> truth =
      LoadParameters(kRoot + "/datasets/paper_3dof_law/params_truth.yaml", model);
  ASSERT_LT(truth[model.FindParameter("k_z2_1")], 0.0);
  for (const char* name : {"milling", "reach", "folded"}) {
    const FrfSet measured =
        ReadFrfSet(kRoot + "/datasets/paper_3dof_law/frf_" + std::string(name) + "_inertance.h5");
    const Posture posture = Linearize(model, name);
    std::string description;
    const std::vector<Mode> reference =
        ReferenceModes(model, posture, measured, measured.frequency_hz.back(), &description);
    EXPECT_EQ(description, "modes of the model with the parameters the FRFs were synthesised from")
        << name;
    const std::vector<Mode> actual = ComputeModes(posture, Coefficients(model, truth, posture.q));
    ASSERT_EQ(reference.size(), actual.size()) << name;
    for (size_t k = 0; k < actual.size(); ++k) {
      EXPECT_NEAR(reference[k].frequency_hz, actual[k].frequency_hz, 1e-9 * actual[k].frequency_hz);
      EXPECT_NEAR(reference[k].damping_ratio, actual[k].damping_ratio, 1e-9);
    }
  }
}

TEST(MultiPostureLaw, BoundsThatAllowANonPositiveStiffnessAreRefused) {
  std::string text;
  {
    FILE* f = std::fopen((kRoot + "/datasets/paper_3dof_law/model.yaml").c_str(), "rb");
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, f)) text.append(buffer, n);
    std::fclose(f);
  }
  // cos(z2) at the posture reach (30°) is 0.87: a coefficient down to −3e6 can cancel k_z2_0 = 2e6.
  const std::string bad_from = "{basis: \"cos(z2)\", initial: 0, min: -1.0e6, max: 1.0e6}";
  const auto at = text.find(bad_from);
  ASSERT_NE(at, std::string::npos);
  std::string bad = text;
  bad.replace(at, bad_from.size(), "{basis: \"cos(z2)\", initial: 0, min: -3.0e6, max: 1.0e6}");
  try {
    ParseModelText(bad, "law.yaml");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("law.yaml"), std::string::npos) << message;
    EXPECT_NE(message.find("stiffness_law"), std::string::npos) << message;
    EXPECT_NE(message.find("positive"), std::string::npos) << message;
  }
  // Unknown coordinate in a basis function.
  std::string unknown = text;
  const std::string basis = "basis: \"cos(z2+z3)\"";
  ASSERT_NE(unknown.find(basis), std::string::npos);
  unknown.replace(unknown.find(basis), basis.size(), "basis: \"cos(z2+q9)\"");
  EXPECT_THROW(ParseModelText(unknown, "law.yaml"), Error);
}

TEST(MultiPostureLaw, EvaluatingALawWhereItTurnsNegativeIsAnError) {
  const Model model = LoadModel(kRoot + "/datasets/paper_3dof_law/model.yaml");
  std::vector<double> p = model.InitialParameters();
  p[model.FindParameter("k_z2_0")] = 2.0e6;
  p[model.FindParameter("k_z2_1")] = -3.0e6;  // k_z2 = 2e6 − 3e6·cos(z2) < 0 at z2 = 0
  std::vector<double> q(model.num_coordinates(), 0.0);
  EXPECT_THROW(Coefficients(model, p, q), Error);
  q[1] = M_PI / 2;  // cos = 0: k_z2 = 2e6
  EXPECT_NEAR(Coefficients(model, p, q).stiffness[1], 2.0e6, 1e-6);
  // Without a posture the law cannot be evaluated.
  EXPECT_THROW(Coefficients(model, p), Error);
}

}  // namespace
}  // namespace frfit
