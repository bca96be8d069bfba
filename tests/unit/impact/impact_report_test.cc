// The impact-test page (frfit frf --report, report/impact_report.h) on the bundled records: every
// hit a row with its verdict, a force-pulse plot per hammer axis with a trace per hit, coherence
// plots carrying the FRF file's /coherence exactly, and the refusals of bad page names.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frfit/io/frf_hdf5.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kP3 = std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/";

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The element that starts with `open` up to its `close` (the first after it).
std::string Element(const std::string& html, const std::string& open, const std::string& close) {
  const size_t a = html.find(open);
  if (a == std::string::npos) return "";
  const size_t b = html.find(close, a);
  return html.substr(a, b == std::string::npos ? std::string::npos : b + close.size() - a);
}

class ImpactReport : public test::TempDirTest {
 protected:
  test::CliResult Frf(const std::vector<std::string>& extra) const {
    std::vector<std::string> args{
        "frf", kP3 + "hits_x.h5", kP3 + "hits_y.h5", kP3 + "hits_z.h5", "--posture", "milling"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }
};

TEST_F(ImpactReport, ShowsEveryHitThePulsesAndTheCoherenceOfTheFrfFile) {
  const test::CliResult r =
      Frf({"--out", Path("hits.h5"), "--report", Path("hits.html"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["report"], Path("hits.html"));
  const std::string html = test::ReadText(Path("hits.html"));
  ASSERT_FALSE(html.empty());

  // The hits table: 15 rows, the double hit (x, hit 2) the one rejected, with its reason.
  const std::string table = Element(html, "<table id=\"hits\">", "</table>");
  EXPECT_EQ(Count(table, "<tr class=\"kept\""), 14u);
  EXPECT_EQ(Count(table, "<tr class=\"rejected\""), 1u);
  const std::string rejected = Element(table, "<tr class=\"rejected\"", "</tr>");
  EXPECT_EQ(test::Attribute(rejected, "data-hit"), "2");
  EXPECT_NE(rejected.find("hits_x.h5</td><td class=\"num\">2</td><td>x</td>"), std::string::npos)
      << rejected;
  EXPECT_NE(rejected.find("rejected: double hit: a second force peak of 35.3 % of the first"),
            std::string::npos)
      << rejected;

  // One force-pulse plot per hammer axis, a trace per hit, x's double hit dashed.
  for (const char* axis : {"x", "y", "z"}) {
    const std::string svg =
        Element(html, std::string("<svg class=\"pulse-plot\" id=\"pulses-") + axis, "</svg>");
    ASSERT_FALSE(svg.empty()) << axis;
    EXPECT_EQ(Count(svg, "<path class=\"trace "), 5u) << axis;
    EXPECT_EQ(Count(svg, "<path class=\"trace rejected\""), axis == std::string("x") ? 1u : 0u);
    EXPECT_NE(html.find(std::string("id=\"spectra-") + axis + "\""), std::string::npos);
    EXPECT_NE(html.find(std::string("id=\"responses-") + axis + "\""), std::string::npos);
  }
  EXPECT_EQ(test::Attribute(Element(html, "<svg class=\"spectrum-plot\"", ">"), "data-limit-db"), "20");

  // Coherence: each measured entry's plot carries the file's /coherence, bit for bit.
  const FrfSet set = ReadFrfSet(Path("hits.h5"));
  const size_t lines = set.frequency_hz.size();
  for (int e = 0; e < 9; ++e) {
    ASSERT_TRUE(set.present[e]);
    const std::string path =
        Element(Element(html, "id=\"coherence-" + EntryName(e) + "\"", "</svg>"),
                "<path class=\"measured coherence\"", ">");
    std::istringstream values(test::Attribute(path, "data-values"));
    std::vector<double> g;
    for (std::string v; values >> v;) g.push_back(std::strtod(v.c_str(), nullptr));
    ASSERT_EQ(g.size(), lines) << EntryName(e);
    for (size_t l = 0; l < lines; l += 31)
      EXPECT_EQ(g[l], set.coherence[l * 9 + e]) << EntryName(e) << " line " << l;
    EXPECT_EQ(g.back(), set.coherence[(lines - 1) * 9 + e]);
  }
}

TEST_F(ImpactReport, BadPageNamesAreRefusedWithNothingWritten) {
  const std::filesystem::path recording = Path("hits_z.html");  // a recording under a page's name
  std::filesystem::copy_file(kP3 + "hits_z.h5", recording);
  const std::string before = test::ReadText(recording);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--out", Path("f.h5"), "--report", Path("hits.pdf")}, "--report: expected a .html path"},
      {{"--out", Path("f.h5"), "--report", Path("no/hits.html")},
       "--report: expected a path in an existing directory"},
      {{"--out", Path("f.html"), "--report", Path("f.html")},
       "--report: expected a path other than"},
  };
  for (const auto& [extra, message] : cases) {
    const test::CliResult r = Frf(extra);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("error: frfit frf: " + message, 0), 0u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(Path("f.h5")));
    EXPECT_FALSE(std::filesystem::exists(Path("f.html")));
    EXPECT_FALSE(std::filesystem::exists(Path("hits.pdf")));
  }
  const test::CliResult r =
      Run({"frf", recording.string(), "--out", Path("f.h5"), "--report", recording.string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("writing it would destroy it"), std::string::npos) << r.err;
  EXPECT_EQ(test::ReadText(recording), before);
  EXPECT_FALSE(std::filesystem::exists(Path("f.h5")));
}

}  // namespace
}  // namespace frfit
