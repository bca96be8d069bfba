// The modal cost (fit/modal_cost.h, cost/modal_sets.h, frfit fit --modes):
//   - the shape derivatives of ModeShapeDerivatives and the modal residuals' Jacobian against
//     central differences;
//   - the frequency residual against the model's eigenvalues solved here with Eigen's dense
//     eigensolver of the first-order system;
//   - the pairing keeps two modes apart by their shapes where their frequencies cross;
//   - a measured mode without a partner is an error term that counts;
//   - fits from modes alone: noise-free modes give the parameters back, noisy ones within 3σ.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "frfit/results/fit_call.h"
#include "frfit/fit/modal_cost.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "kernels/line_normal.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kKuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/model.yaml";

std::vector<double> Truth(const Model& model) {
  std::vector<double> p = model.InitialParameters();
  const double factors[] = {1.13, 0.87, 1.21, 0.92, 1.08, 0.81, 1.17, 0.9, 1.05};
  for (int j = 0; j < 9; ++j) p[model.FindParameter("k_" + model.dofs[j].name)] *= factors[j];
  return p;
}

ParameterOptions Stiffnesses(const Model& model) {
  ParameterOptions options;
  for (const auto& dof : model.dofs) options.free.push_back("k_" + dof.name);
  return options;
}

// The model's modes at `parameters` as measured modes at the tool tip: σ_f a share of f.
ModalSet Synthesized(const Model& model, const std::string& posture,
                     const std::vector<double>& parameters, double relative_sigma) {
  ModalSet set;
  set.source = "synthesized " + posture;
  set.posture = Linearize(model, posture);
  set.basis = set.posture.sensor_basis;
  for (const Mode& mode : ComputeModes(set.posture, Coefficients(model, parameters, set.posture.q))) {
    MeasuredMode m;
    m.frequency_hz = mode.frequency_hz;
    m.frequency_sigma_hz = relative_sigma * mode.frequency_hz;
    m.damping_ratio = mode.damping_ratio;
    m.damping_sigma = 0.2 * mode.damping_ratio;
    m.shape = mode.sensor_shape / mode.sensor_shape.norm();
    set.modes.push_back(m);
  }
  return set;
}

// ∂(modal residuals)/∂u_j by central differences at steps h and h/2, Richardson-extrapolated
// (error O(h⁴)): shapes of close modes curve strongly, and the eigenvectors' rounding (about
// 1e-10) rules out tiny h.
std::vector<double> RichardsonDifferences(const ModalData& data, const ParameterMap& map,
                                          const std::vector<double>& u, int j) {
  auto central = [&](double h) {
    std::vector<double> up = u, down = u;
    up[j] += h, down[j] -= h;
    const ModalEvaluation a = EvaluateModalData(data, map, up, false);
    const ModalEvaluation b = EvaluateModalData(data, map, down, false);
    std::vector<double> d(a.residuals.size());
    for (size_t r = 0; r < d.size(); ++r) d[r] = (a.residuals[r] - b.residuals[r]) / (2 * h);
    return d;
  };
  const std::vector<double> coarse = central(1e-3), fine = central(5e-4);
  std::vector<double> out(coarse.size());
  for (size_t r = 0; r < out.size(); ++r) out[r] = (4.0 * fine[r] - coarse[r]) / 3.0;
  return out;
}

TEST(ModeShapeDerivatives, MatchCentralDifferences) {
  const Model model = LoadModel(kKuka);
  const Posture posture = Linearize(model, "milling");
  const std::vector<double> p = Truth(model);
  const JointCoefficients c = Coefficients(model, p, posture.q);
  const std::vector<Mode> modes = ComputeModes(posture, c);
  const std::vector<Eigen::MatrixXcd> d = ModeShapeDerivatives(posture, c);
  ASSERT_EQ(d.size(), modes.size());
  // Stiffness of each joint (column j) and viscous damping of joint 4 (column n + 4).
  for (int column : {0, 1, 4, 6, 8, 9 + 4}) {
    JointCoefficients up = c, down = c;
    double& u = column < 9 ? up.stiffness[column] : up.viscous[column - 9];
    double& w = column < 9 ? down.stiffness[column] : down.viscous[column - 9];
    // A step well above the eigenvectors' rounding (about 1e-10 of them) and well below their
    // curvature.
    const double h = (column < 9 ? 1e-4 : 1e-3) * u;
    u += h, w -= h;
    const std::vector<Mode> a = ComputeModes(posture, up), b = ComputeModes(posture, down);
    for (size_t k = 0; k < modes.size(); ++k) {
      const Eigen::VectorXcd fd = (a[k].shape - b[k].shape) / (2 * h);
      const double scale = d[k].col(column).norm();
      // The eigenvectors' rounding (about 1e-10) over the step bounds the differences' error.
      EXPECT_LT((fd - d[k].col(column)).norm(), 1e-5 * scale + 1e-10 / h)
          << "mode " << k << " column " << column;
    }
  }
}

TEST(ModalCost, JacobianMatchesCentralDifferences) {
  const Model model = LoadModel(kKuka);
  ParameterOptions options = Stiffnesses(model);
  options.free.push_back("d_z2");
  const ParameterMap map(model, options, "modal_cost_test");
  ModalData data;
  data.options.damping = true;
  data.sets = {Synthesized(model, "milling", Truth(model), 0.005),
               Synthesized(model, "reach", Truth(model), 0.005)};
  data.sets[1].basis = PointsAt(model, data.sets[1].posture, "joint3", "", "test").response_basis;
  std::vector<double> u = map.ToU(model.InitialParameters());
  const ModalEvaluation e = EvaluateModalData(data, map, u, true);
  ASSERT_EQ(static_cast<int>(e.residuals.size()), ModalResidualCount(data));
  for (int j = 0; j < map.dim(); ++j) {
    const std::vector<double> fd = RichardsonDifferences(data, map, u, j);
    for (size_t r = 0; r < e.residuals.size(); ++r) {
      EXPECT_NEAR(e.jacobian(r, j), fd[r], 1e-4 * (std::abs(fd[r]) + 1.0))
          << "residual " << r << " (mode " << r / 8 << ", row " << r % 8 << ") u " << j;
    }
  }
  // The normal-equation terms carry ½Σr², ½Jᵀr and ½JᵀJ of those residuals.
  const int p = map.dim();
  std::vector<double> normal(kernels::NormalTermCount(p), 0.0);
  AddModalNormalTerms(data, map, u, normal);
  EXPECT_DOUBLE_EQ(normal[0], e.cost);
  const Eigen::Map<const Eigen::VectorXd> r(e.residuals.data(), e.residuals.size());
  const Eigen::VectorXd g = 0.5 * e.jacobian.transpose() * r;
  for (int j = 0; j < p; ++j) EXPECT_NEAR(normal[1 + j], g(j), 1e-12 * (g.norm() + 1));
}

// A parameter tied by an equality constraint (k_y2 == k_x2) leaves the search and follows k_x2:
// the modal residuals' derivative by u of k_x2 carries k_y2's share too (central differences of
// the residuals, which Physical() computes with the tie).
TEST(ModalCost, JacobianTakesATiedParameterThroughItsTie) {
  const Model model = LoadModel(kKuka);
  ParameterOptions options = Stiffnesses(model);
  options.constraints = {"k_y2 == k_x2"};
  const ParameterMap map(model, options, "modal_cost_test");
  ASSERT_EQ(map.tied().size(), 1u);
  ModalData data;
  data.sets = {Synthesized(model, "milling", Truth(model), 0.005)};
  const std::vector<double> u = map.ToU(model.InitialParameters());
  const ModalEvaluation e = EvaluateModalData(data, map, u, true);
  for (int j = 0; j < map.dim(); ++j) {
    const std::vector<double> fd = RichardsonDifferences(data, map, u, j);
    for (size_t r = 0; r < e.residuals.size(); ++r) {
      EXPECT_NEAR(e.jacobian(r, j), fd[r], 1e-4 * (std::abs(fd[r]) + 1.0)) << "residual " << r << " u " << j;
    }
  }
}

// The frequency residual is (f_model − f)/σ_f with f_model from the eigenvalues of the
// first-order state matrix [0 I; −M⁻¹K −M⁻¹C], assembled here from M0, K_gravity and the joints'
// coefficients and solved with Eigen's dense eigensolver.
TEST(ModalCost, FrequencyResidualsFollowAnIndependentEigenSolve) {
  const Model model = LoadModel(kKuka);
  const ParameterMap map(model, Stiffnesses(model), "modal_cost_test");
  ModalData data;
  data.sets = {Synthesized(model, "folded", Truth(model), 0.01)};
  const std::vector<double> at = model.InitialParameters();
  const ModalEvaluation e = EvaluateModalData(data, map, map.ToU(at), false);
  const Posture& posture = data.sets[0].posture;
  const JointCoefficients c = Coefficients(model, at, posture.q);
  const int n = posture.n;
  Eigen::MatrixXd k = posture.gravity_stiffness, damping = Eigen::MatrixXd::Zero(n, n);
  for (int j = 0; j < n; ++j) k(j, j) += c.stiffness[j], damping(j, j) += c.viscous[j];
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  a.topRightCorner(n, n).setIdentity();
  a.bottomLeftCorner(n, n) = -posture.mass.ldlt().solve(k);
  a.bottomRightCorner(n, n) = -posture.mass.ldlt().solve(damping);
  std::vector<double> frequencies;
  const Eigen::ComplexEigenSolver<Eigen::MatrixXcd> solver(a.cast<std::complex<double>>());
  ASSERT_EQ(solver.info(), Eigen::Success);
  for (const auto& lambda : solver.eigenvalues())
    if (lambda.imag() > 1e-3) frequencies.push_back(lambda.imag() / (2 * M_PI));
  std::sort(frequencies.begin(), frequencies.end());
  ASSERT_EQ(e.modes.size(), frequencies.size());
  for (const ModalResidual& m : e.modes) {
    ASSERT_GE(m.model_mode, 0);
    const double f = frequencies[m.model_mode];
    EXPECT_NEAR(m.model_frequency_hz, f, 1e-9 * f);
    EXPECT_NEAR(m.frequency_residual, (f - m.frequency_hz) / m.frequency_sigma_hz, 1e-6);
  }
}

// Two modes whose frequencies cross: at `crossed` the model's two lowest modes have swapped
// their order against the measured ones. Pairing by frequency alone would swap them; the pairing
// keeps each measured mode with the model mode of its own shape.
TEST(ModalCost, PairingFollowsTheShapesWhereFrequenciesCross) {
  const Model model = LoadModel(kKuka);
  const ParameterMap map(model, Stiffnesses(model), "modal_cost_test");
  const std::vector<double> truth = Truth(model);
  ModalData data;
  data.sets = {Synthesized(model, "milling", truth, 0.005)};
  const ModalSet& set = data.sets[0];
  // Scale the stiffness that dominates mode 0 until its frequency passes mode 1's.
  std::vector<double> crossed = truth;
  const Posture& posture = set.posture;
  const std::vector<Mode> at_truth = ComputeModes(posture, Coefficients(model, truth, posture.q));
  int dominant = 0;
  at_truth[0].shape.cwiseAbs().maxCoeff(&dominant);
  const int k = model.FindParameter("k_" + model.dofs[dominant].name);
  std::vector<Mode> modes;
  for (double factor = 1.1; factor < 20.0; factor *= 1.1) {
    crossed[k] = truth[k] * factor;
    modes = ComputeModes(posture, Coefficients(model, crossed, posture.q));
    const Eigen::Vector3cd s0 = set.basis.transpose().cast<std::complex<double>>() * modes[0].shape;
    if (std::abs(s0.normalized().dot(set.modes[1].shape)) > 0.9) break;  // order swapped
  }
  const ModalEvaluation e = EvaluateModalData(data, map, map.ToU(crossed), false);
  ASSERT_GE(e.modes.size(), 2u);
  // Measured mode 0 is now closer in frequency to model mode 0, yet its partner is model mode 1,
  // the one with its shape (MAC near 1); and the other way round.
  EXPECT_LT(std::abs(modes[0].frequency_hz - set.modes[0].frequency_hz),
            std::abs(modes[1].frequency_hz - set.modes[0].frequency_hz));
  EXPECT_EQ(e.modes[0].model_mode, 1);
  EXPECT_EQ(e.modes[1].model_mode, 0);
  // Near the crossing the two modes mix, but each partner's MAC beats the other mode's.
  auto mac = [&](int measured, int model) {
    const Eigen::Vector3cd phi = set.basis.transpose().cast<std::complex<double>>() * modes[model].shape;
    const Eigen::Vector3cd& m = set.modes[measured].shape;
    return std::norm(phi.dot(m)) / (phi.squaredNorm() * m.squaredNorm());
  };
  EXPECT_NEAR(e.modes[0].mac, mac(0, 1), 1e-6);
  EXPECT_GT(mac(0, 1), mac(0, 0));
  EXPECT_GT(mac(1, 0), mac(1, 1));
}

// A measured mode the model cannot pair (a set with more modes than the model has) is scored as
// a model mode at 0 Hz with no shape: ½((f/σ_f)² + 1/σ_shape²), and is reported unpaired.
TEST(ModalCost, AnUnpairedModeIsAnErrorTermThatCounts) {
  const Model model = LoadModel(kKuka);
  const ParameterMap map(model, Stiffnesses(model), "modal_cost_test");
  const std::vector<double> truth = Truth(model);
  ModalData data;
  data.sets = {Synthesized(model, "milling", truth, 0.005)};
  MeasuredMode extra = data.sets[0].modes.back();
  extra.frequency_hz *= 1.5;
  extra.frequency_sigma_hz = 0.01 * extra.frequency_hz;
  data.sets[0].modes.push_back(extra);  // 10 measured modes, 9 model modes
  const ModalEvaluation e = EvaluateModalData(data, map, map.ToU(truth), true);
  ASSERT_EQ(e.modes.size(), 10u);
  EXPECT_EQ(static_cast<int>(e.residuals.size()), 10 * 7);
  int unpaired = 0;
  for (const ModalResidual& m : e.modes) unpaired += m.model_mode < 0;
  EXPECT_EQ(unpaired, 1);
  const double s = data.options.shape_std;
  const double penalty = 0.5 * (100.0 * 100.0 + 1.0 / (s * s));
  // At the truth every paired mode fits exactly: the cost is the unpaired one's alone.
  EXPECT_NEAR(e.cost, penalty, 1e-6 * penalty);
  double paired_cost = 0.0;
  for (const ModalResidual& m : e.modes)
    if (m.model_mode >= 0) paired_cost += m.cost;
  EXPECT_LT(paired_cost, 1e-12);
}

// frfit::Fit from measured modes alone (no FRF set): three postures of synthesized tool-tip modes.
FitResult FitModes(const Model& model, const ModalData& modes, Refinement refinement) {
  Problem problem;
  problem.model = std::make_shared<const Model>(model);
  problem.cost.weights.mode = WeightMode::kNoise;
  problem.modes = modes;
  FitOptions options;
  options.parameters = Stiffnesses(model);
  options.fitter.refinement = refinement;
  options.genetic_algorithm.population_size = 32;
  options.genetic_algorithm.generations = refinement == Refinement::kLevenbergMarquardt ? 0 : 30;
  options.fitter.max_cycles = 3;
  const ParameterMap map(*problem.model, options.parameters, "modal_cost_test");
  FitRunSettings settings;
  settings.evaluator.backend = BackendType::kCpu;
  settings.evaluator.threads = 1;
  return Fit(problem, map, options, settings);
}

TEST(ModalFit, NoiseFreeModesGiveTheParametersBack) {
  const Model model = LoadModel(kKuka);
  const std::vector<double> truth = Truth(model);
  ModalData data;
  data.sets = {Synthesized(model, "milling", truth, 0.005)};
  const FitResult r = FitModes(model, data, Refinement::kLevenbergMarquardt);
  ASSERT_EQ(r.modal_data.size(), 9u);
  for (const auto& dof : model.dofs) {
    const int k = model.FindParameter("k_" + dof.name);
    EXPECT_NEAR(r.parameters[k], truth[k], 1e-6 * truth[k]) << dof.name;
  }
  for (const ModalResidual& m : r.modal_data) {
    EXPECT_GE(m.model_mode, 0);
    EXPECT_NEAR(m.mac, 1.0, 1e-9);
  }
}

// Noisy modes: frequencies with their σ (0.5 %), shapes with a noise of 0.005 per part (a quarter
// of shape_std, which the σ must find out for themselves). The fit's σ, from the modal Jacobian
// alone, cover the truth: over four noise draws of one posture (36 stiffness errors), and one of
// three, at most one error beyond 3σ and none beyond 4σ (a Gaussian's 0.3 % and 0.006 %). Beyond
// 1σ lie more than a Gaussian's 32 % (about half, here): the bound is loose, 60 %.
class NoisyModes : public ::testing::TestWithParam<int> {};

TEST_P(NoisyModes, AreWithinTheirSigma) {
  const Model model = LoadModel(kKuka);
  const std::vector<double> truth = Truth(model);
  const std::vector<std::string> postures = {"milling", "reach", "folded"};
  const int draws = GetParam() == 1 ? 4 : 1;
  int values = 0, beyond_one = 0, beyond_three = 0;
  for (int draw = 0; draw < draws; ++draw) {
    ModalData data;
    std::mt19937_64 rng(11 + draw);
    std::normal_distribution<double> normal;
    for (int i = 0; i < GetParam(); ++i) {
      ModalSet set = Synthesized(model, postures[i], truth, 0.005);
      for (MeasuredMode& m : set.modes) {
        m.frequency_hz += m.frequency_sigma_hz * normal(rng);
        for (int a = 0; a < 3; ++a)
          m.shape(a) +=
              0.25 * data.options.shape_std * std::complex<double>(normal(rng), normal(rng));
        m.shape /= m.shape.norm();
      }
      data.sets.push_back(set);
    }
    const FitResult r = FitModes(model, data, Refinement::kLevenbergMarquardt);
    ASSERT_EQ(r.identifiability.per_parameter.size(), 9u);
    for (const ParameterIdentifiability& q : r.identifiability.per_parameter) {
      const int k = model.FindParameter(q.name);
      const double z = std::abs(r.parameters[k] - truth[k]) / q.std_absolute;
      ASSERT_TRUE(std::isfinite(z)) << q.name;
      ++values;
      beyond_one += z > 1.0;
      beyond_three += z > 3.0;
      EXPECT_LT(z, 4.0) << q.name << " draw " << draw;
      EXPECT_LT(q.std_absolute, 0.5 * truth[k]) << q.name;  // σ that say something
    }
    // The shapes' noise found: (0.25)² of shape_std² (the estimate runs high, to 0.12).
    EXPECT_GT(r.modal_shape_variance_ratio, 0.03) << "draw " << draw;
    EXPECT_LT(r.modal_shape_variance_ratio, 0.15) << "draw " << draw;
  }
  EXPECT_LE(beyond_three, 1) << values;
  EXPECT_LE(beyond_one, 0.6 * values) << values;
}

INSTANTIATE_TEST_SUITE_P(Postures, NoisyModes, ::testing::Values(1, 3));

// The GA with Nelder–Mead sees the same cost as LM: from modes alone it finds the truth too.
TEST(ModalFit, GeneticAlgorithmAndNelderMeadUseTheModalCost) {
  const Model model = LoadModel(kKuka);
  const std::vector<double> truth = Truth(model);
  ModalData data;
  data.sets = {Synthesized(model, "milling", truth, 0.005),
               Synthesized(model, "folded", truth, 0.005)};
  const FitResult r = FitModes(model, data, Refinement::kNelderMead);
  for (const auto& dof : model.dofs) {
    const int k = model.FindParameter("k_" + dof.name);
    EXPECT_NEAR(r.parameters[k], truth[k], 0.05 * truth[k]) << dof.name;
  }
  EXPECT_LT(r.cost, 1.0);
}

// frfit fit --modes: the paper's 3-joint robot from frfit ema's modes alone (its JSON says the
// modes were fitted, each with its residuals), and bad --modes inputs refused in one line.
class ModesCli : public test::TempDirTest {
 protected:
  void ExpectRefused(const std::vector<std::string>& args, const std::string& expect) {
    const test::CliResult r = Run(args);
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
  }
  const std::string p3 = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";
  const std::string kuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";
};

TEST_F(ModesCli, ModesAloneFitTheTableOneStiffnessesAndBadFilesAreRefused) {
  ASSERT_EQ(Run({"ema", p3 + "frf_milling_inertance.h5", "--out", Path("ema.h5")}).status, 0);
  {
    std::ofstream config(Path("fit.yaml"));
    config << "format: frfit-fit-1\nparameters: {free: [k_z1, k_z2, k_z3]}\n"
              "genetic_algorithm: {population_size: 16, generations: 0}\n";
  }
  const test::CliResult r = Run({"fit", "--model", p3 + "model.yaml", "--modes", Path("ema.h5"),
                                 "--config", Path("fit.yaml"), "--backend", "cpu", "--json",
                                 "--out", Path("result.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("modal_data"));
  EXPECT_TRUE(j["modal_data"]["fitted"].get<bool>());
  EXPECT_EQ(j["modal_data"]["unpaired"], 0);
  ASSERT_EQ(j["modal_data"]["modes"].size(), 3u);
  for (const auto& m : j["modal_data"]["modes"]) {
    EXPECT_TRUE(m["paired"].get<bool>());
    EXPECT_GT(m["mac"].get<double>(), 0.999);
    EXPECT_LT(std::abs(m["frequency_residual"].get<double>()), 3.0);
  }
  // The result file holds the same rows.
  {
    const Hdf5File f(Path("result.h5"), Hdf5File::Mode::kRead);
    std::vector<hsize_t> dims;
    const std::vector<double> rows = f.ReadDoubles("/modal_data/modes", 2, &dims);
    ASSERT_EQ(dims, (std::vector<hsize_t>{3, 8}));
    for (int m = 0; m < 3; ++m)
      EXPECT_EQ(rows[8 * m + 3], j["modal_data"]["modes"][m]["frequency_residual"].get<double>());
  }
  // Table 1 (params_table1.yaml): the model file's dampings are not its, the stiffnesses must be.
  const Model model = LoadModel(p3 + "model.yaml");
  const std::vector<double> table1 = LoadParameters(p3 + "params_table1.yaml", model);
  for (const char* name : {"k_z1", "k_z2", "k_z3"}) {
    const double truth = table1[model.FindParameter(name)];
    EXPECT_NEAR(j["parameters"][name].get<double>(), truth, 0.01 * truth) << name;
  }

  const std::vector<std::string> fit = {"fit", "--model", p3 + "model.yaml", "--backend", "cpu"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = fit;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  ExpectRefused(with({"--modes", Path("missing.h5")}), "missing.h5");
  ExpectRefused(with({"--modes", p3 + "frf_milling_inertance.h5"}), "EMA result");
  ASSERT_EQ(Run({"ema", kuka + "frf_reach_inertance.h5", "--out", Path("reach.h5")}).status, 0);
  ExpectRefused(with({"--modes", Path("reach.h5")}), "posture");
  ExpectRefused(with({"--modes", Path("ema.h5") + ","}), "--modes");
  {
    std::ofstream config(Path("peaks.yaml"));
    config << "format: frfit-fit-1\ncost: {weights: {mode: peaks}}\n";
  }
  ExpectRefused(with({"--modes", Path("ema.h5"), "--frf", p3 + "frf_milling_inertance.h5",
                      "--config", Path("peaks.yaml")}),
                "cost.weights.mode");
  {
    std::ofstream config(Path("zero.yaml"));
    config << "format: frfit-fit-1\nmodes: {shape_std: 0}\n";
  }
  ExpectRefused(with({"--modes", Path("ema.h5"), "--config", Path("zero.yaml")}), "modes.shape_std");
  ExpectRefused(fit, "--frf");
}

}  // namespace
}  // namespace frfit
