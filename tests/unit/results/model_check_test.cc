// The model check (fit/model_check.h, docs/noise.md) and the one-to-one pairing of modes
// (modal/mode_pairing.h): no false alarm on data of the fitted model's own class, noisy or not;
// "misfit" with the reason on data with physics the model lacks (a local mode at the tool, a
// flexible base), the lacking mode named near its frequency; a bound the data pull against.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/results/fit_result.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/load_problem.h"
#include "frfit/results/model_check_io.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/frf/measurement_noise.h"
#include "frfit/frf/synthesize.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/modal/mode_pairing.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

// ---- pairing ------------------------------------------------------------------------------

// The least total cost over every assignment, by enumeration: the independent reference.
double BruteForceBest(const Eigen::MatrixXd& cost) {
  const int rows = cost.rows(), cols = cost.cols();
  std::vector<int> columns(std::max(rows, cols));
  std::iota(columns.begin(), columns.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  do {
    double total = 0.0;
    for (int r = 0; r < rows; ++r)
      total += columns[r] < cols && std::isfinite(cost(r, columns[r]))
                   ? cost(r, columns[r])
                   : 1e6;  // unassigned: worse than any set of allowed pairs
    best = std::min(best, total);
  } while (std::next_permutation(columns.begin(), columns.end()));
  return best;
}

TEST(ModePairing, AssignmentIsOptimalAndOneToOne) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int rows = 1 + trial % 5, cols = 1 + (trial / 5) % 5;
    Eigen::MatrixXd cost(rows, cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        cost(r, c) = u(rng) < 0.2 ? std::numeric_limits<double>::infinity() : u(rng);
    const std::vector<int> pairs = AssignMinimumCost(cost);
    ASSERT_EQ(static_cast<int>(pairs.size()), rows);
    std::vector<int> used;
    double total = 0.0;
    for (int r = 0; r < rows; ++r) {
      if (pairs[r] < 0) {
        total += 1e6;
        continue;
      }
      EXPECT_TRUE(std::isfinite(cost(r, pairs[r]))) << "a forbidden pair was taken";
      used.push_back(pairs[r]);
      total += cost(r, pairs[r]);
    }
    std::sort(used.begin(), used.end());
    EXPECT_EQ(std::adjacent_find(used.begin(), used.end()), used.end()) << "a column used twice";
    EXPECT_NEAR(total, BruteForceBest(cost), 1e-9) << "trial " << trial;
  }
}

Mode MakeMode(double f, Eigen::Vector3cd shape = Eigen::Vector3cd(1, 0, 0)) {
  Mode m;
  m.frequency_hz = f;
  m.damping_ratio = 0.02;
  m.sensor_shape = shape;
  return m;
}

// Two reference modes near one fitted mode: only one pairs with it (the nearest was the rule, and
// both took the same fitted mode); the other is left unpaired, and so is a fitted mode no
// reference mode wants.
TEST(ModePairing, TwoReferenceModesNeverShareAFittedMode) {
  const std::vector<Mode> reference = {MakeMode(10.0), MakeMode(24.9), MakeMode(27.0)};
  const std::vector<Mode> fitted = {MakeMode(10.1), MakeMode(24.8), MakeMode(45.0)};
  const ModalComparison c = CompareModes(reference, fitted, "test", 30.0);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].fitted_frequency_hz, 10.1);
  EXPECT_EQ(c.rows[1].fitted_frequency_hz, 24.8);
  EXPECT_TRUE(std::isnan(c.rows[2].fitted_frequency_hz));
  EXPECT_TRUE(c.unpaired_fitted_frequency_hz.empty());  // 45 Hz is above the band
  // Shapes decide between two fitted modes at similar distances.
  const std::vector<Mode> shaped = {MakeMode(20.0, Eigen::Vector3cd(0, 1, 0))};
  const std::vector<Mode> candidates = {MakeMode(19.9, Eigen::Vector3cd(1, 0, 0)),
                                        MakeMode(20.3, Eigen::Vector3cd(0, 1, 0.1))};
  EXPECT_EQ(PairModes(shaped, candidates)[0], 1);
}

// ---- the model check on fits ------------------------------------------------------------------

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// The 3-joint model with physics the bundled one lacks.
std::string WithLocalMode(std::string text) {  // 15 kg on a spring at the tool, along x
  text = Replace(text, "dofs:\n",
                 "dofs:\n  - {name: ax, type: translational, stiffness: {initial: 4.0e5, min: 1.0e3, "
                 "max: 1.0e9}, damping: {initial: 100, min: 1, max: 1.0e6}}\n");
  text = Replace(text, "{rotx: -90}]}\n",
                 "{rotx: -90}]}\n  - {name: absorber, parent: sensor, transforms: [{transx: ax}]}\n");
  return Replace(text, "bodies:\n",
                 "bodies:\n  - {name: absorber_mass, frame: absorber, mass: 15, inertia: {xx: 0.05, "
                 "yy: 0.05, zz: 0.05, xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n");
}
std::string WithFlexibleBase(std::string text) {  // tilt DOFs under joint 1 and a pedestal
  text = Replace(text, "dofs:\n",
                 "dofs:\n  - {name: bx, type: rotational, stiffness: {initial: 1e8, min: 1e6, max: "
                 "1e10}, damping: {initial: 1e4, min: 1, max: 1e7}}\n  - {name: by, type: "
                 "rotational, stiffness: {initial: 1e8, min: 1e6, max: 1e10}, damping: {initial: "
                 "1e4, min: 1, max: 1e7}}\n");
  text = Replace(text, "frames:\n",
                 "frames:\n  - {name: base, parent: ground, transforms: [{rotx: bx}, {roty: by}]}\n");
  text = Replace(text, "parent: ground, transforms: [{rotz: z1}", "parent: base, transforms: [{rotz: z1}");
  return Replace(text, "bodies:\n",
                 "bodies:\n  - {name: pedestal, frame: base, mass: 1500, com: [0, 0, 0.5], inertia: "
                 "{xx: 400, yy: 400, zz: 300, xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n");
}

struct Measured {
  FrfSet set;
  std::vector<Mode> truth_modes;  // of the model the data came from, in the band
};

// Inertance 2-30 Hz at 0.25 Hz from `model_text` with Table 1's parameters plus `extra`.
Measured Measure(const std::string& model_text, const std::vector<std::pair<std::string, double>>& extra,
                 double noise, std::uint64_t seed) {
  const Model truth = ParseModelText(model_text, "truth");
  std::vector<double> p(truth.num_parameters(), 0.0);
  const Model paper = LoadModel(kData + "paper_3dof/model.yaml");
  const std::vector<double> table1 = LoadParameters(kData + "paper_3dof/params_table1.yaml", paper);
  for (int i = 0; i < paper.num_parameters(); ++i) p[truth.FindParameter(paper.parameters[i].name)] = table1[i];
  for (const auto& [name, value] : extra) p[truth.FindParameter(name)] = value;
  const Posture posture = Linearize(truth, "milling");
  const JointCoefficients c = Coefficients(truth, p, posture.q);
  Measured m;
  m.set = Synthesize(posture, c, MakeBand(2.0, 30.0, 0.25, "band"), FrfFormat::kInertance);
  if (noise > 0.0) AddMeasurementNoise({noise, 0.001}, seed, true, &m.set);
  for (const Mode& mode : ComputeModes(posture, c))
    if (mode.frequency_hz <= 30.0) m.truth_modes.push_back(mode);
  return m;
}

FitResult FitPaperModel(const FrfSet& measured, std::uint64_t seed, const FitOptions& options) {
  const auto model = std::make_shared<const Model>(LoadModel(kData + "paper_3dof/model.yaml"));
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  problem.postures.push_back(
      PreparePosture(Linearize(*model, "milling"), measured, options.cost, "measured.h5", 1.0));
  const ParameterMap map(*model, options.parameters, "test");
  auto evaluator = CreateCpuEvaluator(1);
  evaluator->SetProblems({Pack(problem)});
  FitRun run(map, options, seed);
  DriveFits({MakeFitJob(&run, map, problem)}, evaluator.get(), {});
  return AssembleFitResult(problem, map, run, options);
}

FitOptions NoiseFit() {
  FitOptions options = LoadFitOptions(kData + "paper_3dof/fit.yaml");
  options.cost.weights.mode = WeightMode::kNoise;
  return options;
}

TEST(ModelCheck, DataOfTheModelsOwnClassAreConsistentNoisyOrNot) {
  const std::string text = test::ReadText(kData + "paper_3dof/model.yaml");
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const double noise = seed == 1 ? 0.0 : 0.03;  // the first noise-free
    const FitResult r = FitPaperModel(Measure(text, {}, noise, seed).set, seed, NoiseFit());
    EXPECT_EQ(r.model_check.verdict(), "consistent") << "seed " << seed << ": "
        << (r.model_check.reasons.empty() ? "" : r.model_check.reasons[0]);
    if (noise > 0.0) EXPECT_NEAR(r.model_check.reduced_chi2, 1.0, 0.1) << "seed " << seed;
    // Noise-free data leave a χ² far below the estimated noise's: σ scaled by √χ².
    EXPECT_EQ(r.identifiability.sigma_basis,
              noise > 0.0 ? SigmaBasis::kNoiseModel : SigmaBasis::kNoiseModelScaled);
  }
}

// A mode the model cannot have: "misfit", the mode named within 3 % of the truth's, σ widened.
TEST(ModelCheck, AnUnexplainedLocalModeIsNamedNearItsFrequency) {
  const std::string text = WithLocalMode(test::ReadText(kData + "paper_3dof/model.yaml"));
  const double k = 15.0 * std::pow(2.0 * M_PI * 26.0, 2), d = 2 * 0.02 * std::sqrt(k * 15.0);
  for (double noise : {0.0, 0.03}) {
    const Measured m = Measure(text, {{"k_ax", k}, {"d_ax", d}}, noise, 7);
    const FitResult r = FitPaperModel(m.set, 1, NoiseFit());
    EXPECT_EQ(r.model_check.verdict(), "misfit") << "noise " << noise;
    ASSERT_FALSE(r.model_check.unexplained_modes.empty()) << "noise " << noise;
    // The extra mode of the truth: the one of its modes nearest the absorber's own 26 Hz.
    const double extra = std::min_element(m.truth_modes.begin(), m.truth_modes.end(),
                                          [](const Mode& a, const Mode& b) {
                                            return std::abs(a.frequency_hz - 26) < std::abs(b.frequency_hz - 26);
                                          })->frequency_hz;
    EXPECT_NEAR(r.model_check.unexplained_modes[0].frequency_hz / extra, 1.0, 0.03)
        << "named " << r.model_check.unexplained_modes[0].frequency_hz << " Hz, truth " << extra;
    EXPECT_EQ(r.identifiability.sigma_basis, SigmaBasis::kNoiseModelWidened);
    const bool named_in_reasons =
        std::any_of(r.model_check.reasons.begin(), r.model_check.reasons.end(),
                    [](const std::string& s) { return s.rfind("unexplained mode at", 0) == 0; });
    EXPECT_TRUE(named_in_reasons);
  }
}

TEST(ModelCheck, AFlexibleBaseAboveTheBandIsAMisfit) {
  const std::string text = WithFlexibleBase(test::ReadText(kData + "paper_3dof/model.yaml"));
  for (double noise : {0.0, 0.03}) {
    const Measured m = Measure(text, {{"k_bx", 4.2e7}, {"k_by", 5e7}, {"d_bx", 1e4}, {"d_by", 1.2e4}},
                               noise, 9);
    const FitResult r = FitPaperModel(m.set, 1, NoiseFit());
    EXPECT_EQ(r.model_check.verdict(), "misfit") << "noise " << noise;
    EXPECT_GT(r.model_check.reduced_chi2, ReducedChi2Limit(r.model_check.degrees_of_freedom));
  }
}

// A bound set below the truth holds the fit there, and the data pull against it.
TEST(ModelCheck, ABoundTheDataPullAgainstIsNamed) {
  FitOptions options = NoiseFit();
  Bounds below_truth{std::nan(""), std::nan(""), std::nan("")};  // NaN: keep the model's
  below_truth.max = 2.4e6;                                         // the truth is 3.0e6
  below_truth.initial = 2.0e6;
  options.parameters.bounds["k_z2"] = below_truth;
  const FitResult r = FitPaperModel(Measure(test::ReadText(kData + "paper_3dof/model.yaml"), {}, 0.03, 4).set, 1, options);
  ASSERT_FALSE(r.model_check.bound_pulls.empty());
  EXPECT_EQ(r.model_check.bound_pulls[0].parameter, "k_z2");
  EXPECT_EQ(r.model_check.bound_pulls[0].bound, BoundFlag::kMax);
  EXPECT_EQ(r.model_check.verdict(), "misfit");
}

TEST(ModelCheck, ResultFilesKeepItAndJsonShowsIt) {
  const std::string text = WithLocalMode(test::ReadText(kData + "paper_3dof/model.yaml"));
  const double k = 15.0 * std::pow(2.0 * M_PI * 26.0, 2);
  const FitResult r = FitPaperModel(Measure(text, {{"k_ax", k}, {"d_ax", 50.0}}, 0.03, 3).set, 1, NoiseFit());
  const std::string dir = testing::TempDir() + "/model_check_io";
  std::filesystem::create_directories(dir);
  WriteFitResult(dir + "/r.h5", r);
  Hdf5File f(dir + "/r.h5", Hdf5File::Mode::kRead);
  const ModelCheck back = ReadModelCheck(f, "/model_check");
  EXPECT_EQ(back.verdict(), r.model_check.verdict());
  EXPECT_EQ(back.reasons, r.model_check.reasons);
  ASSERT_EQ(back.unexplained_modes.size(), r.model_check.unexplained_modes.size());
  EXPECT_EQ(back.unexplained_modes[0].frequency_hz, r.model_check.unexplained_modes[0].frequency_hz);
  EXPECT_EQ(back.unexplained_modes[0].entries, r.model_check.unexplained_modes[0].entries);
  const nlohmann::ordered_json j = FitResultToJson(r)["model_check"];
  EXPECT_EQ(j["verdict"], "misfit");
  EXPECT_TRUE(j["reduced_chi2"].is_number());
  EXPECT_TRUE(j["unexplained_modes"][0]["frequency_hz"].is_number());
  EXPECT_EQ(j["reasons"].size(), r.model_check.reasons.size());
}

}  // namespace
}  // namespace frfit
