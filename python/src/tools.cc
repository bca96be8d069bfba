// ema, fleet and design: `frfit ema`, `frfit fleet` and `frfit design` as functions returning
// dicts of NumPy arrays (ema, design) or the CLI's JSON object (fleet).
#include <cmath>
#include <set>

#include "common.h"
#include "fit_common.h"
#include "frfit/common/error.h"
#include "frfit/results/identifiability_io.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/results/posture_design.h"
#include "frfit/fleet/fleet_run.h"
#include "frfit/io/ema_hdf5.h"
#include "frfit/modal/ema.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "frfit/report/result_problem.h"

namespace frfit::python {
namespace {

py::dict Ema(const py::object& frf, const py::object& band, int max_order, const py::dict& criteria,
             const py::object& out) {
  WarningsToPython warnings;
  std::string source;
  const FrfSet set = FrfSetArg(frf, &source);
  EmaOptions options;
  if (!band.is_none()) {
    const auto b = band.cast<std::pair<double, double>>();
    options.band_min_hz = b.first;
    options.band_max_hz = b.second;
  }
  options.max_order = max_order;
  StabilisationCriteria& c = options.criteria;
  for (const auto& [key, value] : criteria) {
    const std::string name = py::str(key);
    if (name == "frequency_tolerance") c.frequency_tolerance = value.cast<double>();
    else if (name == "damping_tolerance") c.damping_tolerance = value.cast<double>();
    else if (name == "min_mac") c.min_mac = value.cast<double>();
    else if (name == "max_damping_ratio") c.max_damping_ratio = value.cast<double>();
    else if (name == "min_stable_poles") c.min_stable_poles = value.cast<int>();
    else if (name == "min_contribution") c.min_contribution = value.cast<double>();
    else
      throw Error("ema", "criteria." + name,
                  "unknown (expected frequency_tolerance, damping_tolerance, min_mac, "
                  "max_damping_ratio, min_stable_poles or min_contribution)");
  }
  std::string error;
  if (!options.IsValid(&error)) throw Error("ema", "", error);
  EmaResult r;
  {
    py::gil_scoped_release release;
    r = EstimateModes(set, options, source);
  }
  const double tau = r.exponential_window_tau_s;  // taken out of the modes by the EMA
  if (!out.is_none()) WriteEmaResult(py::str(py::module_::import("os").attr("fspath")(out)), r);

  std::vector<double> f, zeta, f_sigma, zeta_sigma, explained, contribution, mpc, mpd;
  std::vector<double> stable, lowest;
  std::vector<std::complex<double>> shapes;
  for (const EmaMode& mode : r.modes) {
    f.push_back(mode.mode.frequency_hz);
    zeta.push_back(mode.mode.damping_ratio);
    f_sigma.push_back(mode.frequency_sigma_hz);
    zeta_sigma.push_back(mode.damping_sigma);
    explained.push_back(mode.explained);
    contribution.push_back(mode.contribution);
    mpc.push_back(mode.mpc);
    mpd.push_back(mode.mpd_deg);
    stable.push_back(mode.stable_poles);
    lowest.push_back(mode.lowest_order);
    for (int a = 0; a < 3; ++a) shapes.push_back(mode.mode.sensor_shape(a));
  }
  std::vector<double> pole_order, pole_f, pole_zeta;
  std::string letters;
  for (const StabilisationPole& pole : r.poles) {
    pole_order.push_back(pole.order);
    pole_f.push_back(pole.frequency_hz);
    pole_zeta.push_back(pole.damping_ratio);
    letters += ToLetter(pole.stability);
  }
  py::dict d;
  d["source"] = r.source;
  d["posture"] = r.measured.posture;
  d["method"] = r.method;
  d["description"] = DescribeMethod(r);
  d["band_hz"] = py::make_tuple(r.band_min_hz, r.band_max_hz);
  d["max_order"] = r.max_order;
  d["min_stable_poles"] = r.min_stable_poles;
  d["frequency_hz"] = ToNumpy(f);
  d["damping_ratio"] = ToNumpy(zeta);
  d["frequency_sigma_hz"] = ToNumpy(f_sigma);
  d["damping_sigma"] = ToNumpy(zeta_sigma);
  d["stable_poles"] = ToNumpy(stable);
  d["lowest_order"] = ToNumpy(lowest);
  d["explained"] = ToNumpy(explained);
  d["contribution"] = ToNumpy(contribution);
  d["mpc"] = ToNumpy(mpc);
  d["mpd_deg"] = ToNumpy(mpd);
  d["sensor_shape"] = ToNumpy(shapes, {static_cast<py::ssize_t>(r.modes.size()), 3});
  d["stabilisation"] = py::dict(py::arg("order") = ToNumpy(pole_order),
                                py::arg("frequency_hz") = ToNumpy(pole_f),
                                py::arg("damping_ratio") = ToNumpy(pole_zeta),
                                py::arg("stability") = letters);
  d["measured"] = r.measured;
  d["synthesized"] = r.synthesized;
  d["exponential_window_tau_s"] = tau;
  return d;
}

py::object Fleet(const py::object& manifest, const py::object& out, const std::string& run_id,
                 const std::string& backend, int threads, bool resume, const py::object& log) {
  WarningsToPython warnings;
  auto fspath = py::module_::import("os").attr("fspath");
  FleetRunOptions options;
  options.manifest = py::str(fspath(manifest));
  options.out = py::str(fspath(out));
  options.run_id = run_id;
  options.resume = resume;
  if (resume && run_id.empty()) throw Error("fleet", "resume", "needs run_id naming the run to continue");
  options.backend_given = backend;
  options.evaluator = EvaluatorOptionsArg(backend, threads, "fleet");
  options.log = [&log](const std::string& line) {
    py::gil_scoped_acquire acquire;
    if (log.is_none())
      py::print(line, py::arg("file") = py::module_::import("sys").attr("stderr"));
    else
      log(line);
  };
  FleetReport report;
  {
    py::gil_scoped_release release;
    report = RunFleet(options);
  }
  if (report.ok() == 0)
    throw Error("fleet", "", "every robot was skipped (see " + report.run_dir + "/summary.json)");
  return FromJson(FleetReportToJson(report));
}

py::dict Design(const std::shared_ptr<Model>& model_arg, const py::object& result,
                const py::object& candidates, const py::object& q_candidates) {
  WarningsToPython warnings;
  ModelPtr model = model_arg;
  FitOptions options;
  Problem problem;
  std::vector<double> fitted_values;
  std::string source;
  if (py::isinstance<PyFit>(result)) {
    const PyFit& fit = result.cast<const PyFit&>();
    if (fit.model->name != model->name)
      throw Error("design", "result", "the fit is of model '" + fit.model->name + "', not '" + model->name + "'");
    options = fit.options;
    problem = fit.problem;
    problem.model = model;
    fitted_values = fit.result.parameters;
    source = "FitResult";
  } else {
    source = py::str(py::module_::import("os").attr("fspath")(result));
    const FitResult data = ReadFitResult(source);
    if (data.model_name != model->name)
      throw Error(source, "@model", "the result is of model '" + data.model_name + "', model is '" + model->name + "'");
    options = ParseFitOptionsText(data.settings_yaml, source + " (settings_yaml)");
    problem = ProblemFromResult(data, model, options);
    fitted_values = ParametersFromResult(data, *model, source);
  }
  const ParameterMap map(*model, options.parameters, source + " (settings)");
  const std::vector<double> u = map.ToU(fitted_values);
  std::set<std::string> fitted;
  for (const ProblemPosture& pp : problem.postures) fitted.insert(pp.posture.name);
  std::vector<PostureSpec> specs;
  if (!candidates.is_none())
    for (const py::handle name : candidates) specs.push_back({py::str(name), model->posture(py::str(name)).q});
  if (!q_candidates.is_none())
    for (const auto& [name, assignments] : q_candidates.cast<py::dict>()) {
      std::string text;
      for (const auto& [coordinate, value] : assignments.cast<py::dict>())
        text += (text.empty() ? "" : ",") + std::string(py::str(coordinate)) + "=" +
                FormatDouble(value.cast<double>());
      specs.push_back({py::str(name), ParseCoordinateAssignments(text, *model,
                                                                 std::vector<double>(model->num_coordinates(), 0.0),
                                                                 "q_candidates " + std::string(py::str(name)))});
    }
  if (candidates.is_none() && q_candidates.is_none())
    for (const PostureSpec& spec : model->postures)
      if (!fitted.count(spec.name)) specs.push_back(spec);
  if (specs.empty())
    throw Error("design", "candidates",
                "no candidate posture: the model has none the fit does not already use (give "
                "candidates or q_candidates)");
  PostureDesign design;
  {
    py::gil_scoped_release release;
    design = RankCandidatePostures(problem, map, u, specs);
  }
  py::list ranked;
  for (const CandidateRanking& c : design.candidates) {
    py::dict std_relative;
    for (const ParameterIdentifiability& q : c.predicted.per_parameter) std_relative[py::str(q.name)] = q.std_relative;
    py::dict row;
    row["posture"] = c.posture.name;
    row["q"] = ToNumpy(c.posture.q);
    row["log_det_gain"] = c.log_det_gain;
    row["condition_number"] = c.predicted.condition_number;
    row["std_relative"] = std_relative;
    ranked.append(row);
  }
  py::dict out;
  out["criterion"] = "D-optimal: gain in log det of JtWJ (relative parameters), nats";
  out["nats_to_halve_every_sigma"] = NatsToHalveEverySigma(map.dim());
  out["current"] = FromJson(IdentifiabilityToJson(design.current));
  out["candidates"] = ranked;
  return out;
}

}  // namespace

void RegisterTools(py::module_& m) {
  m.def("ema", &Ema, py::arg("frf"), py::kw_only(), py::arg("band") = py::none(),
        py::arg("max_order") = 0, py::arg("criteria") = py::dict(), py::arg("out") = py::none(),
        "Modes of measured FRFs without a model, as `frfit ema` (docs/ema.md): frf an FrfSet or "
        "a file; band (f0, f1) in Hz; criteria the stabilisation criteria by name "
        "(frequency_tolerance, damping_tolerance, min_mac, max_damping_ratio, min_stable_poles, "
        "min_contribution); out an .h5 to write. Returns arrays per mode (frequency_hz, "
        "damping_ratio, their 1σ, sensor_shape modes×3, ...) and the stabilisation diagram.");
  m.def("fleet", &Fleet, py::arg("manifest"), py::arg("out"), py::kw_only(), py::arg("run_id") = "",
        py::arg("backend") = "auto", py::arg("threads") = 0, py::arg("resume") = false,
        py::arg("log") = py::none(),
        "Runs a fleet manifest (docs/fleet.md) as `frfit fleet`, the outputs under out/run_id; "
        "returns the object `frfit fleet --json` prints. log(line) receives the lines for people "
        "(default: stderr).");
  m.def("design", &Design, py::arg("model"), py::arg("result"), py::kw_only(),
        py::arg("candidates") = py::none(), py::arg("q_candidates") = py::none(),
        "Ranks candidate postures by the information measuring them would add to a fit, as "
        "`frfit design` (docs/identifiability.md): result a FitResult or a result .h5; candidates "
        "posture names of the model, q_candidates {name: {coordinate: degrees or metres}}; "
        "default every posture of the model the fit did not use.");
}

}  // namespace frfit::python
