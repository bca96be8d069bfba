// frfit ema end to end: its JSON against the true modes `frfit modal --params` prints, the
// printed criteria, refusals; a measured UFF file through convert → ema → report; a fit on FRFs
// without known parameters compared with the EMA modes (and its report showing the diagram); and
// cost.weights.ema_peaks placing the peak weights at those modes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "frfit/io/frf_hdf5.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/common/rng.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kP3 = kRoot + "/datasets/paper_3dof/";
const std::string kKuka = kRoot + "/datasets/kuka_kr90/";

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class EmaCli : public test::TempDirTest {
 protected:
  json RunJson(const std::vector<std::string>& args) {
    const test::CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out) : json();
  }

  // The true modes below max_hz, as `frfit modal` computes them from the parameter file.
  json TrueModes(const std::string& dir, const std::string& posture, const std::string& params,
                 double max_hz) {
    json out = json::array();
    // The whole reply first: a range-for over a member of a temporary would outlive it.
    const json modal = RunJson({"modal", "--model", dir + "model.yaml", "--posture", posture,
                                "--params", dir + params, "--json"});
    for (const json& m : modal["modes"])
      if (m["frequency_hz"].get<double>() <= max_hz) out.push_back(m);
    return out;
  }

  // Every true mode has one estimate within the tolerances, and there are no others.
  void ExpectMatch(const json& truth, const json& estimated, double frequency_tol,
                   double damping_tol) {
    ASSERT_EQ(estimated.size(), truth.size()) << estimated.dump();
    for (const json& t : truth) {
      const double f = t["frequency_hz"], zeta = t["damping_ratio"];
      const json* best = nullptr;
      for (const json& m : estimated)
        if (!best || std::abs(m["frequency_hz"].get<double>() - f) <
                         std::abs((*best)["frequency_hz"].get<double>() - f))
          best = &m;
      EXPECT_LE(std::abs((*best)["frequency_hz"].get<double>() - f) / f, frequency_tol) << f;
      EXPECT_LE(std::abs((*best)["damping_ratio"].get<double>() - zeta) / zeta, damping_tol) << f;
    }
  }

  // A copy of `frf` without provenance, as measured data (or a UFF import) has none.
  std::string Measured(const std::string& frf, const std::string& name, double noise = 0.0) {
    FrfSet set = ReadFrfSet(frf);
    set.provenance.clear();
    Rng rng(7);
    for (std::complex<double>& h : set.H) {
      const double re = rng.Normal(), im = rng.Normal();
      h += std::abs(h) * noise / std::sqrt(2.0) * std::complex<double>(re, im);
    }
    WriteFrfSet(Path(name), set);
    return Path(name);
  }

  void ExpectRefused(const std::vector<std::string>& args, const std::string& expect) {
    const test::CliResult r = Run(args);
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
  }
};

TEST_F(EmaCli, JsonGivesTheTrueModesAndTheDiagram) {
  const json j = RunJson({"ema", kKuka + "frf_milling_inertance.h5", "--json"});
  EXPECT_EQ(j["method"], "plscf");
  EXPECT_EQ(j["references"], json({"x", "y", "z"}));
  EXPECT_EQ(j["lines"], 150);
  for (const char* key : {"frequency_tolerance", "damping_tolerance", "min_mac",
                          "max_damping_ratio", "min_stable_poles", "min_contribution"})
    EXPECT_TRUE(j["criteria"].contains(key)) << key;
  ExpectMatch(TrueModes(kKuka, "milling", "params_from34.yaml", 30.0), j["modes"], 0.002, 0.05);
  // The diagram: orders rising, one stability letter per pole, stable poles at every mode.
  int previous = 0, stable = 0;
  for (const json& o : j["stabilisation"]) {
    EXPECT_GT(o["order"].get<int>(), previous);
    previous = o["order"];
    const std::string letters = o["stability"];
    EXPECT_EQ(letters.size(), o["frequency_hz"].size());
    EXPECT_EQ(letters.find_first_not_of("ofdvs"), std::string::npos) << letters;
    stable += static_cast<int>(std::count(letters.begin(), letters.end(), 's'));
  }
  EXPECT_LE(previous, j["max_order"].get<int>());
  EXPECT_GE(stable, 4 * j["criteria"]["min_stable_poles"].get<int>());
  // A narrower band and a lower order give only the band's modes.
  const json band = RunJson({"ema", kKuka + "frf_milling_inertance.h5", "--band", "15:30",
                             "--max-order", "20", "--json"});
  EXPECT_EQ(band["max_order"], 20);
  EXPECT_GE(band["band_hz"][0].get<double>(), 15.0);
  json upper = json::array();
  for (const json& m : TrueModes(kKuka, "milling", "params_from34.yaml", 30.0))
    if (m["frequency_hz"].get<double>() > 15.0) upper.push_back(m);
  ExpectMatch(upper, band["modes"], 0.002, 0.05);
}

TEST_F(EmaCli, NoisyMeasuredSetStillGivesTheTrueModes) {
  const std::string noisy = Measured(kP3 + "frf_milling_inertance.h5", "noisy.h5", 0.02);
  ExpectMatch(TrueModes(kP3, "milling", "params_table1.yaml", 30.0),
              RunJson({"ema", noisy, "--json"})["modes"], 0.005, 0.15);
}

TEST_F(EmaCli, TextPrintsTheCriteria) {
  const test::CliResult r = Run({"ema", kP3 + "frf_milling_inertance.h5"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* text : {"pLSCF (references x, y, z)", "df <= 1 %", "dzeta <= 5 %", "MAC >= 0.98",
                           "0 < zeta < 20 %", "10 stable poles",
                           "misfit growth without it >= 2 %"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  // Two header lines, the column names, three modes and the line that explains the columns.
  EXPECT_EQ(Count(r.out, "\n"), 7u) << r.out;
}

TEST_F(EmaCli, BadInputIsOneErrorLineAndNoFile) {
  const std::string frf = kP3 + "frf_milling_inertance.h5", out = Path("e.h5");
  ExpectRefused({"ema", frf, "--band", "30:5", "--out", out}, "--band: expected F0:F1");
  ExpectRefused({"ema", frf, "--max-order", "0", "--out", out},
                "--max-order: expected an integer >= 1");
  ExpectRefused({"ema", frf, "--min-mac", "1.5", "--out", out},
                "--min-mac: expected a value in [0, 1]");
  ExpectRefused({"ema", frf, "--band", "40:50", "--out", out},
                "frequency_hz: expected enough lines");
  ExpectRefused({"ema", frf, "--bogus", "1"}, "--bogus: unknown option");
  ExpectRefused({"ema"}, "expected exactly one FRF file");
  ExpectRefused({"ema", Path("missing.h5")}, "missing.h5");
  ExpectRefused({"ema", kP3 + "model.yaml"}, "model.yaml");
  EXPECT_FALSE(fs::exists(out));
}

// A measured file from a measurement system: UFF → HDF5 → EMA → HTML. Six lines below 1 Hz hold
// no resonance a stabilisation diagram could show; the chain must still run and say so.
TEST_F(EmaCli, MeasuredUffThroughConvertEmaAndReport) {
  std::ofstream(Path("map.yaml")) << "directions: {0: +z}\n";
  const std::string h5 = Path("bench.h5"), ema = Path("bench_ema.h5"), html = Path("bench.html");
  ASSERT_EQ(Run({"convert", kRoot + "/tests/data/uff/non_ascii_header.uff", h5, "--posture",
                 "bench", "--mapping", Path("map.yaml")})
                .status,
            0);
  const json j = RunJson({"ema", h5, "--out", ema, "--json"});
  EXPECT_EQ(j["out"], ema);
  EXPECT_EQ(j["lines"], 5);  // the 0 Hz line carries no pole information
  EXPECT_EQ(j["entries"], json({"zz"}));
  EXPECT_EQ(j["method"], "lscf");
  EXPECT_GE(j["max_order"].get<int>(), 1);
  size_t poles = 0;
  for (const json& o : j["stabilisation"]) poles += o["frequency_hz"].size();
  const test::CliResult r = Run({"report", ema, "-o", html});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string page = test::ReadText(html);
  EXPECT_EQ(Count(page, "<svg class=\"stabilisation-diagram\""), 1u);
  EXPECT_EQ(Count(page, "<circle class=\"pole "), poles);
  EXPECT_NE(
      page.find("id=\"ema-mode-count\" data-value=\"" + std::to_string(j["modes"].size()) + "\""),
      std::string::npos);
  EXPECT_EQ(Count(page, "class=\"frf-plot\""), 1u);  // H_zz, measured against the modal model
  EXPECT_EQ(Count(page, "<script"), 0u);
}

// The same chain with a set that has resonances: the KUKA set, with 2 % noise, exported to UFF
// 58b and read back (as from a measurement system: no parameters travel with it).
TEST_F(EmaCli, UffRoundTripOfANoisySetGivesTheTrueModesInTheReport) {
  const std::string noisy = Measured(kKuka + "frf_reach_inertance.h5", "noisy.h5", 0.02);
  const std::string uff = Path("reach.uff"), h5 = Path("reach.h5"), ema = Path("reach_ema.h5");
  ASSERT_EQ(Run({"convert", noisy, uff, "--binary"}).status, 0);
  ASSERT_EQ(Run({"convert", uff, h5, "--posture", "reach"}).status, 0);
  const json j = RunJson({"ema", h5, "--out", ema, "--json"});
  ExpectMatch(TrueModes(kKuka, "reach", "params_from34.yaml", 30.0), j["modes"], 0.005, 0.15);
  ASSERT_EQ(Run({"report", ema, "-o", Path("reach.html")}).status, 0);
  const std::string page = test::ReadText(Path("reach.html"));
  EXPECT_EQ(Count(page, "<line class=\"ema-mode\""), j["modes"].size());
  EXPECT_EQ(Count(page, "<tr class=\"ema-mode-row\">"), j["modes"].size());
  EXPECT_EQ(Count(page, "class=\"frf-plot\""), 9u);
}

// A fit on FRFs without known parameters: the modal comparison is against the EMA modes, the
// result keeps the estimation and the report shows its diagram.
TEST_F(EmaCli, FitOnMeasuredDataComparesWithTheEmaModes) {
  const std::string frf = Measured(kP3 + "frf_milling_inertance.h5", "measured.h5");
  const std::string result = Path("fit.h5");
  const json j = RunJson({"fit", "--model", kP3 + "model.yaml", "--frf", frf, "--config",
                          kP3 + "fit.yaml", "--seed", "1", "--out", result, "--json"});
  const json& p = j["postures"][0];
  EXPECT_EQ(p["modal_reference"].get<std::string>().rfind(
                "modes estimated from the measured FRFs (frfit ema)", 0),
            0u)
      << p["modal_reference"];
  const json truth = TrueModes(kP3, "milling", "params_table1.yaml", 30.0);
  ASSERT_EQ(p["modes"].size(), truth.size());
  for (size_t k = 0; k < truth.size(); ++k) {
    const double f = truth[k]["frequency_hz"], zeta = truth[k]["damping_ratio"];
    EXPECT_NEAR(p["modes"][k]["reference_frequency_hz"].get<double>(), f, 0.002 * f);
    EXPECT_NEAR(p["modes"][k]["reference_damping_ratio"].get<double>(), zeta, 0.05 * zeta);
    EXPECT_GT(p["modes"][k]["mac"].get<double>(), 0.99);  // the fit recovers the modes
  }
  {
    const Hdf5File f(result, Hdf5File::Mode::kRead);
    EXPECT_TRUE(f.Exists("/postures/milling/ema/poles/order"));
    EXPECT_TRUE(f.Exists("/postures/milling/ema/modes/sensor_shape"));
  }
  ASSERT_EQ(Run({"report", result, "-o", Path("fit.html")}).status, 0);
  const std::string page = test::ReadText(Path("fit.html"));
  EXPECT_EQ(Count(page, "<svg class=\"stabilisation-diagram\""), 1u);
  EXPECT_EQ(Count(page, "<tr class=\"ema-mode-row\">"), truth.size());
}

// cost.weights.ema_peaks: the peak weights sit at the lines nearest the EMA modes (±2 lines) in
// every fitted entry, nowhere else.
TEST_F(EmaCli, EmaPeaksPlaceThePeakWeights) {
  const std::string frf = Measured(kP3 + "frf_milling_inertance.h5", "measured.h5");
  std::ifstream in(kP3 + "fit.yaml");
  std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string weights = "weights: {mode: noise}";
  ASSERT_NE(config.find(weights), std::string::npos);
  std::string with = config;
  with.replace(with.find(weights), weights.size(),
               "weights: {mode: peaks, peak_gain: 50, base_gain: 0.5, peak_halfwidth_lines: 2, "
               "ema_peaks: true}");
  std::ofstream(Path("fit.yaml")) << with;
  ASSERT_EQ(Run({"fit", "--model", kP3 + "model.yaml", "--frf", frf, "--config", Path("fit.yaml"),
                 "--out", Path("r.h5"), "--json"})
                .status,
            0);
  const json modes = RunJson({"ema", frf, "--band", "0.2:30", "--json"})["modes"];
  ASSERT_EQ(modes.size(), 3u);
  const Hdf5File f(Path("r.h5"), Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  const std::vector<double> hz = f.ReadDoubles("/postures/milling/frequency_hz", 1, &dims);
  const std::vector<double> w = f.ReadDoubles("/postures/milling/weights", 3, &dims);
  std::set<size_t> peak_lines;
  for (const json& m : modes) {
    size_t nearest = 0;
    for (size_t k = 0; k < hz.size(); ++k)
      if (std::abs(hz[k] - m["frequency_hz"].get<double>()) <
          std::abs(hz[nearest] - m["frequency_hz"].get<double>()))
        nearest = k;
    for (size_t k = nearest - 2; k <= nearest + 2; ++k) peak_lines.insert(k);
  }
  for (size_t k = 0; k < hz.size(); ++k)
    for (int e = 0; e < 9; ++e)
      EXPECT_EQ(w[k * 9 + e], peak_lines.count(k) ? 50.0 : 0.5) << hz[k] << " Hz";
  // With explicit peaks, or in another mode, the option is refused.
  std::string both = config;
  both.replace(both.find(weights), weights.size(),
               "weights: {mode: peaks, ema_peaks: true, peak_frequencies_hz: [5]}");
  std::ofstream(Path("both.yaml")) << both;
  ExpectRefused({"fit", "--model", kP3 + "model.yaml", "--frf", frf, "--config", Path("both.yaml")},
                "cost.weights.ema_peaks: expected mode peaks and no peak_frequencies_hz");
}

}  // namespace
}  // namespace frfit
