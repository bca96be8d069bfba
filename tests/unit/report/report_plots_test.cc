// The report's plots read right (issue: rough edges of the report):
//   - the cost axis labels at most 7 decades however far the cost falls, a genetic-algorithm
//     stretch of one generation shows its point, refinement passes are marked;
//   - the correlation map is blue for −1 and red for +1 with a colour bar;
//   - a parameter is flagged "at bound" by the same rule as `frfit fit` (1 %), and the parameter
//     and modal tables show ±1σ;
//   - noise weights, which differ on every line, are not shaded as "weighted above the base";
//   - rendered by Chromium, no two labels of a plot overlap and none is cut at the plot's edge.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "frfit/files/hdf5_file.h"
#include "report_fixture.h"
#include "test_support.h"

namespace frfit {
namespace {

using test::Quote;
using test::ReadText;
using test::report::Count;
using test::report::Editable;
using test::report::FindChromium;
using test::report::kRoot;
using test::report::Shell;
using test::report::ShellResult;

class ReportPlots : public test::report::ReportFixture {
 protected:
  std::vector<double> Read(const std::string& dataset, int rank = 1) {
    Hdf5File f(result_, Hdf5File::Mode::kRead);
    std::vector<hsize_t> dims;
    return f.ReadDoubles(dataset, rank, &dims);
  }
  // The <tr> of `table_class` whose data-name is `name`.
  static std::string Row(const std::string& html, const std::string& row_class,
                         const std::string& name) {
    const size_t at = html.find("<tr class=\"" + row_class);
    const size_t named = html.find("data-name=\"" + name + "\"", at);
    if (at == std::string::npos || named == std::string::npos) return "";
    return html.substr(named, html.find("</tr>", named) - named);
  }
};

TEST_F(ReportPlots, CostAxisLabelsAtMostSevenDecadesOfThirtyOne) {
  const size_t rows = Read("/history/best_cost").size();
  ASSERT_GT(rows, 2u);
  std::vector<double> falling(rows);
  for (size_t k = 0; k < rows; ++k) falling[k] = std::pow(10.0, 6.0 - 31.0 * k / (rows - 1));
  Editable(result_).WriteDoubles("/history/best_cost", falling);
  const std::string html = Render();
  const size_t labels = Count(html, "cost-tick\"");
  EXPECT_GE(labels, 4u);
  EXPECT_LE(labels, 7u);
}

TEST_F(ReportPlots, OneGenerationOfTheGeneticAlgorithmShowsItsPoint) {
  const std::vector<double> phase = Read("/history/phase");
  ASSERT_EQ(std::count(phase.begin(), phase.end(), 0.0), 1)
      << "the bundled configuration samples one population";
  const std::string html = Render();
  EXPECT_EQ(Count(html, "<circle class=\"ga-generation\""), 2u);  // the point and the legend's
}

TEST_F(ReportPlots, RefinementPassesAreMarked) {
  const ShellResult fit = Shell(
      Quote(FRFIT_CLI_PATH) + " fit --model " + Quote(kRoot + "/datasets/paper_3dof/model.yaml") +
          " --frf " + Quote(kRoot + "/datasets/paper_3dof/frf_milling_inertance.h5") +
          " --config " + Quote(kRoot + "/datasets/paper_3dof/fit.yaml") + " --seed 1 --json",
      dir_);
  ASSERT_EQ(fit.status, 0) << fit.err;
  const int passes = nlohmann::json::parse(fit.out)["refinement"]["passes"].get<int>();
  ASSERT_GT(passes, 0);
  const std::string html = Render();
  EXPECT_EQ(Count(html, "<line class=\"pass-boundary\""), static_cast<size_t>(passes) + 1);
  EXPECT_NE(html.find(">pass " + std::to_string(passes) + "&#160;</text>"), std::string::npos);
}

// Cells of the correlation map: "−1 is blue, +1 is red" read from the fill of each cell.
TEST_F(ReportPlots, CorrelationMapIsBlueNegativeRedPositiveWithAColourBar) {
  const std::string html = Render();
  const std::regex cell(
      "class=\"correlation-cell\"[^>]*fill=\"#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})\" "
      "data-value=\"([^\"]+)\"");
  int strong_positive = 0, strong_negative = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator();
       ++it) {
    const int red = std::stoi((*it)[1], nullptr, 16), blue = std::stoi((*it)[3], nullptr, 16);
    const double rho = std::stod((*it)[4]);
    if (rho > 0.5) {
      EXPECT_GT(red, blue + 60) << rho;
      ++strong_positive;
    }
    if (rho < -0.5) {
      EXPECT_GT(blue, red + 60) << rho;
      ++strong_negative;
    }
  }
  EXPECT_GE(strong_positive, 6);  // the diagonal
  EXPECT_EQ(Count(html, "class=\"correlation-bar\""), 1u);
  EXPECT_EQ(Count(html, "correlation-tick\""), 5u);
}

// frfit fit flags a parameter within 1 % of a bound (of its value, log-scaled); the report once
// flagged only within 0.1 % of the log span, so a value 0.5 % under the maximum went unflagged.
TEST_F(ReportPlots, AtBoundIsTheFitsOnePercentRule) {
  std::vector<double> values = Read("/parameters/values");
  const std::vector<double> max = Read("/parameters/max");
  values[0] = max[0] / 1.005;  // k_z1, 0.5 % under its maximum
  {
    Editable e(result_);
    e.WriteDoubles("/parameters/values", values);
    e.Delete("/identifiability");  // the fallback: the same rule on the stored bounds
  }
  std::string html = Render();
  EXPECT_NE(Row(html, "parameter-row", "k_z1").find("at upper bound"), std::string::npos);
  EXPECT_EQ(Row(html, "parameter-row", "k_z2").find("at "), std::string::npos);
}

TEST_F(ReportPlots, BoundFlagsAreTheIdentifiabilitysWhenThereIsOne) {
  ASSERT_EQ(Read("/identifiability/at_bound").size(), 6u);
  Editable(result_).WriteInts("/identifiability/at_bound", {0, 1, 0, 0, 0, 0});  // k_z2 at max
  const std::string html = Render();
  EXPECT_NE(Row(html, "parameter-row", "k_z2").find("at upper bound"), std::string::npos);
  EXPECT_EQ(Row(html, "parameter-row", "k_z1").find("at "), std::string::npos);
}

TEST_F(ReportPlots, ParameterAndModalTablesShowOneSigma) {
  const std::string html = Render();
  const std::vector<double> relative = Read("/identifiability/std_relative");
  const std::regex sigma("class=\"num parameter-sigma\" data-value=\"([^\"]+)\"");
  std::vector<double> shown;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), sigma); it != std::sregex_iterator();
       ++it)
    shown.push_back(std::stod((*it)[1]));
  ASSERT_EQ(shown.size(), relative.size());
  for (size_t j = 0; j < shown.size(); ++j) EXPECT_DOUBLE_EQ(shown[j], relative[j]);
  // Every paired mode: frequency and damping ratio with their 1σ.
  const size_t modes = Count(html, "<tr class=\"modal-row\"");
  ASSERT_EQ(modes, 3u);
  EXPECT_EQ(Count(html.substr(html.find("class=\"modal-table\"")), "&#177;&#160;"), 2 * modes);
}

TEST_F(ReportPlots, NoiseWeightsAreNotShadedAsPeaks) {
  std::string html = Render();  // the bundled configuration weights by the noise
  EXPECT_EQ(Count(html, "<rect class=\"weight-band\""), 0u);
  EXPECT_NE(html.find("inverse noise variance (not shaded)"), std::string::npos);
  // Peak weights, two levels: shaded, and the legend says so.
  std::vector<double> weights = Read("/postures/milling/weights", 3);
  for (size_t k = 0; k < weights.size(); ++k) weights[k] = (k / 9) % 20 < 3 ? 80.0 : 1.0;
  Editable(result_).WriteDoubles("/postures/milling/weights", weights);
  html = Render();
  EXPECT_GT(Count(html, "<rect class=\"weight-band\""), 9u);
  EXPECT_NE(html.find(">lines weighted above the base weight</text>"), std::string::npos);
}

// The page with a script that measures every label of every plot (the map of correlations, whose
// column labels are turned 60°, aside): pairs of labels whose boxes overlap, and labels that reach
// outside their plot, are listed in a <pre> that --dump-dom prints.
const char* kLayoutProbe = R"JS(<script>
(function () {
  const problems = [];
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.classList.contains('correlation-map') || svg.classList.contains('bound-bar')) continue;
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].map(t => [t, t.getBoundingClientRect()])
        .filter(([t, r]) => r.width > 0 && t.textContent.trim() !== '');
    const id = svg.id || svg.getAttribute('class');
    for (const [t, r] of texts)
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 ||
          r.bottom > box.bottom + 0.5)
        problems.push(id + ': "' + t.textContent + '" reaches outside the plot');
    for (let i = 0; i < texts.length; ++i)
      for (let j = i + 1; j < texts.length; ++j) {
        const a = texts[i][1], b = texts[j][1];
        const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (dx > 1 && dy > 1)
          problems.push(id + ': "' + texts[i][0].textContent + '" overlaps "' +
                        texts[j][0].textContent + '"');
      }
  }
  const pre = document.createElement('pre');
  pre.id = 'layout-problems';
  pre.textContent = 'LAYOUT[' + problems.join('\n') + ']LAYOUT';
  document.body.appendChild(pre);
})();
</script>)JS";

std::string LayoutProblems(const std::string& chromium, const std::string& html,
                           const std::filesystem::path& dir) {
  std::string page = html;
  page.insert(page.rfind("</body>"), kLayoutProbe);
  const std::string path = (dir / "probe.html").string();
  std::ofstream(path) << page;
  const ShellResult r = Shell("timeout 180 " + Quote(chromium) +
                                  " --headless --no-sandbox --disable-gpu --hide-scrollbars "
                                  "--user-data-dir=" + Quote((dir / "profile").string()) +
                                  " --window-size=1400,3000 --dump-dom " + Quote("file://" + path),
                              dir);
  EXPECT_EQ(r.status, 0) << r.err;
  // The last marks: the probe's own source, earlier in the DOM, holds them too.
  const size_t begin = r.out.rfind("LAYOUT["), end = r.out.rfind("]LAYOUT");
  if (begin == std::string::npos || end == std::string::npos) return "the probe did not run";
  return r.out.substr(begin + 7, end - begin - 7);
}

// A noise-free fit: residuals of 1e-13 dB (the longest legend labels) and a cost falling through
// about 30 decades (the densest cost axis).
TEST_F(ReportPlots, RenderedLabelsNeitherOverlapNorReachOutsideTheirPlot) {
  const std::string chromium = FindChromium();
  ASSERT_FALSE(chromium.empty())
      << "chromium (or chromium-browser) is not installed: run tools/setup.sh, which installs it";
  const std::vector<double> cost = Read("/history/best_cost");
  ASSERT_GT(cost.front() / cost.back(), 1e20) << "expected a cost falling through many decades";
  const std::string problems = LayoutProblems(chromium, Render(), dir_);
  EXPECT_TRUE(problems.empty()) << problems;
}

}  // namespace
}  // namespace frfit
