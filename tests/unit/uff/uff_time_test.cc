// Reading UFF time records (dataset 58/58b, function type 1) into TimeRecordings: the shared
// pyuff sample files give their exact outcome (none holds a hammer test: each is refused with its
// reason); synthetic impact tests written with the UFF writer (a hammer and three accelerometers,
// five hits, grouped by load case or by record order) are checked sample for sample after the
// scale to SI and the direction signs; ambiguous grouping, a file without force and mixed sample
// rates are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "frfit/io/uff.h"
#include "test_support.h"
#include "frfit/io/uff_time.h"

namespace frfit::uff {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/tests/data/uff/";

using test::ErrorOf;

// Warnings of `f` collected instead of printed.
template <class F>
std::vector<std::string> WarningsOf(F f) {
  std::vector<std::string> lines;
  const WarningSink previous = SetWarningSink([&](const std::string& l) { lines.push_back(l); });
  f();
  SetWarningSink(previous);
  return lines;
}

// One time record as a measurement front end writes it: real double samples, even spacing.
Function58 TimeRecord(const std::string& name, int code, const std::string& label,
                      const std::string& units, int direction, long load_case,
                      const std::vector<double>& samples, double dt, bool binary) {
  Function58 f;
  f.binary = binary;
  f.id_lines = {name, "NONE", "01-Jan-25 00:00:00", "impact test", "NONE"};
  f.function_type = 1;
  f.load_case = load_case;
  f.response_name = name.substr(0, 10);
  f.response_node = 1;
  f.response_direction = direction;
  f.ordinate_type = 4;
  f.even = true;
  f.x_min = 0.0;
  f.dx = dt;
  f.abscissa = {17, 0, 0, 0, "Time", "s"};
  f.ordinate = {code, 0, 0, 0, label, units};
  f.denominator = {0, 0, 0, 0, "NONE", "NONE"};
  f.z_axis = {0, 0, 0, 0, "NONE", "NONE"};
  for (size_t k = 0; k < samples.size(); ++k) {
    f.x.push_back(static_cast<double>(k) * dt);
    f.y.emplace_back(samples[k], 0.0);
  }
  return f;
}

constexpr int kSamples = 64;
constexpr double kDt = 5e-4;  // prints exactly in the header's E13.5 (1/2048 would not)
constexpr double kG = 9.80665;

// Samples of hit h, channel c: a half-sine force pulse and decaying responses in file units.
std::vector<double> Samples(int h, int c) {
  std::vector<double> s(kSamples);
  for (int k = 0; k < kSamples; ++k) {
    const double t = k * kDt;
    s[k] = c == 0 ? (k < 5 ? (100.0 + 10 * h) * std::sin(M_PI * k / 5.0) : 0.0)
                  : (0.3 + 0.1 * c + 0.01 * h) * std::exp(-20 * t) * std::sin(2 * M_PI * (80 + 40 * c) * t);
  }
  return s;
}

// Hammer (+z, N, code 13), accelerometers x (g), −y (g) and z (m/s², code 1 general: units only).
// by_load_case: hits carry load case ids 1..5; otherwise all carry 0 and hits follow each other.
std::vector<Function58> ImpactTest(int hits, bool binary, bool by_load_case, double dt = kDt) {
  std::vector<Function58> out;
  for (int h = 0; h < hits; ++h) {
    const long lc = by_load_case ? h + 1 : 0;
    out.push_back(TimeRecord("hammer", 13, "Excitation Force", "N", 3, lc, Samples(h, 0), dt, binary));
    out.push_back(TimeRecord("acc x", 12, "Acceleration", "g", 1, lc, Samples(h, 1), dt, binary));
    out.push_back(TimeRecord("acc -y", 12, "Acceleration", "g", -2, lc, Samples(h, 2), dt, binary));
    out.push_back(TimeRecord("acc z", 1, "Acceleration", "m/s^2", 3, lc, Samples(h, 3), dt, binary));
  }
  return out;
}

std::vector<TimeRecording> ReadBack(const std::vector<Function58>& records, const Mapping& m = DefaultMapping()) {
  return ToTimeRecordings(Parse(Format(records), "test.uff"), m);
}

std::string RefusalOf(const std::vector<Function58>& records, const Mapping& m = DefaultMapping()) {
  return ErrorOf([&] { ReadBack(records, m); });
}

// The expected SI sample: the reader's factor (scale × sign) times the file's value.
void ExpectHits(const std::vector<TimeRecording>& recs, int hits, double tolerance) {
  ASSERT_EQ(recs.size(), static_cast<size_t>(hits));
  const double factor[4] = {1.0, kG, -kG, 1.0};
  const ChannelQuantity quantity[4] = {ChannelQuantity::kForce, ChannelQuantity::kAcceleration,
                                       ChannelQuantity::kAcceleration, ChannelQuantity::kAcceleration};
  const int axis[4] = {2, 0, 1, 2};
  for (int h = 0; h < hits; ++h) {
    const TimeRecording& r = recs[h];
    EXPECT_EQ(r.hit, hits == 1 ? -1 : h);
    EXPECT_DOUBLE_EQ(r.sample_rate_hz, 2000.0);
    EXPECT_EQ(r.source, "test.uff records " + std::to_string(4 * h + 1) + "-" + std::to_string(4 * h + 4));
    ASSERT_EQ(r.channels.size(), 4u);
    for (int c = 0; c < 4; ++c) {
      const TimeChannel& ch = r.channels[c];
      EXPECT_EQ(ch.quantity, quantity[c]) << h << " " << c;
      EXPECT_EQ(ch.axis, axis[c]) << h << " " << c;
      EXPECT_EQ(ch.full_scale, 0.0);
      const std::vector<double> v = Samples(h, c);
      ASSERT_EQ(ch.samples.size(), v.size());
      for (int k = 0; k < kSamples; ++k) {
        const double expected = factor[c] * v[k];
        if (tolerance == 0.0)
          EXPECT_EQ(ch.samples[k], expected) << h << " " << c << " " << k;
        else
          EXPECT_NEAR(ch.samples[k], expected, tolerance * (1e-3 + std::abs(expected))) << h << " " << c << " " << k;
      }
    }
  }
  EXPECT_EQ(recs[0].channels[0].name, "hammer (record 1)");
  EXPECT_EQ(recs[0].channels[2].name, "acc -y (record 3)");
}

TEST(UffTime, HammerAndThreeAccelerometersFiveHitsByLoadCaseBinaryExact) {
  std::vector<TimeRecording> recs;
  const auto warnings = WarningsOf([&] { recs = ReadBack(ImpactTest(5, true, true)); });
  ExpectHits(recs, 5, 0.0);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "test.uff: units: records 2-3, 6-7, 10-11, 14-15, 18-19: 'g' scaled by 9.80665 to m/s²");
  EXPECT_EQ(warnings[1], "test.uff: directions: records 3, 7, 11, 15, 19: sign flipped, a negative "
                         "direction code mapped onto the sensor's + axis");
}

TEST(UffTime, FiveHitsByRecordOrderAscii) {
  std::vector<TimeRecording> recs;
  WarningsOf([&] { recs = ReadBack(ImpactTest(5, false, false)); });
  ExpectHits(recs, 5, 1e-12);  // 4E20.12: 13 significant digits
}

TEST(UffTime, LoadCasesNeedNotBeContiguousAndTheForceNeedNotComeFirst) {
  std::vector<Function58> records = ImpactTest(2, true, true);
  std::swap(records[0], records[3]);  // hit 1: acc z, acc x, acc -y, hammer
  std::swap(records[3], records[4]);  // ... hit 2's hammer before hit 1's last record
  std::vector<TimeRecording> recs;
  WarningsOf([&] { recs = ReadBack(records); });
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].channels[0].quantity, ChannelQuantity::kForce);
  EXPECT_EQ(recs[0].channels[0].samples, Samples(0, 0));
  EXPECT_EQ(recs[1].channels[0].samples, Samples(1, 0));
  EXPECT_EQ(recs[0].source, "test.uff records 1-3, 5");
}

TEST(UffTime, OneGroupIsAContinuousRecording) {
  std::vector<TimeRecording> recs;
  WarningsOf([&] { recs = ReadBack(ImpactTest(1, false, false)); });
  ExpectHits(recs, 1, 1e-12);
}

TEST(UffTime, UnitsLabelsAloneAndMappedDirections) {
  // A front end that writes general (1) data types: the labels tell force (lbf) and motion (mm/s);
  // scalar direction codes get their axis from the mapping.
  std::vector<Function58> records = {
      TimeRecord("F", 1, "Force", "lbf", 0, 0, {0, 1, 2, 1}, 1e-3, false),
      TimeRecord("v", 0, "Velocity", "mm/s", 0, 0, {1, -1, 2, -2}, 1e-3, false)};
  records[1].response_direction = 4;  // a rotation code, mapped below
  Mapping m = DefaultMapping();
  EXPECT_EQ(RefusalOf(records, m),
            "test.uff: dataset 58 record 1.response_direction: direction code 0 (scalar) has no sensor "
            "axis in the mapping (translations ±1/±2/±3 map to x/y/z by default; a mapping file's "
            "directions: can assign others)");
  m.directions[0] = {2, 1};
  m.directions[4] = {1, -1};
  std::vector<TimeRecording> recs;
  WarningsOf([&] { recs = ReadBack(records, m); });
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_DOUBLE_EQ(recs[0].sample_rate_hz, 1000.0);
  EXPECT_EQ(recs[0].channels[0].quantity, ChannelQuantity::kForce);
  EXPECT_EQ(recs[0].channels[0].axis, 2);
  EXPECT_NEAR(recs[0].channels[0].samples[2], 2 * 4.4482216152605, 1e-12);
  EXPECT_EQ(recs[0].channels[1].quantity, ChannelQuantity::kVelocity);
  EXPECT_EQ(recs[0].channels[1].axis, 1);
  EXPECT_NEAR(recs[0].channels[1].samples[2], -2e-3, 1e-15);
}

TEST(UffTime, AmbiguousGroupingRefused) {
  // One load case, a response before any force: which hit is it?
  std::vector<Function58> records = ImpactTest(2, false, false);
  std::swap(records[0], records[1]);
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 1: is a response record before any force record, and the "
            "records carry one load case id (0): cannot tell which hit it belongs to (a hit's records "
            "must start with its force, or each hit carry its own load case id)");
  // Hit 2's hammer record missing: its responses would join hit 1.
  records = ImpactTest(2, false, false);
  records.erase(records.begin() + 4);
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 5: is a second acceleration x channel in hit 1 (the first: "
            "record 2): cannot tell the hits apart (give each hit its own load case id, or start each "
            "with its force record)");
  // Two hammers in one load case.
  records = ImpactTest(2, false, true);
  records[4].load_case = 1;
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 5: is a second force record in load case 1 (the first: "
            "record 1): one hammer per hit");
  // A load case without its hammer.
  records = ImpactTest(2, false, true);
  records.erase(records.begin() + 4);
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 5: load case 2 has no force record: every hit needs the "
            "hammer's force");
  // Hits with different channels.
  records = ImpactTest(2, false, false);
  records.pop_back();
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 5: hit 2 (records 5-7) records force z, acceleration x, "
            "acceleration y but hit 1 (records 1-4) records force z, acceleration x, acceleration y, "
            "acceleration z: every hit must record the same channels");
  // A hammer without responses.
  records = {ImpactTest(1, false, false)[0]};
  EXPECT_EQ(RefusalOf(records),
            "test.uff: no response channel: the time records hold only force; an impact test needs "
            "the responses (acceleration, velocity or displacement) too");
}

TEST(UffTime, WithoutForceRefused) {
  std::vector<Function58> records = ImpactTest(1, false, false);
  records.erase(records.begin());
  EXPECT_EQ(RefusalOf(records),
            "test.uff: no force channel: the time records hold acceleration in 'g' (records 1-2); "
            "acceleration in 'm/s^2' (record 3); an impact test needs the hammer's force (ordinate "
            "specific data type 13, or units N, kN or lbf)");
}

TEST(UffTime, MixedSampleRatesAndLengthsRefused) {
  std::vector<Function58> records = ImpactTest(2, false, true);
  records[6] = TimeRecord("acc -y", 12, "Acceleration", "g", -2, 2, Samples(1, 2), 1e-3, false);
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 7.record 7.abscissa_increment: sample spacing 0.001 s (1000 Hz) "
            "differs from 0.0005 s (2000 Hz) in dataset 58 record 1: every channel "
            "must have one sample rate");
  // Across hits too: a hit sampled at another rate would not average with the others.
  records = ImpactTest(2, false, true);
  for (int c = 4; c < 8; ++c) records[c].dx = 1e-3;
  EXPECT_NE(RefusalOf(records).find("record 5.record 7.abscissa_increment: sample spacing"), std::string::npos)
      << RefusalOf(records);
  records = ImpactTest(2, false, true);
  records[5].y.pop_back();
  records[5].x.pop_back();
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 6.record 7.num_points: has 63 samples but the hit's force "
            "(dataset 58 record 5) has 64: a hit's channels must be equally long");
  records = ImpactTest(2, false, true);
  records[5].x_min = 0.5;
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 6.record 7.abscissa_min: starts at 0.5 s but the hit's force "
            "(dataset 58 record 5) at 0 s: a hit's channels must be sampled together");
}

TEST(UffTime, OtherRecordsAndUnitsRefused) {
  std::vector<Function58> records = ImpactTest(1, false, false);
  records[1].ordinate.units = "N";  // code 12 acceleration, label force
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 2.record 9: specific data type 12 says acceleration but the "
            "units label 'N' says force");
  records = ImpactTest(1, false, false);
  records[3].ordinate = {15, 0, 0, 0, "Sound Pressure", "Pa"};
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 4.record 9: is 'Sound Pressure' (specific data type 15, "
            "units 'Pa'), neither the hammer's force nor a motion (acceleration, velocity, "
            "displacement); leave it out with records: in a mapping file (--mapping)");
  Mapping m = DefaultMapping();
  m.records = {1, 2, 3};
  std::vector<TimeRecording> recs;
  WarningsOf([&] { recs = ReadBack(records, m); });
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].channels.size(), 3u);
  records = ImpactTest(1, false, false);
  records[2].abscissa = {18, 0, 0, 0, "Frequency", "Hz"};
  EXPECT_EQ(RefusalOf(records),
            "test.uff: dataset 58 record 3.record 8: abscissa specific data type 18, expected time (17)");
}

// The shared sample files (pyuff, tests/data/uff): none is a hammer test.
std::string SharedRefusal(const std::string& name) {
  return ErrorOf([&] { ReadTimeRecordings(kData + name); });
}

TEST(UffTime, SharedFilesRefusedWithTheirReason) {
  EXPECT_EQ(SharedRefusal("Sample_UFF58_ascii.uff"),
            kData + "Sample_UFF58_ascii.uff: no force channel: the time records hold 'Pressure' "
                    "(specific data type 21, units 'Pa') (record 1); an impact test needs the "
                    "hammer's force (ordinate specific data type 13, or units N, kN or lbf)");
  EXPECT_EQ(SharedRefusal("Sample_UFF58b_bin.uff"),
            kData + "Sample_UFF58b_bin.uff: no force channel: the time records hold 'Pressure' "
                    "(specific data type 21, units 'Pa') (record 1); an impact test needs the "
                    "hammer's force (ordinate specific data type 13, or units N, kN or lbf)");
  EXPECT_EQ(SharedRefusal("binary8byte.uff"),
            kData + "binary8byte.uff: no force channel: the time records hold acceleration in 'g' "
                    "(record 1); an impact test needs the hammer's force (ordinate specific data type "
                    "13, or units N, kN or lbf)");
  EXPECT_EQ(SharedRefusal("time-history-not-all-columns-filled.uff"),
            kData + "time-history-not-all-columns-filled.uff: no force channel: the time records "
                    "hold acceleration in 'm/s²' (record 1); an impact test needs the hammer's force "
                    "(ordinate specific data type 13, or units N, kN or lbf)");
  EXPECT_EQ(SharedRefusal("dataset_milestone_in_header.uff"),
            kData + "dataset_milestone_in_header.uff: dataset 58 record 1.data: expected 2508876 "
                    "values (2508876 points × 1 as record 7 announces), got 42");
  EXPECT_EQ(SharedRefusal("non_ascii_header.uff"),
            kData + "non_ascii_header.uff: dataset 58 record 1: is a frequency response function "
                    "(function type 4), not a time response (function type 1); an FRF file is read "
                    "by frfit convert");
  EXPECT_EQ(SharedRefusal("sample_dataset58_psd.uff"),
            kData + "sample_dataset58_psd.uff: dataset 58 record 1: is a power spectral density "
                    "(function type 9), not a time response (function type 1)");
  EXPECT_EQ(SharedRefusal("TestLab_161_164_18_15_82.uff"),
            kData + "TestLab_161_164_18_15_82.uff: no dataset 58 (function) to read a time record "
                    "from; the file holds datasets 151 (header), 164 (units), 18 (coordinate systems), "
                    "15 (nodes), 82 (trace lines)");
}

// frfit frf reads .uff inputs with this reader: a time history without force gives its one line.
TEST(UffTime, FrfCommandReadsUff) {
  const std::string err = std::string(::testing::TempDir()) + "/uff_time_frf.err";
  const std::string out = std::string(::testing::TempDir()) + "/uff_time_frf.h5";
  const std::string cmd = std::string("'") + FRFIT_CLI_PATH + "' frf '" + kData +
                          "binary8byte.uff' --out '" + out + "' >/dev/null 2>'" + err + "'";
  EXPECT_NE(std::system(cmd.c_str()), 0);
  std::ifstream in(err);
  std::string line, rest;
  std::getline(in, line);
  EXPECT_FALSE(std::getline(in, rest)) << rest;
  EXPECT_EQ(line, "error: " + kData + "binary8byte.uff: no force channel: the time records hold "
                  "acceleration in 'g' (record 1); an impact test needs the hammer's force "
                  "(ordinate specific data type 13, or units N, kN or lbf)");
}

}  // namespace
}  // namespace frfit::uff
