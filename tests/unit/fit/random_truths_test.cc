// The bundled configurations on parameter sets nobody tuned them for: truths drawn log-uniformly
// inside the models' bounds (5 % of the log range away from them), noise-free FRFs synthesised
// from them, fitted with the datasets' fit.yaml. benchmarks/lsq_vs_scipy.py measures the same on
// more draws (benchmarks/RESULTS.md); this keeps a fixed handful in every test run.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "frfit/fit/fit_driver.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/load_problem.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

std::vector<double> DrawTruth(const Model& model, std::mt19937_64* rng) {
  std::vector<double> truth;
  for (const ParameterSpec& p : model.parameters) {
    const double lo = std::log(p.bounds.min), hi = std::log(p.bounds.max),
                 margin = 0.05 * (hi - lo);
    truth.push_back(
        std::exp(std::uniform_real_distribution<double>(lo + margin, hi - margin)(*rng)));
  }
  return truth;
}

// The fit's problem for FRFs synthesised from `truth` at `postures` (0.2 to 30 Hz by 0.2 Hz).
Problem SyntheticProblem(std::shared_ptr<const Model> model, const std::vector<double>& truth,
                         const std::vector<std::string>& postures, const FitOptions& options) {
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  std::vector<double> lines;
  for (int k = 1; k <= 150; ++k) lines.push_back(0.2 * k);
  for (const std::string& name : postures) {
    const Posture posture = Linearize(*model, name);
    FrfSet set =
        Synthesize(posture, Coefficients(*model, truth, posture.q), lines, FrfFormat::kInertance);
    set.posture = name;
    problem.postures.push_back(
        PreparePosture(posture, set, options.cost, "synthetic " + name, 1.0));
  }
  return problem;
}

struct Outcome {
  int within_2_percent = 0;
  std::int64_t evaluations = 0;
};

Outcome FitAndCompare(std::shared_ptr<const Model> model, const Problem& problem,
                      const FitOptions& options, const std::vector<double>& truth,
                      std::uint64_t seed) {
  const ParameterMap map(*model, options.parameters, "test");
  auto evaluator = CreateCpuEvaluator(0);
  evaluator->SetProblems({PackForPass(problem, map, 0, {})});
  FitRun run(map, options, seed);
  DriveFits({MakeFitJob(&run, map, problem)}, evaluator.get(), {});
  const std::vector<double> fitted = map.Physical(run.best_u());
  Outcome out;
  out.evaluations = run.evaluations();
  for (size_t i = 0; i < truth.size(); ++i)
    out.within_2_percent += std::abs(fitted[i] / truth[i] - 1.0) < 0.02;
  return out;
}

TEST(RandomTruths, KukaOnePostureRecoversAll18ParametersIn5000Evaluations) {
  const auto model = std::make_shared<const Model>(LoadModel(kData + "kuka_kr90/model.yaml"));
  const FitOptions options = LoadFitOptions(kData + "kuka_kr90/fit.yaml");
  std::mt19937_64 rng(2026);
  for (int t = 0; t < 6; ++t) {
    const std::vector<double> truth = DrawTruth(*model, &rng);
    const Outcome out = FitAndCompare(model, SyntheticProblem(model, truth, {"milling"}, options),
                                      options, truth, 1);
    std::printf("[ kuka truth %d ] %d/18 within 2 %%, %lld evaluations\n", t, out.within_2_percent,
                static_cast<long long>(out.evaluations));
    EXPECT_EQ(out.within_2_percent, 18) << "truth " << t;
    EXPECT_LE(out.evaluations, 5000) << "truth " << t;
  }
}

// Noise-free data give the truth with every cost type. The linear cost normalized_complex has a
// minimum wherever a mode sits across a measured peak: its search runs on the log cost and only
// the refinement on the linear one (fit/fit_passes.h); searched on itself with the paper's peak
// weights it ended in a wrong minimum on 7 of 10 KUKA truths drawn over the bounds at three
// postures, and on some of these 8.
TEST(RandomTruths, KukaThreePosturesEveryCostTypeRecoversTheTruth) {
  const auto model = std::make_shared<const Model>(LoadModel(kData + "kuka_kr90/model.yaml"));
  std::mt19937_64 rng(7);
  for (int t = 0; t < 8; ++t) {
    const std::vector<double> truth = DrawTruth(*model, &rng);
    for (CostType type : {CostType::kLogComplex, CostType::kLogMagnitude, CostType::kNormalizedComplex}) {
      FitOptions options = LoadFitOptions(kData + "kuka_kr90/fit.yaml");
      options.cost.type = type;
      // The linear cost with the paper's peak weights, as the wrong minima were seen.
      if (type == CostType::kNormalizedComplex) {
        options.cost.weights.mode = WeightMode::kPeaks;
        options.cost.weights.peak_gain = 80.0;
      }
      const Problem problem =
          SyntheticProblem(model, truth, {"milling", "reach", "folded"}, options);
      const Outcome out = FitAndCompare(model, problem, options, truth, 1);
      EXPECT_EQ(out.within_2_percent, 18) << "truth " << t << ", " << ToString(type);
    }
  }
}

TEST(RandomTruths, ThreeJointAtTwoPosturesRecoversEveryTruthForEverySeed) {
  // The dataset's model with a second posture (the law dataset's reach: z2 = 30°, z3 = −40°).
  std::string text = test::ReadText(kData + "paper_3dof/model.yaml");
  const std::string milling = "  milling: {z1: 0, z2: 70, z3: -100}   # degrees";
  ASSERT_NE(text.find(milling), std::string::npos);
  text.replace(text.find(milling), milling.size(), milling + "\n  reach: {z1: 0, z2: 30, z3: -40}");
  const auto model =
      std::make_shared<const Model>(ParseModelText(text, "paper_3dof, two postures"));
  const FitOptions options = LoadFitOptions(kData + "paper_3dof/fit.yaml");
  std::mt19937_64 rng(31);
  for (int t = 0; t < 5; ++t) {
    const std::vector<double> truth = DrawTruth(*model, &rng);
    const Problem problem = SyntheticProblem(model, truth, {"milling", "reach"}, options);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const Outcome out = FitAndCompare(model, problem, options, truth, seed);
      EXPECT_EQ(out.within_2_percent, 6) << "truth " << t << " seed " << seed;
      EXPECT_LE(out.evaluations, 1000) << "truth " << t << " seed " << seed;
    }
  }
}

}  // namespace
}  // namespace frfit
