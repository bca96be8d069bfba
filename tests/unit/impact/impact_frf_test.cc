// The impact stage against simulated hammer tests of a known structure (impact_simulation.h):
// accuracy against the true FRF within H1's own statistical bound, every bad hit rejected with
// its reason and no good one, the trigger on a continuous recording, the exponential window's
// added damping, and the estimators against each other where theory says how they differ.
#include <gtest/gtest.h>

#include <cmath>

#include "frfit/common/error.h"
#include "frfit/impact/impact_frf.h"
#include "impact_simulation.h"

namespace frfit {
namespace {

using test::HitSpec;
using test::SimMode;

constexpr int kGoodHitsPerAxis = 5;

// Five good hits per hammer axis, then one double hit and two clipped hits (one with the front
// end's range known, one showing only a flat top) per axis. Returns the indices of the bad ones.
std::vector<TimeRecording> Campaign(const std::vector<SimMode>& modes, std::vector<int>* bad,
                                    std::vector<std::string>* bad_reason) {
  Rng rng(7);
  std::vector<TimeRecording> out;
  for (int j = 0; j < 3; ++j) {
    for (int h = 0; h < kGoodHitsPerAxis + 3; ++h) {
      HitSpec s;
      s.hammer_axis = j;
      s.amplitude_n = 80.0 + 10.0 * h;  // hits are never alike
      if (h == kGoodHitsPerAxis) s.double_hit_fraction = 0.4;
      if (h == kGoodHitsPerAxis + 1) s.clip_response_fraction = 0.7;
      if (h == kGoodHitsPerAxis + 2) {
        s.clip_response_fraction = 0.8;
        s.clip_with_full_scale = false;
      }
      if (h >= kGoodHitsPerAxis) {
        bad->push_back(static_cast<int>(out.size()));
        bad_reason->push_back(h == kGoodHitsPerAxis ? "double hit" : "clipped");
      }
      out.push_back(test::SimulateHit(modes, s, &rng, h));
    }
  }
  return out;
}

TEST(ImpactFrf, H1MatchesTheTrueFrfWithinItsStatisticalBoundAndRejectsEveryBadHit) {
  const auto modes = test::ThreeModes();
  std::vector<int> bad;
  std::vector<std::string> bad_reason;
  const auto recordings = Campaign(modes, &bad, &bad_reason);
  ImpactOptions options;
  options.band_max_hz = 60.0;
  const ImpactResult r = EstimateFrfs(recordings, options);

  ASSERT_EQ(r.verdicts.size(), recordings.size());
  for (size_t k = 0; k < r.verdicts.size(); ++k) {
    const auto it = std::find(bad.begin(), bad.end(), static_cast<int>(k));
    if (it == bad.end()) {
      EXPECT_TRUE(r.verdicts[k].kept) << "good hit " << k << " rejected: " << r.verdicts[k].reason;
    } else {
      EXPECT_FALSE(r.verdicts[k].kept) << "bad hit " << k << " kept";
      EXPECT_NE(r.verdicts[k].reason.find(bad_reason[it - bad.begin()]), std::string::npos)
          << r.verdicts[k].reason;
    }
  }
  EXPECT_EQ(r.set.averages, kGoodHitsPerAxis);
  EXPECT_EQ(r.set.format, FrfFormat::kReceptance);  // displacement responses
  for (bool p : r.set.present) EXPECT_TRUE(p);

  int lines = 0, close = 0, beyond = 0;
  double worst_ratio = 0;
  for (int l = 0; l < r.set.num_lines(); ++l)
    for (int e = 0; e < 9; ++e) {
      const double g = r.set.coherence[l * 9 + e];
      if (g < 0.95) continue;
      const auto truth = test::TrueReceptance(modes, e / 3, e % 3, r.set.frequency_hz[l]);
      const auto h = r.set.H[l * 9 + e];
      ++lines;
      const double db = 20 * std::log10(std::abs(h) / std::abs(truth));
      const double deg = std::abs(std::arg(h / truth)) * 180 / std::numbers::pi;
      close += std::abs(db) <= 0.5 && deg <= 3.0;
      // H1's own confidence region for n averages and the measured γ̂² (Bendat & Piersol,
      // Random Data, 4th ed., §9.3.4): |H − Ĥ|² ≤ F(2, 2n−2; α)/(n−1)·(1 − γ̂²)/γ̂²·|Ĥ|²; the
      // F quantile with 2 numerator degrees of freedom is (m/2)(α^(−2/m) − 1). α = 1e-5 over
      // ~3000 lines: a correct estimator steps outside with probability 3 %.
      const int n = kGoodHitsPerAxis, m = 2 * n - 2;
      const double f_quantile = m / 2.0 * (std::pow(1e-5, -2.0 / m) - 1.0);
      const double bound = std::sqrt(f_quantile / (n - 1) * (1 - g) / g) * std::abs(h);
      const double ratio = std::abs(h - truth) / bound;
      worst_ratio = std::max(worst_ratio, ratio);
      beyond += ratio > 1.0;
      if (ratio > 1.0)
        std::printf("%g Hz %s g=%g db=%g deg=%g ratio=%g\n", r.set.frequency_hz[l],
                    EntryName(e).c_str(), g, db, deg, ratio);
    }
  ASSERT_GT(lines, r.set.num_lines() * 9 / 3) << "too few lines with coherence >= 0.95 to judge";
  EXPECT_GE(close, 0.8 * lines) << close << " of " << lines << " lines within 0.5 dB and 3°";
  EXPECT_EQ(beyond, 0) << "worst error " << worst_ratio << " of the bound";
  RecordProperty("lines_judged", lines);
  RecordProperty("lines_within_0_5db_3deg", close);
  std::printf("impact H1: %d of %d lines (γ² ≥ 0.95) within 0.5 dB and 3°; worst error %.2f of the 1e-5 bound\n", close,
              lines, worst_ratio);
}

TEST(ImpactFrf, AccelerationBecomesInertanceAndConvertsToReceptance) {
  const auto modes = test::ThreeModes();
  Rng rng(3);
  std::vector<TimeRecording> hits;
  for (int h = 0; h < 3; ++h) {
    HitSpec s;
    s.quantity = ChannelQuantity::kAcceleration;
    s.force_noise = s.response_noise = 0.0;
    hits.push_back(test::SimulateHit(modes, s, &rng, h));
  }
  ImpactOptions options;
  options.band_max_hz = 60.0;
  const ImpactResult native = EstimateFrfs(hits, options);
  EXPECT_EQ(native.set.format, FrfFormat::kInertance);
  options.format = FrfFormat::kReceptance;
  const ImpactResult receptance = EstimateFrfs(hits, options);
  int checked = 0;
  for (int l = 0; l < receptance.set.num_lines(); ++l) {
    const double f = receptance.set.frequency_hz[l];
    if (f < 5) continue;  // below the first mode the cross entries are tiny and leak-dominated
    const auto truth = test::TrueReceptance(modes, 2, 2, f);
    EXPECT_NEAR(std::abs(receptance.set.at(l, 2, 2) / truth - 1.0), 0.0, 0.01) << f << " Hz";
    const double w = 2 * std::numbers::pi * f;
    EXPECT_NEAR(std::abs(native.set.at(l, 2, 2) / (-w * w * truth) - 1.0), 0.0, 0.01) << f << " Hz";
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

TEST(ImpactFrf, TheTriggerFindsEveryHitOfAContinuousRecording) {
  const auto modes = test::ThreeModes();
  Rng rng(11);
  // Six hits of 6 s records placed end to end with random gaps: one continuous recording.
  TimeRecording continuous;
  std::vector<double> pulse_starts;
  double t = 0.3;
  for (int h = 0; h < 6; ++h) {
    HitSpec s;
    s.pretrigger_s = 0.0;
    s.record_s = 6.0 + 0.5 * rng.Uniform();
    TimeRecording hit = test::SimulateHit(modes, s, &rng, h);
    if (h == 0) {
      continuous = hit;
      for (auto& c : continuous.channels) c.samples.assign(std::lround(t * s.fs), 0.0);
    }
    pulse_starts.push_back(continuous.channels[0].samples.size() / s.fs);
    for (size_t c = 0; c < hit.channels.size(); ++c)
      continuous.channels[c].samples.insert(continuous.channels[c].samples.end(),
                                            hit.channels[c].samples.begin(),
                                            hit.channels[c].samples.end());
  }
  continuous.hit = -1;
  continuous.source = "continuous";
  TriggerOptions trigger;
  trigger.record_s = 5.0;
  trigger.pretrigger_s = 0.05;
  const auto hits = SplitHits(continuous, trigger);
  ASSERT_EQ(hits.size(), pulse_starts.size());
  // The raised cosine crosses 10 % of its peak acos(0.8)/2π of its duration after it starts.
  const double rise = 0.012 * std::acos(0.8) / (2 * std::numbers::pi);
  for (size_t h = 0; h < hits.size(); ++h) {
    EXPECT_TRUE(hits[h].problem.empty()) << hits[h].problem;
    EXPECT_NEAR(hits[h].trigger_time_s, pulse_starts[h] + rise, 1.5 / 1024) << "hit " << h;
    EXPECT_EQ(hits[h].record.channels[0].samples.size(), 5120u);
  }
  // The FRFs from the split recording meet the same accuracy as from triggered records.
  ImpactOptions options;
  options.band_max_hz = 60.0;
  options.trigger = trigger;
  const ImpactResult r = EstimateFrfs({continuous}, options);
  for (const HitVerdict& v : r.verdicts) EXPECT_TRUE(v.kept) << v.source << ": " << v.reason;
  EXPECT_EQ(r.set.averages, 6);
  int lines = 0, close = 0;
  for (int l = 0; l < r.set.num_lines(); ++l)
    for (int i = 0; i < 3; ++i) {
      if (r.set.coherence[l * 9 + EntryIndex(i, 2)] < 0.95) continue;
      const auto ratio = r.set.at(l, i, 2) / test::TrueReceptance(modes, i, 2, r.set.frequency_hz[l]);
      ++lines;
      close += std::abs(20 * std::log10(std::abs(ratio))) <= 0.5 &&
               std::abs(std::arg(ratio)) * 180 / std::numbers::pi <= 3.0;
    }
  EXPECT_GT(lines, r.set.num_lines());
  EXPECT_GE(close, 0.8 * lines) << close << " of " << lines;
  // The last hit cut short by the recording's end is reported, not dropped.
  for (auto& c : continuous.channels)
    c.samples.resize(std::lround((pulse_starts.back() + 3.0) * 1024));
  const auto cut = SplitHits(continuous, trigger);
  ASSERT_EQ(cut.size(), pulse_starts.size());
  EXPECT_NE(cut.back().problem.find("record incomplete"), std::string::npos);
}

// A window exp(−t/τ) moves every pole by −1/τ: the windowed estimate is the FRF of the same
// residues with damping ζ + 1/(τ·ω_n), which is what AddedDampingRatio reports.
TEST(ImpactFrf, TheExponentialWindowAddsTheDampingItReports) {
  const std::vector<SimMode> one{test::ProportionalMode(20.0, 0.01, {0, 0, 1}, 10.0)};
  Rng rng(5);
  HitSpec s;
  s.force_noise = s.response_noise = 0.0;
  s.record_s = 2.0;  // mode decays to e^{-2.5}: the window is needed
  ImpactOptions options;
  options.band_max_hz = 40.0;
  options.exponential.end_value = 0.01;
  const ImpactResult r = EstimateFrfs({test::SimulateHit(one, s, &rng, 0)}, options);
  const double tau = 2.0 / std::log(100.0);
  EXPECT_NEAR(r.exponential_tau_s, tau, 1e-12);
  const double wn = 2 * std::numbers::pi * 20.0;
  const double added = AddedDampingRatio(tau, wn);
  EXPECT_NEAR(added, 1 / (tau * wn), 1e-15);
  std::vector<SimMode> shifted = one;
  shifted[0].lambda -= 1.0 / tau;
  int checked = 0;
  for (int l = 0; l < r.set.num_lines(); ++l) {
    const double f = r.set.frequency_hz[l];
    if (f < 10 || f > 30) continue;
    const auto h = r.set.at(l, 2, 2);
    EXPECT_NEAR(std::abs(h / test::TrueReceptance(shifted, 2, 2, f) - 1.0), 0.0, 0.01) << f;
    ++checked;
  }
  EXPECT_GT(checked, 10);
  // Without the window the same record is rejected for leakage, with the reason.
  options.exponential = {};
  Rng rng2(5);
  try {
    EstimateFrfs({test::SimulateHit(one, s, &rng2, 0)}, options);
    ADD_FAILURE() << "expected the only hit to be rejected";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not decayed"), std::string::npos) << e.what();
  }
}

// Noise on the force only: H2 is unbiased, H1 biased low by G_ff/(G_ff + G_nn), Hv between.
TEST(ImpactFrf, H2AndHvBehaveAsTheoryPredicts) {
  const auto modes = test::ThreeModes();
  Rng rng(9);
  std::vector<TimeRecording> hits;
  for (int h = 0; h < 5; ++h) {
    HitSpec s;
    s.response_noise = 0.0;
    s.force_noise = 0.01;
    hits.push_back(test::SimulateHit(modes, s, &rng, h));
  }
  ImpactOptions options;
  options.band_max_hz = 60.0;
  options.force_window.enabled = false;  // let the force noise through on purpose
  double sum[3] = {0, 0, 0};
  int i = 0;
  for (FrfEstimator e : {FrfEstimator::kH1, FrfEstimator::kH2, FrfEstimator::kHv}) {
    options.estimator = e;
    const ImpactResult r = EstimateFrfs(hits, options);
    for (int l = 0; l < r.set.num_lines(); ++l) {
      const double f = r.set.frequency_hz[l];
      sum[i] += std::log(std::abs(r.set.at(l, 2, 2) / test::TrueReceptance(modes, 2, 2, f)));
    }
    sum[i] /= r.set.num_lines();
    ++i;
  }
  EXPECT_LT(sum[0], -0.01) << "H1 should be biased low by the force noise";
  EXPECT_NEAR(sum[1], 0.0, 0.005) << "H2 should be unbiased";
  EXPECT_GT(sum[2], sum[0]);
  EXPECT_LE(sum[2], sum[1] + 0.005);
}

TEST(ImpactFrf, ASoftTipIsRejectedWithTheForceDrop) {
  const auto modes = test::ThreeModes();
  Rng rng(2);
  HitSpec s;
  s.pulse_s = 0.05;  // a 50 ms pulse: its spectrum has its first zero at 40 Hz
  std::vector<TimeRecording> hits{test::SimulateHit(modes, s, &rng, 0)};
  s.pulse_s = 0.012;
  hits.push_back(test::SimulateHit(modes, s, &rng, 1));
  ImpactOptions options;
  options.band_max_hz = 60.0;
  options.force_window.margin_s = 0.06;
  const ImpactResult r = EstimateFrfs(hits, options);
  EXPECT_FALSE(r.verdicts[0].kept);
  EXPECT_NE(r.verdicts[0].reason.find("force spectrum drops"), std::string::npos)
      << r.verdicts[0].reason;
  EXPECT_TRUE(r.verdicts[1].kept) << r.verdicts[1].reason;
}

}  // namespace
}  // namespace frfit
