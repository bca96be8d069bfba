#include "frfit/report/csv_export.h"

#include <hdf5.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/results/modal_comparison.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/modal/stabilisation.h"

namespace frfit {
namespace {

constexpr const char* kKinds =
    "an frfit FRF set, fit result, EMA result, posture map or stability lobes";

std::vector<std::string> Integers(size_t count, size_t first) {
  std::vector<std::string> cells;
  for (size_t i = 0; i < count; ++i) cells.push_back(std::to_string(first + i));
  return cells;
}

// `prefix`_re and `prefix`_im of one entry over all lines of H ([line * 9 + entry]).
void AddComplex(CsvTable* table, const std::string& prefix,
                const std::vector<std::complex<double>>& H, int entry) {
  std::vector<double> re, im;
  for (size_t k = entry; k < H.size(); k += 9) {
    re.push_back(H[k].real());
    im.push_back(H[k].imag());
  }
  table->AddNumberColumn(prefix + "_re", re);
  table->AddNumberColumn(prefix + "_im", im);
}

// One column per present entry of a per-entry real array ([line * 9 + entry]).
void AddPerEntry(CsvTable* table, const std::array<bool, 9>& present,
                 const std::vector<double>& values, const std::string& prefix,
                 const std::string& suffix, double (*transform)(double)) {
  for (int e = 0; e < 9; ++e) {
    if (!present[e]) continue;
    std::vector<double> column;
    for (size_t k = e; k < values.size(); k += 9) column.push_back(transform(values[k]));
    table->AddNumberColumn(prefix + EntryName(e) + suffix, column);
  }
}

// The averages behind the coherence: per hammer direction (column j of H_ij) where frfit frf
// recorded them and they differ, else the file's one number.
std::string AveragesOf(const FrfSet& set) {
  std::string per_axis;
  for (const auto& [key, value] : set.provenance)
    if (key == "averages_per_axis") per_axis = value;
  int counts[3] = {0, 0, 0};
  if (std::sscanf(per_axis.c_str(), "%d,%d,%d", &counts[0], &counts[1], &counts[2]) == 3) {
    std::string text;
    bool differ = false;
    for (int j = 0; j < 3; ++j) {
      if (counts[j] == 0) continue;
      differ |= counts[j] != set.averages;
      text += (text.empty() ? "" : ", ") + std::to_string(counts[j]) + " (hammer " + "xyz"[j] + ")";
    }
    if (differ) return "averages per hammer direction: " + text;
  }
  return std::to_string(set.averages) + " averages";
}

double Same(double v) { return v; }
double Root(double v) { return std::sqrt(v); }

// A posture name as part of a file name: letters, digits, '-' and '_' kept, others '_'.
std::string FileNamePart(const std::string& name) {
  std::string out = name.empty() ? "unnamed" : name;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return out;
}

}  // namespace

constexpr std::pair<ExportKind, const char*> kExportKinds[] = {
    {ExportKind::kFrfSet, "frf_set"},
    {ExportKind::kFitResult, "fit_result"},
    {ExportKind::kEmaResult, "ema_result"},
    {ExportKind::kPostureMap, "posture_map"},
    {ExportKind::kLobes, "stability_lobes"}};

std::string ToString(ExportKind kind) { return EnumName(kExportKinds, kind); }

std::string EntryColumn(int entry) { return "H_" + EntryName(entry); }

ExportKind DetectExportKind(const std::string& path) {
  // Hdf5File names a missing file or a directory; anything else that is not HDF5 (a YAML file,
  // a UFF) is said here in the words of what was expected.
  if (std::filesystem::is_regular_file(path) && std::ifstream(path).good() &&
      H5Fis_hdf5(path.c_str()) <= 0)
    throw Error(path, "", std::string("expected ") + kKinds + " (HDF5), got a file that is not HDF5");
  const Hdf5File file(path, Hdf5File::Mode::kRead);
  const std::string kind =
      file.HasAttribute("/", "frfit_file") ? file.GetAttribute("/", "frfit_file") : "";
  for (ExportKind k : {ExportKind::kFrfSet, ExportKind::kFitResult, ExportKind::kEmaResult,
                       ExportKind::kPostureMap, ExportKind::kLobes})
    if (kind == ToString(k)) return k;
  throw Error(path, "/@frfit_file",
              std::string("expected ") + kKinds +
                  " (attribute frfit_file = frf_set, fit_result, ema_result, posture_map or "
                  "stability_lobes), got " +
                  (kind.empty() ? "no such attribute" : "'" + kind + "'"));
}

std::vector<CsvTable> FrfSetTables(const FrfSet& set) {
  const std::string units = UnitsOf(set.format);
  std::vector<CsvTable> tables;
  CsvTable frf("frf.csv", "one row per frequency line; H_ij (response i, excitation j, sensor "
                          "frame) real and imaginary part, " + ToString(set.format) + " in " +
                              units);
  frf.AddNumberColumn("frequency_hz", set.frequency_hz);
  for (int e = 0; e < 9; ++e)
    if (set.present[e]) AddComplex(&frf, EntryColumn(e), set.H, e);
  tables.push_back(std::move(frf));
  if (!set.noise_variance.empty()) {
    CsvTable noise("frf_noise.csv",
                   "one row per frequency line; 1σ of the complex noise, sqrt(E|ΔH|²), in " +
                       units + " (noise model from the file's " +
                       (set.noise_source == "coherence" ? "coherence" : "noise_variance") + ")");
    noise.AddNumberColumn("frequency_hz", set.frequency_hz);
    AddPerEntry(&noise, set.present, set.noise_variance, "H_", "_sigma", Root);
    tables.push_back(std::move(noise));
  }
  if (!set.coherence.empty()) {
    CsvTable coherence("frf_coherence.csv",
                       "one row per frequency line; coherence γ² (0 to 1) from " +
                           AveragesOf(set));
    coherence.AddNumberColumn("frequency_hz", set.frequency_hz);
    AddPerEntry(&coherence, set.present, set.coherence, "coherence_", "", Same);
    tables.push_back(std::move(coherence));
  }
  return tables;
}

namespace {

// Every model parameter: fitted value, 1σ where it was fitted, start, bounds.
CsvTable ParameterTable(const FitResult& d) {
  std::map<std::string, const ParameterIdentifiability*> fitted;
  for (const ParameterIdentifiability& q : d.identifiability.per_parameter) fitted[q.name] = &q;
  for (const ParameterIdentifiability& q : d.identifiability.tied) fitted[q.name] = &q;
  const double nan = std::nan("");
  std::vector<double> sigma, sigma_relative;
  std::vector<std::string> free, at_bound;
  for (size_t i = 0; i < d.parameter_names.size(); ++i) {
    const auto it = fitted.find(d.parameter_names[i]);
    const ParameterIdentifiability* q = it == fitted.end() ? nullptr : it->second;
    sigma.push_back(q ? q->std_absolute : nan);
    sigma_relative.push_back(q ? q->std_relative : nan);
    at_bound.push_back(q ? ToString(q->at_bound) : "");
    free.push_back(d.free[i] ? "1" : "0");
  }
  CsvTable t("parameters.csv",
             "one row per model parameter; sigma: the fit's 1σ in the parameter's unit (empty "
             "where not fitted), sigma_relative = sigma/|value|");
  t.AddColumn("name", d.parameter_names);
  t.AddColumn("unit", d.parameter_units);
  t.AddNumberColumn("value", d.parameters);
  t.AddNumberColumn("sigma", sigma);
  t.AddNumberColumn("sigma_relative", sigma_relative);
  t.AddNumberColumn("initial", d.initial_parameters);
  t.AddNumberColumn("lower", d.lower);
  t.AddNumberColumn("upper", d.upper);
  t.AddColumn("free", free);
  t.AddColumn("at_bound", at_bound);
  return t;
}

// Columns of modes.csv and modes_points.csv after their labels, as the result stores a row.
constexpr int kModeColumns = 9;
constexpr const char* kModeColumnNames[kModeColumns] = {
    "reference_frequency_hz", "reference_damping_ratio", "fitted_frequency_hz",
    "fitted_damping_ratio",   "frequency_error_percent", "damping_error_percent",
    "mac",                    "fitted_frequency_sigma_hz", "fitted_damping_sigma"};

// Modal comparisons one row per reference mode: the comparison's label (a set's name, or a
// posture's), the mode's number within it, the stored columns.
struct ModeRows {
  std::vector<std::string> label, mode;
  std::vector<double> column[kModeColumns];

  void Add(const std::string& name, const ModalComparison& c) {
    for (size_t m = 0; m < c.rows.size(); ++m) {
      const ModalComparisonRow& r = c.rows[m];
      label.push_back(name);
      mode.push_back(std::to_string(m + 1));
      const double v[kModeColumns] = {r.reference_frequency_hz, r.reference_damping_ratio,
                                      r.fitted_frequency_hz,    r.fitted_damping_ratio,
                                      r.frequency_error_percent, r.damping_error_percent,
                                      r.mac, r.fitted_frequency_sigma_hz, r.fitted_damping_sigma};
      for (int k = 0; k < kModeColumns; ++k) column[k].push_back(v[k]);
    }
  }
  void AddValueColumns(CsvTable* t) const {
    for (int k = 0; k < kModeColumns; ++k) t->AddNumberColumn(kModeColumnNames[k], column[k]);
  }
};

// The modal comparison of every posture, one row per reference mode, columns as stored.
CsvTable ModeTable(const FitResult& d) {
  CsvTable t("modes.csv",
             "one row per reference mode and posture: reference and fitted mode (damping as a "
             "ratio), errors in percent, MAC, the fitted mode's 1σ; empty where not paired");
  ModeRows rows;
  for (const PostureResult& p : d.postures) rows.Add(p.name, p.modal);
  t.AddColumn("posture", rows.label);
  t.AddColumn("mode", rows.mode);
  rows.AddValueColumns(&t);
  return t;
}

// Each posture's modes over all its points (/modal_comparison_points), as modes.csv, with the
// response points in stacking order.
CsvTable ModePointsTable(const FitResult& d) {
  CsvTable t("modes_points.csv",
             "one row per reference mode of each posture measured at two or more response "
             "points: the modal comparison with shapes stacked over the points (in the order "
             "given), columns as modes.csv");
  ModeRows rows;
  std::vector<std::string> points;
  for (const ModalComparisonPoints& c : d.modal_comparison_points) {
    rows.Add(c.posture, c.modal);
    points.resize(rows.label.size(), PointsAttribute(c.points));
  }
  t.AddColumn("posture", rows.label);
  t.AddColumn("points", points);
  t.AddColumn("mode", rows.mode);
  rows.AddValueColumns(&t);
  return t;
}

// Every reference mode against every fitted mode in the band (a stored /mac), long format.
struct MacRows {
  std::vector<std::string> label, reference, fitted;
  std::vector<double> reference_hz, fitted_hz, mac;

  void Add(const std::string& name, const ModalComparison& c) {
    const size_t nf = c.mac_fitted_frequency_hz.size();
    for (size_t r = 0; r < c.rows.size() && c.mac.size() != 0; ++r)
      for (size_t f = 0; f < nf; ++f) {
        label.push_back(name);
        reference.push_back(std::to_string(r + 1));
        fitted.push_back(std::to_string(f + 1));
        reference_hz.push_back(c.rows[r].reference_frequency_hz);
        fitted_hz.push_back(c.mac_fitted_frequency_hz[f]);
        mac.push_back(c.mac(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(f)));
      }
  }
  CsvTable Table(const std::string& name, const std::string& description) const {
    CsvTable t(name, description);
    t.AddColumn("posture", label);
    t.AddColumn("reference_mode", reference);
    t.AddColumn("fitted_mode", fitted);
    t.AddNumberColumn("reference_frequency_hz", reference_hz);
    t.AddNumberColumn("fitted_frequency_hz", fitted_hz);
    t.AddNumberColumn("mac", mac);
    return t;
  }
};

CsvTable MacTable(const FitResult& d) {
  MacRows rows;
  for (const PostureResult& p : d.postures) rows.Add(p.name, p.modal);
  return rows.Table("mac.csv",
                    "one row per posture, reference mode and fitted mode in the band: their MAC "
                    "(reference_mode numbers the rows of modes.csv)");
}

CsvTable MacPointsTable(const FitResult& d) {
  MacRows rows;
  for (const ModalComparisonPoints& c : d.modal_comparison_points) rows.Add(c.posture, c.modal);
  return rows.Table("mac_points.csv",
                    "one row per posture, reference mode and fitted mode in the band: their MAC "
                    "over all the posture's response points (reference_mode numbers its rows of "
                    "modes_points.csv)");
}

// A p×p matrix over the free parameters: a header of their names, each row led by its name.
CsvTable SquareTable(const std::string& name, const std::string& description,
                     const std::vector<std::string>& names, const std::vector<double>& values) {
  CsvTable t(name, description);
  const size_t p = names.size();
  t.AddColumn("parameter", names);
  for (size_t k = 0; k < p; ++k) {
    std::vector<double> column;
    for (size_t j = 0; j < p; ++j) column.push_back(values[j * p + k]);
    t.AddNumberColumn(names[k], column);
  }
  return t;
}

// With priors (a MAP fit): each parameter's prior, posterior 1σ and how far the data moved it.
CsvTable PriorTable(const Identifiability& id) {
  std::vector<std::string> names, moved;
  std::vector<double> mean, prior_sigma, sigma, ratio, shift;
  for (const ParameterIdentifiability& q : id.per_parameter) {
    if (!std::isfinite(q.prior_std_absolute)) continue;
    names.push_back(q.name);
    mean.push_back(q.prior_mean);
    prior_sigma.push_back(q.prior_std_absolute);
    sigma.push_back(q.std_absolute);
    ratio.push_back(q.std_ratio);
    shift.push_back(q.shift_in_prior_std);
    moved.push_back(q.moved_by_data ? "1" : "0");
  }
  CsvTable t("priors.csv",
             "one row per parameter with a prior: its mean and 1σ, the posterior 1σ, their ratio, "
             "the fitted value's shift from the mean in prior σ, and moved_by_data (posterior 1σ "
             "below half the prior's)");
  t.AddColumn("name", names);
  t.AddNumberColumn("prior_mean", mean);
  t.AddNumberColumn("prior_sigma", prior_sigma);
  t.AddNumberColumn("posterior_sigma", sigma);
  t.AddNumberColumn("sigma_ratio", ratio);
  t.AddNumberColumn("shift_in_prior_sigma", shift);
  t.AddColumn("moved_by_data", moved);
  return t;
}

// The fit's constraints: slack and activity (fit/constraints.h).
CsvTable ConstraintTable(const std::vector<ConstraintStatus>& constraints) {
  std::vector<std::string> text, relation, active;
  std::vector<double> slack;
  for (const ConstraintStatus& c : constraints) {
    text.push_back(c.text);
    relation.push_back(ToString(c.relation));
    slack.push_back(c.slack);
    active.push_back(c.active ? "1" : "0");
  }
  CsvTable t("constraints.csv",
             "one row per configured constraint; slack: left minus right side (right minus left "
             "for <=), >= 0 where it holds; active: 1 on its boundary (equalities always)");
  t.AddColumn("constraint", text);
  t.AddColumn("relation", relation);
  t.AddNumberColumn("slack", slack);
  t.AddColumn("active", active);
  return t;
}

// The regularisation weight's curve at the fitted point (fit/regularization.h).
CsvTable RegularizationTable(const RegularizationSummary& r) {
  std::vector<double> weight, residual, norm, gcv, evidence;
  std::vector<std::string> mark;
  const std::string rule = ToString(r.curve.rule);
  for (size_t i = 0; i < r.curve.points.size(); ++i) {
    const WeightCurvePoint& p = r.curve.points[i];
    weight.push_back(p.weight), residual.push_back(p.residual_norm);
    norm.push_back(p.regularization_norm), gcv.push_back(p.gcv), evidence.push_back(p.evidence);
    mark.push_back(static_cast<int>(i) == r.curve.chosen ? rule + "_minimum" : "");
  }
  weight.push_back(r.at_weight.weight), residual.push_back(r.at_weight.residual_norm);
  norm.push_back(r.at_weight.regularization_norm), gcv.push_back(r.at_weight.gcv);
  evidence.push_back(r.at_weight.evidence);
  mark.push_back("used");
  CsvTable t("regularization.csv",
             "one row per weight scanned at the fitted point, then the weight the fit used "
             "(toward the " + ToString(r.toward) + ", weight " + (r.automatic ? "auto" : "given") +
             "): the linearised residual norm, the regularisation norm of the scaled parameters "
             "and the GCV and evidence functions; point marks the " + rule +
                 " minimum (the rule that chooses) and the weight used");
  t.AddNumberColumn("weight", weight);
  t.AddNumberColumn("residual_norm", residual);
  t.AddNumberColumn("regularization_norm", norm);
  t.AddNumberColumn("gcv", gcv);
  t.AddNumberColumn("evidence", evidence);
  t.AddColumn("point", mark);
  return t;
}

// Correlation and covariance of the free parameters, the singular values and weak directions.
void AddIdentifiabilityTables(const Identifiability& id, std::vector<CsvTable>* tables) {
  if (id.has_prior) tables->push_back(PriorTable(id));
  std::vector<std::string> names;
  std::vector<double> covariance;
  const size_t p = id.per_parameter.size();
  for (const ParameterIdentifiability& q : id.per_parameter) names.push_back(q.name);
  // The file stores the correlation and each 1σ; Cov_jk = ρ_jk σ_j σ_k is the covariance they
  // come from, in the parameters' own units.
  for (size_t j = 0; j < p; ++j)
    for (size_t k = 0; k < p; ++k)
      covariance.push_back(id.correlation[j * p + k] * id.per_parameter[j].std_absolute *
                           id.per_parameter[k].std_absolute);
  tables->push_back(SquareTable("correlation.csv",
                                "the free parameters' correlation ρ_jk (a ratio, 1 on the "
                                "diagonal)", names, id.correlation));
  tables->push_back(SquareTable("covariance.csv",
                                "the free parameters' covariance ρ_jk σ_j σ_k, in unit_j·unit_k",
                                names, covariance));
  CsvTable sv("singular_values.csv",
              "singular values of the relatively scaled, weighted Jacobian, largest first "
              "(docs/identifiability.md)");
  sv.AddColumn("index", Integers(id.singular_values.size(), 1));
  sv.AddNumberColumn("singular_value", id.singular_values);
  tables->push_back(std::move(sv));
  // One row per direction keyed by its index (weakest first), one column per free parameter: its
  // component in the unit direction (the sign says how they move together). A result written
  // before the components were stored leaves those columns empty; the text stays as `description`.
  CsvTable weak("weak_directions.csv",
                "weakly determined parameter combinations, weakest first: index, singular value, "
                "relative 1σ along the direction, its unit vector's component per free parameter, "
                "and the dominant components as text");
  std::vector<std::string> text;
  std::vector<double> value, sigma;
  for (const WeakDirection& w : id.weak_directions) {
    text.push_back(w.description);
    value.push_back(w.singular_value);
    sigma.push_back(w.std_relative);
  }
  weak.AddColumn("index", Integers(id.weak_directions.size(), 1));
  weak.AddNumberColumn("singular_value", value);
  weak.AddNumberColumn("sigma_relative", sigma);
  for (size_t j = 0; j < p; ++j) {
    std::vector<std::string> cells;
    for (const WeakDirection& w : id.weak_directions)
      cells.push_back(w.vector.size() == p ? CsvNumber(w.vector[j]) : "");
    weak.AddColumn(names[j], cells);
  }
  weak.AddColumn("description", text);
  tables->push_back(std::move(weak));
}

// One posture's measured and fitted FRFs, entry by entry.
CsvTable PostureFrfTable(const PostureResult& p, const std::string& file_name) {
  CsvTable t(file_name,
             "posture " + p.name + ": one row per frequency line the fit used; measured and "
             "fitted H_ij, " + ToString(p.measured.format) + " in " + UnitsOf(p.measured.format));
  t.AddNumberColumn("frequency_hz", p.measured.frequency_hz);
  for (int e = 0; e < 9; ++e) {
    if (!p.measured.present[e]) continue;
    AddComplex(&t, EntryColumn(e) + "_measured", p.measured.H, e);
    AddComplex(&t, EntryColumn(e) + "_fitted", p.fitted.H, e);
  }
  return t;
}

}  // namespace

// The static deflection tests (frfit fit --static): one row per test, in its frames' axes.
CsvTable StaticTestTable(const FitResult& d) {
  CsvTable t("static_tests.csv",
             "one row per static deflection test: force (N, force frame's axes), measured and "
             "fitted displacement with its 1σ (m, displacement frame's axes), chi2 of the three "
             "components; an empty frame is the sensor");
  std::vector<std::string> source, posture, force_frame, frame;
  std::array<std::vector<double>, 3> force, measured, fitted, std_m;
  std::vector<double> chi2;
  for (const StaticTestResult& s : d.static_tests) {
    source.push_back(s.source);
    posture.push_back(s.posture);
    force_frame.push_back(s.force_frame);
    frame.push_back(s.displacement_frame);
    for (int i = 0; i < 3; ++i) {
      force[i].push_back(s.force_n[i]);
      measured[i].push_back(s.measured_m[i]);
      fitted[i].push_back(s.fitted_m[i]);
      std_m[i].push_back(s.std_m[i]);
    }
    chi2.push_back(s.Chi2());
  }
  t.AddColumn("source", source);
  t.AddColumn("posture", posture);
  t.AddColumn("force_frame", force_frame);
  t.AddColumn("displacement_frame", frame);
  const char* axis = "xyz";
  for (const auto& [prefix, values] : std::vector<std::pair<std::string, const std::array<std::vector<double>, 3>*>>{
           {"force_n_", &force}, {"measured_m_", &measured}, {"fitted_m_", &fitted}, {"std_m_", &std_m}})
    for (int i = 0; i < 3; ++i) t.AddNumberColumn(prefix + axis[i], (*values)[i]);
  t.AddNumberColumn("chi2", chi2);
  return t;
}

std::vector<CsvTable> FitResultTables(const FitResult& d) {
  std::vector<CsvTable> tables;
  tables.push_back(ParameterTable(d));
  tables.push_back(ModeTable(d));
  bool any_mac = false;
  for (const PostureResult& p : d.postures) any_mac = any_mac || !p.modal.mac_fitted_frequency_hz.empty();
  if (any_mac) tables.push_back(MacTable(d));
  if (!d.modal_comparison_points.empty()) {
    tables.push_back(ModePointsTable(d));
    bool any_points_mac = false;
    for (const ModalComparisonPoints& c : d.modal_comparison_points)
      any_points_mac = any_points_mac || !c.modal.mac_fitted_frequency_hz.empty();
    if (any_points_mac) tables.push_back(MacPointsTable(d));
  }
  if (d.has_identifiability) AddIdentifiabilityTables(d.identifiability, &tables);
  if (!d.constraints.empty()) tables.push_back(ConstraintTable(d.constraints));
  if (d.regularization.enabled) tables.push_back(RegularizationTable(d.regularization));
  if (!d.static_tests.empty()) tables.push_back(StaticTestTable(d));
  // Posture names that differ only in characters a file name drops ("a b", "a_b") get "_2", ….
  std::set<std::string> used;
  for (const PostureResult& p : d.postures) {
    const std::string stem = "frf_" + FileNamePart(p.name);
    std::string name = stem + ".csv";
    for (int n = 2; !used.insert(name).second; ++n) name = stem + "_" + std::to_string(n) + ".csv";
    tables.push_back(PostureFrfTable(p, name));
  }
  return tables;
}

namespace {

// The chosen modes: every per-mode number EmaMode holds, and the sensor shape by axis.
CsvTable EmaModeTable(const EmaResult& r) {
  CsvTable t("modes.csv",
             "one row per mode chosen from the stabilisation diagram; damping as a ratio, 1σ "
             "empty where unknown; sensor shape φ with its largest component 1, empty on axes "
             "no measured entry involves");
  std::vector<double> f, fs, z, zs, explained, contribution, mpc, mpd, shape[6];
  std::vector<std::string> stable, lowest;
  for (const EmaMode& m : r.modes) {
    f.push_back(m.mode.frequency_hz);
    fs.push_back(m.frequency_sigma_hz);
    z.push_back(m.mode.damping_ratio);
    zs.push_back(m.damping_sigma);
    explained.push_back(m.explained);
    contribution.push_back(m.contribution);
    mpc.push_back(m.mpc);
    mpd.push_back(m.mpd_deg);
    stable.push_back(std::to_string(m.stable_poles));
    lowest.push_back(std::to_string(m.lowest_order));
    for (int a = 0; a < 3; ++a) {
      shape[2 * a].push_back(m.mode.sensor_shape(a).real());
      shape[2 * a + 1].push_back(m.mode.sensor_shape(a).imag());
    }
  }
  t.AddColumn("mode", Integers(r.modes.size(), 1));
  t.AddNumberColumn("frequency_hz", f);
  t.AddNumberColumn("frequency_sigma_hz", fs);
  t.AddNumberColumn("damping_ratio", z);
  t.AddNumberColumn("damping_sigma", zs);
  t.AddNumberColumn("explained", explained);
  t.AddNumberColumn("contribution", contribution);
  t.AddNumberColumn("mpc", mpc);
  t.AddNumberColumn("mpd_deg", mpd);
  t.AddColumn("stable_poles", stable);
  t.AddColumn("lowest_order", lowest);
  const char* axes[3] = {"x", "y", "z"};
  for (int a = 0; a < 6; ++a)
    t.AddNumberColumn(std::string("sensor_shape_") + axes[a / 2] + (a % 2 ? "_im" : "_re"),
                      shape[a]);
  return t;
}

// The stabilisation diagram: every candidate pole of every order.
CsvTable PoleTable(const EmaResult& r) {
  CsvTable t("poles.csv",
             "the stabilisation diagram, one row per candidate pole; stability o new, f "
             "frequency, d frequency and damping, v frequency and vector, s stable");
  std::vector<std::string> order, stability;
  std::vector<double> f, z;
  for (const StabilisationPole& p : r.poles) {
    order.push_back(std::to_string(p.order));
    f.push_back(p.frequency_hz);
    z.push_back(p.damping_ratio);
    stability.push_back(std::string(1, ToLetter(p.stability)));
  }
  t.AddColumn("order", order);
  t.AddNumberColumn("frequency_hz", f);
  t.AddNumberColumn("damping_ratio", z);
  t.AddColumn("stability", stability);
  return t;
}

}  // namespace

std::vector<CsvTable> EmaResultTables(const EmaResult& r) {
  std::vector<CsvTable> tables;
  tables.push_back(EmaModeTable(r));
  tables.push_back(PoleTable(r));
  if (!r.measured.frequency_hz.empty()) {
    CsvTable frf("frf.csv", "one row per frequency line used; measured and synthesized (modal "
                            "model) H_ij, " + ToString(r.measured.format) + " in " +
                                UnitsOf(r.measured.format));
    frf.AddNumberColumn("frequency_hz", r.measured.frequency_hz);
    for (int e = 0; e < 9; ++e) {
      if (!r.measured.present[e]) continue;
      AddComplex(&frf, EntryColumn(e) + "_measured", r.measured.H, e);
      AddComplex(&frf, EntryColumn(e) + "_synthesized", r.synthesized.H, e);
    }
    tables.push_back(std::move(frf));
  }
  return tables;
}

std::vector<CsvTable> ExportTables(const std::string& path, ExportKind kind) {
  switch (kind) {
    case ExportKind::kFrfSet:
      return FrfSetTables(ReadFrfSet(path));
    case ExportKind::kFitResult:
      return FitResultTables(ReadFitResult(path));
    case ExportKind::kEmaResult:
      return EmaResultTables(ReadEmaResult(path));
    case ExportKind::kPostureMap:
      return PostureMapTables(ReadPostureMap(path));
    case ExportKind::kLobes:
      return LobesTables(ReadLobesFile(path));
  }
  throw Error(path, "", "unknown export kind");
}

}  // namespace frfit
