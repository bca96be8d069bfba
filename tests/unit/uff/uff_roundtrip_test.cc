// Writing UFF and reading it back: FrfSet → 58 ASCII → FrfSet within the printed precision,
// → 58b binary → FrfSet bit for bit; every ASCII record format of the specification; big-endian
// 58b; DOF mapping, units and refusals when building an FrfSet.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "frfit/io/uff.h"
#include "test_support.h"

namespace frfit::uff {
namespace {

using test::ErrorOf;

FrfSet RandomSet(bool even, FrfFormat format, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  FrfSet s;
  s.posture = "milling";
  s.format = format;
  const int L = 37;
  double f = 0.5;
  for (int k = 0; k < L; ++k) {
    s.frequency_hz.push_back(even ? 0.25 + 0.5 * k : f);
    f += 0.1 + 0.9 * (u(rng) + 1.0);
  }
  s.H.resize(L * 9);
  for (auto& h : s.H) h = {u(rng) * std::pow(10.0, 6 * u(rng)), u(rng) * std::pow(10.0, 6 * u(rng))};
  s.present = {true, false, true, true, true, false, true, true, true};
  for (int k = 0; k < L; ++k)
    for (int e = 0; e < 9; ++e)
      if (!s.present[e]) s.H[k * 9 + e] = 0.0;
  return s;
}

FrfSet Back(const std::string& bytes) {
  ToFrfOptions o;
  o.posture = "milling";
  return ToFrfSet(Parse(bytes, "mem.uff"), o);
}

TEST(UffRoundTrip, BinaryIsExact) {
  for (bool even : {true, false}) {
    for (FrfFormat fmt : {FrfFormat::kReceptance, FrfFormat::kMobility, FrfFormat::kInertance}) {
      const FrfSet s = RandomSet(even, fmt, 7);
      const auto records = FromFrfSet(s, 1, true);
      ASSERT_EQ(records.size(), 7u);
      EXPECT_EQ(records[0].even, even);
      const FrfSet r = Back(Format(records));
      EXPECT_EQ(r.format, fmt);
      EXPECT_EQ(r.posture, "milling");
      EXPECT_EQ(r.present, s.present);
      EXPECT_EQ(r.frequency_hz, s.frequency_hz);
      EXPECT_EQ(r.H, s.H);
    }
  }
}

TEST(UffRoundTrip, AsciiWithinPrintedPrecision) {
  for (bool even : {true, false}) {
    const FrfSet s = RandomSet(even, FrfFormat::kMobility, 11);
    const std::string text = Format(FromFrfSet(s, 5, false));
    EXPECT_EQ(text.find('\r'), std::string::npos);
    const FrfSet r = Back(text);
    EXPECT_EQ(r.format, FrfFormat::kMobility);
    EXPECT_EQ(r.present, s.present);
    ASSERT_EQ(r.num_lines(), s.num_lines());
    for (int k = 0; k < s.num_lines(); ++k) {
      // Even: x_min + k·dx exactly; uneven: E13.5 (6 significant digits).
      if (even) {
        EXPECT_EQ(r.frequency_hz[k], s.frequency_hz[k]);
      }
      EXPECT_NEAR(r.frequency_hz[k], s.frequency_hz[k], 5e-6 * s.frequency_hz[k]);
      for (int e = 0; e < 9; ++e) {  // E20.12: 13 significant digits
        const auto a = r.H[k * 9 + e], b = s.H[k * 9 + e];
        EXPECT_NEAR(a.real(), b.real(), 5e-13 * std::abs(b.real()));
        EXPECT_NEAR(a.imag(), b.imag(), 5e-13 * std::abs(b.imag()));
      }
    }
  }
}

TEST(UffRoundTrip, AsciiRefusesFrequenciesThatPrintAlike) {
  FrfSet s = RandomSet(false, FrfFormat::kInertance, 3);
  s.frequency_hz[1] = s.frequency_hz[0] * (1 + 1e-9);
  const std::string e = ErrorOf([&] { FromFrfSet(s, 1, false); });
  EXPECT_NE(e.find("print alike in the ASCII format (E13.5); write binary (58b) instead"), std::string::npos) << e;
  EXPECT_NO_THROW(Back(Format(FromFrfSet(s, 1, true))));
}

// Every ASCII record layout (real/complex × single/double × even/uneven) and binary single.
TEST(UffRoundTrip, EveryOrdinateTypeAndSpacing) {
  for (int type : {2, 4, 5, 6})
    for (bool even : {true, false})
      for (bool binary : {false, true}) {  // NOLINT
        Function58 f;
        f.binary = binary;
        f.function_type = 1;
        f.ordinate_type = type;
        f.even = even;
        f.x_min = even ? 1.0 : 0.0;
        f.dx = even ? 0.5 : 0.0;
        const int n = 11;  // odd: partial last lines
        for (int k = 0; k < n; ++k) {
          f.x.push_back(1.0 + 0.5 * k);
          f.y.push_back({std::sin(k + 1.0), f.is_complex() ? std::cos(3.0 * k) : 0.0});
        }
        const std::string bytes = Format({f, f});
        const File back = Parse(bytes, "mem.uff");
        ASSERT_EQ(back.functions().size(), 2u);
        const Function58& r = *back.functions()[1];
        EXPECT_EQ(r.ordinate_type, type);
        EXPECT_EQ(r.even, even);
        EXPECT_EQ(r.binary, binary);
        const double tol = f.is_double() ? (binary ? 0.0 : 5e-13) : (binary ? 6e-8 : 5e-6);
        for (int k = 0; k < n; ++k) {
          EXPECT_NEAR(r.x[k], f.x[k], 1e-12) << type << even << binary;
          EXPECT_NEAR(r.y[k].real(), f.y[k].real(), tol) << type << even << binary << k;
          EXPECT_NEAR(r.y[k].imag(), f.y[k].imag(), tol) << type << even << binary << k;
        }
      }
}

TEST(UffRoundTrip, BigEndianBinary) {
  const FrfSet s = RandomSet(false, FrfFormat::kInertance, 5);
  auto records = FromFrfSet(s, 1, true);
  records.resize(1);
  std::string bytes = Format(records);
  // Swap every 8-byte value of the data block and declare big endian.
  const size_t header_end = [&] {
    size_t p = 0;
    for (int l = 0; l < 13; ++l) p = bytes.find('\n', p) + 1;
    return p;
  }();
  const size_t n = s.num_lines() * 3;
  for (size_t k = 0; k < n; ++k) std::reverse(bytes.begin() + header_end + 8 * k, bytes.begin() + header_end + 8 * k + 8);
  bytes.replace(bytes.find("58b     1"), 9, "58b     2");
  const File file = Parse(bytes, "be.uff");
  const Function58& r = *file.functions()[0];
  for (int k = 0; k < s.num_lines(); ++k) {
    EXPECT_EQ(r.x[k], s.frequency_hz[k]);
    EXPECT_EQ(r.y[k], s.H[k * 9]);
  }
}

// ---- mapping and units --------------------------------------------------------------------------

std::vector<Function58> Records() { return FromFrfSet(RandomSet(true, FrfFormat::kInertance, 9), 3, false); }

FrfSet Build(const std::vector<Function58>& r, ToFrfOptions o = {}) {
  if (o.posture.empty()) o.posture = "p";
  return ToFrfSet(Parse(Format(r), "m.uff"), o);
}

TEST(UffMapping, NegativeDirectionsFlipTheSign) {
  auto r = Records();
  const FrfSet plain = Build(r);
  r[1].response_direction = -1;  // H_xz with response in −x
  const FrfSet flipped = Build(r);
  for (int k = 0; k < plain.num_lines(); ++k) {
    EXPECT_EQ(flipped.at(k, 0, 2), -plain.at(k, 0, 2));
    EXPECT_EQ(flipped.at(k, 0, 0), plain.at(k, 0, 0));
  }
  // A mapping file can rotate the axes: codes 1 → +y and 2 → −x.
  auto q = Records();
  q.resize(1);  // H_xx only
  ToFrfOptions o;
  o.mapping.directions[1] = {1, 1};
  const FrfSet rotated = Build(q, o);
  EXPECT_TRUE(rotated.present[EntryIndex(1, 1)]);
  EXPECT_FALSE(rotated.present[EntryIndex(0, 0)]);
}

TEST(UffMapping, Refusals) {
  auto dup = Records();
  dup[1].reference_direction = 1;  // H_xz record now claims H_xx too
  EXPECT_NE(ErrorOf([&] { Build(dup); }).find("m.uff: dataset 58 record 2: maps to H_xx like dataset 58 record 1"),
            std::string::npos);
  auto abscissa = Records();
  abscissa[2].x_min += 0.25;
  EXPECT_NE(ErrorOf([&] { Build(abscissa); }).find("dataset 58 record 3.abscissa[0]: 0.5 Hz differs from 0.25 Hz in dataset 58 record 1"),
            std::string::npos)
      << ErrorOf([&] { Build(abscissa); });
  auto lines = Records();
  lines[3].y.pop_back();
  lines[3].x.pop_back();
  EXPECT_NE(ErrorOf([&] { Build(lines); }).find("dataset 58 record 4: has 36 frequency lines but dataset 58 record 1 has 37"),
            std::string::npos);
  auto nodes = Records();
  nodes[4].response_node = 8;
  nodes[4].reference_node = 8;
  EXPECT_NE(ErrorOf([&] { Build(nodes); }).find("several response nodes (3, 8); say which one is the sensor"),
            std::string::npos);
  ToFrfOptions pick;
  pick.mapping.sensor_node = 8;
  const FrfSet only8 = Build(nodes, pick);  // the other records are skipped
  int present = 0;
  for (bool p : only8.present) present += p;
  EXPECT_EQ(present, 1);
  auto cross = Records();
  cross[0].reference_node = 4;
  EXPECT_NE(ErrorOf([&] { Build(cross); }).find("record 1.reference_node: reference node 4 is not the response node 3"),
            std::string::npos);
  auto rot = Records();
  rot[0].response_direction = 5;
  EXPECT_NE(ErrorOf([&] { Build(rot); }).find("response_direction: direction code 5 (rotation) has no sensor axis"),
            std::string::npos);
  // A coherence record is read with the FRFs (uff_coherence_test.cc), given its averages.
  auto coh = Records();
  coh[6].function_type = 6;
  EXPECT_NE(ErrorOf([&] { Build(coh); }).find("dataset 58 record 7: is a coherence (function type 6), and dataset 58 does not say over how many averages"),
            std::string::npos) << ErrorOf([&] { Build(coh); });
  coh[6].function_type = 3;
  EXPECT_NE(ErrorOf([&] { Build(coh); }).find("record 7: is a cross spectrum (function type 3), not an FRF"),
            std::string::npos);
  ToFrfOptions sel;  // a mapping's record list leaves the coherence out
  sel.mapping.records = {1, 2, 3};
  EXPECT_NO_THROW(Build(coh, sel));
}

TEST(UffUnits, Labels) {
  struct Case {
    const char *num, *den;
    std::optional<FrfFormat> format;
    double scale;
  };
  const Case cases[] = {{"m/s^2", "N", FrfFormat::kInertance, 1.0},
                        {"(1/N)*(m/s\xB2)", "NONE", FrfFormat::kInertance, 1.0},
                        {"(1/N)*(m/s\xC2\xB2)", "", FrfFormat::kInertance, 1.0},
                        {"m/(N*s^2)", "", FrfFormat::kInertance, 1.0},
                        {"g/N", "", FrfFormat::kInertance, 9.80665},
                        {"g", "N", FrfFormat::kInertance, 9.80665},
                        {"G/N", "NONE", FrfFormat::kInertance, 9.80665},
                        {"m/s", "N", FrfFormat::kMobility, 1.0},
                        {"mm/s/N", "", FrfFormat::kMobility, 1e-3},
                        {"m/N", "", FrfFormat::kReceptance, 1.0},
                        {"m", "kN", FrfFormat::kReceptance, 1e-3},
                        {"m/s2", "N", FrfFormat::kInertance, 1.0},
                        {"g\xB2/Hz", "", std::nullopt, 1.0},
                        {"Pa", "", std::nullopt, 1.0},
                        {"m/s^2", "", std::nullopt, 1.0},
                        {"NONE", "NONE", std::nullopt, 1.0}};
  for (const auto& c : cases) {
    const DetectedUnits u = UnitsFromLabel(c.num, c.den);
    EXPECT_EQ(u.format, c.format) << c.num << " / " << c.den;
    EXPECT_NEAR(u.scale, c.scale, 1e-15 * c.scale) << c.num;
  }
}

TEST(UffUnits, DetectionScaleAndOverride) {
  auto r = Records();
  const FrfSet si = Build(r);
  for (auto& f : r) f.ordinate = {12, 1, 0, 0, "Acceleration", "g"};
  const FrfSet g = Build(r);
  EXPECT_EQ(g.format, FrfFormat::kInertance);
  EXPECT_EQ(g.at(3, 0, 0), si.at(3, 0, 0) * 9.80665);
  // Codes and labels that disagree are refused.
  for (auto& f : r) f.ordinate = {11, 1, 0, 0, "Velocity", "m/s^2"};
  EXPECT_NE(ErrorOf([&] { Build(r); }).find("record 1.record 9: specific data types 11/13 say mobility but the units label 'm/s^2' / 'N' says inertance"),
            std::string::npos)
      << ErrorOf([&] { Build(r); });
  // Codes alone (labels NONE) decide; exponents must be motion over force.
  for (auto& f : r) f.ordinate = {8, 1, 0, 0, "NONE", "NONE"};
  EXPECT_EQ(Build(r).format, FrfFormat::kReceptance);
  r[0].ordinate.length_exponent = 2;
  EXPECT_NE(ErrorOf([&] { Build(r); }).find("unit exponents (length 2, force 0"), std::string::npos);
  // Nothing usable: refused unless --format says it.
  for (auto& f : r) f.ordinate = {1, 0, 0, 0, "Signal", "V"}, f.denominator = {1, 0, 0, 0, "Ref", "V"};
  EXPECT_NE(ErrorOf([&] { Build(r); }).find("cannot tell the FRF format from the units"), std::string::npos);
  ToFrfOptions o;
  o.format = FrfFormat::kMobility;
  const FrfSet forced = Build(r, o);
  EXPECT_EQ(forced.format, FrfFormat::kMobility);
  EXPECT_EQ(forced.at(3, 0, 0), si.at(3, 0, 0));
  // Function type 0 (general) is accepted when the units say FRF.
  auto general = Records();
  for (auto& f : general) f.function_type = 0;
  EXPECT_EQ(Build(general).format, FrfFormat::kInertance);
  // A time abscissa is not a frequency axis.
  auto time = Records();
  time[0].abscissa = {17, 0, 0, 0, "Time", "s"};
  EXPECT_NE(ErrorOf([&] { Build(time); }).find("record 1.record 8: abscissa is time"), std::string::npos);
}

// The import says what it changed in the numbers: a unit scaled to SI, a sign flipped by a
// negative direction code, each one warning line naming the entries.
TEST(UffImport, ScalingAndSignFlipsAreWarnings) {
  std::vector<std::string> lines;
  const WarningSink previous = SetWarningSink([&](const std::string& l) { lines.push_back(l); });
  auto r = Records();
  Build(r);
  EXPECT_TRUE(lines.empty()) << lines.front();  // SI units, positive directions: nothing to say
  for (auto& f : r) f.ordinate = {12, 1, 0, 0, "Acceleration", "g"};
  r[1].response_direction = -1;  // H_xz with response in −x
  Build(r);
  SetWarningSink(previous);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("m.uff: units: H_xx, H_xz"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("'g' scaled by 9.80665 to m/s^2/N"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("m.uff: directions: H_xz: sign flipped"), std::string::npos) << lines[1];
}

}  // namespace
}  // namespace frfit::uff
