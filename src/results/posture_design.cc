#include "frfit/results/posture_design.h"

#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/cost/static_sets.h"
#include "frfit/fit/load_problem.h"
#include "frfit/frf/noise_estimate.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {
namespace {

// Σ log λ_i of JᵀWJ (relative scaling), each eigenvalue floored at `floor`.
double LogDet(const Identifiability& id, double floor) {
  double sum = 0.0;
  for (double s : id.singular_values) sum += std::log(std::max(s * s, floor));
  return sum;
}

IdentifiabilityInputs Add(IdentifiabilityInputs a, const IdentifiabilityInputs& b) {
  for (size_t t = 0; t < a.normal.size(); ++t) {
    a.normal[t] += b.normal[t];
    a.normal_squared_weights[t] += b.normal_squared_weights[t];
  }
  a.unweighted_cost += b.unweighted_cost;
  a.residuals += b.residuals;
  return a;
}

// The fitted postures' noise, entry by entry: the mean of their relative terms and of their
// floors as fractions of each entry's peak (NaN where none has a noise model).
NoiseTerms TypicalNoise(const Problem& fitted) {
  NoiseTerms mean;
  std::array<int, 9> count{};
  for (const ProblemPosture& pp : fitted.postures) {
    const NoiseTerms t = PooledNoiseTerms(pp.measured);
    for (int e = 0; e < 9; ++e) {
      if (!std::isfinite(t.relative[e])) continue;
      mean.relative[e] += t.relative[e];
      mean.floor_of_peak[e] += t.floor_of_peak[e];
      ++count[e];
    }
  }
  for (int e = 0; e < 9; ++e) {
    mean.relative[e] = count[e] ? mean.relative[e] / count[e] : std::nan("");
    mean.floor_of_peak[e] = count[e] ? mean.floor_of_peak[e] / count[e] : std::nan("");
  }
  return mean;
}

// A measurement at the candidate is assumed as noisy as the fitted ones: the typical terms on the
// predicted FRFs. Without a noise model in the fit, none is assumed.
void AssumeNoise(const NoiseTerms& noise, FrfSet* predicted) {
  if (!std::isfinite(*std::max_element(noise.relative.begin(), noise.relative.end(),
                                       [](double a, double b) {
                                         return !std::isfinite(a) || (std::isfinite(b) && b > a);
                                       })))
    return;
  predicted->noise_variance.assign(predicted->H.size(), 0.0);
  predicted->noise_source = "variance";
  for (int e = 0; e < 9; ++e) {
    double peak = 0.0;
    for (int k = 0; k < predicted->num_lines(); ++k) peak = std::max(peak, std::abs(predicted->H[k * 9 + e]));
    const double a = std::isfinite(noise.relative[e]) ? noise.relative[e] : 0.0;
    const double b = std::isfinite(noise.floor_of_peak[e]) ? noise.floor_of_peak[e] * peak : 0.0;
    for (int k = 0; k < predicted->num_lines(); ++k)
      predicted->noise_variance[k * 9 + e] = a * a * std::norm(predicted->H[k * 9 + e]) + b * b;
  }
}

// What a candidate would add, as a problem of its own: the fitted model's predictions there,
// weighted as a measurement of them would be.
class PredictedSets {
 public:
  PredictedSets(const Problem& fitted, std::vector<double> physical)
      : fitted_(fitted), physical_(std::move(physical)), noise_(TypicalNoise(fitted)) {
    for (const ProblemPosture& pp : fitted.postures)
      for (int e = 0; e < 9; ++e) present_[e] = present_[e] || pp.measured.present[e];
  }

  // FRFs between the candidate's points on the first fitted posture's lines and format, the
  // entries any fitted set has, with the fitted sets' typical noise.
  Problem Frfs(const DesignCandidate& set) const {
    const Model& model = *fitted_.model;
    const PostureSpec& candidate = set.posture;
    const FrfSet& grid = fitted_.postures.front().measured;
    const Posture posture = Linearize(model, candidate.q, candidate.name);
    const MeasurementPoints points = PointsAt(model, posture, set.response_frame,
                                              set.excitation_frame, "candidate " + candidate.name);
    FrfSet predicted = Synthesize(posture, Coefficients(model, physical_, candidate.q),
                                         grid.frequency_hz, grid.format, points);
    predicted.posture = candidate.name;
    predicted.present = present_;
    AssumeNoise(noise_, &predicted);
    Problem added = Empty();
    added.cost.noise.source = NoiseSource::kAuto;  // the assumed noise, not one of exact data
    added.postures = {
        PreparePosture(posture, predicted, fitted_.cost, "predicted at " + candidate.name, 1.0)};
    added.postures[0].points = points;
    const std::string name = SetName(added.postures[0]);
    for (const ProblemPosture& pp : fitted_.postures)
      if (SetName(pp) == name)
        throw Error("", "candidate " + name,
                    name == candidate.name ? "is a posture the fit already has"
                                           : "is a set the fit already has");
    return added;
  }

  // The static load case's tests, each displacement the fitted model's deflection (so that a
  // robust loss weighs them as it would a test that fits).
  Problem StaticLoad(const DesignCandidate& set) const {
    Problem added = Empty();
    AddStaticTests({"candidate " + set.posture.name, "", set.static_tests}, &added);
    for (ProblemPosture& pp : added.postures) {
      const Eigen::Vector3d deflection = PredictedDeflection(*fitted_.model, pp, physical_);
      for (int i = 0; i < 3; ++i) pp.measured.H[EntryIndex(i, 0)] = deflection(i);
    }
    return added;
  }

 private:
  Problem Empty() const {
    Problem added;
    added.model = fitted_.model;
    added.cost = fitted_.cost;
    return added;
  }

  const Problem& fitted_;
  std::vector<double> physical_;
  NoiseTerms noise_;
  std::array<bool, 9> present_{};
};

}  // namespace

double NatsToHalveEverySigma(int p) { return 2.0 * p * std::log(2.0); }

PostureDesign RankCandidatePostures(const Problem& fitted, const ParameterMap& map,
                                    std::span<const double> u,
                                    const std::vector<PostureSpec>& candidates) {
  std::vector<DesignCandidate> sets;
  for (const PostureSpec& posture : candidates) sets.push_back({posture, "", ""});
  return RankCandidates(fitted, map, u, sets);
}

PostureDesign RankCandidates(const Problem& fitted, const ParameterMap& map,
                             std::span<const double> u,
                             const std::vector<DesignCandidate>& candidates,
                             const std::function<void(std::size_t, std::size_t)>& progress) {
  if (fitted.postures.empty()) throw Error("", "design", "the fit has no posture");
  const IdentifiabilityInputs current =
      EvaluateIdentifiabilityInputs(Pack(fitted), map, PostureCoordinates(fitted), u);
  PostureDesign design;
  design.current = AssessIdentifiability(map, u, current);
  const int p = map.dim();
  const double largest = design.current.singular_values.front();
  const double floor = std::max(kNullEigenvalue * largest * largest, 1e-300);
  const double log_det = LogDet(design.current, floor);

  const PredictedSets predict(fitted, map.Physical(u));
  for (const DesignCandidate& set : candidates) {
    const Problem added = set.static_tests.empty() ? predict.Frfs(set) : predict.StaticLoad(set);
    IdentifiabilityInputs combined =
        Add(current, EvaluateIdentifiabilityInputs(Pack(added), map, PostureCoordinates(added), u));
    // The predicted FRFs fit exactly; assume the fit's residual level for the new lines too.
    combined.unweighted_cost = design.current.sigma2 * (combined.residuals - p);
    combined.fixed_scaling =
        design.current.sigma_basis == SigmaBasis::kNoiseModelScaled ? design.current.widening : 1.0;
    CandidateRanking ranking;
    ranking.posture = set.posture;
    ranking.response_frame = set.response_frame;
    ranking.excitation_frame = set.excitation_frame;
    ranking.static_tests = set.static_tests;
    ranking.predicted = AssessIdentifiability(map, u, combined);
    ranking.log_det_gain = LogDet(ranking.predicted, floor) - log_det;
    design.candidates.push_back(std::move(ranking));
    if (progress) progress(design.candidates.size(), candidates.size());
  }
  std::stable_sort(design.candidates.begin(), design.candidates.end(),
                   [](const CandidateRanking& a, const CandidateRanking& b) {
                     return a.log_det_gain > b.log_det_gain;
                   });
  return design;
}

}  // namespace frfit
