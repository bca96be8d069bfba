// Static deflection tests (deflection/static_tests.h, cost/static_sets.h, frfit fit --static):
//   - the file format's checks;
//   - a static set costs Σ((δ_model − δ_measured)/σ)² with δ_model = B_aᵀ(K_gravity + diag k)⁻¹B_bF
//     computed here with Eigen's dense solve, whatever the FRFs' cost kind;
//   - its gradient in the normal equations matches central differences of that cost;
//   - frfit fit --static reports every test with its fitted deflection and refuses a model whose
//     damping does not vanish at 0 Hz.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "frfit/cost/static_sets.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/kinematics.h"
#include "reference_residuals.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

TEST(StaticTestsFile, IsCheckedWithTheFieldAndLineNamed) {
  const std::string good =
      "format: frfit-static-1\ntests:\n"
      "  - {posture: milling, force: {n: [1000, 0, 0]}, displacement: {frame: joint3, m: [1e-4, 0, "
      "2e-5], std_m: [1e-6, 2e-6, 1e-6]}}\n";
  const StaticTests t = ParseStaticTests(good, "s.yaml");
  ASSERT_EQ(t.tests.size(), 1u);
  EXPECT_EQ(t.tests[0].force_frame, "");
  EXPECT_EQ(t.tests[0].displacement_frame, "joint3");
  EXPECT_EQ(t.tests[0].std_m(1), 2e-6);
  EXPECT_EQ(t.tests[0].line, 3);
  const std::string head = "format: frfit-static-1\ntests:\n  - {posture: milling, ";
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {head + "force: {n: [0, 0, 0]}, displacement: {m: [0, 0, 0], std_m: 1e-6}}\n",
            "tests[0].force.n"},
           {head + "force: {n: [1, 0, 0]}, displacement: {m: [0, 0, 0], std_m: 0}}\n",
            "tests[0].displacement.std_m"},
           {head + "force: {n: [1, 0, 0]}, displacement: {m: [0, 0], std_m: 1e-6}}\n",
            "tests[0].displacement.m"},
           {head + "force: {n: [1, 0, 0], at: tip}, displacement: {m: [0, 0, 0], std_m: 1e-6}}\n",
            "at"},
           {"format: frfit-static-2\ntests: []\n", "frfit-static-1"},
           {"format: frfit-static-1\ntests: []\n", "at least one"}}) {
    const std::string message = test::ErrorOf([&] { ParseStaticTests(text, "s.yaml"); });
    EXPECT_NE(message.find(needle), std::string::npos) << message;
    EXPECT_NE(message.find("s.yaml"), std::string::npos) << message;
  }
}

// The plain static compliance: Eigen's dense solve of K0 = K_gravity + diag(k) and the frames'
// bases from central differences of their poses (independent of the jets and of the kernels).
Eigen::Vector3d DenseDeflection(const Model& model, const std::vector<double>& parameters,
                                const std::string& posture_name, const std::string& force_frame,
                                const Eigen::Vector3d& force, const std::string& frame) {
  const Posture posture = Linearize(model, posture_name);
  const JointCoefficients c = Coefficients(model, parameters, posture.q);
  Eigen::MatrixXd K = posture.gravity_stiffness;
  for (int j = 0; j < posture.n; ++j) K(j, j) += c.stiffness[j];
  auto basis = [&](const std::string& name) {
    const int f = model.FindFrame(name.empty() ? "sensor" : name);
    const Eigen::Matrix3d R = FramePoses(model, posture.q)[f].block<3, 3>(0, 0);
    Eigen::MatrixXd B(posture.n, 3);
    for (int p = 0; p < posture.n; ++p) {
      std::vector<double> plus = posture.q, minus = posture.q;
      plus[p] += 1e-7;
      minus[p] -= 1e-7;
      const Eigen::Vector3d d = (FramePoses(model, plus)[f].block<3, 1>(0, 3) -
                                 FramePoses(model, minus)[f].block<3, 1>(0, 3)) /
                                2e-7;
      B.row(p) = (R.transpose() * d).transpose();
    }
    return B;
  };
  return basis(frame).transpose() * K.partialPivLu().solve(basis(force_frame) * force);
}

class StaticSets : public ::testing::Test {
 protected:
  StaticSets()
      : model_(std::make_shared<const Model>(LoadModel(kData + "kuka_kr90/model.yaml"))),
        map_(*model_, FitOptions{}.parameters, "test") {}

  // Evaluates the problem made of `tests` alone at the model's initial parameters.
  double Cost(const StaticTests& tests, CostType type, const std::vector<double>& u) const {
    Problem problem;
    problem.model = model_;
    problem.cost.type = type;
    AddStaticTests(tests, &problem);
    EvalStatus status;
    const double cost = test::CostAt(problem, map_, u, &status);
    EXPECT_EQ(status, EvalStatus::kOk);
    return cost;
  }

  std::shared_ptr<const Model> model_;
  ParameterMap map_;
};

TEST_F(StaticSets, CostIsTheChiSquareOfTheDenseDeflection) {
  const std::vector<double> parameters = model_->InitialParameters();
  const Eigen::Vector3d force(300.0, -800.0, 500.0);
  StaticTests tests;
  tests.source = "s.yaml";
  for (const auto& [posture, frame] : std::vector<std::pair<std::string, std::string>>{
           {"milling", ""}, {"reach", "joint3"}, {"folded", "joint2"}}) {
    StaticTest t;
    t.posture = posture;
    t.force_n = force;
    t.displacement_frame = frame;
    t.displacement_m = DenseDeflection(*model_, parameters, posture, "", force, frame);
    t.std_m = Eigen::Vector3d(1e-6, 2e-6, 0.5e-6);
    tests.tests.push_back(t);
  }
  const std::vector<double> u = map_.ToU(parameters);
  for (CostType type : {CostType::kLogComplex, CostType::kLogMagnitude}) {
    // The central differences of the bases leave about 1e-9 of the deflection (~1e-12 m).
    EXPECT_LT(Cost(tests, type, u), 1e-6);
    StaticTests off = tests;
    off.tests[1].displacement_m(2) += 3 * off.tests[1].std_m(2);  // 3σ off: χ² = 9
    EXPECT_NEAR(Cost(off, type, u), 9.0, 1e-3);
  }
}

TEST_F(StaticSets, NormalEquationsMatchCentralDifferencesOfTheCost) {
  const std::vector<double> parameters = model_->InitialParameters();
  StaticTests tests;
  tests.source = "s.yaml";
  for (const std::string& posture : {"milling", "reach"}) {
    StaticTest t;
    t.posture = posture;
    t.force_frame = "joint3";
    t.force_n = Eigen::Vector3d(0, 1000, 200);
    t.displacement_m = 1.1 * DenseDeflection(*model_, parameters, posture, "joint3", t.force_n, "");
    t.std_m = Eigen::Vector3d::Constant(1e-6);
    tests.tests.push_back(t);
  }
  Problem problem;
  problem.model = model_;
  AddStaticTests(tests, &problem);
  const int dim = map_.dim();
  std::vector<double> u = map_.ToU(parameters);
  const test::EvaluatorTerms terms = test::EvaluateTermsAt(problem, map_, u);
  ASSERT_EQ(terms.normal_status, EvalStatus::kOk);
  const std::vector<double>& normal = terms.normal;
  int stiffnesses = 0;
  for (int j = 0; j < dim; ++j) {
    std::vector<double> up = u, down = u;
    const double h = 1e-6;
    up[j] += h;
    down[j] -= h;
    const double g = 0.25 * (Cost(tests, CostType::kLogComplex, up) -
                             Cost(tests, CostType::kLogComplex, down)) /
                     h;  // ½ ∂F/∂u_j
    EXPECT_NEAR(normal[1 + j], g, 1e-5 * std::abs(g) + 1e-9 * normal[0])
        << map_.space().bounds(j).name;
    const bool stiffness = model_->parameters[map_.free_indices()[j]].kind == ParameterKind::kStiffness;
    if (!stiffness) EXPECT_EQ(normal[1 + j], 0.0) << "a deflection sees no damping";
    stiffnesses += stiffness && std::abs(g) > 1e-6 * normal[0];
  }
  EXPECT_GE(stiffnesses, 8) << "the stiffnesses move the deflections";
}

class StaticCli : public test::TempDirTest {};

TEST_F(StaticCli, FitReportsEveryTestAndRefusesStructuralDamping) {
  const std::string model = kData + "paper_3dof/model.yaml";
  std::ofstream(Path("s.yaml")) << "format: frfit-static-1\ntests:\n"
                                   "  - {posture: milling, force: {n: [0, 0, 1000]}, "
                                   "displacement: {m: [1.0e-4, 0, -2.0e-4], std_m: 1.0e-6}}\n";
  const test::CliResult r =
      Run({"fit", "--model", model, "--frf", kData + "paper_3dof/frf_milling_inertance.h5",
           "--config", kData + "paper_3dof/fit.yaml", "--static", Path("s.yaml"), "--json",
           "--out", Path("r.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["static_tests"].size(), 1u);
  EXPECT_EQ(j["static_tests"][0]["posture"], "milling");
  EXPECT_EQ(j["static_tests"][0]["measured_m"][2].get<double>(), -2.0e-4);
  const double chi2 = j["static_tests"][0]["chi2"].get<double>();
  EXPECT_GT(chi2, 0.0);
  EXPECT_EQ(j["postures"].size(), 1u) << "the static test is not an FRF set";
  // The result keeps the tests: frfit export writes them with the same χ².
  ASSERT_EQ(Run({"export", Path("r.h5"), "--csv", Path("csv")}).status, 0);
  const std::string table = test::ReadText(Path("csv/static_tests.csv"));
  const std::string last = table.substr(table.rfind(',') + 1);
  EXPECT_NEAR(std::stod(last), chi2, 1e-12 * chi2) << table;
  EXPECT_NE(table.find("s.yaml tests[0] (line 3),milling,,,0,0,1000,1e-04,0,-2e-04"),
            std::string::npos)
      << table;

  std::string text = test::ReadText(model);
  text.replace(text.find("damping_model: viscous"), 22, "damping_model: structural");
  for (size_t at = text.find("damping: {initial: 300"); at != std::string::npos;
       at = text.find("damping: {initial: 300"))
    text.replace(at, text.find('}', at) - at + 1, "loss_factor: {initial: 0.02, min: 0.001, max: 0.2}");
  std::ofstream(Path("structural.yaml")) << text;
  const test::CliResult refused =
      Run({"fit", "--model", Path("structural.yaml"), "--frf",
           kData + "paper_3dof/frf_milling_inertance.h5", "--static", Path("s.yaml")});
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.err.find("structural damping"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace frfit
