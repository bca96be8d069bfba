// The model's FRFs at one of a problem's postures, for given physical parameters, on its full
// posture: the posture's joint coefficients at its joint values, synthesized between its
// measurement points (a static set's deflection). Results assessed after a fit use the set's host
// posture instead (fit/host_posture.h), the reduced one where the fit was reduced.
#pragma once

#include <span>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/frf/frf_format.h"
#include "frfit/frf/frf_set.h"
#include "frfit/model/model.h"

namespace frfit {

// On `frequency_hz`, in `format` (a static set's deflection: {0 Hz}, receptance).
FrfSet ModelFrfAt(const Model& model, const ProblemPosture& pp, std::span<const double> parameters,
                  const std::vector<double>& frequency_hz, FrfFormat format);

}  // namespace frfit
