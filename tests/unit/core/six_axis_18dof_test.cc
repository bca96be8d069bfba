// The synthetic six-axis dataset (datasets/six_axis_18dof): 18 elastic DOFs, the largest bundled
// problem and the n = 18 case of the evaluator benchmarks and the cuda-vs-cpu dataset tests. Its
// fit.yaml fits 0.2–40 Hz on the claim that each posture has exactly four modes there and none
// just above; the FRF files must be the truth parameters' inertance (cost ≈ 0 at the truth, far
// above it elsewhere); and every point of a random population within the bounds must evaluate
// (status ok), which the cuda tests rely on when they compare costs with ==.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/common/rng.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

const std::string kDir = std::string(FRFIT_SOURCE_DIR) + "/datasets/six_axis_18dof/";

TEST(CoreSixAxis18Dof, ModelHasEighteenVirtualJoints) {
  const Model model = LoadModel(kDir + "model.yaml");
  ASSERT_EQ(model.num_dofs(), 18);
  EXPECT_EQ(model.num_parameters(), 36);
  const char* names[] = {"z1", "x1", "y1", "z2", "x2", "y2", "z3", "x3", "y3",
                         "z4", "x4", "y4", "z5", "x5", "y5", "z6", "x6", "y6"};
  for (const char* name : names) EXPECT_GE(model.FindDof(name), 0) << name;
}

TEST(CoreSixAxis18Dof, FourLightlyDampedModesBelow40HzInEachPosture) {
  const Model model = LoadModel(kDir + "model.yaml");
  const std::vector<double> p = LoadParameters(kDir + "params_truth.yaml", model);
  for (const char* posture : {"milling", "reach"}) {
    const std::vector<Mode> modes = ComputeModes(Linearize(model, posture), Coefficients(model, p));
    ASSERT_EQ(modes.size(), 18u) << posture;
    int below = 0;
    for (const Mode& m : modes) below += m.frequency_hz < 40.0;
    EXPECT_EQ(below, 4) << posture;
    EXPECT_GT(modes[4].frequency_hz, 45.0) << posture << ": the fifth mode sits near the band edge";
    for (int k = 0; k < 4; ++k) {
      EXPECT_GT(modes[k].damping_ratio, 0.0) << posture << " mode " << k + 1;
      EXPECT_LT(modes[k].damping_ratio, 0.05) << posture << " mode " << k + 1;
    }
  }
}

TEST(CoreSixAxis18Dof, FrfFilesAreTheTruthAndRandomPointsAllEvaluate) {
  const FitOptions options = LoadFitOptions(kDir + "fit.yaml");
  auto model = std::make_shared<const Model>(LoadModel(kDir + "model.yaml"));
  const ParameterMap map(*model, options.parameters, kDir + "fit.yaml");
  ASSERT_EQ(map.dim(), 36);
  const Problem problem = LoadProblem(
      model, {kDir + "frf_milling_inertance.h5", kDir + "frf_reach_inertance.h5"}, options, kDir + "fit.yaml");
  const PackedProblem packed = Pack(problem);
  ASSERT_EQ(packed.n, 18);
  ASSERT_EQ(packed.num_postures(), 2);

  // Point 0: the truth; then 63 uniform draws over the bounds.
  constexpr int kPoints = 64;
  std::vector<double> u = map.ToU(LoadParameters(kDir + "params_truth.yaml", *model));
  Rng rng(18);
  while (u.size() < static_cast<size_t>(kPoints) * map.dim()) u.push_back(rng.Uniform());
  std::vector<double> coefficients;
  map.AppendCoefficients(u, PostureCoordinates(problem), &coefficients);
  auto evaluator = CreateCpuEvaluator(0);
  evaluator->SetProblems({packed});
  std::vector<double> costs(kPoints, -1.0);
  std::vector<EvalStatus> status(kPoints, EvalStatus::kOk);
  evaluator->Evaluate(std::vector<int>{kPoints}, coefficients, costs, status);

  for (int i = 0; i < kPoints; ++i) EXPECT_EQ(status[i], EvalStatus::kOk) << "point " << i;
  // Same model, same parameters: only rounding separates the files from the model (the cost sums
  // 400 weighted lines; one line off by 1 % would give about 1e-4 · weight).
  EXPECT_LT(costs[0], 1e-12);
  const double best_random = *std::min_element(costs.begin() + 1, costs.end());
  EXPECT_GT(best_random, 1e6 * std::max(costs[0], 1e-300)) << "the truth is not the clear minimum";
  EXPECT_GT(best_random, 1.0);
}

}  // namespace
}  // namespace frfit
