// The reduction floor (fit/reduce_problem.h, ReductionFloor): a reduced model's least-squares
// search takes a cost down to what its reduction error explains for an exact fit, as a full
// model's takes a cost 1e-20 of its start's. On datasets/flexible_arm (121 coordinates reduced to
// 19): the bound itself against an independent weighted log cost of the reduced model at a point
// the error was measured at; a noise-free fit ending at its first cycle with fewer evaluations
// than without the floor, at the truth; and a fit to noisy data the floor changes in no bit.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/evaluator/evaluator.h"
#include "frfit/results/fit_call.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/reduce_problem.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kArm = std::string(FRFIT_SOURCE_DIR) + "/datasets/flexible_arm/";

class ReductionFloorTest : public test::TempDirTest {
 protected:
  void SetUp() override {
    test::TempDirTest::SetUp();
    model_ = std::make_shared<const Model>(LoadModel(kArm + "model.yaml"));
    options_ = LoadFitOptions(kArm + "fit.yaml");
    truth_ = LoadParameters(kArm + "params_truth.yaml", *model_);
  }

  // Fit's path (reduce, drive, finish) on `frf`, the run's reduction floor as MakeFitJob sets it
  // or, with `floor` false, taken away again: the fit as it was before the floor.
  FitResult FitArm(const std::string& frf, bool floor, double* floor_used = nullptr) const {
    const ParameterMap map(*model_, options_.parameters, "test");
    Problem problem = LoadProblem(model_, {frf}, options_, "test");
    ParameterMap reduced_map = map;
    EXPECT_TRUE(ReduceProblem(options_.reduction, "test", &reduced_map, &problem));
    FitRun run(reduced_map, options_, 1);
    const FitJob job = MakeFitJob(&run, reduced_map, problem);
    if (!floor) run.UseReductionFloor(0.0);
    if (floor_used) *floor_used = run.reduction_floor();
    EvaluatorOptions cpu;
    cpu.backend = BackendType::kCpu;
    cpu.threads = 2;
    const std::unique_ptr<Evaluator> evaluator = CreateEvaluator(cpu);
    evaluator->SetProblems({PackForPass(problem, reduced_map, 0, {})});
    DriveFits({job}, evaluator.get(), DriveOptions{});
    return FinishFit(problem, reduced_map, run, options_, "cpu", "cpu", 0.0);
  }

  std::shared_ptr<const Model> model_;
  FitOptions options_;
  std::vector<double> truth_;
};

// The derivation (docs/decisions.md, "The exact fit of a reduced model"): where the reduction
// error ε was measured, the reduced model's cost against the full model's noise-free FRFs is at
// most ε²·S. With the truth as the initial point — a sample of the reduction — the dataset's
// FRFs are the full model's there, and the reduced model's weighted log cost, computed here from
// a synthesis of its FRFs, must lie under ReductionFloor / kReductionFloorMargin. (Far under:
// the bound charges each line's error to its smallest fitted entry, the axial zz here.)
TEST_F(ReductionFloorTest, BoundsTheReducedModelsCostWhereItsErrorWasMeasured) {
  FitOptions at_truth = options_;
  for (const char* name : {"k_z1", "E_arm", "eta_z1", "eta_arm"})
    at_truth.parameters.bounds[name].initial = truth_[model_->FindParameter(name)];
  ParameterMap map(*model_, at_truth.parameters, "test");
  Problem problem =
      LoadProblem(model_, {kArm + "frf_straight_inertance.h5"}, at_truth, "test");
  EXPECT_EQ(ReductionFloor(problem), 0.0);  // not reduced: no floor
  ASSERT_TRUE(ReduceProblem(at_truth.reduction, "test", &map, &problem));
  const double bound = ReductionFloor(problem) / kReductionFloorMargin;
  ASSERT_GT(bound, 0.0);

  const ProblemPosture& pp = problem.postures.front();
  const Reduction& reduction = *pp.reduction;
  const JointCoefficients c = Coefficients(*model_, truth_, pp.posture.q);
  const FrfSet reduced =
      Synthesize(reduction.posture, ReducedCoefficients(c, reduction.joints, reduction.posture.n),
                 pp.measured.frequency_hz, pp.measured.format);
  const Problem search = SearchProblem(problem);  // kept: its weights are read below
  const std::vector<double>& weights = search.postures.front().weights;
  double cost = 0.0;
  for (size_t i = 0; i < weights.size(); ++i)
    if (weights[i] > 0.0)
      cost += weights[i] * std::norm(std::log(reduced.H[i] / pp.measured.H[i]));
  EXPECT_GT(cost, 0.0);  // the reduction is not exact
  EXPECT_LE(cost, bound) << "reduction error " << pp.reduction_error;
}

// Noise-free FRFs of the model itself: the reduced fit reaches its floor and ends as an exact
// fit at its first cycle, where without the floor it needs more cycles for three agreeing starts;
// the parameters are the truth's.
TEST_F(ReductionFloorTest, NoiseFreeFitEndsAtItsFirstCycleAsAnExactFit) {
  double floor = 0.0;
  const FitResult exact = FitArm(kArm + "frf_straight_inertance.h5", true, &floor);
  const FitResult before = FitArm(kArm + "frf_straight_inertance.h5", false);
  EXPECT_GT(floor, 0.0);
  EXPECT_LE(exact.search_cost, floor);
  EXPECT_EQ(exact.termination, "converged");
  EXPECT_EQ(exact.cycles, 1);
  EXPECT_GT(before.cycles, 1);
  EXPECT_LT(exact.evaluations, before.evaluations);
  for (const char* name : {"k_z1", "E_arm", "eta_z1", "eta_arm"}) {
    const int i = model_->FindParameter(name);
    EXPECT_NEAR(exact.parameters[i] / truth_[i], 1.0, 1e-6) << name;
  }
}

// Impact-test noise (3 % + 0.1 % of the peak) costs far more than the floor: the fit keeps every
// bit it had without it. The floor charges each line's whole error to its fitted entry of the
// smallest noise, a loose bound where the entries' sizes differ by decades as here (the axial zz
// against the bending xx, yy): about 1 % of this fit's cost, which χ² ± a few √(2N) over
// thousands of residuals cannot approach.
TEST_F(ReductionFloorTest, NoisyFitIsNotStoppedByTheFloor) {
  const std::string noisy = Path("arm_noisy.h5");
  const test::CliResult simulated =
      Run({"simulate", "--model", kArm + "model.yaml", "--posture", "straight", "--params",
           kArm + "params_truth.yaml", "--band", "1:400:0.25", "--format", "inertance",
           "--noise", "0.03:0.001", "--seed", "4", "--out", noisy});
  ASSERT_EQ(simulated.status, 0) << simulated.err;
  double floor = 0.0;
  const FitResult with = FitArm(noisy, true, &floor);
  const FitResult without = FitArm(noisy, false);
  EXPECT_GT(floor, 0.0);
  EXPECT_LT(floor, 0.05 * with.search_cost);
  EXPECT_EQ(with.parameters, without.parameters);
  EXPECT_EQ(with.cost, without.cost);
  EXPECT_EQ(with.evaluations, without.evaluations);
  EXPECT_EQ(with.cycles, without.cycles);
}

}  // namespace
}  // namespace frfit
