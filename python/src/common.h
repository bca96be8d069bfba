// What the binding files of the Python module share: how arguments become the library's types
// (models, parameter vectors, coordinates, FRF sets), how results become NumPy arrays and dicts,
// and how the library's warnings reach Python's `warnings`. The binding files are split by stage
// as the library is: model.cc (Model, Posture, simulate, modal), frf.cc (FrfSet and its files),
// fit.cc (fit and its result), evaluator.cc (Problem and evaluate), tools.cc (ema, fleet, design).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/results/identifiability.h"
#include "frfit/frf/frf_set.h"
#include "frfit/model/model.h"

namespace frfit::python {

namespace py = pybind11;

// The model as Python holds it: shared, because a Problem, a fit and its result keep it alive.
using ModelPtr = std::shared_ptr<const Model>;

// Double arrays, C order, converted on the way in when they are not.
using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
using ComplexArray = py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>;

// A NumPy array that owns a copy of `values`, with the given shape.
py::array_t<double> ToNumpy(const std::vector<double>& values, std::vector<py::ssize_t> shape = {});
py::array_t<std::complex<double>> ToNumpy(const std::vector<std::complex<double>>& values,
                                          std::vector<py::ssize_t> shape);

// A JSON value as Python objects (dict, list, float, int, str, bool, None).
py::object FromJson(const nlohmann::json& j);
py::object FromJson(const nlohmann::ordered_json& j);

// Parameter values of `model` (Model::parameters order) from what a Python caller gives:
// None (the model's initial values), a dict {name: value} over the initial values, a sequence of
// every value, or a path: a parameter YAML file or a fit result .h5 (whose identifiability, the
// fit's covariance, is then put in *identifiability when not null).
std::vector<double> ParametersArg(const Model& model, const py::object& params,
                                  Identifiability* identifiability = nullptr,
                                  std::string* source = nullptr);

// Coordinates (rad / m, every coordinate) of a posture name and/or `q`: an array of every
// coordinate in rad / m, or a dict {coordinate: value} in the model file's units (degrees,
// metres) on top of the posture (as `frfit modal --q`). *name is the posture's name as the CLI
// gives it ("milling", "milling+q", "custom").
std::vector<double> CoordinatesArg(const Model& model, const py::object& posture,
                                   const py::object& q, std::string* name);

// The library's warnings (frfit::Warn) collected while a call runs, possibly on worker threads
// without the GIL, and issued as Python warnings (frfit.FrfitWarning) by the calling thread when
// the guard goes out of scope.
class WarningsToPython {
 public:
  WarningsToPython();
  ~WarningsToPython();
  WarningsToPython(const WarningsToPython&) = delete;
  WarningsToPython& operator=(const WarningsToPython&) = delete;
};

// The FrfSet of a Python argument: an frfit.FrfSet, or a path (HDF5, or UFF with `posture`).
FrfSet FrfSetArg(const py::handle& arg, std::string* source);

void RegisterModel(py::module_& m);
void RegisterFrf(py::module_& m);
void RegisterFit(py::module_& m);
void RegisterEvaluator(py::module_& m);
void RegisterTools(py::module_& m);

}  // namespace frfit::python
