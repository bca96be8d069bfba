// Identifiability: how well a fit's data determine each parameter, read from the weighted
// Jacobian at the solution (docs/identifiability.md). Everything comes from the normal equations
// an Evaluator returns there — the cost F and A = JᵀWJ in the optimiser's u — and the number of
// residuals; nothing is refitted.
//
// The Jacobian is taken with respect to relative parameter changes, θ_j·(1 + ε_j), so singular
// values, correlations and uncertainties do not depend on units or bounds: column j is scaled by
// s_j = |θ_j| (the parameter's span when θ_j = 0).
//
// The cost's weights (peak gains of 50–80 against 0.5 elsewhere) are emphasis, not inverse
// variances, so the textbook σ²(JᵀWJ)⁻¹ would misstate the uncertainty (by 3–4× on a
// three-posture KUKA fit with 2 % noise, measured). With the unweighted residuals δ taken as
// equally noisy, of variance σ² = Σδ² / (m − p) (m residuals, p free parameters), the covariance
// of the weighted least-squares estimate is the sandwich
//     Cov(ε) = σ² (JᵀWJ)⁻¹ (JᵀW²J) (JᵀWJ)⁻¹,
// which is σ²(JᵀJ)⁻¹ when the weights are uniform. JᵀW²J and Σδ² come from the same evaluator,
// run on the problem with squared and with unit weights.
//
// With a noise model (weights = inverse noise variances, docs/noise.md) the weights are the
// likelihood's, every real residual has variance 1/2 in weighted units, and the covariance is
// absolute: (2·JᵀWJ)⁻¹, no pooled variance. Twice the cost is then a χ² with m − p degrees of
// freedom; when its reduced value says the residual is larger than the noise (a model that does
// not explain the data), σ is widened by the residual's own scatter and the assessment says so.
#pragma once

#include <limits>
#include <span>
#include <string>
#include <vector>

#include "frfit/evaluator/packed_problem.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

// A bound a parameter sits at or within 1 % of: of its value for a log-scaled parameter, of the
// span of its bounds for a linear one.
enum class BoundFlag { kNone, kMin, kMax };
std::string ToString(BoundFlag flag);  // "" | "min" | "max"
BoundFlag BoundFlagAt(const ParameterBounds& bounds, double value);

struct ParameterIdentifiability {
  std::string name;
  double value = 0.0;
  double std_absolute = 0.0;  // 1σ in the parameter's unit
  double std_relative = 0.0;  // 1σ / |value| (the scale s_j above)
  BoundFlag at_bound = BoundFlag::kNone;
  // With a prior on the parameter (fit/prior.h): std_absolute and std_relative above are the
  // posterior's, these the prior's 1σ (NaN without one), and moved_by_data says the data narrowed
  // it: posterior 1σ below kMovedByData × the prior's.
  double prior_std_absolute = std::numeric_limits<double>::quiet_NaN();
  double prior_std_relative = std::numeric_limits<double>::quiet_NaN();
  bool moved_by_data = false;
  // What the data did with the prior: posterior 1σ / prior 1σ (1: the data added nothing), and
  // the shift of the fitted value from the prior's mean in prior σ, (value − mean)/σ_prior.
  double prior_mean = std::numeric_limits<double>::quiet_NaN();
  double std_ratio = std::numeric_limits<double>::quiet_NaN();
  double shift_in_prior_std = std::numeric_limits<double>::quiet_NaN();
};

// A posterior 1σ below this fraction of the prior's: the data, not the prior, determine it.
inline constexpr double kMovedByData = 0.5;

// A direction in relative-parameter space the data barely see: an eigenvector of JᵀWJ whose
// singular value is below 1e-3 of the largest, or along which 1σ exceeds 10 %.
struct WeakDirection {
  double singular_value = 0.0;
  double std_relative = 0.0;  // 1σ along the (unit) direction
  // Its dominant components (|c| >= 0.3), largest first; the sign says how they move together.
  std::vector<std::pair<std::string, double>> components;
  std::string description;  // the components as text, e.g. "0.71 k_y1 - 0.70 k_z2"
  // Every component, in Identifiability::per_parameter order (a unit vector, signed as
  // `components`); empty when read from a result written before it was stored.
  std::vector<double> vector;
};

// The reduced χ² beyond which a residual holds more than the noise: 1 + 3 of its standard
// deviations (2/dof)^½ (exceeded by noise alone with probability about 0.1 %), and at least
// kChi2Margin above 1, for the noise model is itself uncertain (an estimate from the data, a
// coherence from a few hits).
inline constexpr double kChi2Margin = 0.15;
inline constexpr int kSandwichBlockLines = 8;
double ReducedChi2Limit(int degrees_of_freedom);

// The reduced χ² below which the residual is smaller than the noise model allows: the 0.1 %
// quantile of χ²_dof / dof (Wilson–Hilferty: (1 − 2/(9 dof) + z·(2/(9 dof))^½)³, z = −3.0902,
// within 1 % of the exact quantile from 30 degrees of freedom up; 0 where it would go negative).
// Noise alone falls below it with probability 0.1 %; below it the noise model overestimates the
// noise (exact or smoothed data), and σ taken from it would be too wide.
double ReducedChi2Floor(int degrees_of_freedom);

// What σ rests on.
//   residual_scatter — the weights are emphasis; σ² from the unweighted residuals' scatter
//   noise_model      — the weights are inverse noise variances; σ absolute
//   noise_model_widened — as noise_model, widened because χ² says the residual exceeds the noise
//   noise_model_scaled — as noise_model, scaled by (reduced χ²)^½ < 1 because χ² is below
//                        ReducedChi2Floor: the noise model overestimates the noise
enum class SigmaBasis { kResidualScatter, kNoiseModel, kNoiseModelWidened, kNoiseModelScaled };
std::string ToString(SigmaBasis basis);

struct Identifiability {
  int residuals = 0;    // m: real residuals with a non-zero weight
  int parameters = 0;   // p: free parameters
  double cost = 0.0;    // F at the solution (weighted)
  // residual_scatter: Σδ² / (m − p), the variance of one unweighted residual; with a noise model
  // the variance of one weighted residual, 1/2 (times the widening). NaN when m <= p.
  double sigma2 = 0.0;
  SigmaBasis sigma_basis = SigmaBasis::kResidualScatter;
  // With a noise model: 2·cost / (m − p), 1 on average when the residual is the noise; NaN without.
  double reduced_chi2 = 0.0;
  // The factor σ was multiplied by: > 1 (noise_model_widened), < 1 (noise_model_scaled), else 1.
  double widening = 1.0;
  std::vector<double> singular_values;  // of W^½ J (relative scaling), descending
  double condition_number = 0.0;        // largest / smallest singular value (inf: singular)
  std::vector<ParameterIdentifiability> per_parameter;  // free parameters, in map order
  // With priors: the posterior's, as the per-parameter σ; the weak directions stay the data's.
  std::vector<double> correlation;                      // p×p row-major, same order
  std::vector<WeakDirection> weak_directions;           // weakest first
  bool has_prior = false;                               // some parameter has a prior
  // Parameters tied to the free ones by an equality constraint (fit/parameter_map.h), with their
  // σ mapped from the free parameters' covariance, and the equality that tied each.
  std::vector<ParameterIdentifiability> tied;
  std::vector<std::string> tied_by;
};

// Directions of JᵀWJ whose eigenvalue is below kNullEigenvalue × the largest are treated as not
// seen at all: there the covariance is σ²·(JᵀWJ)⁻¹ with the eigenvalue raised to that floor, so a
// parameter along them gets a finite but huge σ, and parameters that only enter as a sum come out
// perfectly (anti-)correlated.
inline constexpr double kNullEigenvalue = 1e-14;

// What the assessment needs at the fitted point u, all from Evaluator::EvaluateNormalEquations
// (terms: cost, JᵀWr, upper triangle of JᵀWJ, in u): with the fit's weights, with the weights
// squared (its JᵀWJ term is JᵀW²J), and with unit weights (its cost term is Σδ²).
struct IdentifiabilityInputs {
  bool noise_weighted = false;  // PackedProblem::noise_weighted
  // The reduced χ² of the model check (linear residuals against the noise model), which decides
  // the widening when given; NaN: the noise-weighted cost's own.
  double reduced_chi2 = std::numeric_limits<double>::quiet_NaN();
  // With noise weights: Σ_b G_b G_bᵀ over blocks of kSandwichBlockLines consecutive lines of a
  // posture, G_b the block's share of g = JᵀWr (p×p row-major, in u) — the meat of the sandwich
  // that widens σ when the residual exceeds the noise. A misfit's residual is correlated from line
  // to line, which blocks of lines keep, where line by line would not.
  std::vector<double> block_meat;
  std::vector<double> normal;
  std::vector<double> normal_squared_weights;
  double unweighted_cost = 0.0;
  int residuals = 0;
  // Predictions (design) add lines that fit exactly by construction, whose χ² says nothing of the
  // noise: when finite, σ are scaled as the fit's were — by this factor when below 1 (the fit's
  // noise_model_scaled widening), not at all otherwise — instead of by ReducedChi2Floor.
  double fixed_scaling = std::numeric_limits<double>::quiet_NaN();
};

Identifiability AssessIdentifiability(const ParameterMap& map, std::span<const double> u,
                                      const IdentifiabilityInputs& inputs);

// One sentence for the commands that use a fit's σ (map, lobes, design) when σ were scaled because
// the noise model overestimates the noise; "" otherwise.
std::string SigmaNote(const Identifiability& id);
// One sentence when free parameters sit at a bound (their linearised 1σ assumes they may move
// both ways; they can only move away from the bound); "" otherwise.
std::string AtBoundNote(const Identifiability& id);

// The evaluations IdentifiabilityInputs needs, on the cpu backend. Inputs of two problems over
// the same parameters add term by term (each term is a sum over postures and lines).
IdentifiabilityInputs EvaluateIdentifiabilityInputs(
    const PackedProblem& problem, const ParameterMap& map,
    const std::vector<std::vector<double>>& posture_q, std::span<const double> u);

// EvaluateIdentifiabilityInputs, then the assessment.
Identifiability AssessIdentifiability(const PackedProblem& problem, const ParameterMap& map,
                                      const std::vector<std::vector<double>>& posture_q,
                                      std::span<const double> u);

}  // namespace frfit
