// frfit convert end to end: HDF5 → UFF (58 and 58b) → HDF5 reproduces the FRF set (58b bit for
// bit), a fit driven from the converted file recovers the paper's stiffnesses, and bad input
// gives one "error:" line naming file/record/field, a non-zero exit and no output file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "frfit/io/frf_hdf5.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;
const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kFrf = kRoot + "/datasets/paper_3dof/frf_milling_inertance.h5";
const std::string kUff = kRoot + "/tests/data/uff/";

using test::ReadText;
using Result = test::CliResult;

class UffCli : public test::TempDirTest {
 protected:
  // Bad input: non-zero, one "error:" line containing `expect`, nothing on stdout, no file left
  // in the directory besides the captured streams and the inputs.
  void ExpectRefused(const std::vector<std::string>& args, const std::string& out, const std::string& expect) {
    const Result r = Run(args);
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << out;
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find(fs::path(out).filename().string()), std::string::npos)
          << "left behind: " << e.path();
  }
};

void ExpectEqualSets(const FrfSet& a, const FrfSet& b) {
  EXPECT_EQ(a.posture, b.posture);
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.present, b.present);
  EXPECT_EQ(a.frequency_hz, b.frequency_hz);
  EXPECT_EQ(a.H, b.H);
}

TEST_F(UffCli, FitDrivenFromUff) {
  const FrfSet original = ReadFrfSet(kFrf);
  Result r = Run({"convert", kFrf, Path("m.uff"), "--binary", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["direction"], "hdf5->uff58b");
  EXPECT_EQ(j["entries"].size(), 9u);
  r = Run({"convert", Path("m.uff"), Path("m.h5"), "--posture", "milling", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["records"], 9);
  ExpectEqualSets(ReadFrfSet(Path("m.h5")), original);

  r = Run({"fit", "--model", kRoot + "/datasets/paper_3dof/model.yaml", "--frf", Path("m.h5"), "--config",
           kRoot + "/datasets/paper_3dof/fit.yaml", "--seed", "3", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto fit = nlohmann::json::parse(r.out);
  const double expected[3] = {2e6, 3e6, 1.55e6};
  for (int i = 0; i < 3; ++i) {
    const double k = fit["parameters"]["k_z" + std::to_string(i + 1)].get<double>();
    EXPECT_NEAR(k, expected[i], 0.005 * expected[i]) << "k_z" << i + 1;
  }
}

// A UFF converted without --posture serves the steps that need none (ema, report); a fit refuses
// it naming the option to give and the model's postures; --model checks a posture at conversion.
TEST_F(UffCli, PostureIsNeededByAFitOnly) {
  ASSERT_EQ(Run({"convert", kFrf, Path("m.uff"), "--binary"}).status, 0);
  Result r = Run({"convert", Path("m.uff"), Path("m.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("posture not named (a fit needs one"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFrfSet(Path("m.h5")).posture, "");
  r = Run({"ema", Path("m.h5"), "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string model = kRoot + "/datasets/paper_3dof/model.yaml";
  r = Run({"fit", "--model", model, "--frf", Path("m.h5"), "--config",
           kRoot + "/datasets/paper_3dof/fit.yaml"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("names no posture (converted without --posture)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--posture NAME (model 'paper_3dof' has milling"), std::string::npos) << r.err;
  r = Run({"convert", Path("m.uff"), Path("n.h5"), "--model", model, "--posture", "milling"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFrfSet(Path("n.h5")).posture, "milling");
  r = Run({"convert", Path("m.uff"), Path("o.h5"), "--model", model});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--model: checks the --posture given; give --posture too"), std::string::npos)
      << r.err;
}

// HDF5 → UFF → HDF5 keeps the coherence and its averages (written as type-6 records, the
// averages in their ID line 5), so the noise model survives the round trip without --averages.
TEST_F(UffCli, CoherenceAndAveragesSurviveTheRoundTrip) {
  FrfSet set = ReadFrfSet(kFrf);
  set.noise_variance.clear();
  set.noise_source.clear();
  set.coherence.assign(set.H.size(), 0.0);
  for (int k = 0; k < set.num_lines(); ++k)
    for (int e = 0; e < 9; ++e)
      if (set.present[e]) set.coherence[k * 9 + e] = 0.5 + 0.49 * std::cos(0.01 * k + e);
  set.averages = 12;
  WriteFrfSet(Path("c.h5"), set);
  Result r = Run({"convert", Path("c.h5"), Path("c.uff"), "--binary"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = Run({"convert", Path("c.uff"), Path("back.h5"), "--posture", set.posture, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["records"], 18);
  const FrfSet back = ReadFrfSet(Path("back.h5"));
  ExpectEqualSets(back, set);
  EXPECT_EQ(back.averages, 12);
  EXPECT_EQ(back.coherence, set.coherence);
  EXPECT_EQ(back.noise_source, "coherence");
}

TEST_F(UffCli, AsciiRoundTripAndFormatConversion) {
  const FrfSet original = ReadFrfSet(kFrf);
  ASSERT_EQ(Run({"convert", kFrf, Path("a.uff")}).status, 0);
  EXPECT_EQ(ReadText(Path("a.uff")).substr(0, 14), "    -1\n    58\n");
  ASSERT_EQ(Run({"convert", Path("a.uff"), Path("a.h5"), "--posture", "milling"}).status, 0);
  const FrfSet back = ReadFrfSet(Path("a.h5"));
  EXPECT_EQ(back.frequency_hz, original.frequency_hz);  // even spacing 0.2 Hz is exact
  for (size_t k = 0; k < back.H.size(); ++k) EXPECT_LE(std::abs(back.H[k] - original.H[k]), 1e-12 * std::abs(original.H[k]));
  // --format on the way out converts; the reader detects mobility from the units.
  ASSERT_EQ(Run({"convert", kFrf, Path("v.uff"), "--format", "mobility", "--binary"}).status, 0);
  const Result r = Run({"convert", Path("v.uff"), Path("v.h5"), "--posture", "milling", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["format"], "mobility");
}

TEST_F(UffCli, NonAsciiHeaderConvertsWithAMapping) {
  std::ofstream(Path("map.yaml")) << "directions: {0: +z}\n";
  const Result r = Run({"convert", kUff + "non_ascii_header.uff", Path("h1.h5"), "--posture", "bench",
                        "--mapping", Path("map.yaml"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const FrfSet s = ReadFrfSet(Path("h1.h5"));
  EXPECT_EQ(s.format, FrfFormat::kInertance);
  EXPECT_EQ(s.num_lines(), 6);
  EXPECT_TRUE(s.present[8]);
  EXPECT_EQ(s.at(5, 2, 2), std::complex<double>(3.75037, 2.93363));
}

// A roving-point file: the mapping names the model frames its nodes are, and the set keeps them;
// the way back to UFF, which would name the sensor node for both points, is refused.
TEST_F(UffCli, AMappingNamesTheFramesOfARovingPoint) {
  ASSERT_EQ(Run({"convert", kFrf, Path("a.uff")}).status, 0);
  std::ofstream(Path("map.yaml")) << "response_frame: joint3\nexcitation_frame: sensor\n";
  const Result r = Run({"convert", Path("a.uff"), Path("a.h5"), "--posture", "milling",
                        "--mapping", Path("map.yaml")});
  ASSERT_EQ(r.status, 0) << r.err;
  const FrfSet s = ReadFrfSet(Path("a.h5"));
  EXPECT_EQ(s.response_frame, "joint3");
  EXPECT_EQ(s.excitation_frame, "sensor");
  const Result back = Run({"convert", Path("a.h5"), Path("b.uff")});
  EXPECT_NE(back.status, 0);
  EXPECT_NE(back.err.find("cannot be written to UFF"), std::string::npos) << back.err;
}

// The mapping's node map (a campaign's `nodes`) gives the frames of the sensor and excitation
// nodes (both node 1 here) unless response_frame / excitation_frame name them.
TEST_F(UffCli, TheNodeMapGivesTheFramesOfTheSensorNode) {
  ASSERT_EQ(Run({"convert", kFrf, Path("a.uff")}).status, 0);
  std::ofstream(Path("map.yaml")) << "nodes: {1: joint3, 2: joint2}\nexcitation_frame: sensor\n";
  const Result r = Run({"convert", Path("a.uff"), Path("a.h5"), "--posture", "milling",
                        "--mapping", Path("map.yaml")});
  ASSERT_EQ(r.status, 0) << r.err;
  const FrfSet s = ReadFrfSet(Path("a.h5"));
  EXPECT_EQ(s.response_frame, "joint3");
  EXPECT_EQ(s.excitation_frame, "sensor");
  std::ofstream(Path("bad.yaml")) << "nodes: {0: joint3}\n";
  const Result bad = Run({"convert", Path("a.uff"), Path("b.h5"), "--posture", "milling",
                          "--mapping", Path("bad.yaml")});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("nodes.0"), std::string::npos) << bad.err;
}

TEST_F(UffCli, BadInputLeavesNoFile) {
  const std::string good = ReadText(kUff + "non_ascii_header.uff");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  };
  std::ofstream(Path("map.yaml")) << "directions: {0: z}\n";
  const std::vector<std::string> tail = {"--posture", "p", "--mapping", Path("map.yaml")};
  auto args = [&](const std::string& in, const std::string& out) {
    std::vector<std::string> a = {"convert", in, out};
    a.insert(a.end(), tail.begin(), tail.end());
    return a;
  };
  ExpectRefused(args(write("empty.uff", ""), Path("o1.h5")), Path("o1.h5"), "empty.uff: empty file");
  ExpectRefused(args(write("trunc.uff", good.substr(0, good.size() - 30)), Path("o2.h5")), Path("o2.h5"),
                "trunc.uff: dataset 58 record 1.data: missing closing '-1'");
  std::string nn = good;
  nn.replace(nn.find("2.58750e-02"), 11, "2.5875Oe-02");
  ExpectRefused(args(write("nonnum.uff", nn), Path("o3.h5")), Path("o3.h5"),
                "nonnum.uff: dataset 58 record 1.data: line 14: expected a number");
  std::string bin = ReadText(kUff + "binary8byte.uff");
  bin.replace(bin.find("        2000"), 12, "        2400");
  ExpectRefused(args(write("lie.uff", bin), Path("o4.h5")), Path("o4.h5"), "lie.uff: dataset 58b record 1.num_bytes");
  ExpectRefused(args(kUff + "sample_dataset58_psd.uff", Path("o5.h5")), Path("o5.h5"),
                "dataset 58 record 1: is a power spectral density (function type 9), not an FRF");
  ExpectRefused({"convert", kUff + "non_ascii_header.uff", Path("o6.h5"), "--model",
                 kRoot + "/datasets/paper_3dof/model.yaml", "--posture", "bench"},
                Path("o6.h5"), "--posture: model 'paper_3dof'");
  ExpectRefused({"convert", Path("missing.h5"), Path("o7.uff")}, Path("o7.uff"), "missing.h5");
  ExpectRefused({"convert", kFrf, Path("o8.txt")}, Path("o8.txt"), "expected one .uff/.unv and one .h5/.hdf5 file");
  std::ofstream(Path("badmap.yaml")) << "directions: {1: w}\n";
  ExpectRefused({"convert", kUff + "non_ascii_header.uff", Path("o9.h5"), "--posture", "p", "--mapping",
                 Path("badmap.yaml")},
                Path("o9.h5"), "badmap.yaml: directions.1");
}

// pyuff writes a 58b byte count of points × 8 for complex double data (half of what follows).
// Such a file is read when record 7 and the data agree, with one warning naming the file; a
// count that matches neither stays an error.
TEST_F(UffCli, PyuffByteCountIsReadWithAWarning) {
  Result r = Run({"convert", kFrf, Path("frfit.uff"), "--binary"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string text = ReadText(Path("frfit.uff"));
  int patched = 0;
  for (size_t at; (at = text.find("        2400     0")) != std::string::npos; ++patched)
    text.replace(at, 12, "        1200");  // 150 points × 8 bytes, pyuff's count
  ASSERT_EQ(patched, 9);
  std::ofstream(Path("pyuff.uff"), std::ios::binary) << text;
  r = Run({"convert", Path("pyuff.uff"), Path("pyuff.h5"), "--posture", "milling"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.rfind("warning: " + Path("pyuff.uff") +
                            ": dataset 58b num_bytes: record(s) 1, 2, 3, 4, 5, 6, 7, 8, 9 ",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("pyuff"), std::string::npos) << r.err;
  ExpectEqualSets(ReadFrfSet(Path("pyuff.h5")), ReadFrfSet(kFrf));
  // Half of pyuff's count again: neither what record 7 says nor what pyuff writes.
  const size_t at = text.find("        1200     0");
  text.replace(at, 12, "         600");
  std::ofstream(Path("lie.uff"), std::ios::binary) << text;
  ExpectRefused({"convert", Path("lie.uff"), Path("lie.h5"), "--posture", "milling"},
                Path("lie.h5"), "lie.uff: dataset 58b record 1.num_bytes");
}

}  // namespace
}  // namespace frfit
