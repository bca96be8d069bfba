// frfit frf end to end: time recordings written by io/time_hdf5.h, the command's FRF file and
// --json, its refusals (one error line, nothing written), and the SciPy cross-check script when
// python3 with numpy, scipy and h5py is there.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frfit/io/frf_hdf5.h"
#include "frfit/io/time_hdf5.h"
#include "impact_simulation.h"
#include "test_support.h"

namespace frfit {
namespace {

class ImpactCli : public test::TempDirTest {
 protected:
  test::CliResult Cli(std::vector<std::string> args) const {
    args.insert(args.begin(), "frf");
    return Run(args);
  }
  // `truth`'s modes hit (5 a direction, records too short to decay), windowed, through frf and
  // ema: every damping ratio within 5 % of the truth after the window's correction.
  void ExpectEmaDampingWithinFivePercent(const std::vector<test::SimMode>& truth, std::uint64_t seed);
};

// Hits of one hammer axis: `good` good ones, then one double hit.
std::vector<TimeRecording> AxisHits(int axis, int good, Rng* rng) {
  std::vector<TimeRecording> hits;
  for (int h = 0; h <= good; ++h) {
    test::HitSpec s;
    s.hammer_axis = axis;
    s.record_s = 4.0;
    s.quantity = ChannelQuantity::kAcceleration;
    if (h == good) s.double_hit_fraction = 0.5;
    hits.push_back(test::SimulateHit(test::ThreeModes(), s, rng, h));
  }
  return hits;
}

TEST_F(ImpactCli, TimeRecordingsRoundTripBitForBit) {
  Rng rng(1);
  auto hits = AxisHits(1, 2, &rng);
  hits[0].channels[2].full_scale = 12.5;
  for (auto& h : hits) h.channels[2].full_scale = 12.5;
  WriteTimeRecordings(Path("t.h5"), hits);
  const auto back = ReadTimeRecordings(Path("t.h5"));
  ASSERT_EQ(back.size(), hits.size());
  for (size_t h = 0; h < hits.size(); ++h) {
    EXPECT_EQ(back[h].hit, static_cast<int>(h));
    EXPECT_EQ(back[h].sample_rate_hz, hits[h].sample_rate_hz);
    ASSERT_EQ(back[h].channels.size(), hits[h].channels.size());
    for (size_t c = 0; c < hits[h].channels.size(); ++c) {
      EXPECT_EQ(back[h].channels[c].name, hits[h].channels[c].name);
      EXPECT_EQ(back[h].channels[c].quantity, hits[h].channels[c].quantity);
      EXPECT_EQ(back[h].channels[c].axis, hits[h].channels[c].axis);
      EXPECT_EQ(back[h].channels[c].full_scale, hits[h].channels[c].full_scale);
      EXPECT_EQ(back[h].channels[c].samples, hits[h].channels[c].samples);
    }
  }
}

TEST_F(ImpactCli, FrfWritesTheSetAndReportsEveryRejectedHit) {
  Rng rng(2);
  std::vector<std::string> args;
  for (int axis = 0; axis < 3; ++axis) {
    const std::string path = Path(std::string("hits_") + "xyz"[axis] + ".h5");
    WriteTimeRecordings(path, AxisHits(axis, 3, &rng));
    args.push_back(path);
  }
  for (const std::string& a : {std::string("--out"), Path("frf.h5"), std::string("--band"),
                               std::string("0:60"), std::string("--posture"),
                               std::string("milling"), std::string("--json"),
                               std::string("--exponential-window"), std::string("tau=2")})
    args.push_back(a);
  const test::CliResult r = Cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["hits_used"], 9);
  ASSERT_EQ(j["hits_rejected"].size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(j["hits_rejected"][k]["hit"], 4 * k + 3);
    EXPECT_NE(j["hits_rejected"][k]["reason"].get<std::string>().find("double hit"),
              std::string::npos);
  }
  EXPECT_EQ(j["frequency_hz"]["first"], 0.25);
  EXPECT_EQ(j["frequency_hz"]["step"], 0.25);
  EXPECT_EQ(j["frequency_hz"]["last"], 60.0);
  EXPECT_EQ(j["out"], Path("frf.h5"));
  EXPECT_NE(r.err.find("exponential window: tau 2 s adds a damping ratio of"), std::string::npos)
      << r.err;
  const FrfSet set = ReadFrfSet(Path("frf.h5"));
  EXPECT_EQ(set.format, FrfFormat::kInertance);
  EXPECT_EQ(set.posture, "milling");
  EXPECT_EQ(set.averages, 3);
  EXPECT_EQ(set.noise_source, "coherence");
  for (bool p : set.present) EXPECT_TRUE(p);
  bool tau = false;
  for (const auto& [k, v] : set.provenance) tau |= k == "exponential_window_tau_s" && v == "2";
  EXPECT_TRUE(tau);
}

TEST_F(ImpactCli, AContinuousRecordingWithoutARecordLengthIsRefusedWithNothingWritten) {
  Rng rng(3);
  TimeRecording continuous = AxisHits(2, 1, &rng)[0];
  continuous.hit = -1;
  WriteTimeRecordings(Path("c.h5"), {continuous});
  const test::CliResult r = Cli({Path("c.h5"), "--out", Path("frf.h5")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: " + Path("c.h5") +
                       ": /samples: expected --record-seconds S to split this continuous "
                       "recording into hits\n");
  EXPECT_FALSE(std::filesystem::exists(Path("frf.h5")));
  const test::CliResult bad = Cli({Path("c.h5"), "--out", Path("frf.h5"), "--estimator", "h3"});
  EXPECT_EQ(bad.err, "error: frfit frf: --estimator: expected h1, h2 or hv, got 'h3'\n");
  EXPECT_FALSE(std::filesystem::exists(Path("frf.h5")));
}

// Records too short for the responses to decay need the exponential window; frfit ema on the
// result removes the damping it added (recorded in the set's provenance) and lands within 5 % of
// the true damping ratios, where the uncorrected ones are 75-130 % too high.
void ImpactCli::ExpectEmaDampingWithinFivePercent(const std::vector<test::SimMode>& truth, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::string> args;
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<TimeRecording> hits;
    for (int h = 0; h < 5; ++h) {
      test::HitSpec s;
      s.hammer_axis = axis;
      s.record_s = 2.0;  // mode 1 (12 Hz, 2 %) has decayed to 15 % by the end
      s.quantity = ChannelQuantity::kAcceleration;
      hits.push_back(test::SimulateHit(truth, s, &rng, h));
    }
    args.push_back(Path(std::string("hits_") + "xyz"[axis] + ".h5"));
    WriteTimeRecordings(args.back(), hits);
  }
  for (const std::string& a : {std::string("--out"), Path("frf.h5"), std::string("--band"),
                               std::string("5:50"), std::string("--exponential-window"),
                               std::string("end=0.02")})
    args.push_back(a);
  const test::CliResult frf = Cli(args);
  ASSERT_EQ(frf.status, 0) << frf.err;
  const test::CliResult ema = Run({"ema", Path("frf.h5"), "--json"});
  ASSERT_EQ(ema.status, 0) << ema.err;
  const auto j = nlohmann::json::parse(ema.out);
  EXPECT_NEAR(j["exponential_window_tau_s"].get<double>(), 2.0 / std::log(50.0), 1e-12);
  ASSERT_EQ(j["modes"].size(), truth.size()) << ema.out;
  for (size_t m = 0; m < truth.size(); ++m) {
    const double zeta = -truth[m].lambda.real() / std::abs(truth[m].lambda);
    const double got = j["modes"][m]["damping_ratio"];
    EXPECT_NEAR(got / zeta, 1.0, 0.05) << "mode " << m << ": " << got << " vs " << zeta;
    std::printf("ema mode %zu: damping %.5f (truth %.5f)\n", m, got, zeta);
  }
}

TEST_F(ImpactCli, EmaOnWindowedFrfsGivesTheTrueDampingAfterTheCorrection) {
  ExpectEmaDampingWithinFivePercent(test::ThreeModes(), 4);
}

// The same where two modes overlap (20 and 21 Hz, half-power bands 0.8 and 0.6 Hz wide).
TEST_F(ImpactCli, EmaSeparatesOverlappingModesAndCorrectsTheirDamping) {
  ExpectEmaDampingWithinFivePercent(test::CloseModes(), 5);
}

// benchmarks/impact_vs_scipy.py: frfit's H1 and coherence equal SciPy's to 1e-10 relative.
TEST_F(ImpactCli, H1AndCoherenceEqualScipys) {
  if (std::system("python3 -c 'import numpy, scipy, h5py' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 with numpy, scipy and h5py is not installed: the SciPy cross-check "
                    "(benchmarks/impact_vs_scipy.py) did not run";
  const test::CliResult r = test::RunShell(
      "python3 " + test::Quote(std::string(FRFIT_SOURCE_DIR) + "/benchmarks/impact_vs_scipy.py") +
          " " + test::Quote(FRFIT_CLI_PATH) + " " + test::Quote(Path("")),
      Path("py.out"), Path("py.err"));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace frfit
