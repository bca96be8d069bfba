// The fit result file (layout: docs/file-formats.md): its one writer (WriteFitResult,
// FitResultImage) and its one reader (ReadFitResult), side by side so that a field is added to
// both at once; tests/unit/results/fit_result_file_test.cc reads back a result with every field set.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdlib>

#include "frfit/common/error.h"
#include "frfit/fit/constraints_io.h"
#include "frfit/fit/regularization_io.h"
#include "frfit/files/atomic_file.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/hdf5_file.h"
#include "frfit/results/fit_result.h"
#include "frfit/results/identifiability_io.h"
#include "frfit/results/model_check_io.h"

namespace frfit {
namespace {

// --- writing ------------------------------------------------------------------------------------

void WriteScalar(Hdf5File* file, const std::string& name, double value) {
  file->WriteDoubles(name, {1}, &value);
}

// /static_tests: one row per test, [test][3] in the displacement frame's axes (docs/static-tests.md).
void WriteStaticTests(Hdf5File* f, const std::vector<StaticTestResult>& tests) {
  f->CreateGroup("/static_tests");
  std::vector<std::string> sources, postures, force_frames, displacement_frames;
  std::vector<double> force, measured, fitted, std_m;
  for (const StaticTestResult& t : tests) {
    sources.push_back(t.source);
    postures.push_back(t.posture);
    force_frames.push_back(t.force_frame);
    displacement_frames.push_back(t.displacement_frame);
    force.insert(force.end(), t.force_n.begin(), t.force_n.end());
    measured.insert(measured.end(), t.measured_m.begin(), t.measured_m.end());
    fitted.insert(fitted.end(), t.fitted_m.begin(), t.fitted_m.end());
    std_m.insert(std_m.end(), t.std_m.begin(), t.std_m.end());
  }
  const hsize_t k = tests.size();
  f->WriteStrings("/static_tests/source", sources);
  f->WriteStrings("/static_tests/posture", postures);
  f->WriteStrings("/static_tests/force_frame", force_frames);
  f->WriteStrings("/static_tests/displacement_frame", displacement_frames);
  f->WriteDoubles("/static_tests/force_n", {k, 3}, force.data());
  f->WriteDoubles("/static_tests/measured_m", {k, 3}, measured.data());
  f->WriteDoubles("/static_tests/fitted_m", {k, 3}, fitted.data());
  f->WriteDoubles("/static_tests/std_m", {k, 3}, std_m.data());
}

// /modal_data: one row per measured mode (docs/file-formats.md, "Modal data").
void WriteModalData(Hdf5File* f, const std::vector<ModalResidual>& modes,
                    double shape_variance_ratio) {
  f->CreateGroup("/modal_data");
  std::vector<std::string> sources, postures;
  std::vector<std::int64_t> index, partner;
  std::vector<double> table;
  for (const ModalResidual& m : modes) {
    sources.push_back(m.source);
    postures.push_back(m.posture);
    index.push_back(m.mode);
    partner.push_back(m.model_mode);
    for (double v : {m.frequency_hz, m.frequency_sigma_hz, m.model_frequency_hz,
                     m.frequency_residual, m.damping_residual, m.mac, m.shape_residual, m.cost})
      table.push_back(v);
  }
  const hsize_t k = modes.size();
  f->WriteStrings("/modal_data/source", sources);
  f->WriteStrings("/modal_data/posture", postures);
  f->WriteInts("/modal_data/mode", {k}, index.data());
  f->WriteInts("/modal_data/model_mode", {k}, partner.data());
  f->WriteDoubles("/modal_data/modes", {k, 8}, table.data());
  f->SetAttribute("/modal_data/modes", "columns", kModalDataColumns);
  f->SetAttribute("/modal_data", "shape_variance_ratio", FormatDouble(shape_variance_ratio));
}

// A modal comparison's tables in group g: modal_comparison, the unpaired fitted modes, the MAC of
// every reference mode with every fitted mode and those modes' frequencies.
void WriteModalComparison(Hdf5File* f, const std::string& g, const ModalComparison& modal) {
  f->WriteDoubles(g + "/unpaired_fitted_frequency_hz", {modal.unpaired_fitted_frequency_hz.size()},
                  modal.unpaired_fitted_frequency_hz.data());
  std::vector<double> table;  // [mode][kModalComparisonColumns]
  for (const ModalComparisonRow& row : modal.rows)
    table.insert(table.end(),
                 {row.reference_frequency_hz, row.reference_damping_ratio, row.fitted_frequency_hz,
                  row.fitted_damping_ratio, row.frequency_error_percent, row.damping_error_percent,
                  row.mac, row.fitted_frequency_sigma_hz, row.fitted_damping_sigma});
  f->WriteDoubles(g + "/modal_comparison", {modal.rows.size(), kModalComparisonColumns},
                  table.data());
  f->SetAttribute(g + "/modal_comparison", "columns", kModalComparisonColumnNames);
  // Every reference mode against every fitted mode in the band, row-major [reference][fitted].
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> mac = modal.mac;
  f->WriteDoubles(g + "/mac", {static_cast<hsize_t>(mac.rows()), static_cast<hsize_t>(mac.cols())},
                  mac.data());
  f->WriteDoubles(g + "/mac_fitted_frequency_hz", {modal.mac_fitted_frequency_hz.size()},
                  modal.mac_fitted_frequency_hz.data());
}

// --- reading ------------------------------------------------------------------------------------

std::string Attribute(const Hdf5File& f, const std::string& object, const std::string& name) {
  return f.HasAttribute(object, name) ? f.GetAttribute(object, name) : std::string();
}

// One value; NaN when not required and absent (sections of earlier versions).
double Scalar(const Hdf5File& f, const std::string& name, bool required = true) {
  if (!required && !f.Exists(name)) return std::nan("");
  std::vector<hsize_t> dims;
  const std::vector<double> v = f.ReadDoubles(name, 1, &dims);
  if (v.size() != 1) throw Error(f.path(), name, "expected one value");
  return v[0];
}

// A count written as one double; `absent` when the file has none.
std::int64_t Count(const Hdf5File& f, const std::string& name, std::int64_t absent) {
  return f.Exists(name) ? f.ToInt64(Scalar(f, name), name) : absent;
}

std::vector<double> Vector(const Hdf5File& f, const std::string& name, size_t expected) {
  std::vector<hsize_t> dims;
  std::vector<double> v = f.ReadDoubles(name, 1, &dims);
  if (v.size() != expected)
    throw Error(f.path(), name, "expected " + std::to_string(expected) + " values, got " +
                                    std::to_string(v.size()));
  return v;
}

void RequireDims(const Hdf5File& f, const std::string& name, const std::vector<hsize_t>& dims,
                 const std::vector<hsize_t>& expected) {
  if (dims == expected) return;
  auto text = [](const std::vector<hsize_t>& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "][" : "") + std::to_string(d[i]);
    return s + "]";
  };
  throw Error(f.path(), name, "expected shape " + text(expected) + ", got " + text(dims));
}

// Digits only: std::stoull would throw a bare std::invalid_argument and read "-1" as 2^64 - 1.
std::uint64_t ReadSeed(const Hdf5File& f) {
  const std::string seed = Attribute(f, "/", "seed");
  std::uint64_t value = 0;
  const auto [end, status] = std::from_chars(seed.data(), seed.data() + seed.size(), value);
  if (seed.empty() || status != std::errc() || end != seed.data() + seed.size())
    throw Error(f.path(), "/@seed", "expected an unsigned 64-bit integer, got '" + seed + "'");
  return value;
}

void ReadParameters(const Hdf5File& f, FitResult* r) {
  r->parameter_names = f.ReadStrings("/parameters/names");
  const size_t np = r->parameter_names.size();
  r->parameter_units = f.Exists("/parameters/units") ? f.ReadStrings("/parameters/units")
                                                     : std::vector<std::string>(np);
  if (r->parameter_units.size() != np)
    throw Error(f.path(), "/parameters/units", "expected one unit per parameter name");
  r->parameters = Vector(f, "/parameters/values", np);
  r->initial_parameters = Vector(f, "/parameters/initial", np);
  r->lower = Vector(f, "/parameters/min", np);
  r->upper = Vector(f, "/parameters/max", np);
  for (double v : Vector(f, "/parameters/free", np)) r->free.push_back(v != 0.0);
}

// /summary; each entry but the cost and the evaluations optional, for earlier versions' files.
void ReadSummary(const Hdf5File& f, FitResult* r) {
  r->cost = Scalar(f, "/summary/cost");
  r->initial_population_best_cost = Scalar(f, "/summary/initial_population_best_cost", false);
  r->evaluations = f.ToInt64(Scalar(f, "/summary/evaluations"), "/summary/evaluations");
  r->ga_evaluations = Count(f, "/summary/ga_evaluations", 0);
  r->nm_evaluations = Count(f, "/summary/nm_evaluations", 0);
  r->lm_evaluations = Count(f, "/summary/lm_evaluations", 0);
  r->rounds = Count(f, "/summary/rounds", 0);
  r->wall_seconds = Scalar(f, "/summary/wall_seconds", false);
  r->ga_seconds = Scalar(f, "/summary/ga_seconds", false);
  r->nm_seconds = Scalar(f, "/summary/nm_seconds", false);
  r->lm_seconds = Scalar(f, "/summary/lm_seconds", false);
  r->refinement = f.HasAttribute("/summary", "refinement")
                      ? f.GetAttribute("/summary", "refinement")
                      : "nelder_mead";
  if (f.Exists("/summary/start_costs")) {
    std::vector<hsize_t> dims;
    r->start_costs = f.ReadDoubles("/summary/start_costs", 1, &dims);
    r->starts_agreeing = f.ToInt(Scalar(f, "/summary/starts_agreeing"), "/summary/starts_agreeing");
    r->refinement_termination = Attribute(f, "/summary", "refinement_termination");
  }
  r->cycles = static_cast<int>(Count(f, "/summary/cycles", 0));
}

std::vector<HistoryRow> ReadHistory(const Hdf5File& f) {
  std::vector<hsize_t> dims;
  const std::vector<double> cycle = f.ReadDoubles("/history/cycle", 1, &dims);
  const size_t nh = cycle.size();
  const std::vector<double> phase = Vector(f, "/history/phase", nh);
  const std::vector<double> step = Vector(f, "/history/step", nh);
  const std::vector<double> evaluations = Vector(f, "/history/evaluations", nh);
  const std::vector<double> best = Vector(f, "/history/best_cost", nh);
  // ToInt: a damaged number must be refused, not cast (undefined beyond the integer's range).
  std::vector<HistoryRow> rows(nh);
  for (size_t i = 0; i < nh; ++i) {
    rows[i].cycle = f.ToInt(cycle[i], "/history/cycle");
    if (!PhaseFromCode(f.ToInt(phase[i], "/history/phase"), &rows[i].phase))
      throw Error(f.path(), "/history/phase",
                  std::string("expected one of ") + kPhaseCodes + ", got " + FormatDouble(phase[i]));
    rows[i].step = f.ToInt(step[i], "/history/step");
    rows[i].evaluations = f.ToInt64(evaluations[i], "/history/evaluations");
    rows[i].best_cost = best[i];
  }
  return rows;
}

// /static_tests as WriteStaticTests writes it: strings [t], numbers [t][3].
std::vector<StaticTestResult> ReadStaticTests(const Hdf5File& f) {
  const std::string g = "/static_tests";
  const std::vector<std::string> source = f.ReadStrings(g + "/source");
  const std::vector<std::string> posture = f.ReadStrings(g + "/posture");
  const std::vector<std::string> force_frame = f.ReadStrings(g + "/force_frame");
  const std::vector<std::string> frame = f.ReadStrings(g + "/displacement_frame");
  const size_t t = source.size();
  for (const auto* names : {&posture, &force_frame, &frame})
    if (names->size() != t)
      throw Error(f.path(), g, "expected " + std::to_string(t) + " names per list");
  auto rows = [&](const std::string& name) {
    std::vector<hsize_t> dims;
    const std::vector<double> v = f.ReadDoubles(g + "/" + name, 2, &dims);
    RequireDims(f, g + "/" + name, dims, {t, 3});
    return v;
  };
  const std::vector<double> force = rows("force_n"), measured = rows("measured_m"),
                            fitted = rows("fitted_m"), std_m = rows("std_m");
  std::vector<StaticTestResult> out(t);
  for (size_t k = 0; k < t; ++k) {
    out[k].source = source[k];
    out[k].posture = posture[k];
    out[k].force_frame = force_frame[k];
    out[k].displacement_frame = frame[k];
    for (int i = 0; i < 3; ++i) {
      out[k].force_n[i] = force[3 * k + i];
      out[k].measured_m[i] = measured[3 * k + i];
      out[k].fitted_m[i] = fitted[3 * k + i];
      out[k].std_m[i] = std_m[3 * k + i];
    }
  }
  return out;
}

// /modal_data as WriteModalData writes it: one row per measured mode.
void ReadModalData(const Hdf5File& f, FitResult* r) {
  const std::string g = "/modal_data";
  const std::vector<std::string> source = f.ReadStrings(g + "/source");
  const std::vector<std::string> posture = f.ReadStrings(g + "/posture");
  const size_t k = source.size();
  if (posture.size() != k) throw Error(f.path(), g + "/posture", "expected one per source");
  std::vector<hsize_t> dims;
  const std::vector<std::int64_t> mode = f.ReadInts(g + "/mode", 1, &dims);
  RequireDims(f, g + "/mode", dims, {k});
  const std::vector<std::int64_t> partner = f.ReadInts(g + "/model_mode", 1, &dims);
  RequireDims(f, g + "/model_mode", dims, {k});
  const std::vector<double> table = f.ReadDoubles(g + "/modes", 2, &dims);
  RequireDims(f, g + "/modes", dims, {k, 8});
  for (size_t i = 0; i < k; ++i) {
    ModalResidual m;
    m.source = source[i];
    m.posture = posture[i];
    m.mode = f.ToInt(static_cast<double>(mode[i]), g + "/mode");
    m.model_mode = f.ToInt(static_cast<double>(partner[i]), g + "/model_mode");
    const double* v = &table[8 * i];
    m.frequency_hz = v[0];
    m.frequency_sigma_hz = v[1];
    m.model_frequency_hz = v[2];
    m.frequency_residual = v[3];
    m.damping_residual = v[4];
    m.mac = v[5];
    m.shape_residual = v[6];
    m.cost = v[7];
    r->modal_data.push_back(std::move(m));
  }
  const std::string ratio = Attribute(f, g, "shape_variance_ratio");
  char* end = nullptr;
  r->modal_shape_variance_ratio = std::strtod(ratio.c_str(), &end);
  if (ratio.empty() || *end != '\0')
    throw Error(f.path(), g + "/@shape_variance_ratio", "expected a number, got '" + ratio + "'");
}

// The tables WriteModalComparison writes in group g; each optional, for earlier versions' files.
void ReadModalComparison(const Hdf5File& f, const std::string& g, ModalComparison* out) {
  std::vector<hsize_t> dims;
  out->reference = Attribute(f, g, "modal_reference");
  if (f.Exists(g + "/unpaired_fitted_frequency_hz"))
    out->unpaired_fitted_frequency_hz =
        f.ReadDoubles(g + "/unpaired_fitted_frequency_hz", 1, &dims);
  if (f.Exists(g + "/modal_comparison")) {
    const std::vector<double> t = f.ReadDoubles(g + "/modal_comparison", 2, &dims);
    // 9 columns; results written before the modes carried their 1σ have the first 7.
    const hsize_t columns = dims[0] > 0 && dims[1] == 7 ? 7 : kModalComparisonColumns;
    if (dims[0] > 0) RequireDims(f, g + "/modal_comparison", dims, {dims[0], columns});
    for (hsize_t r = 0; r < dims[0]; ++r) {
      const double* v = &t[r * columns];
      ModalComparisonRow row;
      row.reference_frequency_hz = v[0];
      row.reference_damping_ratio = v[1];
      row.fitted_frequency_hz = v[2];
      row.fitted_damping_ratio = v[3];
      row.frequency_error_percent = v[4];
      row.damping_error_percent = v[5];
      row.mac = v[6];
      if (columns > 7) row.fitted_frequency_sigma_hz = v[7];
      if (columns > 8) row.fitted_damping_sigma = v[8];
      out->rows.push_back(row);
    }
  }
  if (f.Exists(g + "/mac") && f.Exists(g + "/mac_fitted_frequency_hz")) {
    out->mac_fitted_frequency_hz = f.ReadDoubles(g + "/mac_fitted_frequency_hz", 1, &dims);
    const std::vector<double> mac = f.ReadDoubles(g + "/mac", 2, &dims);
    const Eigen::Index rows = static_cast<Eigen::Index>(out->rows.size());
    const Eigen::Index cols = static_cast<Eigen::Index>(out->mac_fitted_frequency_hz.size());
    RequireDims(f, g + "/mac", dims, {out->rows.size(), out->mac_fitted_frequency_hz.size()});
    out->mac = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                                              Eigen::RowMajor>>(mac.data(), rows, cols);
  }
}

// A [line][3][3] complex matrix as WriteFrfMatrix writes it ([line][3][3][re, im]).
std::vector<std::complex<double>> ReadFrfMatrix(const Hdf5File& f, const std::string& name,
                                                hsize_t lines) {
  std::vector<hsize_t> dims;
  const std::vector<double> h = f.ReadDoubles(name, 4, &dims);
  RequireDims(f, name, dims, {lines, 3, 3, 2});
  std::vector<std::complex<double>> out(lines * 9);
  for (size_t k = 0; k < out.size(); ++k) out[k] = {h[2 * k], h[2 * k + 1]};
  return out;
}

PostureResult ReadPosture(const Hdf5File& f, const std::string& name) {
  const std::string g = "/postures/" + name;
  PostureResult p;
  p.name = name;
  FrfSet& m = p.measured;
  m.posture = f.HasAttribute(g, "posture") ? Attribute(f, g, "posture") : name;
  m.response_frame = Attribute(f, g, "response_frame");
  m.excitation_frame = Attribute(f, g, "excitation_frame");
  p.frf_source = Attribute(f, g, "frf_file");
  const std::string format = Attribute(f, g, "format");
  if (!FromString(format, &m.format))
    throw Error(f.path(), g + "/@format",
                "expected receptance, mobility or inertance, got '" + format + "'");
  std::vector<hsize_t> dims;
  m.frequency_hz = f.ReadDoubles(g + "/frequency_hz", 1, &dims);
  const hsize_t lines = m.frequency_hz.size();
  m.H = ReadFrfMatrix(f, g + "/measured_H", lines);
  p.fitted.H = ReadFrfMatrix(f, g + "/fitted_H", lines);
  p.weights = f.ReadDoubles(g + "/weights", 3, &dims);
  RequireDims(f, g + "/weights", dims, {lines, 3, 3});
  if (f.Exists(g + "/noise_variance")) {
    m.noise_variance = f.ReadDoubles(g + "/noise_variance", 3, &dims);
    RequireDims(f, g + "/noise_variance", dims, {lines, 3, 3});
    m.noise_source = Attribute(f, g + "/noise_variance", "source");
  }
  const std::vector<double> present = f.ReadDoubles(g + "/present", 2, &dims);
  RequireDims(f, g + "/present", dims, {3, 3});
  for (int e = 0; e < 9; ++e) {
    if (present[e] != 0.0 && present[e] != 1.0)
      throw Error(f.path(), g + "/present",
                  "expected 0 or 1 per entry, got " + FormatDouble(present[e]));
    m.present[e] = present[e] == 1.0;
  }
  p.cost = Scalar(f, g + "/cost", false);
  if (f.Exists(g + "/dropped_hz")) p.dropped_hz = f.ReadDoubles(g + "/dropped_hz", 1, &dims);
  ReadModalComparison(f, g, &p.modal);
  if (f.Exists(g + "/ema"))
    p.modal.ema = std::make_shared<const EmaResult>(ReadEmaGroup(f, g + "/ema"));
  for (size_t i = 1; i < m.frequency_hz.size(); ++i)
    if (!(m.frequency_hz[i] > m.frequency_hz[i - 1]))
      throw Error(f.path(), g + "/frequency_hz", "expected strictly increasing frequencies");
  // The fitted model on the same lines, entries and format (AssembleFitResult).
  p.fitted.posture = m.posture;
  p.fitted.response_frame = m.response_frame;
  p.fitted.excitation_frame = m.excitation_frame;
  p.fitted.format = m.format;
  p.fitted.frequency_hz = m.frequency_hz;
  p.fitted.present = m.present;
  return p;
}

}  // namespace

FitResult ReadFitResult(const std::string& path, FitResultSections sections) {
  Hdf5File f(path, Hdf5File::Mode::kRead);
  f.RequireFileKind("fit_result", "an frfit fit result");
  FitResult r;
  r.file = path;
  r.frfit_version = Attribute(f, "/", "frfit_version");
  r.model_name = Attribute(f, "/", "model");
  r.model_file = Attribute(f, "/", "model_file");
  r.seed = ReadSeed(f);
  r.backend_given = Attribute(f, "/", "backend_given");
  r.backend_used = Attribute(f, "/", "backend_used");
  r.termination = Attribute(f, "/", "termination");
  r.settings_yaml = Attribute(f, "/", "settings_yaml");
  ReadParameters(f, &r);
  ReadSummary(f, &r);
  r.has_identifiability = f.Exists("/identifiability");
  if (r.has_identifiability) r.identifiability = ReadIdentifiability(f, "/identifiability");
  if (f.Exists("/constraints")) r.constraints = ReadConstraints(f);
  r.regularization = ReadRegularization(f);
  r.has_model_check = f.Exists("/model_check");
  if (r.has_model_check) r.model_check = ReadModelCheck(f, "/model_check");
  if (sections == FitResultSections::kSummary) return r;
  r.history = ReadHistory(f);
  for (const std::string& name : f.Children("/postures")) r.postures.push_back(ReadPosture(f, name));
  if (f.Exists("/modal_comparison_points"))
    for (const std::string& name : f.Children("/modal_comparison_points")) {
      const std::string g = "/modal_comparison_points/" + name;
      ModalComparisonPoints c;
      c.posture = name;
      c.points = PointsFromAttribute(Attribute(f, g, "points"));
      ReadModalComparison(f, g, &c.modal);
      r.modal_comparison_points.push_back(std::move(c));
    }
  if (f.Exists("/static_tests")) r.static_tests = ReadStaticTests(f);
  if (f.Exists("/modal_data")) ReadModalData(f, &r);
  return r;
}

namespace {

// A modal comparison as ReadModalComparison gives it back: each row's stored columns (not its
// fitted_index) and no EMA (a set's is its own group; a comparison over points has none).
void AsReadBack(ModalComparison* modal) {
  for (ModalComparisonRow& row : modal->rows) {
    ModalComparisonRow stored = row;
    stored.fitted_index = ModalComparisonRow{}.fitted_index;
    row = stored;
  }
  modal->ema = nullptr;
}

// A set as ReadPosture gives it back: the measured set without its coherence, averages and
// provenance, the fitted one rebuilt from the measured one's lines and entries.
void AsReadBack(PostureResult* p) {
  FrfSet& m = p->measured;
  if (m.response_frame.empty() && m.excitation_frame.empty()) m.posture = p->name;
  if (m.noise_variance.size() != m.H.size()) {
    m.noise_variance.clear();
    m.noise_source.clear();
  }
  FrfSet measured;
  measured.posture = m.posture;
  measured.response_frame = m.response_frame;
  measured.excitation_frame = m.excitation_frame;
  measured.format = m.format;
  measured.frequency_hz = std::move(m.frequency_hz);
  measured.H = std::move(m.H);
  measured.present = m.present;
  measured.noise_variance = std::move(m.noise_variance);
  measured.noise_source = std::move(m.noise_source);
  FrfSet fitted;
  fitted.posture = measured.posture;
  fitted.response_frame = measured.response_frame;
  fitted.excitation_frame = measured.excitation_frame;
  fitted.format = measured.format;
  fitted.frequency_hz = measured.frequency_hz;
  fitted.present = measured.present;
  fitted.H = std::move(p->fitted.H);
  p->measured = std::move(measured);
  p->fitted = std::move(fitted);
  AsReadBack(&p->modal);
}

}  // namespace

std::optional<FitResult> AsReadBack(FitResult r, const std::string& path) {
  for (const PostureResult& p : r.postures)
    if (p.modal.ema) return std::nullopt;
  r.file = path;
  r.has_identifiability = true;
  r.has_model_check = true;
  for (int& f : r.free) f = f != 0;
  if (r.start_costs.empty()) {
    r.starts_agreeing = FitResult{}.starts_agreeing;
    r.refinement_termination.clear();
  }
  r.search_cost = FitResult{}.search_cost;
  r.refinement_passes = FitResult{}.refinement_passes;
  r.start_parameters.clear();
  r.mode_sigmas.clear();
  r.reductions.clear();
  if (!r.regularization.enabled) r.regularization = RegularizationSummary{};
  if (r.modal_data.empty()) r.modal_shape_variance_ratio = FitResult{}.modal_shape_variance_ratio;
  for (PostureResult& p : r.postures) AsReadBack(&p);
  std::sort(r.postures.begin(), r.postures.end(),
            [](const PostureResult& a, const PostureResult& b) { return a.name < b.name; });
  for (ModalComparisonPoints& c : r.modal_comparison_points) AsReadBack(&c.modal);
  std::sort(r.modal_comparison_points.begin(), r.modal_comparison_points.end(),
            [](const ModalComparisonPoints& a, const ModalComparisonPoints& b) {
              return a.posture < b.posture;
            });
  return r;
}

void WriteFitResult(const std::string& path, const FitResult& r) {
  WriteFileAtomically(path, FitResultImage(path, r));
}

std::string FitResultImage(const std::string& path, const FitResult& r) {
  Hdf5File f(path, Hdf5File::Mode::kCreate);  // in memory until Image
  {
    f.SetAttribute("/", "frfit_file", "fit_result");
    f.SetAttribute("/", "frfit_version", r.frfit_version);
    f.SetAttribute("/", "model", r.model_name);
    f.SetAttribute("/", "model_file", r.model_file);
    f.SetAttribute("/", "seed", std::to_string(r.seed));
    f.SetAttribute("/", "backend_given", r.backend_given);
    f.SetAttribute("/", "backend_used", r.backend_used);
    f.SetAttribute("/", "termination", r.termination);
    f.SetAttribute("/", "settings_yaml", r.settings_yaml);
    f.CreateGroup("/parameters");
    f.WriteStrings("/parameters/names", r.parameter_names);
    f.WriteStrings("/parameters/units", r.parameter_units);
    const hsize_t np = r.parameters.size();
    f.WriteDoubles("/parameters/values", {np}, r.parameters.data());
    f.WriteDoubles("/parameters/initial", {np}, r.initial_parameters.data());
    f.WriteDoubles("/parameters/min", {np}, r.lower.data());
    f.WriteDoubles("/parameters/max", {np}, r.upper.data());
    std::vector<std::int64_t> free(r.free.begin(), r.free.end());
    f.WriteInts("/parameters/free", {np}, free.data());
    f.CreateGroup("/summary");
    WriteScalar(&f, "/summary/cost", r.cost);
    WriteScalar(&f, "/summary/initial_population_best_cost", r.initial_population_best_cost);
    WriteScalar(&f, "/summary/evaluations", static_cast<double>(r.evaluations));
    WriteScalar(&f, "/summary/ga_evaluations", static_cast<double>(r.ga_evaluations));
    WriteScalar(&f, "/summary/nm_evaluations", static_cast<double>(r.nm_evaluations));
    WriteScalar(&f, "/summary/wall_seconds", r.wall_seconds);
    WriteScalar(&f, "/summary/ga_seconds", r.ga_seconds);
    WriteScalar(&f, "/summary/nm_seconds", r.nm_seconds);
    WriteScalar(&f, "/summary/lm_evaluations", static_cast<double>(r.lm_evaluations));
    WriteScalar(&f, "/summary/rounds", static_cast<double>(r.rounds));
    WriteScalar(&f, "/summary/lm_seconds", r.lm_seconds);
    f.SetAttribute("/summary", "refinement", r.refinement);
    if (!r.start_costs.empty()) {
      f.WriteDoubles("/summary/start_costs", {r.start_costs.size()}, r.start_costs.data());
      WriteScalar(&f, "/summary/starts_agreeing", r.starts_agreeing);
      f.SetAttribute("/summary", "refinement_termination", r.refinement_termination);
    }
    WriteScalar(&f, "/summary/cycles", r.cycles);
    WriteIdentifiability(&f, "/identifiability", r.identifiability);
    if (!r.constraints.empty()) WriteConstraints(&f, r.constraints);
    if (r.regularization.enabled) WriteRegularization(&f, r.regularization);
    WriteModelCheck(&f, "/model_check", r.model_check);
    f.CreateGroup("/history");
    std::vector<std::int64_t> cycle, phase, step, evaluations;
    std::vector<double> best;
    for (const HistoryRow& h : r.history) {
      cycle.push_back(h.cycle);
      phase.push_back(PhaseCode(h.phase));
      step.push_back(h.step);
      evaluations.push_back(h.evaluations);
      best.push_back(h.best_cost);
    }
    const hsize_t nh = r.history.size();
    f.SetAttribute("/history", "phase_codes", kPhaseCodes);
    f.WriteInts("/history/cycle", {nh}, cycle.data());
    f.WriteInts("/history/phase", {nh}, phase.data());
    f.WriteInts("/history/step", {nh}, step.data());
    f.WriteInts("/history/evaluations", {nh}, evaluations.data());
    f.WriteDoubles("/history/best_cost", {nh}, best.data());
    f.CreateGroup("/postures");
    for (const PostureResult& p : r.postures) {
      const std::string g = "/postures/" + p.name;
      f.CreateGroup(g);
      f.SetAttribute(g, "frf_file", p.frf_source);
      // A multi-point set's group is named posture:response:excitation (SetName).
      if (!p.measured.response_frame.empty() || !p.measured.excitation_frame.empty()) {
        f.SetAttribute(g, "posture", p.measured.posture);
        f.SetAttribute(g, "response_frame", p.measured.response_frame);
        f.SetAttribute(g, "excitation_frame", p.measured.excitation_frame);
      }
      f.SetAttribute(g, "format", ToString(p.measured.format));
      f.SetAttribute(g, "units", UnitsOf(p.measured.format));
      f.SetAttribute(g, "modal_reference", p.modal.reference);
      const hsize_t lines = p.measured.frequency_hz.size();
      f.WriteDoubles(g + "/frequency_hz", {lines}, p.measured.frequency_hz.data());
      WriteFrfMatrix(&f, g + "/measured_H", p.measured);
      WriteFrfMatrix(&f, g + "/fitted_H", p.fitted);
      f.WriteDoubles(g + "/weights", {lines, 3, 3}, p.weights.data());
      // The noise model the fit held the residual against (docs/noise.md).
      if (p.measured.noise_variance.size() == p.measured.H.size()) {
        f.WriteDoubles(g + "/noise_variance", {lines, 3, 3}, p.measured.noise_variance.data());
        f.SetAttribute(g + "/noise_variance", "source", p.measured.noise_source);
      }
      std::int64_t present[9];
      for (int e = 0; e < 9; ++e) present[e] = p.measured.present[e];
      f.WriteInts(g + "/present", {3, 3}, present);
      WriteScalar(&f, g + "/cost", p.cost);
      f.WriteDoubles(g + "/dropped_hz", {p.dropped_hz.size()}, p.dropped_hz.data());
      WriteModalComparison(&f, g, p.modal);
      if (p.modal.ema) WriteEmaGroup(&f, g + "/ema", *p.modal.ema, false);
    }
    if (!r.modal_comparison_points.empty()) f.CreateGroup("/modal_comparison_points");
    for (const ModalComparisonPoints& c : r.modal_comparison_points) {
      const std::string g = "/modal_comparison_points/" + c.posture;
      f.CreateGroup(g);
      f.SetAttribute(g, "points", PointsAttribute(c.points));
      f.SetAttribute(g, "modal_reference", c.modal.reference);
      WriteModalComparison(&f, g, c.modal);
    }
    if (!r.static_tests.empty()) WriteStaticTests(&f, r.static_tests);
    if (!r.modal_data.empty()) WriteModalData(&f, r.modal_data, r.modal_shape_variance_ratio);
  }
  return f.Image();
}
std::vector<double> ParametersFromResult(const std::string& path, const Model& model) {
  return ParametersFromResult(ReadFitResult(path, FitResultSections::kSummary), model, path);
}

std::vector<double> ParametersFromResult(const FitResult& r, const Model& model,
                                         const std::string& path) {
  std::vector<double> values(model.num_parameters(), std::nan(""));
  for (size_t i = 0; i < r.parameter_names.size(); ++i) {
    const int index = model.FindParameter(r.parameter_names[i]);
    if (index < 0)
      throw Error(path, "/parameters/names", "parameter '" + r.parameter_names[i] +
                                                 "' is not in model '" + model.name + "'");
    values[index] = r.parameters[i];
  }
  for (int i = 0; i < model.num_parameters(); ++i)
    if (std::isnan(values[i]))
      throw Error(path, "/parameters/names", "missing parameter '" + model.parameters[i].name + "'");
  return values;
}
}  // namespace frfit
