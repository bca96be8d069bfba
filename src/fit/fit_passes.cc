#include "frfit/fit/fit_passes.h"

#include <algorithm>

#include "frfit/cost/residual_weight.h"
#include "frfit/fit/host_posture.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {

std::vector<std::vector<double>> NoiseWeightsAt(const Problem& problem, const ParameterMap& map,
                                                std::span<const double> u) {
  const std::vector<double> parameters = map.Physical(u);
  std::vector<std::vector<double>> weights;
  for (const ProblemPosture& pp : problem.postures) {
    if (pp.is_static) {  // its weights are 1/σ² of the deflections already
      weights.push_back(pp.weights);
      continue;
    }
    const HostPosture host = HostPostureOf(pp);
    const FrfSet model = Synthesize(*host.posture, host.CoefficientsAt(*problem.model, parameters),
                                    pp.measured.frequency_hz, pp.measured.format, host.points);
    weights.push_back(NoiseWeightsAtModel(pp, model, problem.cost));
  }
  return weights;
}

Problem WithNoiseWeightsAt(const Problem& problem, const ParameterMap& map,
                           std::span<const double> u) {
  if (u.empty() || problem.cost.weights.mode != WeightMode::kNoise) return problem;
  return WithWeights(problem, NoiseWeightsAt(problem, map, u));
}

bool PassReweights(const Problem& problem, int pass, std::span<const double> u) {
  return pass > 0 && !u.empty() && problem.cost.weights.mode == WeightMode::kNoise;
}

Problem WithWeights(const Problem& problem, std::vector<std::vector<double>> weights) {
  Problem out = problem;
  for (size_t q = 0; q < out.postures.size(); ++q) out.postures[q].weights = std::move(weights[q]);
  return out;
}

Problem SearchProblem(const Problem& problem) {
  const WeightOptions& w = problem.cost.weights;
  const bool emphasis = w.mode == WeightMode::kNoise && w.search_peak_gain != 1.0;
  if (problem.cost.type != CostType::kNormalizedComplex && !emphasis) return problem;
  Problem out = problem;
  if (problem.cost.type == CostType::kNormalizedComplex) {
    out.cost.type = CostType::kLogComplex;
    // Noise weights are the residual's inverse variance: the log residual's, not the linear one's.
    if (w.mode == WeightMode::kNoise)
      for (ProblemPosture& pp : out.postures)
        if (!pp.is_static)  // scored by the linear residual in every pass
          for (size_t i = 0; i < pp.weights.size(); ++i)
            pp.weights[i] = WeightUnder(CostType::kLogComplex, CostType::kNormalizedComplex,
                                        pp.measured.H[i], pp.weights[i]);
  }
  if (emphasis)
    for (ProblemPosture& pp : out.postures)
      for (int e = 0; e < 9 && !pp.is_static; ++e) {
        std::vector<char> peak(pp.measured.num_lines(), 0);
        for (int k : ClearPeaks(pp.measured, w, e))
          for (int d = -w.peak_halfwidth_lines; d <= w.peak_halfwidth_lines; ++d)
            if (k + d >= 0 && k + d < pp.measured.num_lines()) peak[k + d] = 1;
        for (int k = 0; k < pp.measured.num_lines(); ++k)
          if (peak[k]) pp.weights[k * 9 + e] *= w.search_peak_gain;
      }
  return out;
}

Problem ProblemForPass(const Problem& problem, const ParameterMap& map, int pass,
                       std::span<const double> u) {
  if (pass == 0) return SearchProblem(problem);
  return WithNoiseWeightsAt(problem, map, u);
}

PackedProblem PackForPass(const Problem& problem, const ParameterMap& map, int pass,
                          std::span<const double> u) {
  return Pack(ProblemForPass(problem, map, pass, u));
}

int RefinementPasses(const CostOptions& cost) {
  const bool noise = cost.weights.mode == WeightMode::kNoise;
  const int reweight = noise ? cost.noise.reweight_passes : 0;
  // A search on another problem than the fit's needs one pass on the fit's own.
  const bool other_search = cost.type == CostType::kNormalizedComplex ||
                            (noise && cost.weights.search_peak_gain != 1.0);
  return std::max(reweight, other_search ? 1 : 0);
}

}  // namespace frfit
