// frfit export end to end: an FRF set (plain and with a noise model), a fit result and an EMA
// result made by the real commands are exported, the CSV files are parsed back by a small parser
// of their own here and every number is compared, exactly, with what the HDF5 readers return; the
// headers are the ones docs/export.md lists. Bad input gives one error line and writes nothing.
// Where python3 with h5py is installed, the same comparison is made from Python (csv + h5py), and
// the Python example of docs/export.md is run against real files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frfit/results/fit_result.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/model/model_yaml.h"
#include "frfit/results/fit_result.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;
const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kData = kRoot + "/datasets/paper_3dof/";
const std::string kFrf = kData + "frf_milling_inertance.h5";
const char* const kAxes[3] = {"x", "y", "z"};

using Row = std::vector<std::string>;

// A CSV parser written for the test, not shared with the writer: RFC 4180 quoting, '\n' line
// ends required (a '\r' or a missing last line end fails), no spaces around cells.
std::vector<Row> ParseCsv(const std::string& text) {
  std::vector<Row> rows;
  Row row;
  std::string cell;
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      EXPECT_TRUE(cell.empty()) << "quote inside a cell at byte " << i;
      quoted = was_quoted = true;
    } else if (c == ',' || c == '\n') {
      EXPECT_TRUE(was_quoted || cell.find_first_of(" \t\r") == std::string::npos)
          << "space or CR in '" << cell << "'";
      row.push_back(cell);
      cell.clear();
      was_quoted = false;
      if (c == '\n') rows.push_back(row), row.clear();
    } else {
      cell += c;
    }
  }
  EXPECT_TRUE(row.empty() && cell.empty() && !quoted) << "the last line has no '\\n'";
  for (const Row& r : rows) EXPECT_EQ(r.size(), rows.front().size()) << "ragged row";
  return rows;
}

// docs/export.md: empty is NaN, "inf"/"-inf" are infinities, anything else a whole number.
double Number(const std::string& cell) {
  if (cell.empty()) return std::nan("");
  if (cell == "inf") return INFINITY;
  if (cell == "-inf") return -INFINITY;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  EXPECT_TRUE(*end == '\0' && !std::isnan(v) && !std::isinf(v)) << "not a number: '" << cell << "'";
  return v;
}

// Equal as doubles, bit for bit; two NaNs (an empty cell for a NaN) count as equal.
void ExpectSame(double csv, double hdf5, const std::string& where) {
  if (std::isnan(hdf5)) EXPECT_TRUE(std::isnan(csv)) << where << ": " << csv;
  else EXPECT_EQ(csv, hdf5) << where;
}

// A parsed table with its columns by header name.
struct Table {
  Row header;
  std::vector<Row> rows;
  std::map<std::string, size_t> index;
  std::vector<double> Column(const std::string& name) const {
    std::vector<double> out;
    const auto it = index.find(name);
    EXPECT_NE(it, index.end()) << "no column " << name;
    if (it == index.end()) return out;
    for (const Row& r : rows) out.push_back(Number(r[it->second]));
    return out;
  }
  std::vector<std::string> Text(const std::string& name) const {
    std::vector<std::string> out;
    for (const Row& r : rows) out.push_back(r[index.at(name)]);
    return out;
  }
};

Table ReadTable(const std::string& path) {
  EXPECT_TRUE(fs::exists(path)) << path;
  std::vector<Row> all = ParseCsv(test::ReadText(path));
  Table t;
  if (all.empty()) return t;
  t.header = all.front();
  t.rows.assign(all.begin() + 1, all.end());
  for (size_t c = 0; c < t.header.size(); ++c) t.index[t.header[c]] = c;
  return t;
}

// The entry columns of docs/export.md, written out here rather than taken from the library.
std::vector<std::string> EntryNames(const std::array<bool, 9>& present) {
  std::vector<std::string> out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (present[3 * i + j]) out.push_back(std::string("H_") + kAxes[i] + kAxes[j]);
  return out;
}

void ExpectComplexColumns(const Table& t, const std::string& prefix,
                          const std::vector<std::complex<double>>& H, int entry) {
  const std::vector<double> re = t.Column(prefix + "_re"), im = t.Column(prefix + "_im");
  ASSERT_EQ(re.size() * 9, H.size()) << prefix;
  for (size_t k = 0; k < re.size(); ++k) {
    ExpectSame(re[k], H[k * 9 + entry].real(), prefix + "_re line " + std::to_string(k));
    ExpectSame(im[k], H[k * 9 + entry].imag(), prefix + "_im line " + std::to_string(k));
  }
}

bool HavePython() {
  return std::system("python3 -c 'import h5py, numpy' >/dev/null 2>&1") == 0;
}

class ExportCli : public test::TempDirTest {
 protected:
  // Exports `in` to DIR "csv" with --json and checks what every export promises: exit 0, one
  // "wrote" line per file on stderr, the JSON's files, columns and rows those of the files.
  nlohmann::json Export(const std::string& in) {
    const test::CliResult r = Run({"export", in, "--csv", Path("csv"), "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (const auto& file : j["files"]) {
      const std::string path = file["path"];
      EXPECT_EQ(path, Path("csv") + "/" + file["name"].get<std::string>());
      const Table t = ReadTable(path);
      EXPECT_EQ(file["columns"].get<Row>(), t.header) << path;
      EXPECT_EQ(file["rows"].get<size_t>(), t.rows.size()) << path;
      EXPECT_NE(r.err.find("wrote " + path + ": " + std::to_string(t.rows.size()) + " rows ("),
                std::string::npos)
          << r.err;
    }
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), j["files"].size()) << r.err;
    size_t on_disk = 0;
    for (const auto& e : fs::directory_iterator(Path("csv"))) on_disk += e.path().extension() == ".csv";
    EXPECT_EQ(on_disk, j["files"].size()) << "files in the directory that the JSON does not list";
    return j;
  }

  std::string Fit(const std::string& frf, const std::string& out) {
    const test::CliResult r = Run({"fit", "--model", kData + "model.yaml", "--frf", frf,
                                   "--config", kData + "fit.yaml", "--seed", "1", "--out", out,
                                   "--quiet"});
    EXPECT_EQ(r.status, 0) << r.err;
    return out;
  }

  // One "error:" line naming `expect`, a non-zero exit, nothing on stdout, no DIR.
  void ExpectRefused(const std::vector<std::string>& args, const std::string& expect) {
    const test::CliResult r = Run(args);
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(Path("csv")));
  }
};

TEST_F(ExportCli, FrfSetRoundTripsExactly) {
  const FrfSet set = ReadFrfSet(kFrf);
  const nlohmann::json j = Export(kFrf);
  EXPECT_EQ(j["kind"], "frf_set");
  ASSERT_EQ(j["files"].size(), 1u) << "a set without noise model or coherence: frf.csv only";
  EXPECT_NE(j["files"][0]["description"].get<std::string>().find("inertance in m/s^2/N"),
            std::string::npos);
  const Table t = ReadTable(Path("csv/frf.csv"));
  Row expected = {"frequency_hz"};
  for (const std::string& e : EntryNames(set.present)) expected.insert(expected.end(), {e + "_re", e + "_im"});
  EXPECT_EQ(t.header, expected);
  EXPECT_EQ(t.Column("frequency_hz"), set.frequency_hz);  // exactly, the set's lines
  for (int e = 0; e < 9; ++e)
    ExpectComplexColumns(t, std::string("H_") + kAxes[e / 3] + kAxes[e % 3], set.H, e);
}

// A set with a noise model: frf_noise.csv holds sqrt of the file's variance per entry.
TEST_F(ExportCli, NoisySetExportsItsNoiseModel) {
  const test::CliResult r =
      Run({"simulate", "--model", kData + "model.yaml", "--posture", "milling", "--params",
           kData + "params_table1.yaml", "--band", "1:30:0.5", "--noise", "0.03:0.001", "--seed",
           "2", "--out", Path("noisy.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  const FrfSet set = ReadFrfSet(Path("noisy.h5"));
  ASSERT_EQ(set.noise_variance.size(), set.H.size());
  const nlohmann::json j = Export(Path("noisy.h5"));
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][1]["name"], "frf_noise.csv");
  const Table noise = ReadTable(Path("csv/frf_noise.csv"));
  EXPECT_EQ(noise.Column("frequency_hz"), set.frequency_hz);
  for (int e = 0; e < 9; ++e) {
    const std::vector<double> sigma =
        noise.Column(std::string("H_") + kAxes[e / 3] + kAxes[e % 3] + "_sigma");
    ASSERT_EQ(sigma.size(), static_cast<size_t>(set.num_lines()));
    for (int k = 0; k < set.num_lines(); ++k) {
      ExpectSame(sigma[k], std::sqrt(set.noise_variance[k * 9 + e]), "sigma");
      EXPECT_GT(sigma[k], 0.0);
    }
  }
  ExpectComplexColumns(ReadTable(Path("csv/frf.csv")), "H_zz", set.H, 8);
}

// Entries not measured have no columns; coherence gets its own file; NaN and inf cells.
TEST_F(ExportCli, UnmeasuredEntriesAndCoherence) {
  FrfSet set;
  set.posture = "milling";
  set.format = FrfFormat::kReceptance;
  set.frequency_hz = {1.0, 2.5, 1e6 / 3.0};
  set.H.assign(27, {0.0, 0.0});
  set.present = {true, false, true, false, false, false, false, false, true};
  set.coherence.assign(27, 0.0);
  for (int k = 0; k < 3; ++k)
    for (int e : {0, 2, 8}) {
      set.H[k * 9 + e] = {1e-7 * (k + 1) / 3.0, -0.1 / (e + 7.0)};
      set.coherence[k * 9 + e] = k == 1 ? 0.0 : 0.9 + 0.01 * e;
    }
  set.averages = 5;
  NoiseFromCoherence(&set, "test");
  WriteFrfSet(Path("coh.h5"), set);
  const FrfSet back = ReadFrfSet(Path("coh.h5"));
  const nlohmann::json j = Export(Path("coh.h5"));
  ASSERT_EQ(j["files"].size(), 3u);
  const Table frf = ReadTable(Path("csv/frf.csv"));
  EXPECT_EQ(frf.header, (Row{"frequency_hz", "H_xx_re", "H_xx_im", "H_xz_re", "H_xz_im",
                             "H_zz_re", "H_zz_im"}));
  EXPECT_EQ(frf.Column("frequency_hz"), set.frequency_hz);
  ExpectComplexColumns(frf, "H_xz", back.H, 2);
  const Table coherence = ReadTable(Path("csv/frf_coherence.csv"));
  EXPECT_EQ(coherence.header, (Row{"frequency_hz", "coherence_xx", "coherence_xz", "coherence_zz"}));
  const std::vector<double> zz = coherence.Column("coherence_zz");
  for (int k = 0; k < 3; ++k) ExpectSame(zz[k], back.coherence[k * 9 + 8], "coherence");
  // γ² = 0: the line says nothing, its noise is infinite, written "inf".
  const Table noise = ReadTable(Path("csv/frf_noise.csv"));
  EXPECT_EQ(noise.rows[1][noise.index.at("H_xx_sigma")], "inf");
}

TEST_F(ExportCli, FitResultRoundTripsExactly) {
  const std::string result = Fit(kFrf, Path("R.h5"));
  const FitResult d = ReadFitResult(result);
  const Model model = LoadModel(kData + "model.yaml");
  const nlohmann::json j = Export(result);
  EXPECT_EQ(j["kind"], "fit_result");
  std::vector<std::string> names;
  for (const auto& f : j["files"]) names.push_back(f["name"]);
  EXPECT_EQ(names, (Row{"parameters.csv", "modes.csv", "mac.csv", "correlation.csv",
                        "covariance.csv", "singular_values.csv", "weak_directions.csv",
                        "frf_milling.csv"}));

  const Table p = ReadTable(Path("csv/parameters.csv"));
  EXPECT_EQ(p.header, (Row{"name", "unit", "value", "sigma", "sigma_relative", "initial", "lower",
                           "upper", "free", "at_bound"}));
  ASSERT_EQ(p.rows.size(), static_cast<size_t>(model.num_parameters()));
  for (int i = 0; i < model.num_parameters(); ++i)
    EXPECT_EQ(p.rows[i][0], model.parameters[i].name);
  EXPECT_EQ(p.Text("unit"), d.parameter_units);
  EXPECT_EQ(p.Column("value"), d.parameters);
  EXPECT_EQ(p.Column("initial"), d.initial_parameters);
  EXPECT_EQ(p.Column("lower"), d.lower);
  EXPECT_EQ(p.Column("upper"), d.upper);
  // 1σ is the fit's own (the result's identifiability), name by name; all six are fitted here.
  const std::vector<double> sigma = p.Column("sigma"), relative = p.Column("sigma_relative");
  ASSERT_EQ(d.identifiability.per_parameter.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    const ParameterIdentifiability& q = d.identifiability.per_parameter[i];
    EXPECT_EQ(p.rows[i][0], q.name);
    ExpectSame(sigma[i], q.std_absolute, q.name);
    ExpectSame(relative[i], q.std_relative, q.name);
    EXPECT_GT(sigma[i], 0.0) << q.name;
    EXPECT_EQ(p.rows[i][p.index.at("free")], "1");
    EXPECT_EQ(p.rows[i][p.index.at("at_bound")], ToString(q.at_bound));
  }
  // The paper's stiffnesses, as the fit recovers them.
  EXPECT_NEAR(p.Column("value")[0], 2e6, 0.01 * 2e6);
}

TEST_F(ExportCli, FitResultMatricesAndModes) {
  const std::string result = Fit(kFrf, Path("R.h5"));
  const FitResult d = ReadFitResult(result);
  Export(result);
  const Identifiability& id = d.identifiability;
  const size_t n = id.per_parameter.size();
  const Table corr = ReadTable(Path("csv/correlation.csv"));
  const Table cov = ReadTable(Path("csv/covariance.csv"));
  Row header = {"parameter"};
  for (const auto& q : id.per_parameter) header.push_back(q.name);
  EXPECT_EQ(corr.header, header);
  EXPECT_EQ(cov.header, header);
  ASSERT_EQ(corr.rows.size(), n);
  for (size_t r = 0; r < n; ++r) {
    EXPECT_EQ(corr.rows[r][0], id.per_parameter[r].name);
    EXPECT_EQ(cov.rows[r][0], id.per_parameter[r].name);
    for (size_t c = 0; c < n; ++c) {
      const double rho = Number(corr.rows[r][c + 1]), v = Number(cov.rows[r][c + 1]);
      ExpectSame(rho, id.correlation[r * n + c], "correlation");
      EXPECT_EQ(rho, Number(corr.rows[c][r + 1])) << "not symmetric at " << r << "," << c;
      EXPECT_LE(std::abs(rho), 1.0 + 1e-12);
      const double s = id.per_parameter[r].std_absolute * id.per_parameter[c].std_absolute;
      EXPECT_NEAR(v, rho * s, 1e-15 * std::abs(s));
    }
    EXPECT_NEAR(Number(corr.rows[r][r + 1]), 1.0, 1e-12);
    const double sigma = id.per_parameter[r].std_absolute;
    EXPECT_NEAR(Number(cov.rows[r][r + 1]), sigma * sigma, 1e-12 * sigma * sigma);
  }
  const Table sv = ReadTable(Path("csv/singular_values.csv"));
  EXPECT_EQ(sv.header, (Row{"index", "singular_value"}));
  EXPECT_EQ(sv.Column("singular_value"), id.singular_values);
  // Keyed by index, one column per free parameter, the text last.
  Row weak_header = {"index", "singular_value", "sigma_relative"};
  for (const ParameterIdentifiability& q : id.per_parameter) weak_header.push_back(q.name);
  weak_header.push_back("description");
  EXPECT_EQ(ReadTable(Path("csv/weak_directions.csv")).header, weak_header);

  // modes.csv: the stored modal comparison, row by row, under its stored column names.
  const Table modes = ReadTable(Path("csv/modes.csv"));
  ASSERT_EQ(d.postures.size(), 1u);
  const PostureResult& pose = d.postures[0];
  ASSERT_EQ(modes.rows.size(), pose.modal.rows.size());
  ASSERT_GE(modes.rows.size(), 3u);
  EXPECT_EQ(modes.header, (Row{"posture", "mode", "reference_frequency_hz",
                               "reference_damping_ratio", "fitted_frequency_hz",
                               "fitted_damping_ratio", "frequency_error_percent",
                               "damping_error_percent", "mac", "fitted_frequency_sigma_hz",
                               "fitted_damping_sigma"}));
  Hdf5File file(result, Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  const std::vector<double> stored = file.ReadDoubles("/postures/milling/modal_comparison", 2, &dims);
  ASSERT_EQ(dims[1], 9u);
  for (size_t m = 0; m < pose.modal.rows.size(); ++m) {
    EXPECT_EQ(modes.rows[m][0], "milling");
    EXPECT_EQ(modes.rows[m][1], std::to_string(m + 1));
    for (size_t c = 0; c < 9; ++c)
      ExpectSame(Number(modes.rows[m][c + 2]), stored[m * 9 + c], modes.header[c + 2]);
  }
  // mac.csv: every stored MAC; a paired mode's MAC is among its row's.
  const Table mac = ReadTable(Path("csv/mac.csv"));
  ASSERT_EQ(mac.rows.size(), static_cast<size_t>(pose.modal.mac.size()));
  const std::vector<double> values = mac.Column("mac");
  const Eigen::Index nf_pose = pose.modal.mac.cols();
  for (size_t k = 0; k < values.size(); ++k)
    ExpectSame(values[k], pose.modal.mac(k / nf_pose, k % nf_pose), "mac");

  // frf_milling.csv: measured and fitted FRFs as the result stores them.
  const Table frf = ReadTable(Path("csv/frf_milling.csv"));
  EXPECT_EQ(frf.Column("frequency_hz"), pose.measured.frequency_hz);
  EXPECT_EQ(frf.header.size(), 1u + 9 * 4);
  for (int e = 0; e < 9; ++e) {
    const std::string h = std::string("H_") + kAxes[e / 3] + kAxes[e % 3];
    ExpectComplexColumns(frf, h + "_measured", pose.measured.H, e);
    ExpectComplexColumns(frf, h + "_fitted", pose.fitted.H, e);
  }
}

// A posture measured at two response points (the tool tip and joint3, the hammer at the tool tip)
// has a modal comparison over both: modes_points.csv and mac_points.csv, as modes.csv and mac.csv,
// the numbers of /modal_comparison_points/milling exactly.
TEST_F(ExportCli, FitResultModesOverAllPoints) {
  const std::string tip = Path("tip.h5"), elbow = Path("elbow.h5");
  for (const auto& [out, frame] : {std::pair{tip, ""}, std::pair{elbow, "joint3"}}) {
    std::vector<std::string> args = {"simulate", "--model", kData + "model.yaml", "--posture",
                                     "milling", "--params", kData + "params_table1.yaml",
                                     "--band", "0.2:30:0.2", "--out", out};
    if (*frame) args.insert(args.end(), {"--response-frame", frame});
    const test::CliResult r = Run(args);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const std::string result = Fit(tip + "," + elbow, Path("R.h5"));
  const FitResult d = ReadFitResult(result);
  ASSERT_EQ(d.modal_comparison_points.size(), 1u);
  const ModalComparison& c = d.modal_comparison_points[0].modal;
  ASSERT_GE(c.rows.size(), 3u);
  const nlohmann::json j = Export(result);
  std::vector<std::string> names;
  for (const auto& f : j["files"]) names.push_back(f["name"]);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 5),
            (Row{"parameters.csv", "modes.csv", "mac.csv", "modes_points.csv", "mac_points.csv"}));

  const Table modes = ReadTable(Path("csv/modes_points.csv"));
  EXPECT_EQ(modes.header, (Row{"posture", "points", "mode", "reference_frequency_hz",
                               "reference_damping_ratio", "fitted_frequency_hz",
                               "fitted_damping_ratio", "frequency_error_percent",
                               "damping_error_percent", "mac", "fitted_frequency_sigma_hz",
                               "fitted_damping_sigma"}));
  Hdf5File file(result, Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  const std::vector<double> stored =
      file.ReadDoubles("/modal_comparison_points/milling/modal_comparison", 2, &dims);
  ASSERT_EQ(dims[1], 9u);
  ASSERT_EQ(modes.rows.size(), dims[0]);
  for (size_t m = 0; m < modes.rows.size(); ++m) {
    EXPECT_EQ(modes.rows[m][0], "milling");
    EXPECT_EQ(modes.rows[m][1], "sensor, joint3");  // /@points, the stacking order
    EXPECT_EQ(modes.rows[m][2], std::to_string(m + 1));
    for (size_t k = 0; k < 9; ++k)
      ExpectSame(Number(modes.rows[m][k + 3]), stored[m * 9 + k], modes.header[k + 3]);
    EXPECT_GT(Number(modes.rows[m][modes.index.at("mac")]), 0.99) << "mode " << m + 1;
  }
  const Table mac = ReadTable(Path("csv/mac_points.csv"));
  EXPECT_EQ(mac.header, (Row{"posture", "reference_mode", "fitted_mode", "reference_frequency_hz",
                             "fitted_frequency_hz", "mac"}));
  ASSERT_EQ(mac.rows.size(), static_cast<size_t>(c.mac.size()));
  const std::vector<double> values = mac.Column("mac"), fitted_hz = mac.Column("fitted_frequency_hz");
  const size_t nf = c.mac_fitted_frequency_hz.size();
  for (size_t k = 0; k < values.size(); ++k) {
    ExpectSame(values[k], c.mac(k / nf, k % nf), "mac_points");
    ExpectSame(fitted_hz[k], c.mac_fitted_frequency_hz[k % nf], "mac_points fitted_frequency_hz");
    EXPECT_EQ(mac.rows[k][1], std::to_string(k / nf + 1));
  }
}

TEST_F(ExportCli, EmaResultRoundTripsExactly) {
  const test::CliResult r = Run({"ema", kFrf, "--out", Path("E.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  const EmaResult ema = ReadEmaResult(Path("E.h5"));
  ASSERT_GE(ema.modes.size(), 3u);
  const nlohmann::json j = Export(Path("E.h5"));
  EXPECT_EQ(j["kind"], "ema_result");
  const Table modes = ReadTable(Path("csv/modes.csv"));
  EXPECT_EQ(modes.header,
            (Row{"mode", "frequency_hz", "frequency_sigma_hz", "damping_ratio", "damping_sigma",
                 "explained", "contribution", "mpc", "mpd_deg", "stable_poles", "lowest_order",
                 "sensor_shape_x_re", "sensor_shape_x_im", "sensor_shape_y_re",
                 "sensor_shape_y_im", "sensor_shape_z_re", "sensor_shape_z_im"}));
  ASSERT_EQ(modes.rows.size(), ema.modes.size());
  const auto column = [&](const char* name) { return modes.Column(name); };
  for (size_t m = 0; m < ema.modes.size(); ++m) {
    const EmaMode& e = ema.modes[m];
    ExpectSame(column("frequency_hz")[m], e.mode.frequency_hz, "frequency_hz");
    ExpectSame(column("frequency_sigma_hz")[m], e.frequency_sigma_hz, "frequency_sigma_hz");
    ExpectSame(column("damping_ratio")[m], e.mode.damping_ratio, "damping_ratio");
    ExpectSame(column("damping_sigma")[m], e.damping_sigma, "damping_sigma");
    ExpectSame(column("explained")[m], e.explained, "explained");
    ExpectSame(column("contribution")[m], e.contribution, "contribution");
    ExpectSame(column("mpc")[m], e.mpc, "mpc");
    ExpectSame(column("mpd_deg")[m], e.mpd_deg, "mpd_deg");
    EXPECT_EQ(column("stable_poles")[m], e.stable_poles);
    EXPECT_EQ(column("lowest_order")[m], e.lowest_order);
    for (int a = 0; a < 3; ++a) {
      ExpectSame(column((std::string("sensor_shape_") + kAxes[a] + "_re").c_str())[m],
                 e.mode.sensor_shape(a).real(), "shape");
      ExpectSame(column((std::string("sensor_shape_") + kAxes[a] + "_im").c_str())[m],
                 e.mode.sensor_shape(a).imag(), "shape");
    }
  }
  const Table poles = ReadTable(Path("csv/poles.csv"));
  EXPECT_EQ(poles.header, (Row{"order", "frequency_hz", "damping_ratio", "stability"}));
  ASSERT_EQ(poles.rows.size(), ema.poles.size());
  const std::vector<double> pf = poles.Column("frequency_hz");
  for (size_t k = 0; k < pf.size(); ++k) {
    ExpectSame(pf[k], ema.poles[k].frequency_hz, "pole");
    EXPECT_EQ(poles.rows[k][0], std::to_string(ema.poles[k].order));
    EXPECT_EQ(poles.rows[k][3], std::string(1, "ofdvs"[static_cast<int>(ema.poles[k].stability)]));
  }
  const Table frf = ReadTable(Path("csv/frf.csv"));
  EXPECT_EQ(frf.Column("frequency_hz"), ema.measured.frequency_hz);
  ExpectComplexColumns(frf, "H_yz_measured", ema.measured.H, 5);
  ExpectComplexColumns(frf, "H_yz_synthesized", ema.synthesized.H, 5);
}

TEST_F(ExportCli, RefusesWhatIsNotAnFrfitOutput) {
  // A YAML file, an HDF5 file of another program, and a missing file.
  ExpectRefused({"export", kData + "model.yaml", "--csv", Path("csv")},
                kData + "model.yaml: expected an frfit FRF set, fit result, EMA result, posture "
                        "map or stability lobes (HDF5), got a file that is not HDF5");
  {
    Hdf5File other(Path("other.h5"), Hdf5File::Mode::kCreate);
    other.CreateGroup("/data");
    const double x[2] = {1, 2};
    other.WriteDoubles("/data/x", {2}, x);
    other.Save();
  }
  ExpectRefused({"export", Path("other.h5"), "--csv", Path("csv")},
                Path("other.h5") + ": /@frfit_file: expected an frfit FRF set, fit result, EMA "
                                   "result, posture map or stability lobes (attribute frfit_file "
                                   "= frf_set, fit_result, ema_result, posture_map or "
                                   "stability_lobes), got no such attribute");
  ExpectRefused({"export", Path("missing.h5"), "--csv", Path("csv")}, "missing.h5");
  // A fit result without its groups: the reader's error, nothing written.
  {
    Hdf5File hollow(Path("hollow.h5"), Hdf5File::Mode::kCreate);
    hollow.SetAttribute("/", "frfit_file", "fit_result");
    hollow.Save();
  }
  ExpectRefused({"export", Path("hollow.h5"), "--csv", Path("csv")}, Path("hollow.h5") + ": ");
}

TEST_F(ExportCli, RefusesBadArguments) {
  ExpectRefused({"export", kFrf}, "frfit export: --csv: missing (required)");
  ExpectRefused({"export", "--csv", Path("csv")},
                "frfit export: IN.h5: expected exactly one frfit HDF5 file");
  ExpectRefused({"export", kFrf, kFrf, "--csv", Path("csv")}, "unexpected argument");
  std::ofstream(Path("csv")) << "a file";
  const test::CliResult r = Run({"export", kFrf, "--csv", Path("csv")});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("frfit export: --csv: expected a directory (created if missing)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(test::ReadText(Path("csv")), "a file");
}

// A missing DIR is created, parents included; files already there are replaced whole.
TEST_F(ExportCli, CreatesTheDirectoryAndReplacesFiles) {
  fs::create_directories(Path("a"));
  std::ofstream(Path("a/frf.csv")) << "old\n";
  test::CliResult r = Run({"export", kFrf, "--csv", Path("a")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << "without --json stdout stays empty: " << r.out;
  EXPECT_EQ(test::ReadText(Path("a/frf.csv")).rfind("frequency_hz,H_xx_re,", 0), 0u);
  r = Run({"export", kFrf, "--csv", Path("b/c")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(Path("b/c/frf.csv")));
}

TEST_F(ExportCli, HelpListsItsOptions) {
  const test::CliResult r = Run({"export", "--help"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("usage: frfit export ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("IN.h5 --csv DIR [--json]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  --csv DIR "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  --json "), std::string::npos) << r.out;
  EXPECT_NE(Run({"--help"}).out.find("\n  export    IN.h5 --csv DIR"), std::string::npos);
}

// The same comparison made independently in Python (the csv module and h5py), as a user of the
// CSV files would read them. Needs python3 with h5py; the C++ tests above check the same numbers.
constexpr const char* kPythonCheck = R"(import csv, math, sys, h5py
def rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))
def same(cell, value):
    value = float(value)
    return math.isnan(value) if cell == "" else float(cell) == value
result, rdir, frf, fdir = sys.argv[1:5]
bad, compared = [], 0
with h5py.File(result, "r") as r:
    t = rows(rdir + "/parameters.csv")
    if [row[0] for row in t[1:]] != list(r["parameters/names"].asstr()[:]): bad.append("names")
    for row, v in zip(t[1:], r["parameters/values"][:]):
        compared += 1
        if not same(row[t[0].index("value")], v): bad.append("value of " + row[0])
    t, c = rows(rdir + "/correlation.csv"), r["identifiability/correlation"][:]
    for i, row in enumerate(t[1:]):
        for j, cell in enumerate(row[1:]):
            compared += 1
            if not same(cell, c[i, j]): bad.append("correlation %d %d" % (i, j))
with h5py.File(frf, "r") as s:
    t, H, f, present = rows(fdir + "/frf.csv"), s["H"][:], s["frequency_hz"][:], s["present"][:]
    if len(t) - 1 != len(f): bad.append("rows")
    for k, row in enumerate(t[1:]):
        if not same(row[0], f[k]): bad.append("frequency line %d" % k)
        for i in range(3):
            for j in range(3):
                if present[i, j]:
                    col = t[0].index("H_%s%s_re" % ("xyz"[i], "xyz"[j]))
                    compared += 2
                    if not (same(row[col], H[k, i, j, 0]) and same(row[col + 1], H[k, i, j, 1])):
                        bad.append("H line %d entry %d%d" % (k, i, j))
print("\n".join(bad[:10]) if bad else "compared %d" % compared)
sys.exit(1 if bad else 0)
)";

TEST_F(ExportCli, PythonReadsTheSameNumbers) {
  if (!HavePython()) GTEST_SKIP() << "python3 with h5py not installed; the C++ tests compare too";
  const std::string result = Fit(kFrf, Path("R.h5"));
  ASSERT_EQ(Run({"export", result, "--csv", Path("fit_csv")}).status, 0);
  ASSERT_EQ(Run({"export", kFrf, "--csv", Path("frf_csv")}).status, 0);
  std::ofstream(Path("check.py")) << kPythonCheck;
  const test::CliResult r = test::RunShell(
      "python3 " + test::Quote(Path("check.py")) + " " + test::Quote(result) + " " +
          test::Quote(Path("fit_csv")) + " " + test::Quote(kFrf) + " " + test::Quote(Path("frf_csv")),
      Path("py.out"), Path("py.err"));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // 6 values, 36 correlations, 150 lines × 9 entries × 2 parts.
  EXPECT_EQ(r.out, "compared " + std::to_string(6 + 36 + 150 * 9 * 2) + "\n") << r.err;
}

// The Python example of docs/export.md runs as printed against a fit result and an FRF set.
TEST_F(ExportCli, DocsPythonExampleRuns) {
  if (!HavePython()) GTEST_SKIP() << "python3 with h5py not installed";
  const std::string docs = test::ReadText(kRoot + "/docs/export.md");
  const size_t section = docs.find("## Reading frfit's HDF5 directly");
  ASSERT_NE(section, std::string::npos);
  const size_t start = docs.find("```python\n", section);
  ASSERT_NE(start, std::string::npos);
  const size_t end = docs.find("```", start + 10);
  const std::string snippet = docs.substr(start + 10, end - start - 10);
  Fit(kFrf, Path("result.h5"));
  fs::copy_file(kFrf, Path("frf.h5"));
  std::ofstream(Path("example.py"))
      << snippet << "print(len(value), len(sigma), H.shape, repr(float(f[-1])), repr(float(value['k_z2'])))\n";
  const test::CliResult r = test::RunShell("cd " + test::Quote(dir_.string()) + " && python3 example.py",
                                           Path("py.out"), Path("py.err"));
  ASSERT_EQ(r.status, 0) << snippet << r.err;
  const FitResult d = ReadFitResult(Path("result.h5"));
  const FrfSet set = ReadFrfSet(kFrf);
  std::istringstream out(r.out);
  std::string n_value, n_sigma, shape1, shape2, shape3, last_f, k_z2;
  out >> n_value >> n_sigma >> shape1 >> shape2 >> shape3 >> last_f >> k_z2;
  EXPECT_EQ(n_value, std::to_string(d.parameters.size())) << r.out;
  EXPECT_EQ(n_sigma, std::to_string(d.identifiability.per_parameter.size())) << r.out;
  EXPECT_EQ(shape1 + shape2 + shape3, "(150,3,3)") << r.out;
  EXPECT_EQ(std::strtod(last_f.c_str(), nullptr), set.frequency_hz.back()) << r.out;
  const size_t k = std::find(d.parameter_names.begin(), d.parameter_names.end(), "k_z2") -
                   d.parameter_names.begin();
  ASSERT_LT(k, d.parameters.size());
  EXPECT_EQ(std::strtod(k_z2.c_str(), nullptr), d.parameters[k]) << r.out;
}

}  // namespace
}  // namespace frfit
