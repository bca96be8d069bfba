// backend auto for one fit (frfit/fit/fit_backend.h): a fit whose cpu call is short stays on the
// cpu without asking the driver anything; one whose call is long takes the GPU when one is usable
// and says why not when none is; a backend given by name is taken as given, untimed.
#include "frfit/fit/fit_backend.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "frfit/cost/problem.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/load_problem.h"
#include "frfit/model/model_yaml.h"

namespace frfit {
namespace {

struct Fit {
  explicit Fit(const std::string& dataset) {
    const std::string dir = std::string(FRFIT_SOURCE_DIR) + "/datasets/" + dataset + "/";
    options = LoadFitOptions(dir + "fit.yaml");
    model = std::make_shared<const Model>(LoadModel(dir + "model.yaml"));
    map = std::make_unique<ParameterMap>(*model, options.parameters, dir + "fit.yaml");
    problem = LoadProblem(model, {dir + "frf_milling_inertance.h5"}, options, dir + "fit.yaml");
    packed = PackForPass(problem, *map, 0, {});
  }
  FitOptions options;
  std::shared_ptr<const Model> model;
  std::unique_ptr<ParameterMap> map;
  Problem problem;
  PackedProblem packed;
};

// CreateFitEvaluator for `fit` with the backend and cpu threads given.
std::unique_ptr<Evaluator> Choose(const Fit& fit, BackendType backend, int threads,
                                  BackendChoice* choice) {
  EvaluatorOptions options;
  options.backend = backend;
  options.threads = threads;
  return CreateFitEvaluator(options, fit.packed, fit.problem, *fit.map, fit.options, choice);
}

TEST(FitBackend, ShortCallsStayOnTheCpuAndSayHowLongTheCallTook) {
  const Fit fit("paper_3dof");
  BackendChoice choice;
  auto evaluator = Choose(fit, BackendType::kAuto, 2, &choice);
  EXPECT_TRUE(choice.timed);
  EXPECT_GT(choice.cpu_call_seconds, 0.0);
  // No timed assertion: a loaded machine may take longer than the threshold; the choice must
  // follow from what was measured either way.
  if (choice.cpu_call_seconds < kGpuWorthCallSeconds) {
    EXPECT_EQ(evaluator->backend(), BackendType::kCpu);
    EXPECT_NE(choice.reason.find("too small a fit"), std::string::npos) << choice.reason;
  }
}

TEST(FitBackend, LargeFitTakesAUsableGpuOrSaysWhyNot) {
  Fit fit("six_axis_18dof");
  fit.options.genetic_algorithm.population_size = 400;  // 60 000 line-solves at n = 18 a call
  BackendChoice choice;
  auto evaluator = Choose(fit, BackendType::kAuto, 1, &choice);
  EXPECT_TRUE(choice.timed);
  // A load can only lengthen the call; under 10 ms would take a core 30x faster than any yet.
  ASSERT_GE(choice.cpu_call_seconds, kGpuWorthCallSeconds) << "the call this test needs is too short";
  std::string why;
  if (IsCudaUsable(&why)) {
    EXPECT_EQ(evaluator->backend(), BackendType::kCuda);
  } else {
    EXPECT_EQ(evaluator->backend(), BackendType::kCpu);
    EXPECT_EQ(choice.reason, why);
  }
}

TEST(FitBackend, GivenBackendIsTakenUntimed) {
  const Fit fit("paper_3dof");
  BackendChoice choice;
  auto evaluator = Choose(fit, BackendType::kCpu, 0, &choice);
  EXPECT_EQ(evaluator->backend(), BackendType::kCpu);
  EXPECT_FALSE(choice.timed);
  EXPECT_EQ(choice.cpu_call_seconds, 0.0);
}

}  // namespace
}  // namespace frfit
