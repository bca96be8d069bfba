// Which posture to measure next (fit/posture_design.h, frfit design):
//   - a candidate at the fitted posture's own coordinates repeats its measurement: the
//     information doubles, so the D-optimal gain is p·ln 2 and every 1σ shrinks by √2;
//   - the prediction for a real candidate matches what fitting its (noisy) FRFs then reports,
//     and the ranking orders the candidates as the real fits do;
//   - the command line's explanation of its numbers (the gain that halves every 1σ), checked
//     against a direct computation of what halving every σ does to log det JᵀWJ;
//   - the command line's refusals.
#include "frfit/results/posture_design.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <random>

#include <Eigen/Dense>

#include "frfit/cost/static_sets.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/results/fit_result.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/load_problem.h"
#include "frfit/frf/measurement_noise.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "kernels/line_normal.h"
#include "reference_residuals.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

struct Fitted {
  Problem problem;
  std::vector<double> u;
};

// Fits `files` with `options` (library calls, as frfit fit does).
Fitted FitFiles(std::shared_ptr<const Model> model, const std::vector<std::string>& files,
                const FitOptions& options, const ParameterMap& map) {
  Fitted f{LoadProblem(model, files, options, "test"), {}};
  auto evaluator = CreateCpuEvaluator(0);
  evaluator->SetProblems({Pack(f.problem)});
  FitRun run(map, options, 1);
  DriveFits({MakeFitJob(&run, map, f.problem)}, evaluator.get(), {});
  f.u = run.best_u();
  return f;
}

TEST(PostureDesign, RepeatingTheFittedPostureDoublesTheInformation) {
  const auto model = std::make_shared<const Model>(LoadModel(kData + "paper_3dof/model.yaml"));
  const FitOptions options = LoadFitOptions(kData + "paper_3dof/fit.yaml");
  const ParameterMap map(*model, options.parameters, "test");
  const Fitted fit = FitFiles(model, {kData + "paper_3dof/frf_milling_inertance.h5"}, options, map);
  const PostureDesign design =
      RankCandidatePostures(fit.problem, map, fit.u, {{"again", model->posture("milling").q}});
  ASSERT_EQ(design.candidates.size(), 1u);
  const int p = map.dim();
  // With noise weights (the default) the repeat is assumed as noisy as the fitted posture through
  // the two-term summary of its noise (relative and floor, frf/noise_estimate.h), which matches the
  // line-by-line estimate to about 1e-4: the gain and the σ ratio hold to 1e-3.
  EXPECT_NEAR(design.candidates[0].log_det_gain, p * std::log(2.0), 1e-3 * p);
  for (int j = 0; j < p; ++j)
    EXPECT_NEAR(design.candidates[0].predicted.per_parameter[j].std_relative,
                design.current.per_parameter[j].std_relative / std::sqrt(2.0),
                1e-3 * design.current.per_parameter[j].std_relative)
        << map.space().bounds(j).name;
}

TEST(PostureDesign, PredictionMatchesFittingTheCandidatesMeasuredFrfs) {
  const auto model = std::make_shared<const Model>(LoadModel(kData + "kuka_kr90/model.yaml"));
  const FitOptions options = LoadFitOptions(kData + "kuka_kr90/fit.yaml");
  const ParameterMap map(*model, options.parameters, "test");
  // 2 % noisy copies of the three postures' FRFs, their noise model in the files (the fit's
  // noise weights then rest on it, and the design assumes it for the candidates).
  const std::string dir =
      std::filesystem::temp_directory_path() / ("frfit_design_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::map<std::string, std::string> file;
  std::uint64_t seed = 17;
  for (const char* posture : {"milling", "reach", "folded"}) {
    FrfSet set = ReadFrfSet(kData + "kuka_kr90/frf_" + posture + "_inertance.h5");
    AddMeasurementNoise({0.02, 0.0}, seed++, true, &set);
    file[posture] = dir + "/" + posture + ".h5";
    WriteFrfSet(file[posture], set);
  }
  const Fitted one = FitFiles(model, {file["milling"]}, options, map);
  const PostureDesign design = RankCandidatePostures(
      one.problem, map, one.u,
      {{"reach", model->posture("reach").q}, {"folded", model->posture("folded").q}});
  ASSERT_EQ(design.candidates.size(), 2u);
  std::map<std::string, double> actual_gain;
  const double current = [&] {
    double s = 0.0;
    for (double v : design.current.singular_values) s += 2 * std::log(v);
    return s;
  }();
  for (const CandidateRanking& c : design.candidates) {
    const Fitted two = FitFiles(model, {file["milling"], file[c.posture.name]}, options, map);
    const Identifiability actual =
        AssessIdentifiability(Pack(two.problem), map, PostureCoordinates(two.problem), two.u);
    double log_det = 0.0;
    for (double v : actual.singular_values) log_det += 2 * std::log(v);
    actual_gain[c.posture.name] = log_det - current;
    std::printf("%-7s predicted gain %.2f nats, actual %.2f\n", c.posture.name.c_str(),
                c.log_det_gain, actual_gain[c.posture.name]);
    // Within 15 %: the candidate's FRFs are predicted at the one-posture fit's parameters, which
    // the second posture then moves along the directions only it sees (with the noise weights,
    // whose information spreads over every line, folded's prediction is 12 % low; reach's 0.2 %).
    EXPECT_NEAR(c.log_det_gain, actual_gain[c.posture.name],
                0.15 * std::abs(actual_gain[c.posture.name]));
    for (size_t j = 0; j < actual.per_parameter.size(); ++j) {
      const ParameterIdentifiability& q = actual.per_parameter[j];
      if (model->parameters[map.free_indices()[j]].kind != ParameterKind::kStiffness) continue;
      const double ratio = c.predicted.per_parameter[j].std_relative / q.std_relative;
      EXPECT_GT(ratio, 1.0 / 1.5) << c.posture.name << " " << q.name;
      EXPECT_LT(ratio, 1.5) << c.posture.name << " " << q.name;
    }
  }
  std::filesystem::remove_all(dir);
  // Ranked as the real fits rank them.
  EXPECT_GT(actual_gain[design.candidates[0].posture.name],
            actual_gain[design.candidates[1].posture.name]);
}

// A static load case's predicted gain against an independent computation at the same fitted
// point: JᵀWJ of the fit's FRFs (the evaluator's normal equations) plus that of the deflections,
// whose Jacobian here comes from central differences of the dense static compliance B ᵀK0⁻¹B F
// (1 kN along x, y, z of the tool tip, σ = 1 µm per component), and the log det difference.
TEST(PostureDesign, StaticLoadGainIsTheInformationOfItsDeflections) {
  const auto model = std::make_shared<const Model>(LoadModel(kData + "paper_3dof/model.yaml"));
  const FitOptions options = LoadFitOptions(kData + "paper_3dof/fit.yaml");
  const ParameterMap map(*model, options.parameters, "test");
  // The FRFs with 3 % noise and their noise model: weighed as a measurement, so that the
  // deflections add a visible share of the information.
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("frfit_design_static_" + std::to_string(::getpid()) + ".h5"))
                               .string();
  FrfSet set = ReadFrfSet(kData + "paper_3dof/frf_milling_inertance.h5");
  AddMeasurementNoise({0.03, 0.0}, 29, true, &set);
  WriteFrfSet(file, set);
  const Fitted fit = FitFiles(model, {file}, options, map);
  std::filesystem::remove(file);
  DesignCandidate load{model->posture("milling"), "", "", {}};
  for (int axis = 0; axis < 3; ++axis)
    load.static_tests.push_back({"milling", "", 1000.0 * Eigen::Vector3d::Unit(axis), "",
                                 Eigen::Vector3d::Zero(), Eigen::Vector3d::Constant(1e-6), 0});
  const PostureDesign design = RankCandidates(fit.problem, map, fit.u, {load});
  ASSERT_EQ(design.candidates.size(), 1u);

  const int p = map.dim();
  const std::vector<double> normal = test::EvaluateTermsAt(fit.problem, map, fit.u).normal;
  Eigen::MatrixXd A(p, p);
  for (int j = 0; j < p; ++j)
    for (int k = j; k < p; ++k) A(j, k) = A(k, j) = normal[kernels::NormalTermIndex(p, j, k)];
  const Posture posture = Linearize(*model, "milling");
  auto deflections = [&](const std::vector<double>& u) {  // 9 numbers, in units of their σ
    const Eigen::MatrixXd K =
        TangentStiffness(posture, Coefficients(*model, map.Physical(u), posture.q)).real();
    const Eigen::MatrixXd B = posture.sensor_basis;
    const Eigen::Matrix3d compliance = B.transpose() * K.partialPivLu().solve(B);
    Eigen::VectorXd d(9);
    for (int axis = 0; axis < 3; ++axis)
      d.segment<3>(3 * axis) = compliance * (1000.0 * Eigen::Vector3d::Unit(axis)) / 1e-6;
    return d;
  };
  Eigen::MatrixXd J(9, p);
  for (int j = 0; j < p; ++j) {
    std::vector<double> up = fit.u, down = fit.u;
    const double h = 1e-6;
    up[j] += h;
    down[j] -= h;
    J.col(j) = (deflections(up) - deflections(down)) / (2 * h);
  }
  const Eigen::MatrixXd S = J.transpose() * J;
  const double expected = std::log((A + S).determinant()) - std::log(A.determinant());
  std::printf("static milling: predicted gain %.6f nats, expected %.6f\n",
              design.candidates[0].log_det_gain, expected);
  EXPECT_GT(expected, 0.1) << "the deflections must add something, or the check says nothing";
  EXPECT_NEAR(design.candidates[0].log_det_gain, expected, 1e-4 * expected + 1e-6);
}

class DesignCli : public test::TempDirTest {
 protected:
  // A tool-tip set of Table 5's parameters at milling with impact-test noise (its noise model in
  // the file), fitted with the bundled configuration into r.h5.
  void FitNoisyToolTip(const std::string& model) {
    ASSERT_EQ(Run({"simulate", "--model", model, "--posture", "milling", "--params",
                   kData + "kuka_kr90/params_from34.yaml", "--band", "2:30:0.25", "--noise",
                   "0.03:0.001", "--out", Path("tip.h5")})
                  .status,
              0);
    ASSERT_EQ(Run({"fit", "--model", model, "--frf", Path("tip.h5"), "--config",
                   kData + "kuka_kr90/fit.yaml", "--quiet", "--out", Path("r.h5")})
                  .status,
              0);
  }
};

TEST_F(DesignCli, RanksTheModelsOtherPosturesAndRefusesBadCandidates) {
  const std::string result = Path("r.h5");
  const std::string model = kData + "kuka_kr90/model.yaml";
  ASSERT_EQ(Run({"fit", "--model", model, "--frf", kData + "kuka_kr90/frf_milling_inertance.h5",
                 "--config", kData + "kuka_kr90/fit.yaml", "--quiet", "--out", result})
                .status,
            0);
  const test::CliResult ranked = Run({"design", "--model", model, "--result", result, "--json"});
  ASSERT_EQ(ranked.status, 0) << ranked.err;
  const nlohmann::json j = nlohmann::json::parse(ranked.out);
  ASSERT_EQ(j["candidates"].size(), 2u);  // reach and folded: every model posture not fitted
  EXPECT_GE(j["candidates"][0]["log_det_gain"].get<double>(),
            j["candidates"][1]["log_det_gain"].get<double>());
  EXPECT_TRUE(j["current"].contains("condition_number"));

  // Halving every 1σ: the covariance C = (JᵀWJ)⁻¹ becomes C/4. Its log det gain, computed from a
  // random information matrix of the fit's size, is the number the command explains its gains by.
  const int p = static_cast<int>(j["current"]["parameters"].size());
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd a(p, p);
  for (int r = 0; r < p; ++r)
    for (int c = 0; c < p; ++c) a(r, c) = normal(rng);
  const Eigen::MatrixXd information = a * a.transpose() + Eigen::MatrixXd::Identity(p, p);
  const Eigen::MatrixXd halved_cov = information.inverse() / 4.0;
  const double gain = -std::log(halved_cov.determinant()) - std::log(information.determinant());
  EXPECT_NEAR(j["nats_to_halve_every_sigma"].get<double>(), gain, 1e-9 * gain);
  const test::CliResult text = Run({"design", "--model", model, "--result", result});
  char expected[64];
  std::snprintf(expected, sizeof expected, "a gain of %.1f nats", gain);
  EXPECT_NE(text.out.find(expected), std::string::npos) << text.out;
  for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--candidates", "milling"}, "already"},
           {{"--candidates", "nowhere"}, "nowhere"},
           {{"--q-candidates", "up:z9=20"}, "z9"}}) {
    std::vector<std::string> all = {"design", "--model", model, "--result", result};
    all.insert(all.end(), args.begin(), args.end());
    const test::CliResult r = Run(all);
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// The command line reads the fit's noise model from its result: repeating the fitted posture then
// doubles the information (a gain of p·ln 2), as the library computes it from the fit's files.
// Read without it, a candidate's exact predicted FRFs were weighed by the noise estimated from
// themselves, and every gain came out near 230 nats instead of about 11.
TEST_F(DesignCli, ReadsTheFitsNoiseModelFromItsResult) {
  const std::string model = kData + "kuka_kr90/model.yaml";
  FitNoisyToolTip(model);
  if (HasFatalFailure()) return;
  const test::CliResult r = Run({"design", "--model", model, "--result", Path("r.h5"),
                                 "--q-candidates", "again:z2=70,z3=-100", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // The library on the fit's own file at the fitted parameters (the result's weights are those of
  // the fit's last reweighting pass, so the two agree closely, not to the bit).
  const auto kuka = std::make_shared<const Model>(LoadModel(model));
  const FitOptions options = LoadFitOptions(kData + "kuka_kr90/fit.yaml");
  const ParameterMap map(*kuka, options.parameters, "test");
  const Problem problem = LoadProblem(kuka, {Path("tip.h5")}, options, "test");
  const PostureDesign library =
      RankCandidatePostures(problem, map, map.ToU(ParametersFromResult(Path("r.h5"), *kuka)),
                            {{"again", kuka->posture("milling").q}});
  const double want = library.candidates[0].log_det_gain;
  EXPECT_NEAR(j["candidates"][0]["log_det_gain"].get<double>(), want, 0.05 * want);
  // At most doubling: p·ln 2, less the directions at the null-space floor.
  const double p = static_cast<double>(j["current"]["parameters"].size());
  EXPECT_LT(j["candidates"][0]["log_det_gain"].get<double>(), 1.01 * p * std::log(2.0));
}

// Measurement points as candidates (a roving accelerometer or hammer at a fitted posture): with a
// frame on the tool 25 cm off the forearm's axis added to the KUKA model, the forearm twist k_x3
// that the tool tip alone barely sees (its 1σ is the fit's largest stiffness 1σ) is pinned by a
// response at joint3 or a hammer blow at the off-axis point; --target ranks by that 1σ.
TEST_F(DesignCli, RanksMeasurementPointsByTheParameterTheyPin) {
  std::string text = test::ReadText(kData + "kuka_kr90/model.yaml");
  const std::string sensor = "  - {name: sensor, parent: joint3,";
  text.insert(text.find(sensor),
              "  - {name: tool_side, parent: joint3, transforms: [{disp: [1.566, 0.25, 0.005]}]}\n");
  std::ofstream(Path("model.yaml")) << text;
  const std::string model = Path("model.yaml");
  FitNoisyToolTip(model);
  if (HasFatalFailure()) return;
  const test::CliResult r =
      Run({"design", "--model", model, "--result", Path("r.h5"), "--points",
           "joint2:,tool_side:tool_side,joint3:", "--target", "k_x3", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 3u);
  const double now = j["current"]["parameters"]["k_x3"]["std_relative"].get<double>();
  double previous = 0.0;
  for (const auto& c : j["candidates"]) {
    const double x3 = c["std_relative"]["k_x3"].get<double>();
    EXPECT_GE(x3, previous) << "ranked by k_x3's 1σ";
    previous = x3;
  }
  const auto& best = j["candidates"][0];
  EXPECT_EQ(best["posture"], "milling");
  EXPECT_NE(best["response_frame"], "joint2") << r.out;
  EXPECT_LT(best["std_relative"]["k_x3"].get<double>(), 0.5 * now) << r.out;
  // The set the fit has is not a candidate; an unknown frame is named.
  for (const auto& [points, needle] : std::vector<std::pair<std::string, std::string>>{
           {":", "already"}, {"elbow:", "elbow"}, {"joint3", "RESPONSE:EXCITATION"}}) {
    const test::CliResult bad =
        Run({"design", "--model", model, "--result", Path("r.h5"), "--points", points});
    EXPECT_NE(bad.status, 0) << points;
    EXPECT_NE(bad.err.find(needle), std::string::npos) << bad.err;
  }
}

TEST_F(DesignCli, RanksStaticLoadCasesBesideOtherCandidates) {
  const std::string model = kData + "kuka_kr90/model.yaml";
  FitNoisyToolTip(model);
  if (HasFatalFailure()) return;
  const test::CliResult r =
      Run({"design", "--model", model, "--result", Path("r.h5"), "--static-loads",
           "milling::,reach:sensor:joint3", "--static-force", "500", "--candidates", "folded",
           "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 3u);
  int loads = 0;
  for (const auto& c : j["candidates"]) {
    if (c["static_load"].is_null()) {
      EXPECT_EQ(c["set"], "folded");
      continue;
    }
    ++loads;
    EXPECT_EQ(c["static_load"]["force_n"], 500.0);
    EXPECT_EQ(c["static_load"]["std_m"], 1e-6);
    EXPECT_GT(c["log_det_gain"].get<double>(), 0.0) << c.dump();
    if (c["posture"] == "reach") {
      EXPECT_EQ(c["set"], "static reach:sensor:joint3 (500 N)");
      EXPECT_EQ(c["static_load"]["displacement_frame"], "joint3");
    }
  }
  EXPECT_EQ(loads, 2);
  for (const auto& [loads_text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"milling:sensor", "POSTURE:FORCE_FRAME:DISPLACEMENT_FRAME"},
           {"milling:elbow:", "elbow"},
           {"nowhere::", "nowhere"}}) {
    const test::CliResult bad =
        Run({"design", "--model", model, "--result", Path("r.h5"), "--static-loads", loads_text});
    EXPECT_NE(bad.status, 0) << loads_text;
    EXPECT_NE(bad.err.find(needle), std::string::npos) << bad.err;
  }
  const test::CliResult bad_std = Run({"design", "--model", model, "--result", Path("r.h5"),
                                       "--static-loads", "milling::", "--static-std", "0"});
  EXPECT_NE(bad_std.status, 0);
  EXPECT_NE(bad_std.err.find("--static-std"), std::string::npos) << bad_std.err;
}

}  // namespace
}  // namespace frfit
