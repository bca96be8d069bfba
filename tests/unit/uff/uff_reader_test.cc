// Reading UFF datasets 58/58b: the real files from pyuff (tests/data/uff, MIT, LICENSE.pyuff)
// parse with the facts checked independently (by eye and with pyuff 2.5.8), or are refused by
// name; malformed input is an Error naming the record and the field, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/io/uff.h"
#include "test_support.h"

namespace frfit::uff {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/tests/data/uff/";

std::string Bytes(const std::string& name) {
  std::ifstream in(kData + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

using test::ErrorOf;

std::string RefusalOf(const std::string& name) {
  return ErrorOf([&] {
    ToFrfOptions o;
    o.posture = "p";
    ToFrfSet(Read(kData + name), o);
  });
}

TEST(UffShared, AsciiTimeHistory) {
  const File f = Read(kData + "Sample_UFF58_ascii.uff");
  ASSERT_EQ(f.datasets.size(), 1u);
  const Function58& r = *f.functions().at(0);
  EXPECT_FALSE(r.binary);
  EXPECT_EQ(r.function_type, 1);
  EXPECT_EQ(r.ordinate_type, 2);
  EXPECT_TRUE(r.even);
  EXPECT_EQ(r.id_lines[0], "Mic 01.0Scalar");
  EXPECT_EQ(r.id_lines[2], "18-Apr-16 13:49:58");
  EXPECT_EQ(r.response_name, "Mic 01");
  EXPECT_EQ(r.response_node, 0);
  EXPECT_EQ(r.response_direction, 1);
  EXPECT_EQ(r.abscissa.specific_data_type, 17);
  EXPECT_EQ(r.abscissa.units, "s");
  EXPECT_EQ(r.ordinate.specific_data_type, 21);
  EXPECT_EQ(r.ordinate.label, "Pressure");
  ASSERT_EQ(r.y.size(), 79292u);
  EXPECT_DOUBLE_EQ(r.x[1], 1.52588e-05);
  EXPECT_DOUBLE_EQ(r.y[0].real(), -1.47553e-02);
  EXPECT_DOUBLE_EQ(r.y[1].real(), -1.72957e-02);
  EXPECT_DOUBLE_EQ(r.y[6].real(), -1.44522e-02);  // first value of the second data line
  EXPECT_EQ(r.y[0].imag(), 0.0);
  EXPECT_NE(RefusalOf("Sample_UFF58_ascii.uff").find("dataset 58 record 1: is a time response (function type 1), not an FRF"),
            std::string::npos)
      << RefusalOf("Sample_UFF58_ascii.uff");
}

TEST(UffShared, BinarySingleMatchesItsAsciiTwin) {
  const File b = Read(kData + "Sample_UFF58b_bin.uff");
  const File a = Read(kData + "Sample_UFF58_ascii.uff");
  ASSERT_EQ(b.datasets.size(), 1u);
  const Function58& rb = *b.functions()[0];
  const Function58& ra = *a.functions()[0];
  EXPECT_TRUE(rb.binary);
  EXPECT_EQ(rb.function_type, 1);
  EXPECT_EQ(rb.ordinate_type, 2);
  ASSERT_EQ(rb.y.size(), 79292u);  // 317168 bytes / 4
  EXPECT_EQ(rb.y[0].real(), static_cast<double>(-0.01475526f));
  // The ASCII twin prints 6 significant digits of the same float32 values.
  for (size_t k = 0; k < rb.y.size(); ++k)
    ASSERT_NEAR(ra.y[k].real(), rb.y[k].real(), 6e-6 * std::abs(rb.y[k].real()) + 1e-12) << k;
  EXPECT_NE(RefusalOf("Sample_UFF58b_bin.uff").find("dataset 58b record 1: is a time response"),
            std::string::npos);
}

TEST(UffShared, BinaryDoubleSine) {
  const File f = Read(kData + "binary8byte.uff");
  const Function58& r = *f.functions().at(0);
  EXPECT_TRUE(r.binary);
  EXPECT_EQ(r.ordinate_type, 4);
  EXPECT_EQ(r.response_name, "sine 5 Hz");
  EXPECT_EQ(r.response_node, 1);
  EXPECT_EQ(r.ordinate.specific_data_type, 12);
  EXPECT_EQ(r.ordinate.units, "g");
  ASSERT_EQ(r.y.size(), 250u);  // 2000 bytes / 8
  EXPECT_EQ(r.dx, 0.01);
  // A 5 Hz sine sampled at 100 Hz (float32 values widened to double; max deviation 7.4e-6).
  for (size_t k = 0; k < r.y.size(); ++k)
    ASSERT_NEAR(r.y[k].real(), std::sin(2 * M_PI * 5 * r.x[k]), 2e-5) << k;
  EXPECT_NEAR(r.y[1].real(), 0.30901697, 1e-8);
  EXPECT_NE(RefusalOf("binary8byte.uff").find("time response (function type 1)"), std::string::npos);
}

TEST(UffShared, MilestoneHeaderIsTruncatedAndRefused) {
  // Record 7 announces 2508876 points; the file carries only the first 42 (7 lines of 6).
  const std::string e = RefusalOf("dataset_milestone_in_header.uff");
  EXPECT_NE(e.find("dataset 58 record 1.data: expected 2508876 values"), std::string::npos) << e;
  EXPECT_NE(e.find("got 42"), std::string::npos) << e;
  // With the count corrected the header (with its '[...:1]' ID line) and data read back.
  const File f = Parse(Replace(Bytes("dataset_milestone_in_header.uff"), "   2508876", "        42"), "m");
  const Function58& r = *f.functions().at(0);
  EXPECT_EQ(r.id_lines[0].substr(0, 7), "M.REDON");
  EXPECT_EQ(r.function_type, 1);
  EXPECT_EQ(r.function_id, 1);
  EXPECT_EQ(r.version, 1);
  EXPECT_EQ(r.response_name, "PWL Mic");
  EXPECT_EQ(r.response_node, 1);
  EXPECT_EQ(r.response_direction, 1);
  EXPECT_EQ(r.reference_node, -1);
  EXPECT_EQ(r.ordinate.label, "Sound Pressure");
  ASSERT_EQ(r.y.size(), 42u);
  EXPECT_DOUBLE_EQ(r.x[0], 1.11858e-05);
  EXPECT_DOUBLE_EQ(r.dx, 1.95312e-05);
  EXPECT_DOUBLE_EQ(r.y[0].real(), -6.73633e-03);
  EXPECT_DOUBLE_EQ(r.y[41].real(), 5.39653e-03);
}

TEST(UffShared, NonAsciiHeaderIsAnInertanceFrf) {
  const File f = Read(kData + "non_ascii_header.uff");
  const Function58& r = *f.functions().at(0);
  EXPECT_EQ(r.function_type, 4);
  EXPECT_EQ(r.ordinate_type, 5);
  EXPECT_EQ(r.id_lines[4], "H1 : #  2 / #  1");
  EXPECT_EQ(r.ordinate.units, "(1/N)*(m/s\xB2)");  // Latin-1 superscript two
  EXPECT_EQ(r.ordinate.specific_data_type, 1);     // "general": the label carries the units
  ASSERT_EQ(r.y.size(), 6u);
  EXPECT_DOUBLE_EQ(r.dx, 1.95313e-01);
  EXPECT_EQ(r.y[0], std::complex<double>(4.07994e-01, 0.0));
  EXPECT_EQ(r.y[1], std::complex<double>(-5.99924e-02, -5.53260e-02));
  EXPECT_EQ(r.y[5], std::complex<double>(3.75037e+00, 2.93363e+00));
  // Its DOFs are scalar (direction 0): the default mapping refuses, a mapping places it.
  EXPECT_NE(RefusalOf("non_ascii_header.uff").find("response_direction: direction code 0 (scalar)"),
            std::string::npos);
  ToFrfOptions o;
  o.posture = "bench";
  o.mapping.directions[0] = {2, 1};  // scalar → +z
  const FrfSet set = ToFrfSet(f, o);
  EXPECT_EQ(set.format, FrfFormat::kInertance);
  EXPECT_EQ(set.posture, "bench");
  ASSERT_EQ(set.num_lines(), 6);
  for (int e = 0; e < 9; ++e) EXPECT_EQ(set.present[e], e == EntryIndex(2, 2));
  EXPECT_DOUBLE_EQ(set.frequency_hz[5], 5 * 1.95313e-01);
  EXPECT_EQ(set.at(1, 2, 2), std::complex<double>(-5.99924e-02, -5.53260e-02));
  EXPECT_EQ(set.at(1, 0, 0), std::complex<double>(0.0, 0.0));
}

TEST(UffShared, PsdIsRefused) {
  const File f = Read(kData + "sample_dataset58_psd.uff");
  const Function58& r = *f.functions().at(0);
  EXPECT_EQ(r.function_type, 9);
  EXPECT_EQ(r.ordinate_type, 5);
  EXPECT_FALSE(r.even);
  ASSERT_EQ(r.y.size(), 3201u);
  EXPECT_EQ(r.x[1], 1.0);
  EXPECT_EQ(r.x[3200], 3200.0);
  EXPECT_DOUBLE_EQ(r.y[1].real(), 1.255863e-06);
  EXPECT_DOUBLE_EQ(r.y[4].real(), 4.730446e-05);
  const std::string e = RefusalOf("sample_dataset58_psd.uff");
  EXPECT_NE(e.find("dataset 58 record 1: is a power spectral density (function type 9), not an FRF"),
            std::string::npos)
      << e;
}

TEST(UffShared, TimeHistoryWithPartialLastLine) {
  const File f = Read(kData + "time-history-not-all-columns-filled.uff");
  const Function58& r = *f.functions().at(0);
  EXPECT_EQ(r.function_type, 1);
  ASSERT_EQ(r.y.size(), 13u);  // two full lines of 6 and one value
  EXPECT_DOUBLE_EQ(r.dx, 5e-5);
  EXPECT_DOUBLE_EQ(r.y[0].real(), -3.81956);
  EXPECT_DOUBLE_EQ(r.y[12].real(), -5.84096);
  EXPECT_EQ(r.ordinate.units, "m/s\xC2\xB2");  // UTF-8
  EXPECT_NE(RefusalOf("time-history-not-all-columns-filled.uff").find("time response"), std::string::npos);
}

TEST(UffShared, GeometryOnlyFileIsRefusedNamingItsDatasets) {
  const File f = Read(kData + "TestLab_161_164_18_15_82.uff");
  std::vector<int> numbers;
  for (const auto& d : f.datasets) numbers.push_back(d.number);
  EXPECT_EQ(numbers, (std::vector<int>{151, 164, 18, 15, 82, 82, 82}));
  EXPECT_TRUE(f.functions().empty());
  const std::string e = RefusalOf("TestLab_161_164_18_15_82.uff");
  EXPECT_NE(e.find("no dataset 58"), std::string::npos) << e;
  EXPECT_NE(e.find("151 (header), 164 (units), 18 (coordinate systems), 15 (nodes), 82 (trace lines)"),
            std::string::npos)
      << e;
}

// ---- malformed input ---------------------------------------------------------------------------

std::string ParseError(const std::string& bytes) {
  return ErrorOf([&] { Parse(bytes, "bad.uff"); });
}

TEST(UffMalformed, EmptyAndBlank) {
  EXPECT_EQ(ParseError(""), "bad.uff: empty file: no UFF dataset found");
  EXPECT_EQ(ParseError("\n   \n"), "bad.uff: empty file: no UFF dataset found");
}

TEST(UffMalformed, MissingDelimiters) {
  const std::string good = Bytes("non_ascii_header.uff");
  EXPECT_NE(ParseError(good.substr(good.find('\n') + 1)).find("line 1: expected '-1' opening a dataset, got '58'"),
            std::string::npos);
  const std::string open = good.substr(0, good.rfind("    -1"));
  EXPECT_NE(ParseError(open).find("dataset 58 record 1.data: missing closing '-1'"), std::string::npos)
      << ParseError(open);
  EXPECT_NE(ParseError("    -1\n   151\nheader\n").find("dataset 151 (line 1): missing closing '-1'"),
            std::string::npos);
}

TEST(UffMalformed, Truncated) {
  const std::string good = Bytes("non_ascii_header.uff");
  for (size_t cut : {size_t(8), size_t(100), size_t(400), good.size() / 2, good.size() - 20}) {
    const std::string e = ParseError(good.substr(0, cut));
    EXPECT_NE(e.find("bad.uff:"), std::string::npos) << cut << ": " << e;
    EXPECT_FALSE(e.empty()) << cut;
  }
  EXPECT_NE(ParseError(good.substr(0, 400)).find("dataset 58 record 1.record 6: file ends inside the dataset (truncated)"),
            std::string::npos)
      << ParseError(good.substr(0, 400));
}

TEST(UffMalformed, WrongRecordLength) {
  const std::string good = Bytes("non_ascii_header.uff");
  const std::string e = ParseError(Replace(good, "         5         6         1", "         5         7         1"));
  EXPECT_NE(e.find("dataset 58 record 1.data: expected 14 values (7 points × 2 as record 7 announces), got 12"),
            std::string::npos)
      << e;
  const std::string more = ParseError(Replace(good, "         5         6         1", "         5         5         1"));
  EXPECT_NE(more.find("more values than record 7 announces"), std::string::npos) << more;
}

TEST(UffMalformed, NonNumericFields) {
  const std::string good = Bytes("non_ascii_header.uff");
  std::string e = ParseError(Replace(good, "-5.99924e-02", "-5.99x24e-02"));
  EXPECT_NE(e.find("dataset 58 record 1.data: line 14: expected a number, got '-5.99x24e-02'"), std::string::npos) << e;
  e = ParseError(Replace(good, " 0.00000e+00  1.95313e-01", " 0.00000e+00  1.9531Qe-01"));
  EXPECT_NE(e.find("dataset 58 record 1.abscissa_increment: expected a number"), std::string::npos) << e;
  e = ParseError(Replace(good, "         5         6", "         7         6"));
  EXPECT_NE(e.find("record 1.ordinate_type: expected 2 (real single), 4 (real double), 5 (complex single) or 6"),
            std::string::npos)
      << e;
  e = ParseError(Replace(good, "    4         0    0", "    X         0    0"));
  EXPECT_NE(e.find("record 1.function_type: expected an integer, got 'X'"), std::string::npos) << e;
  e = ParseError(Replace(good, "        18    0", "        1X    0"));
  EXPECT_NE(e.find("record 8.specific_data_type: expected an integer, got '1X'"), std::string::npos) << e;
}

TEST(UffMalformed, BinaryByteCountThatLies) {
  const std::string good = Bytes("binary8byte.uff");
  for (const char* lie : {"        2008", "        1992", "       99999"}) {
    const std::string e = ParseError(Replace(good, "        2000", lie));
    EXPECT_NE(e.find("dataset 58b record 1.num_bytes: header says"), std::string::npos) << lie << ": " << e;
  }
  // Data cut short.
  const std::string cut = good.substr(0, good.size() - 300);
  std::string e = ParseError(cut);
  EXPECT_NE(e.find("dataset 58b record 1.data: truncated: header says 2000 bytes"), std::string::npos) << e;
  // Record 7 says fewer points than the bytes hold, and the count agrees with it: the rest is not '-1'.
  e = ParseError(Replace(Replace(good, "       250", "       249"), "        2000", "        1992"));
  EXPECT_NE(e.find("expected '-1' right after 1992 bytes of binary data"), std::string::npos) << e;
  // A huge point count never allocates or overflows.
  e = ParseError(Replace(good, "         4       250", "         4 999999999"));
  EXPECT_NE(e.find("num_bytes: header says 2000 bytes"), std::string::npos) << e;
  e = ParseError(Replace(good, "    58b     1     2", "    58b     1     1"));
  EXPECT_NE(e.find("floating_point_format: only 2 (IEEE 754) is supported, got 1 (DEC VMS)"), std::string::npos) << e;
  e = ParseError(Replace(good, "    58b     1     2", "    58b     3     2"));
  EXPECT_NE(e.find("byte_ordering: expected 1 (little endian) or 2 (big endian), got 3"), std::string::npos) << e;
}

TEST(UffMalformed, BadDatasetNumberAndDirections) {
  EXPECT_NE(ParseError("    -1\n  abc\n    -1\n").find("line 2: expected a dataset number after '-1'"),
            std::string::npos);
  const std::string good = Bytes("non_ascii_header.uff");
  const std::string e = ParseError(Replace(good, "NONE               0   0 NONE", "NONE               0   9 NONE"));
  EXPECT_NE(e.find("record 1.response_direction: expected -6..6, got 9"), std::string::npos) << e;
}

}  // namespace
}  // namespace frfit::uff
