// Campaigns read from UFF files that pyuff wrote (tools/make_campaign_uff.py), checked against
// pyuff's own reading of the same files; HDF5 and UFF round trips; bad files refused naming the
// record; the bundled real files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "frfit/campaign/campaign_hdf5.h"
#include "frfit/campaign/campaign_uff.h"
#include "frfit/common/error.h"
#include "test_support.h"

namespace frfit::test {
namespace {

using campaign::Campaign;

bool HavePyuff() { return std::system("python3 -c 'import pyuff, numpy' >/dev/null 2>&1") == 0; }
const std::string kTool = std::string(FRFIT_SOURCE_DIR) + "/tools/make_campaign_uff.py";
const std::string kRealUff = std::string(FRFIT_SOURCE_DIR) + "/tests/data/uff/";

class CampaignTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    if (!HavePyuff()) GTEST_SKIP() << "python3 with pyuff not installed (pip install pyuff)";
    ASSERT_EQ(std::system(("python3 " + Quote(kTool) + " " + Quote(dir_.string())).c_str()), 0);
  }
  nlohmann::json PyuffRead(const std::vector<std::string>& files) {
    std::string cmd = "python3 " + Quote(kTool) + " --read " + Quote(Path("read.json"));
    for (const auto& f : files) cmd += " " + Quote(f);
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    return nlohmann::json::parse(ReadText(Path("read.json")));
  }
  Campaign Synthetic() {
    campaign::UffOptions options;
    options.averages = 20;
    return campaign::ReadUff({Path("campaign.uff"), Path("campaign_b.uff"), Path("geometry.uff")}, options);
  }
};

// Every FRF record of pyuff's reading, in file order, against the campaign's records; every
// coherence against the record with its DOFs.
void ExpectSameAsPyuff(const Campaign& c, const nlohmann::json& ref, double tolerance) {
  size_t frf = 0, coherences = 0;
  for (const auto& e : ref) {
    const campaign::Dof response{e["rsp_node"].get<long>(), e["rsp_dir"].get<int>()};
    const campaign::Dof reference{e["ref_node"].get<long>(), e["ref_dir"].get<int>()};
    const auto& re = e["re"];
    const auto& im = e["im"];
    ASSERT_EQ(re.size(), c.frequency_hz.size());
    for (size_t k = 0; k < c.frequency_hz.size(); ++k)
      ASSERT_NEAR(e["x"][k].get<double>(), c.frequency_hz[k], 1e-9 * c.frequency_hz.back());
    if (e["func_type"] == 4) {
      ASSERT_LT(frf, c.records.size());
      const auto& r = c.records[frf++];
      EXPECT_EQ(r.response, response) << r.where;
      EXPECT_EQ(r.reference, reference) << r.where;
      for (size_t k = 0; k < r.H.size(); ++k) {
        const std::complex<double> h(re[k].get<double>(), im[k].get<double>());
        ASSERT_LE(std::abs(r.H[k] - h), tolerance * std::abs(h)) << r.where << " line " << k;
      }
    } else {
      ASSERT_EQ(e["func_type"], 6);
      ++coherences;
      const campaign::Record* match = nullptr;
      for (const auto& r : c.records)
        if (r.response == response && r.reference == reference) match = &r;
      ASSERT_NE(match, nullptr);
      ASSERT_EQ(match->coherence.size(), re.size());
      for (size_t k = 0; k < re.size(); ++k)
        ASSERT_LE(std::abs(match->coherence[k] - re[k].get<double>()), tolerance) << match->where;
    }
  }
  EXPECT_EQ(frf, c.records.size());
  size_t with = 0;
  for (const auto& r : c.records) with += !r.coherence.empty();
  EXPECT_EQ(with, coherences);
}

TEST_F(CampaignTest, EveryRecordAsPyuffReadsIt) {
  const Campaign c = Synthetic();
  ASSERT_EQ(c.records.size(), 60u);  // 10 nodes × 3 directions × 2 references
  ExpectSameAsPyuff(c, PyuffRead({Path("campaign.uff"), Path("campaign_b.uff")}), 0.0);
  EXPECT_EQ(c.ReferenceDofs(), (std::vector<campaign::Dof>{{1, 3}, {5, -2}}));
  EXPECT_EQ(c.ResponseDofs().size(), 30u);
  for (const auto& r : c.records) EXPECT_EQ(r.averages, 20);
  // Geometry as the generator defines it: node n at (0.1 n, 0.02 n², 1 − 0.05 n).
  ASSERT_EQ(c.coordinates.size(), 10u);
  for (long n = 1; n <= 10; ++n) {
    const auto& x = c.coordinates.at(n);
    EXPECT_NEAR(x[0], 0.1 * n, 1e-12);
    EXPECT_NEAR(x[1], 0.02 * n * n, 1e-12);
    EXPECT_NEAR(x[2], 1.0 - 0.05 * n, 1e-12);
  }
  ASSERT_EQ(c.trace_lines.size(), 2u);
  EXPECT_EQ(c.trace_lines[0].name, "upper chord");
  EXPECT_EQ(c.trace_lines[0].nodes, (std::vector<long>{1, 2, 3, 4, 5, 1}));
  EXPECT_EQ(c.trace_lines[1].nodes, (std::vector<long>{6, 7, 8, 0, 9, 10, 6}));
  ASSERT_EQ(c.assumed.size(), 1u);
  EXPECT_NE(c.assumed[0].find("averages 20"), std::string::npos);
}

TEST_F(CampaignTest, Hdf5RoundTripIsEqual) {
  Campaign c = Synthetic();
  c.exponential_window = true;
  campaign::WriteHdf5(Path("c.h5"), c);
  const Campaign back = campaign::ReadHdf5(Path("c.h5"));
  EXPECT_EQ(back.frequency_hz, c.frequency_hz);
  ASSERT_EQ(back.records.size(), c.records.size());
  for (size_t i = 0; i < c.records.size(); ++i) {
    const auto &a = c.records[i], &b = back.records[i];
    EXPECT_EQ(a.response, b.response);
    EXPECT_EQ(a.reference, b.reference);
    EXPECT_EQ(a.format, b.format);
    EXPECT_EQ(a.units, b.units);
    EXPECT_EQ(a.file, b.file);
    EXPECT_EQ(a.where, b.where);
    EXPECT_EQ(a.H, b.H);
    EXPECT_EQ(a.coherence, b.coherence);
    EXPECT_EQ(a.averages, b.averages);
  }
  EXPECT_EQ(back.coordinates, c.coordinates);
  ASSERT_EQ(back.trace_lines.size(), c.trace_lines.size());
  for (size_t t = 0; t < c.trace_lines.size(); ++t) {
    EXPECT_EQ(back.trace_lines[t].id, c.trace_lines[t].id);
    EXPECT_EQ(back.trace_lines[t].name, c.trace_lines[t].name);
    EXPECT_EQ(back.trace_lines[t].nodes, c.trace_lines[t].nodes);
  }
  EXPECT_TRUE(back.exponential_window);
  EXPECT_EQ(back.assumed, c.assumed);
  EXPECT_EQ(back.unused, c.unused);
}

// Written back as 58b (binary doubles: exact) and 58 (E20.12), pyuff reads the same values.
TEST_F(CampaignTest, UffWrittenBackReadsTheSameInPyuff) {
  const Campaign c = Synthetic();
  campaign::WriteUff(Path("back_b.uff"), c, true);
  ExpectSameAsPyuff(c, PyuffRead({Path("back_b.uff")}), 0.0);
  campaign::WriteUff(Path("back.uff"), c, false);
  ExpectSameAsPyuff(c, PyuffRead({Path("back.uff")}), 1e-11);
}

TEST_F(CampaignTest, BadFilesRefusedNamingTheRecord) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad_no_coordinates.uff", "dataset 58 record 3: expected coordinates of node 11"},
      {"bad_mixed_units.uff", "dataset 58 record 2: expected inertance"},
      {"bad_axes.uff", "dataset 58 record 3.abscissa[1]: expected the frequency axis"},
      {"bad_coherence.uff", "dataset 58 record 3: expected a coherence (function type 6) of an FRF"}};
  for (const auto& [file, message] : cases) {
    const auto r = Run({"campaign", Path(file), Path("geometry.uff"), "--require-coordinates",
                        "--out", Path("out.h5")});
    EXPECT_NE(r.status, 0) << file;
    EXPECT_EQ(r.err.rfind("error: " + Path(file) + ": " + message, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(Path("out.h5"))) << file;
  }
  // Without --require-coordinates the node is listed, not refused.
  const auto r = Run({"campaign", Path("bad_no_coordinates.uff"), Path("geometry.uff"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["nodes_without_coordinates"], nlohmann::json::array({11}));
}

TEST_F(CampaignTest, CliJsonListsNodesReferencesAndAssumptions) {
  const auto r = Run({"campaign", Path("campaign.uff"), Path("campaign_b.uff"), Path("geometry.uff"),
                      "--exponential-window", "--out", Path("c.h5"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["nodes"].size(), 10u);
  EXPECT_EQ(j["references"], nlohmann::json::array({"1+Z", "5-Y"}));
  EXPECT_EQ(j["records"].size(), 60u);
  EXPECT_EQ(j["records_with_coherence"], 60);
  EXPECT_EQ(j["exponential_window"], true);
  // No --averages: the 60 coherences' averages are unknown, and said so.
  ASSERT_EQ(j["assumed"].size(), 2u);
  EXPECT_NE(j["assumed"][0].get<std::string>().find("60 coherence records without"), std::string::npos);
  const auto info = Run({"campaign", Path("c.h5"), "--json"});
  ASSERT_EQ(info.status, 0) << info.err;
  EXPECT_EQ(nlohmann::json::parse(info.out)["records"], j["records"]);
}

// The bundled real files: the one holding an FRF (a scalar DOF, Latin-1 units) read without loss
// against pyuff; the TestLab geometry's 36 nodes and 3 trace lines kept, its other datasets listed.
TEST_F(CampaignTest, BundledRealFilesWithoutLoss) {
  const std::string frf = kRealUff + "non_ascii_header.uff", geometry = kRealUff + "TestLab_161_164_18_15_82.uff";
  const Campaign c = campaign::ReadUff({frf, geometry}, {});
  ExpectSameAsPyuff(c, PyuffRead({frf}), 0.0);
  EXPECT_EQ(c.coordinates.size(), 36u);
  EXPECT_EQ(c.coordinates.at(1), (std::array<double, 3>{-2.4, -0.95, 0.0}));
  ASSERT_EQ(c.trace_lines.size(), 3u);
  EXPECT_EQ(c.trace_lines[0].name, "Massif");
  EXPECT_EQ(c.trace_lines[0].nodes, (std::vector<long>{2, 5, 6, 3, 4, 1, 2, 3, 0}));
  EXPECT_EQ(c.trace_lines[1].nodes.size(), 32u);
  EXPECT_EQ(c.unused.size(), 3u);  // 151 header, 164 units, 18 coordinate systems
  // Geometry alone is not a campaign.
  EXPECT_THROW(campaign::ReadUff({geometry}, {}), Error);
}

// UffOptions' check runs before any file is read: the missing file and the empty list would fail
// otherwise.
TEST(CampaignUffOptions, IsValidNamesTheAveragesBeforeAnyFile) {
  std::string error;
  EXPECT_TRUE(campaign::UffOptions{}.IsValid(&error)) << error;
  campaign::UffOptions one;
  one.averages = 1;
  EXPECT_TRUE(one.IsValid(&error)) << error;
  for (int bad : {0, -3}) {
    campaign::UffOptions o;
    o.averages = bad;
    EXPECT_FALSE(o.IsValid(&error));
    EXPECT_EQ(error.rfind("averages: expected an integer >= 1", 0), 0u) << error;
    const std::string expected = "campaign: averages: expected";
    EXPECT_EQ(ErrorOf([&] { campaign::FromUff({}, o); }).rfind(expected, 0), 0u);
    EXPECT_EQ(ErrorOf([&] { campaign::ReadUff({"/nonexistent/a.uff"}, o); }).rfind(expected, 0), 0u);
  }
}

}  // namespace
}  // namespace frfit::test
