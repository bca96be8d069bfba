// The model's FRFs at one of a problem's postures, for given physical parameters: the posture's
// joint coefficients at its joint values, synthesized between its measurement points. What the
// model check, the reweighting passes, the result and the static sets each wrote out before.
#pragma once

#include <span>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/frf/frf_format.h"
#include "frfit/frf/frf_set.h"
#include "frfit/model/model.h"

namespace frfit {

// On the posture's measured lines, in its measured format.
FrfSet ModelFrfAt(const Model& model, const ProblemPosture& pp, std::span<const double> parameters);
// On `frequency_hz`, in `format` (a static set's deflection: {0 Hz}, receptance).
FrfSet ModelFrfAt(const Model& model, const ProblemPosture& pp, std::span<const double> parameters,
                  const std::vector<double>& frequency_hz, FrfFormat format);

}  // namespace frfit
