// fit(model, frf_sets, config, seed=..., backend=..., threads=...) and its FitResult: what
// `frfit fit` does, with the same problem, run and driver, so the same inputs and seed give the
// same bits. The engine runs without the GIL; every step's progress event takes it back, checks
// for Ctrl-C (KeyboardInterrupt stops the fit, nothing written) and calls the user's callback.
#include <cmath>
#include <limits>

#include "common.h"
#include "fit_common.h"
#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/results/fit_call.h"
#include "frfit/fit/constraints_io.h"
#include "frfit/results/identifiability_io.h"
#include "frfit/cost/static_sets.h"
#include "frfit/fit/load_problem.h"
#include "frfit/results/model_check_io.h"

namespace frfit::python {

FitOptions FitOptionsArg(const py::object& config, std::string* source) {
  if (config.is_none()) {
    *source = "default fit configuration";
    return LoadFitOptions("");
  }
  if (py::isinstance<py::dict>(config)) {
    // JSON is YAML: the dict goes through the same reader as a file, unknown keys refused alike;
    // only the file's format line may be left out.
    *source = "config";
    py::dict with_format = py::dict(config);
    if (!with_format.contains("format")) with_format["format"] = "frfit-fit-1";
    const std::string text = py::str(py::module_::import("json").attr("dumps")(with_format));
    return ParseFitOptionsText(text, *source);
  }
  *source = py::str(py::module_::import("os").attr("fspath")(config));
  return LoadFitOptions(*source);
}

EvaluatorOptions EvaluatorOptionsArg(const std::string& backend, int threads, const std::string& what) {
  EvaluatorOptions options;
  if (!FromString(backend, &options.backend))
    throw Error(what, "backend", "expected cpu, cuda or auto, got '" + backend + "'");
  options.threads = threads;
  std::string error;
  if (!options.IsValid(&error)) throw Error(what, "threads", error);
  return options;
}

Problem ProblemArg(const ModelPtr& model, const py::object& frf_sets, const FitOptions& options,
                   const std::string& config_source) {
  std::vector<FrfSet> sets;
  std::vector<std::string> sources;
  auto add = [&](const py::handle& item) {
    std::string source;
    sets.push_back(FrfSetArg(item, &source));
    sources.push_back(source);
  };
  if (py::isinstance<py::str>(frf_sets) || py::isinstance<FrfSet>(frf_sets) ||
      py::hasattr(frf_sets, "__fspath__"))
    add(frf_sets);
  else
    for (const py::handle item : frf_sets) add(item);
  if (sets.empty()) throw Error("fit", "frf_sets", "expected at least one FRF set");
  return ProblemFromSets(model, sets, sources, options, config_source);
}

namespace {

std::vector<double> SigmaOf(const FitResult& r) {
  std::vector<double> sigma(r.parameter_names.size(), std::numeric_limits<double>::quiet_NaN());
  for (const auto* group : {&r.identifiability.per_parameter, &r.identifiability.tied})
    for (const ParameterIdentifiability& p : *group)  // tied: an equality constraint's parameter
      for (size_t i = 0; i < r.parameter_names.size(); ++i)
        if (r.parameter_names[i] == p.name) sigma[i] = p.std_absolute;
  return sigma;
}

py::dict HistoryOf(const FitResult& r) {
  const size_t rows = r.history.size();
  py::array_t<int> cycle(rows), step(rows), phase(rows);
  py::array_t<long long> evaluations(rows);
  py::array_t<double> best(rows);
  for (size_t i = 0; i < rows; ++i) {
    const HistoryRow& h = r.history[i];
    cycle.mutable_data()[i] = h.cycle;
    phase.mutable_data()[i] = PhaseCode(h.phase);
    step.mutable_data()[i] = h.step;
    evaluations.mutable_data()[i] = h.evaluations;
    best.mutable_data()[i] = h.best_cost;
  }
  py::dict out;
  out["cycle"] = cycle;
  out["phase"] = phase;
  out["step"] = step;
  out["evaluations"] = evaluations;
  out["best_cost"] = best;
  return out;
}

std::shared_ptr<PyFit> Fit(const std::shared_ptr<Model>& model_arg, const py::object& frf_sets,
                           const py::object& config, long long seed, const std::string& backend,
                           int threads, const py::object& progress, const py::object& static_tests) {
  WarningsToPython warnings;
  auto fit = std::make_shared<PyFit>();
  fit->model = model_arg;
  std::string config_source;
  fit->options = FitOptionsArg(config, &config_source);
  if (seed < 0) throw Error("fit", "seed", "expected an integer >= 0");
  const EvaluatorOptions evaluator_options = EvaluatorOptionsArg(backend, threads, "fit");
  const ParameterMap map(*fit->model, fit->options.parameters, config_source);
  fit->problem = ProblemArg(fit->model, frf_sets, fit->options, config_source);
  // Static deflection tests beside the FRFs, as `frfit fit --static` (docs/static-tests.md).
  if (!static_tests.is_none())
    AddStaticTests(
        LoadStaticTests(py::str(py::module_::import("os").attr("fspath")(static_tests))),
        &fit->problem);

  FitRunSettings settings;
  settings.seed = static_cast<std::uint64_t>(seed);
  settings.evaluator = evaluator_options;  // backend "auto" decides as `frfit fit` does
  settings.progress = [&](const ProgressEvent& e) {
    py::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (progress.is_none()) return;
    py::dict event;
    event["phase"] = ToString(e.phase);
    event["cycle"] = e.cycle;
    event["step"] = e.step;
    event["best_cost"] = e.best_cost;
    event["evaluations"] = e.evaluations;
    event["evaluations_per_second"] = e.evaluations_per_second;
    progress(event);
  };
  {
    py::gil_scoped_release release;
    fit->result = frfit::Fit(fit->problem, map, fit->options, settings);
  }
  WarnAboutResult(fit->result, "fit");
  return fit;
}

}  // namespace

void RegisterFit(py::module_& m) {
  py::class_<PyFit, std::shared_ptr<PyFit>>(
      m, "FitResult",
      "A finished fit: parameters, their 1σ, identifiability, model check, history; .save() "
      "writes the result file `frfit fit --out` writes.")
      .def_property_readonly("parameter_names", [](const PyFit& f) { return f.result.parameter_names; })
      .def_property_readonly("parameter_units", [](const PyFit& f) { return f.result.parameter_units; })
      .def_property_readonly("values", [](const PyFit& f) { return ToNumpy(f.result.parameters); },
                             "Fitted values, parameter_names order (fixed ones at their value).")
      .def_property_readonly("parameters",
                             [](const PyFit& f) {
                               py::dict out;
                               for (size_t i = 0; i < f.result.parameters.size(); ++i)
                                 out[py::str(f.result.parameter_names[i])] = f.result.parameters[i];
                               return out;
                             },
                             "{name: fitted value}")
      .def_property_readonly("sigma",
                             [](const PyFit& f) {
                               py::dict out;
                               const std::vector<double> sigma = SigmaOf(f.result);
                               for (size_t i = 0; i < sigma.size(); ++i)
                                 out[py::str(f.result.parameter_names[i])] = sigma[i];
                               return out;
                             },
                             "{name: 1σ in the parameter's unit} (NaN where it was not fitted), "
                             "keyed as .parameters.")
      .def_property_readonly("sigma_values", [](const PyFit& f) { return ToNumpy(SigmaOf(f.result)); },
                             "1σ of each parameter, parameter_names order as .values (NaN where it "
                             "was not fitted).")
      .def_property_readonly("initial_values", [](const PyFit& f) { return ToNumpy(f.result.initial_parameters); })
      .def_property_readonly("lower_bounds", [](const PyFit& f) { return ToNumpy(f.result.lower); })
      .def_property_readonly("upper_bounds", [](const PyFit& f) { return ToNumpy(f.result.upper); })
      .def_property_readonly("free",
                             [](const PyFit& f) {
                               py::array_t<bool> out(f.result.free.size());
                               for (size_t i = 0; i < f.result.free.size(); ++i) out.mutable_data()[i] = f.result.free[i] != 0;
                               return out;
                             })
      .def_property_readonly("cost", [](const PyFit& f) { return f.result.cost; })
      .def_property_readonly("evaluations", [](const PyFit& f) { return f.result.evaluations; })
      .def_property_readonly("cycles", [](const PyFit& f) { return f.result.cycles; })
      .def_property_readonly("termination", [](const PyFit& f) { return f.result.termination; })
      .def_property_readonly("seed", [](const PyFit& f) { return f.result.seed; })
      .def_property_readonly("backend", [](const PyFit& f) { return f.result.backend_used; })
      .def_property_readonly("wall_seconds", [](const PyFit& f) { return f.result.wall_seconds; })
      .def_property_readonly("identifiability",
                             [](const PyFit& f) { return FromJson(IdentifiabilityToJson(f.result.identifiability)); },
                             "As `frfit fit --json`'s identifiability (docs/identifiability.md).")
      .def_property_readonly("constraints",
                             [](const PyFit& f) { return FromJson(ConstraintsToJson(f.result.constraints)); },
                             "As `frfit fit --json`'s constraints: each one's text, relation, slack "
                             "and whether it is active (docs/fit-config.md, \"Constraints\").")
      .def_property_readonly("model_check",
                             [](const PyFit& f) { return FromJson(ModelCheckToJson(f.result.model_check)); },
                             "As `frfit fit --json`'s model_check: verdict and reasons (docs/noise.md).")
      .def_property_readonly("history", [](const PyFit& f) { return HistoryOf(f.result); },
                             "The cost history as arrays: cycle, phase (0 GA, 1 Nelder–Mead, 2 "
                             "Levenberg–Marquardt), step, evaluations, best_cost.")
      .def_property_readonly("postures",
                             [](const PyFit& f) {
                               py::list out;
                               for (const PostureResult& p : f.result.postures) {
                                 py::dict d;
                                 d["name"] = p.name;
                                 d["source"] = p.frf_source;
                                 d["measured"] = p.measured;
                                 d["fitted"] = p.fitted;
                                 d["weights"] = ToNumpy(p.weights, {p.measured.num_lines(), 3, 3});
                                 d["cost"] = p.cost;
                                 out.append(d);
                               }
                               return out;
                             },
                             "Per posture: name, source, measured and fitted FrfSet (as fitted: "
                             "in band, in the fitted format), weights (lines×3×3), cost share.")
      .def("to_dict", [](const PyFit& f) { return FromJson(FitResultToJson(f.result)); },
           "The object `frfit fit --json` prints.")
      .def("save",
           [](const PyFit& f, const py::object& path) {
             WarningsToPython warnings;
             WriteFitResult(py::str(py::module_::import("os").attr("fspath")(path)), f.result);
           },
           py::arg("path"), "Writes the result file (HDF5, docs/file-formats.md), atomically.")
      .def("__repr__", [](const PyFit& f) {
        return "<frfit.FitResult cost " + FormatDouble(f.result.cost) + ", " + f.result.termination +
               ", " + std::to_string(f.result.evaluations) + " evaluations>";
      });

  m.def("fit", &Fit, py::arg("model"), py::arg("frf_sets"), py::arg("config") = py::none(),
        py::kw_only(), py::arg("seed") = 1, py::arg("backend") = "auto", py::arg("threads") = 0,
        py::arg("progress") = py::none(), py::arg("static") = py::none(),
        "Fits the model's elastic parameters to FRF sets (FrfSet objects or file paths, one per "
        "posture and pair of measurement points) as `frfit fit` does, with the static deflection "
        "tests of the frfit-static-1 file `static` beside them when given: config a dict of the fit configuration "
        "(docs/fit-config.md; `format` may be left out), a YAML file or None (defaults); the same seed gives the same bits "
        "as the CLI on either backend. progress(event) is called after every GA generation and "
        "refinement iteration with a dict (phase, cycle, step, best_cost, evaluations, "
        "evaluations_per_second); an exception it raises, or Ctrl-C, stops the fit. The GIL is "
        "released while the engine runs.");
}

}  // namespace frfit::python
