#include "frfit/cost/model_frf.h"

#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {

FrfSet ModelFrfAt(const Model& model, const ProblemPosture& pp, std::span<const double> parameters,
                  const std::vector<double>& frequency_hz, FrfFormat format) {
  return Synthesize(pp.posture, Coefficients(model, parameters, pp.posture.q), frequency_hz, format,
                    PointsOf(pp));
}

}  // namespace frfit
