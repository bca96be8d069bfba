// frfit ema with its defaults on the README's hammer FRFs (datasets/paper_3dof/hits_*.h5 through
// frfit frf): the paper's three modes, the same test of what counts as a mode as a fit's reference
// modes, and every column it drops named with its reason in text, JSON and the report page.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "frfit/modal/stabilisation.h"
#include "test_support.h"

namespace frfit {
namespace {

using nlohmann::json;
const std::string kP3 = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";
// The paper's modes at milling (Eq. 33-34; from the paper, not from frfit).
constexpr double kPaperHz[3] = {10.17, 11.24, 22.6};

class EmaDefaults : public test::TempDirTest {
 protected:
  // The README's first step: the bundled hammer records to an FRF set.
  std::string HammerFrfs() {
    if (!std::filesystem::exists(Path("hits_frf.h5"))) {
      const test::CliResult r =
          Run({"frf", kP3 + "hits_x.h5", kP3 + "hits_y.h5", kP3 + "hits_z.h5", "--posture",
               "milling", "--out", Path("hits_frf.h5")});
      EXPECT_EQ(r.status, 0) << r.err;
    }
    return Path("hits_frf.h5");
  }
  json EmaJson(std::vector<std::string> extra) {
    std::vector<std::string> args = {"ema", HammerFrfs(), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const test::CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out) : json();
  }
  static void ExpectPaperModes(const json& modes) {
    ASSERT_EQ(modes.size(), 3u) << modes.dump();
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(modes[k]["frequency_hz"].get<double>(), kPaperHz[k], 0.005 * kPaperHz[k]) << k;
  }
};

TEST_F(EmaDefaults, ReadmeHammerFrfsGiveThePapersThreeModes) {
  const json j = EmaJson({});
  ExpectPaperModes(j["modes"]);
  // The default is the one named test a fit's reference modes use.
  EXPECT_EQ(j["criteria"]["min_contribution"].get<double>(), kModeMinContribution);
}

TEST_F(EmaDefaults, BandTwoToThirtyFindsTheModesInIt) {
  const json j = EmaJson({"--band", "2:30"});
  ExpectPaperModes(j["modes"]);
}

// A selection test no mode can pass: every candidate column is dropped, one at a time, and each
// is named with its frequency and why — in the JSON, the text and the EMA report page.
TEST_F(EmaDefaults, DroppedColumnsSayWhichAndWhy) {
  const json j = EmaJson({"--min-contribution", "1e40"});
  EXPECT_TRUE(j["modes"].empty());
  const json& dropped = j["dropped"];
  int by_contribution = 0;
  for (double f : kPaperHz) {
    bool found = false;
    for (const json& d : dropped)
      if (d["reason"] == "contribution" && std::abs(d["frequency_hz"].get<double>() - f) < 0.01 * f) {
        found = true;
        EXPECT_LT(d["contribution"].get<double>(), 1e40);
        EXPECT_NE(d["why"].get<std::string>().find("misfit growth without it"), std::string::npos);
      }
    EXPECT_TRUE(found) << f << " Hz not among " << dropped.dump();
    by_contribution += found;
  }
  EXPECT_EQ(by_contribution, 3);

  const test::CliResult text =
      Run({"ema", HammerFrfs(), "--min-contribution", "1e40", "--out", Path("ema.h5")});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("not a mode: column at 10.1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("not a mode: column at 22."), std::string::npos) << text.out;

  const test::CliResult report = Run({"report", Path("ema.h5"), "-o", Path("ema.html")});
  ASSERT_EQ(report.status, 0) << report.err;
  const std::string html = test::ReadText(Path("ema.html"));
  EXPECT_NE(html.find("class=\"ema-dropped\""), std::string::npos);
  size_t items = 0;
  for (size_t at = html.find("data-reason=\"contribution\""); at != std::string::npos;
       at = html.find("data-reason=\"contribution\"", at + 1))
    ++items;
  EXPECT_GE(items, 3u);
}

// The two measures have distinct names: the table's share of the response, the selection test's
// misfit growth; the criterion line names the one its threshold applies to.
TEST_F(EmaDefaults, ShareAndMisfitGrowthAreNamedApart) {
  const test::CliResult r = Run({"ema", HammerFrfs()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("response share [%]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a misfit growth without it >= 2 %"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("explains [%]"), std::string::npos);
  EXPECT_EQ(r.out.find("a contribution >="), std::string::npos);
}

}  // namespace
}  // namespace frfit
