#include "frfit/report/report_data.h"

#include <hdf5.h>

#include <cmath>
#include <limits>

#include "frfit/common/error.h"
#include "frfit/fit/constraints_io.h"
#include "frfit/fit/identifiability_io.h"
#include "frfit/fit/modal_comparison.h"
#include "frfit/fit/model_check_io.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {
namespace {


double Scalar(const Hdf5File& f, const std::string& name, bool required = true) {
  if (!required && !f.Exists(name)) return std::nan("");
  std::vector<hsize_t> dims;
  const std::vector<double> v = f.ReadDoubles(name, 1, &dims);
  if (v.size() != 1) throw Error(f.path(), name, "expected one value");
  return v[0];
}

std::string Attribute(const Hdf5File& f, const std::string& object, const std::string& name) {
  return f.HasAttribute(object, name) ? f.GetAttribute(object, name) : std::string();
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

// /static_tests as WriteFitResult writes it: strings [t], numbers [t][3].
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

// The tables WriteFitResult writes for a modal comparison in group g; each optional, for results
// written before it.
void ReadModalComparison(const Hdf5File& f, const std::string& g, ReportModalComparison* out) {
  std::vector<hsize_t> dims;
  out->modal_reference = Attribute(f, g, "modal_reference");
  if (f.Exists(g + "/unpaired_fitted_frequency_hz"))
    out->unpaired_fitted_hz = f.ReadDoubles(g + "/unpaired_fitted_frequency_hz", 1, &dims);
  if (f.Exists(g + "/modal_comparison")) {
    const std::vector<double> t = f.ReadDoubles(g + "/modal_comparison", 2, &dims);
    // 9 columns; results written before the modes carried their 1σ have the first 7.
    const hsize_t columns = dims[0] > 0 && dims[1] == 7 ? 7 : kModalComparisonColumns;
    if (dims[0] > 0) RequireDims(f, g + "/modal_comparison", dims, {dims[0], columns});
    for (hsize_t r = 0; r < dims[0]; ++r) {
      const double* v = &t[r * columns];
      const double nan = std::numeric_limits<double>::quiet_NaN();
      out->modes.push_back({v[0], v[1], v[2], v[3], v[4], v[5], v[6], columns > 7 ? v[7] : nan,
                            columns > 8 ? v[8] : nan});
    }
  }
  if (f.Exists(g + "/mac") && f.Exists(g + "/mac_fitted_frequency_hz")) {
    out->mac_fitted_hz = f.ReadDoubles(g + "/mac_fitted_frequency_hz", 1, &dims);
    out->mac = f.ReadDoubles(g + "/mac", 2, &dims);
    RequireDims(f, g + "/mac", dims, {out->modes.size(), out->mac_fitted_hz.size()});
  }
}

ReportPosture ReadPosture(const Hdf5File& f, const std::string& name) {
  const std::string g = "/postures/" + name;
  ReportPosture p;
  p.name = name;
  p.posture = f.HasAttribute(g, "posture") ? Attribute(f, g, "posture") : name;
  if (f.HasAttribute(g, "response_frame")) p.response_frame = Attribute(f, g, "response_frame");
  if (f.HasAttribute(g, "excitation_frame"))
    p.excitation_frame = Attribute(f, g, "excitation_frame");
  p.frf_file = Attribute(f, g, "frf_file");
  p.format = Attribute(f, g, "format");
  p.units = Attribute(f, g, "units");
  std::vector<hsize_t> dims;
  p.frequency_hz = f.ReadDoubles(g + "/frequency_hz", 1, &dims);
  const hsize_t lines = p.frequency_hz.size();
  for (const char* which : {"measured_H", "fitted_H"}) {
    const std::vector<double> h = f.ReadDoubles(g + "/" + which, 4, &dims);
    RequireDims(f, g + "/" + which, dims, {lines, 3, 3, 2});
    auto& out = std::string(which) == "measured_H" ? p.measured : p.fitted;
    out.resize(lines * 9);
    for (size_t k = 0; k < out.size(); ++k) out[k] = {h[2 * k], h[2 * k + 1]};
  }
  p.weights = f.ReadDoubles(g + "/weights", 3, &dims);
  RequireDims(f, g + "/weights", dims, {lines, 3, 3});
  if (f.Exists(g + "/noise_variance")) {
    p.noise_variance = f.ReadDoubles(g + "/noise_variance", 3, &dims);
    RequireDims(f, g + "/noise_variance", dims, {lines, 3, 3});
    p.noise_source = Attribute(f, g + "/noise_variance", "source");
  }
  const std::vector<double> present = f.ReadDoubles(g + "/present", 2, &dims);
  RequireDims(f, g + "/present", dims, {3, 3});
  for (int e = 0; e < 9; ++e) {
    if (present[e] != 0.0 && present[e] != 1.0)
      throw Error(f.path(), g + "/present",
                  "expected 0 or 1 per entry, got " + FormatDouble(present[e]));
    p.present[e] = present[e] == 1.0;
  }
  p.cost = Scalar(f, g + "/cost", false);
  if (f.Exists(g + "/dropped_hz")) p.dropped_hz = f.ReadDoubles(g + "/dropped_hz", 1, &dims);
  ReadModalComparison(f, g, &p);
  if (f.Exists(g + "/ema")) p.ema = std::make_shared<const EmaResult>(ReadEmaGroup(f, g + "/ema"));
  for (size_t i = 1; i < p.frequency_hz.size(); ++i)
    if (!(p.frequency_hz[i] > p.frequency_hz[i - 1]))
      throw Error(f.path(), g + "/frequency_hz", "expected strictly increasing frequencies");
  return p;
}

}  // namespace

ReportData ReadReportData(const std::string& path) {
  Hdf5File f(path, Hdf5File::Mode::kRead);
  f.RequireFileKind("fit_result", "an frfit fit result");
  ReportData d;
  d.result_file = path;
  d.model = Attribute(f, "/", "model");
  d.model_file = Attribute(f, "/", "model_file");
  d.seed = Attribute(f, "/", "seed");
  d.backend_given = Attribute(f, "/", "backend_given");
  d.backend_used = Attribute(f, "/", "backend_used");
  d.termination = Attribute(f, "/", "termination");
  d.settings_yaml = Attribute(f, "/", "settings_yaml");
  d.frfit_version = Attribute(f, "/", "frfit_version");

  d.parameter_names = f.ReadStrings("/parameters/names");
  const size_t np = d.parameter_names.size();
  d.parameter_units = f.Exists("/parameters/units") ? f.ReadStrings("/parameters/units")
                                                    : std::vector<std::string>(np);
  if (d.parameter_units.size() != np)
    throw Error(path, "/parameters/units", "expected one unit per parameter name");
  d.values = Vector(f, "/parameters/values", np);
  d.initial = Vector(f, "/parameters/initial", np);
  d.min = Vector(f, "/parameters/min", np);
  d.max = Vector(f, "/parameters/max", np);
  for (double v : Vector(f, "/parameters/free", np)) d.free.push_back(v != 0.0);

  d.cost = Scalar(f, "/summary/cost");
  d.initial_population_best_cost = Scalar(f, "/summary/initial_population_best_cost", false);
  d.evaluations = Scalar(f, "/summary/evaluations");
  d.ga_evaluations = Scalar(f, "/summary/ga_evaluations", false);
  d.nm_evaluations = Scalar(f, "/summary/nm_evaluations", false);
  d.wall_seconds = Scalar(f, "/summary/wall_seconds", false);
  d.ga_seconds = Scalar(f, "/summary/ga_seconds", false);
  d.nm_seconds = Scalar(f, "/summary/nm_seconds", false);
  d.lm_evaluations = Scalar(f, "/summary/lm_evaluations", false);
  d.lm_seconds = Scalar(f, "/summary/lm_seconds", false);
  d.refinement = f.HasAttribute("/summary", "refinement") ? f.GetAttribute("/summary", "refinement")
                                                          : "nelder_mead";
  d.cycles = Scalar(f, "/summary/cycles", false);

  std::vector<hsize_t> dims;
  const std::vector<double> cycle = f.ReadDoubles("/history/cycle", 1, &dims);
  const size_t nh = cycle.size();
  const std::vector<double> phase = Vector(f, "/history/phase", nh);
  const std::vector<double> step = Vector(f, "/history/step", nh);
  const std::vector<double> evaluations = Vector(f, "/history/evaluations", nh);
  const std::vector<double> best = Vector(f, "/history/best_cost", nh);
  // ToInt: a damaged number must be refused, not cast (undefined beyond the integer's range).
  for (size_t i = 0; i < nh; ++i)
    d.history.push_back({f.ToInt(cycle[i], "/history/cycle"), f.ToInt(phase[i], "/history/phase"),
                         f.ToInt(step[i], "/history/step"),
                         f.ToInt64(evaluations[i], "/history/evaluations"), best[i]});

  for (const std::string& name : f.Children("/postures")) d.postures.push_back(ReadPosture(f, name));
  if (f.Exists("/modal_comparison_points"))
    for (const std::string& name : f.Children("/modal_comparison_points")) {
      const std::string g = "/modal_comparison_points/" + name;
      ReportModalComparisonPoints c;
      c.posture = name;
      c.points = PointsFromAttribute(Attribute(f, g, "points"));
      ReadModalComparison(f, g, &c);
      d.modal_comparison_points.push_back(std::move(c));
    }
  d.has_identifiability = f.Exists("/identifiability");
  if (d.has_identifiability) d.identifiability = ReadIdentifiability(f, "/identifiability");
  if (f.Exists("/constraints")) d.constraints = ReadConstraints(f);
  d.has_model_check = f.Exists("/model_check");
  if (d.has_model_check) d.model_check = ReadModelCheck(f, "/model_check");
  if (f.Exists("/static_tests")) d.static_tests = ReadStaticTests(f);
  return d;
}

}  // namespace frfit
