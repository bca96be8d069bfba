// The parameter sets the lobes band is computed from (predict/lobes_model.h): a draw beyond a
// model bound is reflected back in the parameter's log scale, not piled on the bound. Checked
// against the closed form of a normal reflected at a wall, written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "frfit/results/identifiability.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "frfit/predict/cut_config.h"
#include "frfit/predict/lobes_model.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;

double Phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(ReflectIntoBounds, MirrorsInTheLogScaleAndKeepsInsideValues) {
  const Bounds b{10.0, 1.0, 1e4};
  EXPECT_EQ(ReflectIntoBounds(50.0, b, true), 50.0);
  EXPECT_NEAR(ReflectIntoBounds(0.25, b, true), 4.0, 1e-12);     // 1²/0.25
  EXPECT_NEAR(ReflectIntoBounds(4e4, b, true), 2.5e3, 1e-8);     // 1e8/4e4
  EXPECT_NEAR(ReflectIntoBounds(-1.0, b, false), 3.0, 1e-12);    // linear: 2·1 − (−1)
  EXPECT_EQ(ReflectIntoBounds(INFINITY, b, true), 1e4);
}

// A damping 1 % above its lower bound with a relative 1σ of 100 %: half the draws fall below the
// bound. Clamped, they would all sit on it; reflected, ln θ follows a normal folded at ln(min):
//   P(θ <= x) = Φ((ln x − m)/s) − Φ((2 ln min − ln x − m)/s),  m = ln θ̂, s = 1.
TEST(DrawParameterSets, DrawsNearABoundAreReflectedNotPiledOnIt) {
  const Model model = LoadModel(kRoot + "/datasets/paper_3dof/model.yaml");
  std::vector<double> theta = model.InitialParameters();
  int j = -1;
  for (int i = 0; i < model.num_parameters(); ++i)
    if (model.parameters[i].kind == ParameterKind::kDamping && model.parameters[i].log_scale) j = i;
  ASSERT_GE(j, 0);
  const Bounds& b = model.parameters[j].bounds;
  ASSERT_GT(b.min, 0.0);
  ASSERT_GT(b.max / b.min, 100.0);  // the upper bound is out of reach of these draws
  theta[j] = 1.01 * b.min;
  Identifiability id;
  ParameterIdentifiability q;
  q.name = model.parameters[j].name;
  q.value = theta[j];
  q.std_absolute = theta[j];  // 100 %
  q.std_relative = 1.0;
  id.per_parameter = {q};
  id.correlation = {1.0};

  const int n = 4000;
  const ParameterDraws draws = DrawParameterSets(model, theta, id, n, 7);
  ASSERT_EQ(static_cast<int>(draws.sets.size()), n);
  std::vector<double> values;
  int on_bound = 0;
  for (const std::vector<double>& set : draws.sets) {
    EXPECT_GE(set[j], b.min);
    EXPECT_LE(set[j], b.max);
    on_bound += set[j] == b.min;
    values.push_back(set[j]);
    for (int i = 0; i < model.num_parameters(); ++i)
      if (i != j) EXPECT_EQ(set[i], theta[i]);  // not in the covariance: kept
  }
  EXPECT_EQ(on_bound, 0);
  // About half the draws crossed the bound and were reflected (0.5 − P(ε < ln 1.01)).
  EXPECT_NEAR(draws.reflected / double(n), Phi(-std::log(1.01)), 0.03);
  // The empirical distribution against the folded normal (Kolmogorov–Smirnov: 1.63/√n is the
  // 1 % critical value).
  std::sort(values.begin(), values.end());
  const double m = std::log(theta[j]), wall = std::log(b.min);
  double ks = 0.0;
  for (int i = 0; i < n; ++i) {
    const double x = std::log(values[i]);
    const double cdf = Phi(x - m) - Phi(2.0 * wall - x - m);
    ks = std::max({ks, std::abs(cdf - double(i) / n), std::abs(cdf - double(i + 1) / n)});
  }
  EXPECT_LT(ks, 1.63 / std::sqrt(double(n)));
  // In particular, 10 % of the mass within 1.13× of the bound, not the half a clamp would put there.
  const double near = 1.13 * b.min;
  const double expected = Phi(std::log(near) - m) - Phi(2.0 * wall - std::log(near) - m);
  const double got =
      (std::upper_bound(values.begin(), values.end(), near) - values.begin()) / double(n);
  EXPECT_NEAR(got, expected, 0.03);
  EXPECT_LT(got, 0.2);
}

// The KUKA robot at `reach` with every damping given a relative 1σ of `sigma`, at its lower bound
// (`at_bound`) or where ref. 34 puts it.
LobeBand DampingBand(bool at_bound, double sigma, double* estimate) {
  const std::string kuka = kRoot + "/datasets/kuka_kr90/";
  const Model model = LoadModel(kuka + "model.yaml");
  std::vector<double> theta = LoadParameters(kuka + "params_from34.yaml", model);
  Identifiability id;
  for (int i = 0; i < model.num_parameters(); ++i) {
    if (model.parameters[i].kind != ParameterKind::kDamping) continue;
    if (at_bound) theta[i] = model.parameters[i].bounds.min;
    ParameterIdentifiability q;
    q.name = model.parameters[i].name;
    q.value = theta[i];
    q.std_relative = sigma;
    q.std_absolute = sigma * theta[i];
    q.at_bound = at_bound ? BoundFlag::kMin : BoundFlag::kNone;
    id.per_parameter.push_back(q);
  }
  const size_t p = id.per_parameter.size();
  id.correlation.assign(p * p, 0.0);
  for (size_t a = 0; a < p; ++a) id.correlation[a * p + a] = 1.0;
  const CutConfig cut = LoadCutConfig(kuka + "cut_example.yaml");
  const Posture posture = Linearize(model, "reach");
  *estimate = ComputeStabilityLobes(ToolTipFrf(posture, Coefficients(model, theta, posture.q), cut),
                                    LobeOptionsFor(cut))
                  .critical_depth_m;
  return SampleLobeBand(model, posture, theta, id, cut, 20, 1);
}

// Dampings at their lower bound can only grow in a draw, and more damping is more stable: the
// band lies above its estimate, and says so with the reason.
TEST(SampleLobeBand, ABandBesideItsEstimateSaysWhy) {
  double estimate = 0.0;
  const LobeBand band = DampingBand(true, 3.0, &estimate);
  EXPECT_GT(band.critical_depth_m_p05, estimate);
  EXPECT_FALSE(band.brackets_estimate);
  EXPECT_NE(band.note.find("below the band"), std::string::npos) << band.note;
  EXPECT_NE(band.note.find("d_x1 (at its min bound)"), std::string::npos) << band.note;
  EXPECT_GT(band.reflected, 0);
}

// Dampings inside their bounds with a 1σ of 5 %: the band contains the estimate, no note.
TEST(SampleLobeBand, ABandAroundItsEstimateHasNoNote) {
  double estimate = 0.0;
  const LobeBand band = DampingBand(false, 0.05, &estimate);
  EXPECT_LE(band.critical_depth_m_p05, estimate);
  EXPECT_GE(band.critical_depth_m_p95, estimate);
  EXPECT_TRUE(band.brackets_estimate);
  EXPECT_EQ(band.note, "");
}

}  // namespace
}  // namespace frfit
