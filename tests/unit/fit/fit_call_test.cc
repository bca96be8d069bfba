// frfit::Fit, the one library call behind `frfit fit`, Python's fit() and the fleet:
//  (a) Fit on a problem gives, to the bit, the parameters and cost `frfit fit --json` prints for
//      the same files and seed (the CLI is parsing and printing around the same call);
//  (b) a run checkpointed by Fit and continued from that state through `resume` ends where the
//      uninterrupted call ends, to the bit;
//  (c) DriveTogether + FinishFit on two problems at once (how a fleet fits) give each problem's
//      solo Fit, to the bit.
// The reference in each case is another route through the engine, never a stored number.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/fit/fit.h"
#include "frfit/results/fit_call.h"
#include "frfit/fit/load_problem.h"
#include "frfit/model/model_yaml.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

const std::string kP3 = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

struct Inputs {
  std::shared_ptr<const Model> model;
  FitOptions options;
  std::unique_ptr<ParameterMap> map;
  Problem problem;
};

Inputs Load(const std::string& frf, const std::string& config) {
  Inputs in;
  in.model = std::make_shared<const Model>(LoadModel(kP3 + "model.yaml"));
  in.options = LoadFitOptions(config);
  in.map = std::make_unique<ParameterMap>(*in.model, in.options.parameters, config);
  in.problem = LoadProblem(in.model, {frf}, in.options, config);
  return in;
}

FitRunSettings CpuSettings(std::uint64_t seed) {
  FitRunSettings settings;
  settings.seed = seed;
  settings.evaluator.backend = BackendType::kCpu;
  settings.evaluator.threads = 1;
  return settings;
}

void ExpectSameFit(const FitResult& a, const FitResult& b) {
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  for (size_t i = 0; i < a.parameters.size(); ++i)
    EXPECT_EQ(a.parameters[i], b.parameters[i]) << a.parameter_names[i];
  EXPECT_EQ(a.cost, b.cost);
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_EQ(a.history.size(), b.history.size());
}

class FitCall : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("frfit_fit_call_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(FitCall, GivesTheCommandLinesBits) {
  const std::string frf = kP3 + "frf_milling_inertance.h5", config = kP3 + "fit.yaml";
  const Inputs in = Load(frf, config);
  const FitResult library = Fit(in.problem, *in.map, in.options, CpuSettings(3));
  const test::CliResult cli =
      test::RunCli({"fit", "--model", kP3 + "model.yaml", "--frf", frf, "--config", config,
                    "--seed", "3", "--backend", "cpu", "--threads", "1", "--json"},
                   Path("out"), Path("err"));
  ASSERT_EQ(cli.status, 0) << cli.err;
  const nlohmann::json j = nlohmann::json::parse(cli.out);
  for (size_t i = 0; i < library.parameters.size(); ++i)
    EXPECT_EQ(j.at("parameters").at(library.parameter_names[i]).get<double>(), library.parameters[i])
        << library.parameter_names[i];
  EXPECT_EQ(j.at("cost").get<double>(), library.cost);
  EXPECT_EQ(j.at("evaluations").get<std::int64_t>(), library.evaluations);
  EXPECT_EQ(library.backend_given, "cpu");
  EXPECT_EQ(library.backend_used, "cpu");
}

TEST_F(FitCall, ResumedFromItsCheckpointEndsWhereTheWholeRunEnds) {
  const Inputs in = Load(kP3 + "frf_milling_inertance.h5", kP3 + "fit.yaml");
  const FitResult whole = Fit(in.problem, *in.map, in.options, CpuSettings(5));

  // Keep the first state the run offers, as a crash would: the whole fit takes about a hundred
  // evaluations (a GA generation, then least squares), so one every 40 falls inside it.
  FitRunSettings first = CpuSettings(5);
  nlohmann::json kept;
  first.checkpoint_every_evaluations = 40;
  first.checkpoint = [&kept](const nlohmann::json& state) {
    if (kept.is_null()) kept = state;
  };
  Fit(in.problem, *in.map, in.options, first);
  ASSERT_FALSE(kept.is_null()) << "the run offered no checkpoint";

  FitRunSettings again = CpuSettings(5);
  again.resume = &kept;
  std::int64_t resumed_at = -1;
  again.resumed = [&resumed_at](std::int64_t evaluations) { resumed_at = evaluations; };
  const FitResult continued = Fit(in.problem, *in.map, in.options, again);
  EXPECT_GT(resumed_at, 0);
  EXPECT_LT(resumed_at, whole.evaluations);
  ExpectSameFit(continued, whole);
}

TEST_F(FitCall, RunsDrivenTogetherEqualTheirSoloFits) {
  const Inputs a = Load(kP3 + "frf_milling_inertance.h5", kP3 + "fit.yaml");
  const Inputs b = Load(kP3 + "frf_milling_inertance.h5", kP3 + "fit.yaml");
  const FitResult solo_a = Fit(a.problem, *a.map, a.options, CpuSettings(1));
  const FitResult solo_b = Fit(b.problem, *b.map, b.options, CpuSettings(2));

  FitRun run_a(*a.map, a.options, 1), run_b(*b.map, b.options, 2);
  const std::unique_ptr<Evaluator> evaluator = CreateEvaluator(CpuSettings(1).evaluator);
  DriveTogether({{&run_a, &a.problem, a.map.get()}, {&run_b, &b.problem, b.map.get()}},
                evaluator.get(), DriveOptions{});
  ExpectSameFit(FinishFit(a.problem, *a.map, run_a, a.options, "cpu", "cpu", 0.0), solo_a);
  ExpectSameFit(FinishFit(b.problem, *b.map, run_b, b.options, "cpu", "cpu", 0.0), solo_b);
}

}  // namespace
}  // namespace frfit
