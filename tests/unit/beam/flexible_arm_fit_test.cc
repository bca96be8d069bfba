// `frfit fit` on the beam model datasets/flexible_arm (121 elastic coordinates, past the
// evaluators' 32): the fit reduces the posture (fit/reduce_problem.h) and recovers the truth the
// dataset's FRFs were simulated from with the full model; the reduced posture's FRFs at the
// fitted parameters equal an independent full dense solve of the 121-coordinate model; and
// `reduction: {mode: never}` is refused in one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/results/fit_call.h"
#include "frfit/fleet/fleet_manifest.h"
#include "frfit/fleet/fleet_run.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/reduce_problem.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kArm = std::string(FRFIT_SOURCE_DIR) + "/datasets/flexible_arm/";

class FlexibleArmFit : public test::TempDirTest {};

// The library's Fit reduces a beam model itself (fit/reduce_problem.h), on copies: a fit through
// it on the unreduced problem gives `frfit fit`'s bits — parameters, cost, evaluations and the
// reduction it reports — and leaves the caller's problem and map as they were; and the fleet,
// which drives its runs without Fit, reduces its robots the same way.
TEST_F(FlexibleArmFit, LibraryAndFleetReduceAsTheCliDoes) {
  const test::CliResult r =
      Run({"fit", "--model", kArm + "model.yaml", "--frf", kArm + "frf_straight_inertance.h5",
           "--config", kArm + "fit.yaml", "--backend", "cpu", "--threads", "2", "--seed", "3",
           "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  const auto model = std::make_shared<const Model>(LoadModel(kArm + "model.yaml"));
  const FitOptions options = LoadFitOptions(kArm + "fit.yaml");
  const ParameterMap map(*model, options.parameters, kArm + "fit.yaml");
  const Problem problem =
      LoadProblem(model, {kArm + "frf_straight_inertance.h5"}, options, kArm + "fit.yaml");
  FitRunSettings settings;
  settings.seed = 3;
  settings.evaluator.backend = BackendType::kCpu;
  settings.evaluator.threads = 2;
  const FitResult result = Fit(problem, map, options, settings);
  for (size_t i = 0; i < result.parameters.size(); ++i)
    EXPECT_EQ(result.parameters[i], json["parameters"][result.parameter_names[i]].get<double>())
        << result.parameter_names[i];
  EXPECT_EQ(result.cost, json["cost"].get<double>());
  EXPECT_EQ(result.evaluations, json["evaluations"].get<std::int64_t>());
  ASSERT_EQ(result.reductions.size(), 1u);
  const SetReduction& reduction = result.reductions.front();
  const auto& reported = json["reduction"][reduction.set];
  EXPECT_EQ(reduction.full_n, 121);
  EXPECT_EQ(reduction.reduced_n, reported["reduced_n"].get<int>());
  EXPECT_EQ(reduction.max_relative_error, reported["max_relative_error"].get<double>());
  EXPECT_EQ(problem.postures.front().reduction, nullptr);
  EXPECT_EQ(map.reduced_size(), 0);

  // A fleet of this one robot reduces it as well: `frfit fit` with the robot's seed gives its bits.
  const std::string manifest = Path("fleet.yaml");
  std::ofstream(manifest) << "format: frfit-fleet-1\nmodel: " << kArm << "model.yaml\nconfig: "
                          << kArm << "fit.yaml\nseed: 5\nrobots:\n  - {name: arm, frf: [" << kArm
                          << "frf_straight_inertance.h5]}\n";
  FleetRunOptions fleet;
  fleet.manifest = manifest;
  fleet.out = Path("runs");
  fleet.run_id = "night";
  fleet.evaluator.backend = BackendType::kCpu;
  fleet.evaluator.threads = 2;
  RunFleet(fleet);
  std::ifstream summary_file(Path("runs/night/summary.json"));
  const auto robot = nlohmann::json::parse(summary_file)["robots"][0];
  ASSERT_EQ(robot["status"], "ok") << robot.dump();
  const test::CliResult alone =
      Run({"fit", "--model", kArm + "model.yaml", "--frf", kArm + "frf_straight_inertance.h5",
           "--config", kArm + "fit.yaml", "--backend", "cpu", "--threads", "2", "--seed",
           std::to_string(LoadFleetManifest(manifest).robots[0].seed), "--json"});
  ASSERT_EQ(alone.status, 0) << alone.err;
  const auto cli = nlohmann::json::parse(alone.out);
  EXPECT_EQ(robot["cost"].get<double>(), cli["cost"].get<double>());
  for (const auto& [name, value] : cli["parameters"].items())
    EXPECT_EQ(robot["parameters"][name].get<double>(), value.get<double>()) << name;
}

TEST_F(FlexibleArmFit, RecoversTheTruthThroughTheReduction) {
  const test::CliResult r =
      Run({"fit", "--model", kArm + "model.yaml", "--frf", kArm + "frf_straight_inertance.h5",
           "--config", kArm + "fit.yaml", "--backend", "cpu", "--seed", "1", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  const auto model = std::make_shared<const Model>(LoadModel(kArm + "model.yaml"));
  const std::vector<double> truth = LoadParameters(kArm + "params_truth.yaml", *model);
  for (const char* name : {"k_z1", "E_arm"}) {
    const double exact = truth[model->FindParameter(name)];
    EXPECT_NEAR(json["parameters"][name].get<double>() / exact, 1.0, 1e-4) << name;
  }
  // The reduction the fit reports: 121 coordinates to at most the kernels' 32, within 1e-6.
  const auto& reported = json["reduction"]["straight"];
  EXPECT_EQ(reported["full_n"], 121);
  EXPECT_LE(reported["reduced_n"].get<int>(), 32);
  const double error = reported["max_relative_error"].get<double>();
  EXPECT_LE(error, 1e-6);

  // At the fitted parameters (not one of the reduction's samples), the reduced posture the
  // evaluators solved gives the full model's FRFs — a dense LU of all 121 coordinates — within
  // the reported error (with a margin: the samples bound the box, not every point in it).
  const FitOptions options = LoadFitOptions(kArm + "fit.yaml");
  ParameterMap map(*model, options.parameters, kArm + "fit.yaml");
  Problem problem = LoadProblem(model, {kArm + "frf_straight_inertance.h5"}, options, "test");
  ASSERT_TRUE(ReduceProblem(options.reduction, "test", &map, &problem));
  const ProblemPosture& pp = problem.postures.front();
  std::vector<double> fitted = truth;
  for (const auto& [name, value] : json["parameters"].items())
    fitted[model->FindParameter(name)] = value.get<double>();
  const JointCoefficients c = Coefficients(*model, fitted, pp.posture.q);
  const FrfSet full = Synthesize(pp.posture, c, pp.measured.frequency_hz, FrfFormat::kInertance);
  const Reduction& reduction = *pp.reduction;
  const FrfSet reduced =
      Synthesize(reduction.posture, ReducedCoefficients(c, reduction.joints, reduction.posture.n),
                 pp.measured.frequency_hz, FrfFormat::kInertance);
  double worst = 0.0;
  for (int k = 0; k < full.num_lines(); ++k) {
    double difference = 0.0, norm = 0.0;
    for (int e = 0; e < 9; ++e) {
      difference += std::norm(full.H[k * 9 + e] - reduced.H[k * 9 + e]);
      norm += std::norm(full.H[k * 9 + e]);
    }
    worst = std::max(worst, std::sqrt(difference / norm));
  }
  EXPECT_LE(worst, 1e-6);
  EXPECT_LE(worst, 10 * error);
}

TEST_F(FlexibleArmFit, NeverReducingIsRefusedPastTheKernels) {
  {
    std::ifstream in(kArm + "fit.yaml");
    std::ofstream out(Path("fit.yaml"));
    out << in.rdbuf() << "\nreduction: {mode: never}\n";
  }
  const test::CliResult r =
      Run({"fit", "--model", kArm + "model.yaml", "--frf", kArm + "frf_straight_inertance.h5",
           "--config", Path("fit.yaml"), "--backend", "cpu", "--seed", "1"});
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("error: " + Path("fit.yaml") + ": reduction.mode: expected auto or always"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("121"), std::string::npos) << r.err;
}

TEST_F(FlexibleArmFit, UnknownReductionKeysAreRefused) {
  EXPECT_THROW(ParseFitOptionsText("format: frfit-fit-1\nreduction: {mode: sometimes}\n", "t"),
               Error);
  EXPECT_THROW(ParseFitOptionsText("format: frfit-fit-1\nreduction: {modes_up_to: 100}\n", "t"),
               Error);
  const FitOptions o =
      ParseFitOptionsText("format: frfit-fit-1\nreduction: {mode: always, modes_up_to_hz: 900}\n", "t");
  EXPECT_EQ(o.reduction.mode, ReductionMode::kAlways);
  EXPECT_EQ(o.reduction.modes_up_to_hz, 900.0);
}

}  // namespace
}  // namespace frfit
