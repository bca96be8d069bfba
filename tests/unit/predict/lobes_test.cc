// Stability lobes (predict/): the zero-order method against the textbook single-DOF closed form,
// the cut file's checks, and the lobes of the bundled KUKA model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

#include "frfit/common/error.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/predict/cut_config.h"
#include "frfit/predict/lobes_model.h"
#include "frfit/predict/stability_lobes.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;

// An SDOF in the feed direction only: G = 1/(k − mω² + icω), no Y flexibility, no cross terms.
CuttingPlaneFrf FeedOnlySdof(double f_n, double zeta, double k) {
  Mode mode;
  mode.frequency_hz = f_n;
  mode.damping_ratio = zeta;
  CuttingPlaneFrf frf;
  frf.frequency_hz = LobeFrequencyGrid({mode});
  const double wn = 2.0 * M_PI * f_n, m = k / (wn * wn), c = 2.0 * zeta * m * wn;
  for (double f : frf.frequency_hz) {
    const double w = 2.0 * M_PI * f;
    frf.receptance.insert(frf.receptance.end(),
                          {1.0 / std::complex<double>(k - m * w * w, c * w), 0.0, 0.0, 0.0});
  }
  return frf;
}

// With Φ = diag(G, 0) the one non-zero eigenvalue of Φα is α_xx G, so
//   a_lim = 2π / (N K_t α_xx Re G) = −1 / (2 K_t N Re G_or),  G_or = μ G,  μ = −α_xx / (4π)
// (the average directional factor), positive where α_xx Re G > 0. For an SDOF,
// Re G = (1 − r²) / (k ((1 − r²)² + (2ζr)²)) has its minimum −1/(4kζ(1 + ζ)) at r² = 1 + 2ζ
// and its maximum 1/(4kζ(1 − ζ)) at r² = 1 − 2ζ. Up milling and slotting (α_xx < 0) chatter
// above the natural frequency, half-immersion down milling (α_xx > 0 for K_r = 0.3) below it.
struct SdofCase {
  const char* name;
  double entry_deg, exit_deg;
};

TEST(StabilityLobes, SingleDofInFeedMatchesTheClosedForm) {
  const double f_n = 100.0, zeta = 0.02, k = 1e7, kt = 7e8, kr = 0.3;
  const int teeth = 2;
  const CuttingPlaneFrf frf = FeedOnlySdof(f_n, zeta, k);
  for (const SdofCase& c : {SdofCase{"up, half immersion", 0, 90}, SdofCase{"slot", 0, 180},
                            SdofCase{"down, half immersion", 90, 180}}) {
    LobeOptions o;
    o.teeth = teeth;
    o.kt_n_per_m2 = kt;
    o.alpha = AverageDirectionalFactors(c.entry_deg * M_PI / 180, c.exit_deg * M_PI / 180, kr);
    o.speed_min_rpm = 500;
    o.speed_max_rpm = 12000;
    o.speed_points = 4000;
    const double mu = -o.alpha.xx / (4.0 * M_PI);
    const double re_g = mu > 0 ? -1.0 / (4 * k * zeta * (1 + zeta)) : 1.0 / (4 * k * zeta * (1 - zeta));
    const double analytic = -1.0 / (2.0 * kt * teeth * mu * re_g);
    const StabilityLobes lobes = ComputeStabilityLobes(frf, o);
    SCOPED_TRACE(c.name);
    EXPECT_NEAR(lobes.absolute_critical_depth_m / analytic, 1.0, 1e-4);
    EXPECT_NEAR(lobes.critical_depth_m / analytic, 1.0, 5e-3);
    // Where it chatters: r² = 1 ± 2ζ.
    const double f_c = f_n * std::sqrt(1.0 + (mu > 0 ? 2 : -2) * zeta);
    EXPECT_NEAR(lobes.absolute_chatter_frequency_hz / f_c, 1.0, 2e-3);
    for (double a : lobes.depth_limit_m) EXPECT_GE(a, lobes.absolute_critical_depth_m * (1 - 1e-12));
    // The lobes' minima: a_crit at n = 60 f_c / (N (ε/2π + k)), ε = π − 2 atan κ at f_c.
    int interior = 0;
    for (const LobeMinimum& m : lobes.lobes) {
      if (m.clipped) continue;  // cut by the range's end
      ++interior;
      EXPECT_NEAR(m.depth_m / analytic, 1.0, 1e-4) << "lobe " << m.k;
      EXPECT_NEAR(m.chatter_frequency_hz / f_c, 1.0, 2e-3) << "lobe " << m.k;
    }
    EXPECT_GE(interior, 3);
  }
}

TEST(StabilityLobes, DirectionalFactorsOfSlottingAreTheTextbooks) {
  // Slotting: α_xx = α_yy = −π K_r, α_xy = −π, α_yx = π (Altintas, Manufacturing Automation).
  const DirectionalFactors a = AverageDirectionalFactors(0.0, M_PI, 0.3);
  EXPECT_NEAR(a.xx, -M_PI * 0.3, 1e-12);
  EXPECT_NEAR(a.yy, -M_PI * 0.3, 1e-12);
  EXPECT_NEAR(a.xy, -M_PI, 1e-12);
  EXPECT_NEAR(a.yx, M_PI, 1e-12);
}

// The same FRF turned about the tool axis gives the same lobes in slotting, whose average force
// is isotropic up to a rotation: only the directional factors see the orientation.
TEST(StabilityLobes, OrientedFrfGivesTheDepth) {
  const CuttingPlaneFrf frf = FeedOnlySdof(80.0, 0.03, 2e7);
  const DirectionalFactors alpha = AverageDirectionalFactors(0.0, M_PI / 2, 0.3);
  const std::vector<std::complex<double>> g = OrientedFrf(frf, alpha);
  LobeOptions o;
  o.alpha = alpha;
  o.speed_min_rpm = 500;
  o.speed_max_rpm = 20000;
  const StabilityLobes lobes = ComputeStabilityLobes(frf, o);
  double most_negative = 0.0;
  for (const auto& v : g) most_negative = std::min(most_negative, v.real());
  EXPECT_NEAR(lobes.absolute_critical_depth_m,
              -1.0 / (2.0 * o.kt_n_per_m2 * o.teeth * most_negative), 1e-12 * lobes.absolute_critical_depth_m);
}

TEST(CutConfig, ReadsTheBundledExample) {
  const CutConfig c = LoadCutConfig(kRoot + "/datasets/kuka_kr90/cut_example.yaml");
  EXPECT_EQ(c.teeth, 2);
  EXPECT_EQ(c.Milling(), "down");
  EXPECT_EQ(c.feed_axis, 0);
  EXPECT_EQ(c.normal_axis, 1);
  EXPECT_EQ(c.tool_axis, 2);
  EXPECT_DOUBLE_EQ(c.kt_n_per_m2, 7e8);
}

TEST(CutConfig, RefusesBadFilesWithOneLine) {
  const std::string good =
      "format: frfit-cut-1\nteeth: 2\nentry_angle_deg: 90\nexit_angle_deg: 180\n"
      "kt_n_per_m2: 7e8\nkr_ratio: 0.3\ntool_axis: z\nfeed_axis: x\n"
      "spindle_speed_rpm: [5000, 30000]\n";
  EXPECT_NO_THROW(ParseCutConfig(good, "cut.yaml"));
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {replace("frfit-cut-1", "frfit-cut-2"), "cut.yaml: format (line 1): expected frfit-cut-1, got 'frfit-cut-2'"},
      {replace("teeth: 2", "teeth: 0"), "cut.yaml: teeth (line 2): expected an integer from 1 to 1000, got 0"},
      {replace("teeth: 2", "teeth: 2.5"), "cut.yaml: teeth (line 2): expected an integer, got 2.5"},
      {replace("teeth: 2", "teth: 2"), "cut.yaml: teth"},
      {replace("exit_angle_deg: 180", "exit_angle_deg: 60"),
       "cut.yaml: exit_angle_deg (line 4): expected degrees above entry_angle_deg (90) and at most 180"},
      {replace("entry_angle_deg: 90", "entry_angle_deg: -5"), "cut.yaml: entry_angle_deg (line 3): expected degrees in [0, 180)"},
      {replace("kt_n_per_m2: 7e8", "kt_n_per_m2: -7e8"), "cut.yaml: kt_n_per_m2 (line 5):"},
      {replace("kr_ratio: 0.3", "kr_ratio: -1"), "cut.yaml: kr_ratio (line 6): expected K_r/K_t from 0 to 10, got -1"},
      {replace("tool_axis: z", "tool_axis: w"), "cut.yaml: tool_axis (line 7): expected x, y or z (an axis of the sensor frame), got 'w'"},
      {replace("feed_axis: x", "feed_axis: z"), "cut.yaml: feed_axis (line 8): expected an axis other than tool_axis"},
      {replace("[5000, 30000]", "[30000, 5000]"), "cut.yaml: spindle_speed_rpm (line 9): expected [min, max] in rpm with 0 < min < max <= 1e7, got [30000, 5000]"},
      {replace("[5000, 30000]", "[5000]"), "got 1 values"},
      {replace("[5000, 30000]", "[5000, .nan]"), "cut.yaml: spindle_speed_rpm[1]"},
      {replace("teeth: 2\n", ""), "cut.yaml: teeth"},
      {good + "speed_points: 1\n", "cut.yaml: speed_points (line 10): expected an integer from 2 to 1000000, got 1"},
      {good + "lobes: 0\n", "cut.yaml: lobes (line 10): expected an integer from 1 to 5000, got 0"},
  };
  for (const auto& [text, message] : cases) {
    try {
      ParseCutConfig(text, "cut.yaml");
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_NE(what.find(message), std::string::npos) << what << "\nexpected: " << message;
    }
  }
}

// The bundled KUKA model at two postures with the parameters of ref. 34 and the example cut: a
// positive critical depth in the millimetre range, the envelope never below it, and each lobe's
// minimum where the oriented FRF's real part is most negative.
TEST(StabilityLobes, KukaPosturesArePlausible) {
  const Model model = LoadModel(kRoot + "/datasets/kuka_kr90/model.yaml");
  const std::vector<double> params =
      LoadParameters(kRoot + "/datasets/kuka_kr90/params_from34.yaml", model);
  CutConfig cut = LoadCutConfig(kRoot + "/datasets/kuka_kr90/cut_example.yaml");
  cut.speed_min_rpm = 50;  // the 10 Hz modes' lobes k >= 1 lie below 200 rpm
  const LobeOptions o = LobeOptionsFor(cut);
  for (const std::string name : {"milling", "reach"}) {
    SCOPED_TRACE(name);
    const Posture posture = Linearize(model, name);
    const CuttingPlaneFrf frf = ToolTipFrf(posture, Coefficients(model, params, posture.q), cut);
    const StabilityLobes lobes = ComputeStabilityLobes(frf, o);
    EXPECT_GT(lobes.critical_depth_m, 1e-5);  // 0.01 mm .. 10 mm
    EXPECT_LT(lobes.critical_depth_m, 1e-2);
    for (double a : lobes.depth_limit_m) EXPECT_GE(a, lobes.critical_depth_m);
    // Re G_or most negative over lines and branches.
    const std::vector<std::complex<double>> g = OrientedFrf(frf, o.alpha);
    size_t at = 0;
    for (size_t i = 0; i < g.size(); ++i)
      if (g[i].real() < g[at].real()) at = i;
    const double f_star = frf.frequency_hz[at / 2];
    EXPECT_NEAR(lobes.absolute_critical_depth_m,
                -1.0 / (2.0 * o.kt_n_per_m2 * o.teeth * g[at].real()), 1e-9 * lobes.absolute_critical_depth_m);
    EXPECT_NEAR(lobes.critical_depth_m / lobes.absolute_critical_depth_m, 1.0, 0.01);
    int checked = 0;
    for (const LobeMinimum& m : lobes.lobes) {
      // Lobes whose best point lies inside the speed range: clipped ones end at the range's edge.
      const double eps = M_PI - 2.0 * std::atan(std::imag(-1.0 / g[at]) / std::real(-1.0 / g[at]));
      const double n_star = 60.0 * 2 * M_PI * f_star / (o.teeth * (eps + 2 * M_PI * m.k));
      if (n_star < o.speed_min_rpm || n_star > o.speed_max_rpm) continue;
      ++checked;
      EXPECT_FALSE(m.clipped) << "lobe " << m.k;
      EXPECT_NEAR(m.chatter_frequency_hz / f_star, 1.0, 1e-3) << "lobe " << m.k;
      EXPECT_NEAR(m.spindle_speed_rpm / n_star, 1.0, 1e-3) << "lobe " << m.k;
      EXPECT_NEAR(m.depth_m / lobes.absolute_critical_depth_m, 1.0, 1e-9) << "lobe " << m.k;
    }
    EXPECT_GE(checked, 3);
  }
}

TEST(LobeBand, QuantileInterpolatesAndKeepsInfinity) {
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4, 5}, 0.05), 1.2);
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4, 5}, 0.5), 3.0);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Quantile({1, inf, inf}, 0.95), inf);
  EXPECT_DOUBLE_EQ(Quantile({1, 2, inf}, 0.0), 1.0);
}

}  // namespace
}  // namespace frfit
