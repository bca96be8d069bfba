// The module frfit._frfit: the library's errors as frfit.Error, its warnings as
// frfit.FrfitWarning, the conversions every binding file uses, and the registration of each.
#include <exception>

#include "common.h"
#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "frfit/results/fit_result.h"
#include "frfit/model/model_yaml.h"

namespace frfit::python {
namespace {

PyObject* warning_category = nullptr;

std::mutex warning_mutex;
std::vector<std::string> pending_warnings;
int warning_depth = 0;  // guards alive; only the outermost installs the sink and issues

template <typename Json>
py::object JsonToPython(const Json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return py::none();
    case nlohmann::json::value_t::boolean:
      return py::bool_(j.template get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(j.template get<long long>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(j.template get<unsigned long long>());
    case nlohmann::json::value_t::number_float:
      return py::float_(j.template get<double>());
    case nlohmann::json::value_t::string:
      return py::str(j.template get<std::string>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& item : j) out.append(JsonToPython(item));
      return std::move(out);
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (auto it = j.begin(); it != j.end(); ++it) out[py::str(it.key())] = JsonToPython(it.value());
      return std::move(out);
    }
    default:
      return py::none();
  }
}

}  // namespace

py::array_t<double> ToNumpy(const std::vector<double>& values, std::vector<py::ssize_t> shape) {
  if (shape.empty()) shape = {static_cast<py::ssize_t>(values.size())};
  py::array_t<double> out(shape);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

py::array_t<std::complex<double>> ToNumpy(const std::vector<std::complex<double>>& values,
                                          std::vector<py::ssize_t> shape) {
  py::array_t<std::complex<double>> out(shape);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

py::object FromJson(const nlohmann::json& j) { return JsonToPython(j); }
py::object FromJson(const nlohmann::ordered_json& j) { return JsonToPython(j); }

std::vector<double> ParametersArg(const Model& model, const py::object& params,
                                  Identifiability* identifiability, std::string* source) {
  std::string described = "initial values of the model";
  std::vector<double> values = model.InitialParameters();
  if (params.is_none()) {
  } else if (py::isinstance<py::str>(params) || py::hasattr(params, "__fspath__")) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(params));
    described = path;
    const bool hdf5 = path.size() > 3 && path.compare(path.size() - 3, 3, ".h5") == 0;
    if (hdf5) {
      FitResult result = ReadFitResult(path, FitResultSections::kSummary);
      values = ParametersFromResult(result, model, path);
      if (identifiability) *identifiability = std::move(result.identifiability);
    } else {
      values = LoadParameters(path, model);
    }
  } else if (py::isinstance<py::dict>(params)) {
    described = "parameters given";
    for (const auto& [key, value] : params.cast<py::dict>()) {
      const std::string name = py::str(key);
      const int index = model.FindParameter(name);
      if (index < 0) throw Error("params", name, "model '" + model.name + "' has no such parameter");
      values[index] = value.cast<double>();
    }
  } else {
    described = "parameters given";
    const DoubleArray array = params.cast<DoubleArray>();
    if (array.ndim() != 1 || array.size() != model.num_parameters())
      throw Error("params", "", "expected " + std::to_string(model.num_parameters()) +
                                    " values (Model.parameter_names), got an array of " +
                                    std::to_string(array.size()));
    values.assign(array.data(), array.data() + array.size());
  }
  if (source) *source = described;
  return values;
}

std::vector<double> CoordinatesArg(const Model& model, const py::object& posture,
                                   const py::object& q, std::string* name) {
  std::vector<double> coordinates;
  if (!posture.is_none()) {
    *name = posture.cast<std::string>();
    coordinates = model.posture(*name).q;
  } else if (!q.is_none()) {
    *name = "custom";
    coordinates.assign(model.num_coordinates(), 0.0);
  } else {
    throw Error("frfit", "posture", "missing (give a posture name of the model, or q)");
  }
  if (q.is_none()) return coordinates;
  if (py::isinstance<py::dict>(q)) {
    std::string text;
    for (const auto& [key, value] : q.cast<py::dict>())
      text += (text.empty() ? "" : ",") + std::string(py::str(key)) + "=" +
              FormatDouble(value.cast<double>());
    coordinates = ParseCoordinateAssignments(text, model, coordinates, "q");
    if (!posture.is_none()) *name += "+q";
    return coordinates;
  }
  const DoubleArray array = q.cast<DoubleArray>();
  if (array.ndim() != 1 || array.size() != model.num_coordinates())
    throw Error("q", "", "expected " + std::to_string(model.num_coordinates()) +
                             " coordinates in rad / m (Model.coordinate_names), got " +
                             std::to_string(array.size()));
  coordinates.assign(array.data(), array.data() + array.size());
  if (!posture.is_none()) *name += "+q";
  return coordinates;
}

WarningsToPython::WarningsToPython() {
  if (warning_depth++ > 0) return;
  SetWarningSink([](const std::string& line) {
    const std::lock_guard<std::mutex> lock(warning_mutex);
    pending_warnings.push_back(line);
  });
}

WarningsToPython::~WarningsToPython() {
  if (--warning_depth > 0) return;
  SetWarningSink({});
  std::vector<std::string> lines;
  {
    const std::lock_guard<std::mutex> lock(warning_mutex);
    lines.swap(pending_warnings);
  }
  // With warnings turned into errors (-W error) a warning raises; a destructor may not throw, so
  // the exception stays set for the interpreter (or is dropped when another is already on its way).
  for (const std::string& line : lines)
    if (PyErr_WarnEx(warning_category, line.c_str(), 1) < 0) {
      if (std::uncaught_exceptions() > 0) PyErr_Clear();
      break;
    }
}

PYBIND11_MODULE(_frfit, m) {
  m.doc() = "frfit's engine: models, FRF sets, fits, the batched evaluator (docs/python.md)";
  m.attr("__version__") = FRFIT_VERSION;
  // frfit::Error: a bad input, said in one line naming the file, the field and what was expected
  // (what the CLI prints after "error: ").
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError).doc() =
      "A bad input: the one-line message the command-line tool prints after 'error: '.";
  warning_category = PyErr_NewExceptionWithDoc(
      "frfit._frfit.FrfitWarning",
      "An input frfit accepts but that you should know about (the CLI's 'warning:' lines).",
      PyExc_UserWarning, nullptr);
  m.attr("FrfitWarning") = py::handle(warning_category);
  RegisterModel(m);
  RegisterFrf(m);
  RegisterFit(m);
  RegisterEvaluator(m);
  RegisterTools(m);
}

}  // namespace frfit::python
