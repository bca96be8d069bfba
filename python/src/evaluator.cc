// Problem and evaluate(problem, population): the fit's batched cost for users who bring their own
// optimiser. One call maps the whole population to joint coefficients and hands it to the
// evaluator as one batch (one Evaluate call, as a GA generation), without the GIL and without
// any Python per individual or line.
#include <limits>

#include "common.h"
#include "fit_common.h"
#include "frfit/common/error.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit::python {
namespace {

struct PyProblem {
  ModelPtr model;
  FitOptions options;
  Problem problem;
  std::unique_ptr<ParameterMap> map;
  std::vector<std::vector<double>> posture_q;
  PackedProblem packed;
  // The evaluator of the last call, kept for the next one with the same backend and threads
  // (creating one starts threads, and the cuda backend copies the problem to the device).
  std::unique_ptr<Evaluator> evaluator;
  std::string evaluator_key;
  std::vector<double> coefficients;  // scratch of a call
  std::vector<double> fixed_values;  // every parameter, the fixed ones at their configured values
};

std::shared_ptr<PyProblem> MakeProblem(const std::shared_ptr<Model>& model, const py::object& frf_sets,
                                       const py::object& config) {
  WarningsToPython warnings;
  auto p = std::make_shared<PyProblem>();
  p->model = model;
  std::string source;
  p->options = FitOptionsArg(config, &source);
  p->map = std::make_unique<ParameterMap>(*p->model, p->options.parameters, source);
  p->problem = ProblemArg(p->model, frf_sets, p->options, source);
  p->posture_q = PostureCoordinates(p->problem);
  p->packed = PackForPass(p->problem, *p->map, 0, {});
  p->fixed_values = p->map->Physical(p->map->InitialU());
  return p;
}

std::vector<std::string> FreeNames(const PyProblem& p) {
  std::vector<std::string> names;
  for (int i : p.map->free_indices()) names.push_back(p.model->parameters[i].name);
  return names;
}

py::object Evaluate(PyProblem& p, const DoubleArray& population, const std::string& backend,
                    int threads, const std::string& space, bool return_status) {
  const int dim = p.map->dim();
  const bool one = population.ndim() == 1;
  if (population.ndim() > 2 || (population.ndim() == 2 && population.shape(1) != dim) ||
      (one && population.shape(0) != dim))
    throw Error("evaluate", "population",
                "expected an array of shape (individuals, " + std::to_string(dim) +
                    ") (Problem.parameter_names), got shape " +
                    std::string(py::str(population.attr("shape"))));
  if (space != "u" && space != "physical")
    throw Error("evaluate", "space", "expected u or physical, got '" + space + "'");
  const int individuals = one ? 1 : static_cast<int>(population.shape(0));
  const EvaluatorOptions options = EvaluatorOptionsArg(backend, threads, "evaluate");
  py::array_t<double> costs(individuals);
  py::array_t<std::uint8_t> status(individuals);
  {
    py::gil_scoped_release release;
    const std::string key = backend + "/" + std::to_string(threads);
    if (!p.evaluator || p.evaluator_key != key) {
      p.evaluator.reset();
      p.evaluator = CreateEvaluator(options);
      p.evaluator->SetProblems({p.packed});
      p.evaluator_key = key;
    }
    std::span<const double> u(population.data(), static_cast<size_t>(individuals) * dim);
    p.coefficients.clear();
    if (space == "physical") {
      // The values as given (not clamped to the bounds), the fixed parameters at their configured
      // values: straight to joint coefficients, without the map through u.
      std::vector<double> full = p.fixed_values;
      const std::vector<int>& free = p.map->free_indices();
      p.coefficients.reserve(static_cast<size_t>(individuals) * p.posture_q.size() *
                             p.packed.coefficient_stride());
      for (int i = 0; i < individuals; ++i) {
        for (int j = 0; j < dim; ++j) full[free[j]] = u[static_cast<size_t>(i) * dim + j];
        for (const std::vector<double>& q : p.posture_q) {
          AppendPacked(Coefficients(*p.model, full, q), &p.coefficients);
        }
      }
    } else {
      p.map->AppendCoefficients(u, p.posture_q, &p.coefficients);
    }
    const int counts[1] = {individuals};
    p.evaluator->Evaluate(counts, p.coefficients, std::span<double>(costs.mutable_data(), individuals),
                          std::span<EvalStatus>(reinterpret_cast<EvalStatus*>(status.mutable_data()),
                                                individuals));
  }
  py::object out = one ? py::object(py::float_(costs.data()[0])) : py::object(costs);
  if (!return_status) return out;
  return py::make_tuple(out, one ? py::object(py::int_(status.data()[0])) : py::object(status));
}

}  // namespace

void RegisterEvaluator(py::module_& m) {
  py::class_<PyProblem, std::shared_ptr<PyProblem>>(
      m, "Problem",
      "What a fit evaluates: a model, FRF sets prepared with a fit configuration's cost options, "
      "and the free parameters (their search space u ∈ [0, 1], log-scaled between the bounds).")
      .def(py::init(&MakeProblem), py::arg("model"), py::arg("frf_sets"), py::arg("config") = py::none(),
           "As fit() prepares it: FRF sets (FrfSet or paths, one per posture) and a fit "
           "configuration (dict, path or None).")
      .def_property_readonly("dim", [](const PyProblem& p) { return p.map->dim(); })
      .def_property_readonly("parameter_names", &FreeNames, "The free parameters, in u's order.")
      .def_property_readonly("lines",
                             [](const PyProblem& p) {
                               int lines = 0;
                               for (const PackedPosture& q : p.packed.postures) lines += q.num_lines();
                               return lines;
                             },
                             "Frequency lines over every posture (each one line-solve per individual).")
      .def_property_readonly("n", [](const PyProblem& p) { return p.packed.n; }, "Elastic DOFs.")
      .def_property_readonly("initial_u", [](const PyProblem& p) { return ToNumpy(p.map->InitialU()); })
      .def("to_physical",
           [](const PyProblem& p, const DoubleArray& u) {
             if (u.ndim() != 1 || u.size() != p.map->dim())
               throw Error("to_physical", "u", "expected " + std::to_string(p.map->dim()) + " values");
             const std::vector<double> full = p.map->Physical(std::span<const double>(u.data(), u.size()));
             std::vector<double> free;
             for (int i : p.map->free_indices()) free.push_back(full[i]);
             return ToNumpy(free);
           },
           py::arg("u"), "The free parameters' physical values at one point u.")
      .def("to_u",
           [](const PyProblem& p, const DoubleArray& values) {
             if (values.ndim() != 1 || values.size() != p.map->dim())
               throw Error("to_u", "values", "expected " + std::to_string(p.map->dim()) + " values");
             std::vector<double> full = p.map->Physical(p.map->InitialU());
             for (int j = 0; j < p.map->dim(); ++j) full[p.map->free_indices()[j]] = values.data()[j];
             return ToNumpy(p.map->ToU(full));
           },
           py::arg("values"), "The point u of the free parameters' physical values.")
      .def("__repr__", [](const PyProblem& p) {
        return "<frfit.Problem model '" + p.model->name + "', " + std::to_string(p.map->dim()) +
               " free parameters, " + std::to_string(p.packed.num_postures()) + " posture(s)>";
      });

  m.def("evaluate", &Evaluate, py::arg("problem"), py::arg("population"), py::kw_only(),
        py::arg("backend") = "cpu", py::arg("threads") = 0, py::arg("space") = "u",
        py::arg("return_status") = false,
        "The fit's cost of every individual of a population (individuals × problem.dim, or one "
        "point), in one batched evaluator call: space 'u' (the search space, [0, 1] per "
        "parameter, clamped to it) or 'physical' (the free parameters' values, used as given). A singular or non-finite individual "
        "costs +inf (status 1 or 2 with return_status). The evaluator is kept with the problem "
        "for the next call with the same backend and threads.");
}

}  // namespace frfit::python
