// What fit.cc shares with evaluator.cc and tools.cc: a fit as Python holds it, and the readers of
// the arguments a fit, a Problem and a design take.
#pragma once

#include <string>

#include "common.h"
#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_options.h"
#include "frfit/results/fit_result.h"

namespace frfit::python {

// A finished fit with what it was fitted to: the model (which the problem and a ParameterMap
// point into), the options and the problem, for design() and the result's FRFs.
struct PyFit {
  ModelPtr model;
  FitOptions options;
  Problem problem;
  FitResult result;
};

// config: None (defaults), a dict (the YAML configuration's keys) or a path.
FitOptions FitOptionsArg(const py::object& config, std::string* source);
// backend "cpu" | "cuda" | "auto"; errors name `what`.
EvaluatorOptions EvaluatorOptionsArg(const std::string& backend, int threads, const std::string& what);
// frf_sets: one FrfSet or path, or a sequence of them, one per posture.
Problem ProblemArg(const ModelPtr& model, const py::object& frf_sets, const FitOptions& options,
                   const std::string& config_source);

}  // namespace frfit::python
