// The HTML fit report (`frfit report`, docs/report.md) and the fleet index page. The result files
// come from a real `frfit fit` of the paper's 3-joint manipulator (under a second), edited through
// the HDF5 C API where a test needs something the fit does not produce (absent entries, a fixed
// parameter, a model name to escape).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/report/fleet_index.h"
#include "frfit/report/html_report.h"
#include "frfit/results/fit_result.h"
#include "report_fixture.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

using test::Quote;
using test::ReadText;
using test::report::Count;
using test::report::Editable;
using test::report::FindChromium;
using test::report::kRoot;
using test::report::Shell;
using test::report::ShellResult;
using ReportTest = test::report::ReportFixture;

// The <tr> of the parameter table for `name`.
std::string ParameterRow(const std::string& html, const std::string& name) {
  const size_t at = html.find("data-name=\"" + name + "\"");
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</tr>", at) - at);
}

TEST_F(ReportTest, PageIsSelfContainedAndBalanced) {
  const std::string html = Render();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_GT(Count(html, "<svg"), 0u);
  EXPECT_EQ(Count(html, "<svg"), Count(html, "</svg>"));
  for (const std::string tag : {"table", "section", "tr", "figure", "div", "pre", "text", "header", "nav"})
    EXPECT_EQ(Count(html, "<" + tag + " ") + Count(html, "<" + tag + ">"), Count(html, "</" + tag + ">")) << tag;
  // No network: the only URL is the SVG namespace name; no scripts, no external fonts or images.
  const std::string without_ns = std::regex_replace(html, std::regex("http://www\\.w3\\.org/2000/svg"), "");
  EXPECT_EQ(without_ns.find("http://"), std::string::npos);
  EXPECT_EQ(without_ns.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("@font-face"), std::string::npos);
  // Every SVG carries a class tests and styles can find.
  EXPECT_EQ(Count(html, "<svg"), Count(html, "<svg class=\""));
}

TEST_F(ReportTest, OneFrfPlotPerPresentEntry) {
  std::string html = Render();
  EXPECT_EQ(Count(html, "class=\"frf-plot\""), 9u);  // the paper set has all nine entries
  EXPECT_NE(html.find("id=\"frf-milling-xy\""), std::string::npos);
  // Without H_xy and H_zx: seven plots and two "not measured" cells.
  {
    Editable e(result_);
    e.WriteInts("/postures/milling/present", {1, 0, 1, 1, 1, 1, 0, 1, 1});
  }
  html = Render();
  EXPECT_EQ(Count(html, "class=\"frf-plot\""), 7u);
  EXPECT_EQ(Count(html, "class=\"frf-absent\""), 2u);
  EXPECT_EQ(html.find("id=\"frf-milling-xy\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"frf-milling-zx\""), std::string::npos);
  // Each plot has measured and fitted curves (magnitude and phase) and the weights shaded.
  EXPECT_EQ(Count(html, "<path class=\"measured\""), 14u);
  EXPECT_EQ(Count(html, "<path class=\"fitted\""), 14u);
  EXPECT_NE(html.find(">measured</text>"), std::string::npos);
  EXPECT_NE(html.find(">fitted</text>"), std::string::npos);
}

TEST_F(ReportTest, IdentifiabilitySectionListsEveryFreeParameterAndTheCorrelations) {
  const std::string html = Render();
  EXPECT_NE(html.find("<section id=\"identifiability\">"), std::string::npos);
  EXPECT_NE(html.find("href=\"#identifiability\""), std::string::npos);
  EXPECT_EQ(Count(html, "<tr class=\"identifiability-row"), 6u);
  EXPECT_EQ(Count(html, "class=\"correlation-cell\""), 36u);
  EXPECT_NE(html.find("id=\"condition-number\""), std::string::npos);
}

TEST_F(ReportTest, HistoryPlotAndMacMap) {
  const std::string html = Render();
  EXPECT_EQ(Count(html, "class=\"history-plot\""), 1u);
  EXPECT_GT(Count(html, "class=\"phase-ga\""), 1u);  // legend swatch plus at least one stretch
  // The bundled configuration refines by least squares: its stretch, and the legend names it.
  EXPECT_GT(Count(html, "class=\"phase-lm\""), 1u);
  EXPECT_EQ(Count(html, "class=\"phase-nm\""), 0u);
  EXPECT_NE(html.find(">Levenberg-Marquardt</text>"), std::string::npos);
  EXPECT_EQ(Count(html, "class=\"mac-map\""), 1u);
  Hdf5File f(result_, Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  const std::vector<double> cycles = f.ReadDoubles("/history/cycle", 1, &dims);
  std::set<double> distinct(cycles.begin(), cycles.end());
  // Each boundary, and the legend's entry when there is one.
  EXPECT_EQ(Count(html, "<line class=\"cycle-boundary\""),
            distinct.size() - 1 + (distinct.size() > 1 ? 1 : 0));
}

// The MAC map shows every reference mode against every fitted mode in the band, each cell's
// number the result's; the paired cells (the modal table's) are outlined and hold the table's MAC.
// Distinct modes of the 3-joint model are nearly orthogonal at the sensor: a fitted model that is
// right shows a dark diagonal and pale cells elsewhere.
TEST_F(ReportTest, MacMapShowsEveryPairOfModes) {
  const std::string html = Render();
  std::vector<hsize_t> dims, mac_dims;
  std::vector<double> modal, fitted_hz, mac;
  {
    Hdf5File f(result_, Hdf5File::Mode::kRead);
    modal = f.ReadDoubles("/postures/milling/modal_comparison", 2, &dims);
    fitted_hz = f.ReadDoubles("/postures/milling/mac_fitted_frequency_hz", 1, &mac_dims);
    mac = f.ReadDoubles("/postures/milling/mac", 2, &mac_dims);
  }
  const size_t rows = dims[0];
  ASSERT_EQ(rows, 3u);
  ASSERT_EQ(mac_dims, (std::vector<hsize_t>{rows, fitted_hz.size()}));
  ASSERT_GE(fitted_hz.size(), rows);
  EXPECT_EQ(Count(html, "<rect class=\"mac-cell"), rows * fitted_hz.size());
  EXPECT_EQ(Count(html, "<rect class=\"mac-cell mac-pair\""), rows);
  EXPECT_EQ(Count(html, "class=\"mac-off\""), 0u);
  const std::regex cell("<rect class=\"mac-cell( mac-pair)?\"[^>]* data-value=\"([^\"]+)\"");
  size_t k = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator();
       ++it, ++k) {
    ASSERT_LT(k, mac.size());
    EXPECT_EQ(std::stod((*it)[2]), mac[k]) << "cell " << k;
    const size_t r = k / fitted_hz.size(), c = k % fitted_hz.size();
    if ((*it)[1].matched) {
      EXPECT_EQ(fitted_hz[c], modal[r * dims[1] + 2]) << "the outlined cell is the modal table's pair";
      EXPECT_EQ(mac[k], modal[r * dims[1] + 6]);
      EXPECT_GT(mac[k], 0.99);
    } else {
      EXPECT_LT(mac[k], 0.5) << "reference " << r << " against fitted " << c;
    }
  }
  EXPECT_EQ(k, mac.size());
  // A result written before the whole matrix was stored: the paired MACs on the diagonal.
  {
    const hid_t file = H5Fopen(result_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    EXPECT_GE(H5Ldelete(file, "/postures/milling/mac", H5P_DEFAULT), 0);
    H5Fclose(file);
  }
  const std::string old = Render();
  EXPECT_EQ(Count(old, "<rect class=\"mac-cell"), rows);
  EXPECT_EQ(Count(old, "class=\"mac-off\""), rows * rows - rows);
}

// The residual plot shows the magnitude and phase error of each measured entry; a fitted FRF
// twice the measured one is 20·log10(2) dB off at every line, with no phase error.
TEST_F(ReportTest, ResidualPlotShowsMagnitudeAndPhaseErrors) {
  std::string html = Render();
  EXPECT_EQ(Count(html, "class=\"residual-plot\""), 1u);
  EXPECT_EQ(Count(html, "<path class=\"residual-magnitude\""), 9u);
  EXPECT_EQ(Count(html, "<path class=\"residual-phase\""), 9u);
  std::vector<double> h;
  {
    Hdf5File f(result_, Hdf5File::Mode::kRead);
    std::vector<hsize_t> dims;
    h = f.ReadDoubles("/postures/milling/measured_H", 4, &dims);
  }
  for (double& v : h) v *= 2.0;
  {
    const hid_t file = H5Fopen(result_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    const hid_t set = H5Dopen2(file, "/postures/milling/fitted_H", H5P_DEFAULT);
    EXPECT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, h.data()), 0);
    H5Dclose(set);
    H5Fclose(file);
  }
  html = Render();
  const std::regex magnitude(
      "class=\"residual-magnitude\" data-entry=\"(..)\" data-max-abs-db=\"([^\"]+)\"");
  const std::regex phase(
      "class=\"residual-phase\" data-entry=\"(..)\" data-max-abs-deg=\"([^\"]+)\"");
  int entries = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), magnitude);
       it != std::sregex_iterator(); ++it, ++entries)
    EXPECT_NEAR(std::stod((*it)[2]), 20.0 * std::log10(2.0), 1e-9) << (*it)[1];
  EXPECT_EQ(entries, 9);
  for (auto it = std::sregex_iterator(html.begin(), html.end(), phase);
       it != std::sregex_iterator(); ++it)
    EXPECT_LT(std::stod((*it)[2]), 1e-9) << (*it)[1];
}

// The settings section shows numbers as a person wrote them: 0.2, not 0.20000000000000001.
TEST_F(ReportTest, SettingsShowNumbersAsWritten) {
  const std::string html = Render();
  const size_t at = html.find("<pre class=\"settings\">");
  ASSERT_NE(at, std::string::npos);
  const std::string settings = html.substr(at, html.find("</pre>", at) - at);
  EXPECT_NE(settings.find("band_hz: [0.2, 30]"), std::string::npos) << settings;
  EXPECT_NE(settings.find("mutation_scale: 0.1\n"), std::string::npos) << settings;
  EXPECT_NE(settings.find("crossover_fraction: 0.8\n"), std::string::npos) << settings;
  EXPECT_FALSE(std::regex_search(settings, std::regex("[0-9]\\.[0-9]{12,}"))) << settings;
}

TEST_F(ReportTest, ModalTableMatchesTheResult) {
  const std::string html = Render();
  Hdf5File f(result_, Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  const std::vector<double> modal = f.ReadDoubles("/postures/milling/modal_comparison", 2, &dims);
  ASSERT_GT(dims[0], 0u);
  EXPECT_EQ(Count(html, "<tr class=\"modal-row\">"), dims[0]);
  for (hsize_t r = 0; r < dims[0]; ++r)
    for (int c : {0, 2, 6})  // reference and fitted frequency, MAC
      EXPECT_NE(html.find("data-value=\"" + FormatDouble(modal[r * dims[1] + c]) + "\""), std::string::npos)
          << "row " << r << " column " << c;
  char text[32];
  std::snprintf(text, sizeof text, ">%.3f&#160;&#177;", modal[2]);  // mode 1 as shown, ± its 1σ
  EXPECT_NE(html.find(text), std::string::npos) << text;
}

TEST_F(ReportTest, NumbersMatchTheResult) {
  const std::string html = Render();
  const FitResult data = ReadFitResult(result_);
  Hdf5File f(result_, Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  const std::vector<double> values = f.ReadDoubles("/parameters/values", 1, &dims);
  const double cost = f.ReadDoubles("/summary/cost", 1, &dims)[0];
  ASSERT_EQ(data.parameter_names.size(), values.size());
  ASSERT_EQ(data.parameter_names[0], "k_z1");
  const std::string row = ParameterRow(html, "k_z1");
  ASSERT_FALSE(row.empty());
  char shown[32];
  std::snprintf(shown, sizeof shown, ">%.6g<", values[0]);
  EXPECT_NE(row.find("data-value=\"" + FormatDouble(values[0]) + "\""), std::string::npos) << row;
  EXPECT_NE(row.find(shown), std::string::npos) << shown << " in " << row;
  EXPECT_NE(row.find("N*m/rad"), std::string::npos);
  EXPECT_NE(html.find("id=\"summary-cost\" data-value=\"" + FormatDouble(cost) + "\""), std::string::npos);
  std::snprintf(shown, sizeof shown, "%.6e", cost);
  EXPECT_NE(html.find(shown), std::string::npos);
  EXPECT_EQ(Count(html, "<tr class=\"parameter-row"), values.size());
  // Settings and provenance.
  EXPECT_NE(html.find("format: frfit-fit-1"), std::string::npos);
  EXPECT_NE(html.find("frf_milling_inertance.h5"), std::string::npos);
  EXPECT_NE(html.find(">" + data.termination + " <span class=\"note\">("), std::string::npos);
}

TEST_F(ReportTest, FlagsFixedParametersAndBounds) {
  {
    Editable e(result_);
    e.WriteInts("/parameters/free", {0, 1, 1, 1, 1, 1});
  }
  const std::string html = Render();
  EXPECT_NE(ParameterRow(html, "k_z1").find("fixed"), std::string::npos);
  EXPECT_EQ(ParameterRow(html, "k_z2").find("fixed"), std::string::npos);
}

TEST_F(ReportTest, EscapesEveryValue) {
  {
    Editable e(result_);
    e.SetString("/", "model", "arm <&> \"x\"");
    e.SetString("/", "settings_yaml", "note: a < b && c > d\n");
  }
  const std::string html = Render();
  EXPECT_EQ(html.find("arm <&>"), std::string::npos);
  EXPECT_NE(html.find("arm &lt;&amp;&gt; &quot;x&quot;"), std::string::npos);
  EXPECT_NE(html.find("<title>frfit fit report: arm &lt;&amp;&gt; &quot;x&quot;</title>"), std::string::npos);
  EXPECT_NE(html.find("note: a &lt; b &amp;&amp; c &gt; d"), std::string::npos);
  EXPECT_EQ(HtmlEscape("<a href='x'>&</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;");
}

TEST(ReportErrors, MissingOrWrongFileNamesItAndWritesNothing) {
  const fs::path dir = fs::temp_directory_path() / ("frfit_report_errors_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out = (dir / "report.html").string();
  auto expect_error = [&](const std::string& input, const std::string& needle) {
    try {
      WriteReport(input, out);
      ADD_FAILURE() << "no error for " << input;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(input), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out)) << input;
  };
  expect_error((dir / "missing.h5").string(), "cannot open");
  std::ofstream(dir / "text.h5") << "not hdf5\n";
  expect_error((dir / "text.h5").string(), "not an HDF5 file");
  // An FRF file is HDF5 but not a fit result.
  expect_error(kRoot + "/datasets/paper_3dof/frf_milling_inertance.h5", "fit result");
  // An existing page is left as it was.
  std::ofstream(out) << "old";
  EXPECT_THROW(WriteReport((dir / "missing.h5").string(), out), Error);
  EXPECT_EQ(ReadText(out), "old");
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_TRUE(entry.path().filename() == "report.html" || entry.path().filename() == "text.h5")
        << "left behind: " << entry.path();
  fs::remove_all(dir);
}

TEST_F(ReportTest, CliWritesThePage) {
  const std::string out = Path("cli.html");
  ShellResult r = Shell(Quote(FRFIT_CLI_PATH) + " report " + Quote(result_) + " -o " + Quote(out), dir_);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(ReadText(out), RenderReportHtml(ReadFitResult(result_)));
  fs::remove(out);
  r = Shell(Quote(FRFIT_CLI_PATH) + " report --json --out=" + Quote(out) + " " + Quote(result_), dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["report"], out);
  EXPECT_EQ(j["bytes"].get<std::uintmax_t>(), fs::file_size(out));
}

TEST_F(ReportTest, CliBadFileIsOneErrorLine) {
  const std::string out = Path("bad.html");
  const std::string bad = Path("bad.h5");
  std::ofstream(bad) << "garbage";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{bad, "-o", out}, {Path("missing.h5"), "--out", out}, {result_}, {"-o", out}}) {
    std::string command = Quote(FRFIT_CLI_PATH) + " report";
    for (const auto& a : args) command += " " + Quote(a);
    const ShellResult r = Shell(command, dir_);
    EXPECT_NE(r.status, 0) << command;
    EXPECT_TRUE(r.out.empty()) << r.out;
    ASSERT_FALSE(r.err.empty()) << command;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
    if (args[0] == bad) EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST(ReportFleetIndex, OneEscapedRowPerRobot) {
  std::vector<FleetIndexRow> rows = {
      {"kr90 <cell 1>", "results/kr90.h5", "reports/kr90.html", 3.5, "ok", {}},
      {"tx200 & co", "results/tx200.h5", "", std::nan(""), "failed", {"k_z1 +12 %", "mode 2 \"shift\""}},
  };
  const std::string html = RenderFleetIndex(rows, {}, "Fleet <A>");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(Count(html, "<tr class=\"fleet-row"), 2u);
  EXPECT_NE(html.find("<title>Fleet &lt;A&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("kr90 &lt;cell 1&gt;"), std::string::npos);
  EXPECT_NE(html.find("tx200 &amp; co"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"results/kr90.h5\">"), std::string::npos);
  EXPECT_NE(html.find("<a class=\"report-link\" href=\"reports/kr90.html\">"), std::string::npos);
  EXPECT_EQ(Count(html, "class=\"report-link\""), 1u);  // the second robot has no report
  EXPECT_NE(html.find("3.500000e+00"), std::string::npos);
  EXPECT_NE(html.find("status-failed"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"drift-flag\">k_z1 +12 %</span>"), std::string::npos);
  EXPECT_NE(html.find("mode 2 &quot;shift&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // Row order is kept.
  EXPECT_LT(html.find("kr90 &lt;"), html.find("tx200 &amp;"));

  const fs::path dir = fs::temp_directory_path() / ("frfit_fleet_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "index.html").string();
  WriteFleetIndex(path, rows);
  EXPECT_EQ(ReadText(path), RenderFleetIndex(rows));
  EXPECT_NE(RenderFleetIndex({}).find("no robots"), std::string::npos);
  try {
    WriteFleetIndex((dir / "missing" / "index.html").string(), rows);
    ADD_FAILURE() << "no error for a missing directory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index.html"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

// ---- headless Chromium ---------------------------------------------------------------------------

std::uint32_t BigEndian(const unsigned char* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

struct Image {
  std::uint32_t width = 0, height = 0, channels = 0;
  std::vector<unsigned char> pixels;  // unfiltered, row-major
};

// A minimal PNG decoder for 8-bit RGB/RGBA, non-interlaced (what Chromium writes).
Image DecodePng(const std::string& bytes, std::string* error) {
  Image image;
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 33 || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return *error = "no PNG signature", image;
  std::string idat;
  int depth = 0, colour = 0, interlace = 0;
  for (size_t at = 8; at + 12 <= bytes.size();) {
    const std::uint32_t length = BigEndian(b + at);
    const std::string type = bytes.substr(at + 4, 4);
    if (at + 12 + length > bytes.size()) return *error = "truncated chunk " + type, image;
    if (type == "IHDR") {
      image.width = BigEndian(b + at + 8), image.height = BigEndian(b + at + 12);
      depth = b[at + 16], colour = b[at + 17], interlace = b[at + 20];
    } else if (type == "IDAT") {
      idat.append(bytes, at + 8, length);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0)
    return *error = "unsupported PNG (depth " + std::to_string(depth) + ", colour " + std::to_string(colour) + ")", image;
  image.channels = colour == 6 ? 4 : 3;
  const size_t stride = size_t(image.width) * image.channels;
  std::vector<unsigned char> raw((stride + 1) * image.height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      size != raw.size())
    return *error = "cannot inflate the image data", image;
  image.pixels.assign(stride * image.height, 0);
  const size_t bpp = image.channels;
  for (size_t y = 0; y < image.height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    const unsigned char* in = &raw[y * (stride + 1) + 1];
    unsigned char* out = &image.pixels[y * stride];
    const unsigned char* up = y ? &image.pixels[(y - 1) * stride] : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= bpp ? out[x - bpp] : 0, u = up ? up[x] : 0, c = (up && x >= bpp) ? up[x - bpp] : 0;
      int predicted = 0;
      switch (filter) {
        case 0: predicted = 0; break;
        case 1: predicted = a; break;
        case 2: predicted = u; break;
        case 3: predicted = (a + u) / 2; break;
        case 4: {
          const int p = a + u - c, pa = std::abs(p - a), pb = std::abs(p - u), pc = std::abs(p - c);
          predicted = pa <= pb && pa <= pc ? a : pb <= pc ? u : c;
          break;
        }
        default: return *error = "bad filter type", image;
      }
      out[x] = static_cast<unsigned char>(in[x] + predicted);
    }
  }
  return image;
}

TEST_F(ReportTest, ChromiumRendersThePage) {
  const std::string chromium = FindChromium();
  ASSERT_FALSE(chromium.empty())
      << "chromium (or chromium-browser) is not installed: run tools/setup.sh, which installs it; the "
         "report's rendering test needs a headless browser";
  const std::string html_path = Path("report.html");
  const std::string html = Render();
  const std::string shot = Path("shot.png");
  const std::string common = "timeout 180 " + Quote(chromium) +
                             " --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" +
                             Quote(Path("profile")) + " --window-size=1400,3000 ";
  const std::string url = "file://" + fs::absolute(html_path).string();
  ShellResult r = Shell(common + "--screenshot=" + Quote(shot) + " " + Quote(url), dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(fs::exists(shot)) << r.err;
  EXPECT_GT(fs::file_size(shot), 50'000u);  // a blank 1400×3000 page compresses to a few kB
  std::string error;
  const Image image = DecodePng(ReadText(shot), &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(image.width, 1400u);
  EXPECT_EQ(image.height, 3000u);
  std::set<std::uint32_t> colours;
  size_t non_white = 0, pixels = size_t(image.width) * image.height;
  for (size_t k = 0; k < pixels; ++k) {
    const unsigned char* p = &image.pixels[k * image.channels];
    colours.insert((std::uint32_t(p[0]) << 16) | (std::uint32_t(p[1]) << 8) | p[2]);
    non_white += p[0] < 240 || p[1] < 240 || p[2] < 240;
  }
  EXPECT_GT(colours.size(), 64u);
  EXPECT_GT(non_white, pixels / 50) << "the page rendered almost blank";
  // The measured (blue) and fitted (red) curve colours are on screen.
  size_t blue = 0, red = 0;
  for (size_t k = 0; k < pixels; ++k) {
    const unsigned char* p = &image.pixels[k * image.channels];
    blue += p[2] > 140 && p[0] < 80 && p[1] < 130;
    red += p[0] > 180 && p[1] < 90 && p[2] < 80;
  }
  EXPECT_GT(blue, 500u);
  EXPECT_GT(red, 500u);

  // The DOM after parsing still holds every SVG, and nothing complained.
  r = Shell(common + "--dump-dom " + Quote(url), dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Count(r.out, "class=\"frf-plot\""), Count(html, "class=\"frf-plot\""));
  EXPECT_EQ(Count(r.out, "class=\"frf-plot\""), 9u);
  EXPECT_EQ(Count(r.out, "class=\"history-plot\""), 1u);
  EXPECT_EQ(Count(r.out, "class=\"mac-map\""), 1u);
  EXPECT_EQ(Count(r.out, "<svg"), Count(html, "<svg"));
  for (const char* bad : {"Uncaught", "CONSOLE", "Failed to load", "net::ERR", "SyntaxError"})
    EXPECT_EQ(r.err.find(bad), std::string::npos) << bad << " in chromium's stderr:\n" << r.err;
}

}  // namespace
}  // namespace frfit
