#include "frfit/fit/model_weights.h"

#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {

std::vector<std::vector<double>> NoiseWeightsAt(const Problem& problem, const ParameterMap& map,
                                                std::span<const double> u) {
  const std::vector<double> parameters = map.Physical(u);
  std::vector<std::vector<double>> weights;
  for (const ProblemPosture& pp : problem.postures) {
    const FrfSet model =
        Synthesize(pp.posture, Coefficients(*problem.model, parameters, pp.posture.q),
                   pp.measured.frequency_hz, pp.measured.format);
    weights.push_back(NoiseWeightsAtModel(pp, model, problem.cost));
  }
  return weights;
}

Problem WithNoiseWeightsAt(const Problem& problem, const ParameterMap& map,
                           std::span<const double> u) {
  if (u.empty()) return problem;
  Problem out = problem;
  std::vector<std::vector<double>> weights = NoiseWeightsAt(problem, map, u);
  for (size_t q = 0; q < out.postures.size(); ++q) out.postures[q].weights = std::move(weights[q]);
  return out;
}

}  // namespace frfit
