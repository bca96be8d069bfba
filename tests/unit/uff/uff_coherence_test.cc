// Coherence records (dataset 58, function type 6) read with their FRFs: each paired with the FRF of
// its DOFs, its noise model derived from it and the number of averages given; refused when the
// averages are unknown, when it has no FRF, or when an FRF lacks one.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "frfit/common/error.h"
#include "frfit/io/uff.h"

namespace frfit::uff {
namespace {

FrfSet Direct() {  // H_xx, H_yy, H_zz of a made-up receptance on 20 lines
  FrfSet s;
  s.posture = "milling";
  s.format = FrfFormat::kReceptance;
  for (int k = 0; k < 20; ++k) s.frequency_hz.push_back(1.0 + 0.5 * k);
  s.H.assign(20 * 9, 0.0);
  for (int k = 0; k < 20; ++k)
    for (int i = 0; i < 3; ++i) s.H[k * 9 + 4 * i] = {1e-6 * (1 + i + 0.1 * k), -2e-7 * (k + 1)};
  for (int i = 0; i < 3; ++i) s.present[4 * i] = true;
  return s;
}

// A coherence record for the entry of `frf`'s record: its DOFs, real double ordinate.
Function58 CoherenceOf(const Function58& frf, double base) {
  Function58 c = frf;
  c.function_type = 6;
  c.ordinate_type = 4;
  c.ordinate = AxisInfo{0, 0, 0, 0, "Coherence", "NONE"};
  c.denominator = AxisInfo{0, 0, 0, 0, "NONE", "NONE"};
  for (size_t k = 0; k < c.y.size(); ++k) c.y[k] = {base - 0.01 * static_cast<double>(k), 0.0};
  return c;
}

std::string ErrorOf(const std::vector<Function58>& records, ToFrfOptions options) {
  try {
    ToFrfSet(Parse(Format(records), "test.uff"), options);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(UffCoherence, PairedByDofsWithTheirNoiseModel) {
  const FrfSet set = Direct();
  std::vector<Function58> records = FromFrfSet(set, 1, false);
  ASSERT_EQ(records.size(), 3u);
  const size_t frfs = records.size();
  for (size_t r = 0; r < frfs; ++r) records.push_back(CoherenceOf(records[r], 0.95 - 0.1 * r));
  ToFrfOptions options;
  options.posture = "milling";
  options.averages = 4;
  const FrfSet read = ToFrfSet(Parse(Format(records), "test.uff"), options);
  EXPECT_EQ(read.noise_source, "coherence");
  EXPECT_EQ(read.averages, 4);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 20; ++k) {
      const double g = 0.95 - 0.1 * i - 0.01 * k;  // the record of H_ii, written above
      const size_t at = static_cast<size_t>(k) * 9 + 4 * i;
      EXPECT_NEAR(read.coherence[at], g, 1e-6) << i << " " << k;
      EXPECT_NEAR(read.noise_variance[at] / ((1 - g) / ((4 - 2) * g) * std::norm(read.H[at])), 1.0, 1e-5);
    }
}

TEST(UffCoherence, RefusedWithoutAveragesWithoutItsFrfOrForOnlySomeFrfs) {
  std::vector<Function58> records = FromFrfSet(Direct(), 1, false);
  std::vector<Function58> all = records;
  for (const Function58& f : records) all.push_back(CoherenceOf(f, 0.9));
  ToFrfOptions options;
  options.posture = "milling";
  EXPECT_NE(ErrorOf(all, options).find("--averages"), std::string::npos) << ErrorOf(all, options);
  options.averages = 3;
  EXPECT_EQ(ErrorOf(all, options), "");
  // A coherence of a DOF pair no FRF has.
  std::vector<Function58> stray = all;
  stray.back().reference_direction = 1;
  stray.back().response_direction = 2;
  EXPECT_NE(ErrorOf(stray, options).find("no FRF record used has those DOFs"), std::string::npos)
      << ErrorOf(stray, options);
  // Coherence for two of the three FRFs.
  std::vector<Function58> partial = all;
  partial.pop_back();
  EXPECT_NE(ErrorOf(partial, options).find("H_zz has no coherence record"), std::string::npos)
      << ErrorOf(partial, options);
  // Only coherences.
  std::vector<Function58> only(all.begin() + 3, all.end());
  EXPECT_NE(ErrorOf(only, options).find("no FRF"), std::string::npos) << ErrorOf(only, options);
}

// A set with coherence written by frfit: one type-6 record per FRF after the FRFs, ID line 5
// "averages N"; read back without --averages, with coherence and noise model as written (58b bit
// for bit, ASCII to 13 digits); --averages overrides; disagreeing records are refused.
TEST(UffCoherence, WrittenWithTheSetAndReadBackWithItsAverages) {
  FrfSet set = Direct();
  set.coherence.assign(set.H.size(), 0.0);
  for (int k = 0; k < 20; ++k)
    for (int i = 0; i < 3; ++i) set.coherence[k * 9 + 4 * i] = 0.99 - 0.013 * k - 0.1 * i;
  set.averages = 7;
  NoiseFromCoherence(&set, "set");
  for (bool binary : {true, false}) {
    const std::vector<Function58> records = FromFrfSet(set, 1, binary);
    ASSERT_EQ(records.size(), 6u);
    EXPECT_EQ(records[4].function_type, 6);
    EXPECT_EQ(records[4].id_lines[4], "averages 7");
    EXPECT_EQ(records[4].response_direction, 2);
    EXPECT_EQ(records[4].reference_direction, 2);
    ToFrfOptions options;
    options.posture = "milling";
    const FrfSet read = ToFrfSet(Parse(Format(records), "test.uff"), options);
    EXPECT_EQ(read.averages, 7);
    EXPECT_EQ(read.noise_source, "coherence");
    ASSERT_EQ(read.coherence.size(), set.coherence.size());
    for (size_t k = 0; k < set.coherence.size(); ++k) {
      if (binary) {
        EXPECT_EQ(read.coherence[k], set.coherence[k]) << k;
        EXPECT_EQ(read.noise_variance[k], set.noise_variance[k]) << k;
      } else {
        EXPECT_NEAR(read.coherence[k], set.coherence[k], 1e-12) << k;
        if (std::isinf(set.noise_variance[k]))  // an entry not measured: γ² = 0
          EXPECT_EQ(read.noise_variance[k], set.noise_variance[k]) << k;
        else
          EXPECT_NEAR(read.noise_variance[k], set.noise_variance[k], 1e-11 * set.noise_variance[k]) << k;
      }
    }
    options.averages = 3;  // given explicitly: it wins over the ID line
    EXPECT_EQ(ToFrfSet(Parse(Format(records), "test.uff"), options).averages, 3);
  }
  std::vector<Function58> records = FromFrfSet(set, 1, false);
  records[5].id_lines[4] = "averages 8";
  ToFrfOptions options;
  options.posture = "milling";
  EXPECT_EQ(ErrorOf(records, options),
            "test.uff: dataset 58 record 6.record 5: says averages 8 but dataset 58 record 4 says 7");
  records[5].id_lines[4] = "averages many";
  EXPECT_EQ(ErrorOf(records, options),
            "test.uff: dataset 58 record 6.record 5: expected 'averages N' with N in [1, 1000000], "
            "got 'averages many'");
  // Another writer's ID lines are not read: its averages must be given.
  records = FromFrfSet(set, 1, false);
  for (Function58& f : records) f.id_lines[3] = "Test.Lab";
  EXPECT_NE(ErrorOf(records, options).find("--averages"), std::string::npos) << ErrorOf(records, options);
}

}  // namespace
}  // namespace frfit::uff
