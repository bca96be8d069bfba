// The evaluators' size rule (CheckLineCapacity, include/frfit/evaluator/evaluator.h): the per-line
// kernels solve at most kernels::kMaxDofs coordinates, so a problem with FRF or static lines past
// that is refused with the message it always had; a problem without lines — a fit from measured
// modes alone, whose cost the host computes (fit/modal_cost.h) — is never solved line by line and
// is taken at any size (and `reduction.mode: never` does not refuse it). Checked here on the cpu
// backend; the cuda backend's host tables take the same rule in cuda/cuda_launch_test.cc
// (CudaLaunch.LineFreeProblemPastTheCapacity...), and a fit from modes alone of a 120-coordinate
// beam model in beam/beam_modes_fit_test.cc.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "beam/l_frame_modes.h"
#include "cuda/feature_batch.h"
#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/reduce_problem.h"
#include "kernels/line_cost.h"

namespace frfit {
namespace {

using feature_batch::Batch;
using feature_batch::MakeBatch;

std::string SetProblemsError(const std::vector<PackedProblem>& problems) {
  auto cpu = CreateCpuEvaluator(1);
  try {
    cpu->SetProblems(problems);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::vector<double> Costs(const Batch& b, std::vector<EvalStatus>* status) {
  auto cpu = CreateCpuEvaluator(2);
  cpu->SetProblems(b.problems);
  int count = 0;
  for (int i : b.individuals) count += i;
  std::vector<double> costs(count, -1.0);
  status->assign(count, EvalStatus(77));
  cpu->Evaluate(b.individuals, b.coefficients, costs, *status);
  return costs;
}

TEST(LineCapacity, AProblemWithoutLinesPastTheKernelsCapacityIsTakenAndCostsNothing) {
  // 120 coordinates and no posture (modes alone) beside a 9-DOF problem with lines.
  const Batch both = MakeBatch({{120, 3, {}, 2}, {9, 2, {7, 4}, 2}}, 46);
  ASSERT_EQ(both.problems[0].num_lines(), 0);
  std::vector<EvalStatus> status;
  const std::vector<double> costs = Costs(both, &status);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(costs[i], 0.0) << i;
    EXPECT_EQ(status[i], EvalStatus::kOk) << i;
  }
  // The problem with lines gives the bits it gives alone.
  Batch alone = both;
  alone.problems.erase(alone.problems.begin());
  alone.individuals.erase(alone.individuals.begin());
  std::vector<EvalStatus> alone_status;
  const std::vector<double> alone_costs = Costs(alone, &alone_status);
  ASSERT_EQ(alone_costs.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(std::memcmp(&alone_costs[i], &costs[3 + i], sizeof(double)), 0) << i;
    EXPECT_EQ(alone_status[i], status[3 + i]) << i;
  }
  // The normal equations of the line-free problem: zero terms, status OK.
  auto cpu = CreateCpuEvaluator(1);
  cpu->SetProblems(both.problems);
  std::vector<double> normal(5 * NormalTermCount(2), -1.0);
  std::vector<EvalStatus> normal_status(5);
  cpu->EvaluateNormalEquations(
      {both.individuals, both.dims, both.coefficients, both.sensitivities}, normal, normal_status);
  for (int t = 0; t < 3 * NormalTermCount(2); ++t) EXPECT_EQ(normal[t], 0.0) << t;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(normal_status[i], EvalStatus::kOk) << i;
}

TEST(LineCapacity, AProblemWithLinesPastTheKernelsCapacityIsRefusedAsBefore) {
  const int past = kernels::kMaxDofs + 1;
  for (int n : {past, 120}) {
    const std::string error = SetProblemsError(MakeBatch({{n, 1, {3}, 2}}, 7).problems);
    EXPECT_NE(error.find("problem: expected 1 to " + std::to_string(kernels::kMaxDofs) +
                         " elastic DOFs, got " + std::to_string(n)),
              std::string::npos)
        << error;
  }
  // One line at one posture is enough; the capacity itself is taken.
  EXPECT_NE(SetProblemsError(MakeBatch({{120, 1, {0, 1}, 2}}, 8).problems), "");
  EXPECT_EQ(SetProblemsError(MakeBatch({{kernels::kMaxDofs, 1, {2}, 2}}, 9).problems), "");
  // Without lines, still at least one coordinate.
  PackedProblem empty;
  empty.n = 0;
  EXPECT_NE(SetProblemsError({empty}).find("expected at least 1 elastic DOF, got 0"),
            std::string::npos);
}

// `reduction.mode: never` refuses a model past the capacity because it would solve it line by
// line; modes alone are solved by no kernel, so the 120-coordinate L-frame passes there.
TEST(LineCapacity, ReductionNeverRefusesOnlyAProblemWithSetsPastTheCapacity) {
  Problem problem;
  problem.model = std::make_shared<const Model>(ParseModelText(test::l_frame::LFrameModel(10), "l_frame"));
  ASSERT_EQ(problem.model->num_dofs(), 120);
  ReductionSettings never;
  never.mode = ReductionMode::kNever;
  EXPECT_FALSE(WillReduce(never, "fit.yaml", problem));  // modes alone: no throw
  problem.postures.emplace_back();                       // an FRF set or static test
  try {
    WillReduce(never, "fit.yaml", problem);
    ADD_FAILURE() << "a set past the capacity under reduction.mode: never was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected auto or always"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace frfit
