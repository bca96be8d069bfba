// Problem: what one fit compares — a model, one or more postures with their measured FRF sets
// prepared for the cost (band, symmetrisation, fitted format, weights) — and its packing for the
// evaluators. Preparing is where bad measured data are caught, with the line named.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "frfit/cost/cost_options.h"
#include "frfit/cost/modal_sets.h"
#include "frfit/evaluator/packed_problem.h"
#include "frfit/frf/frf_set.h"
#include "frfit/frf/noise_estimate.h"
#include "frfit/model/model.h"
#include "frfit/posture/posture.h"
#include "frfit/posture/reduction.h"

namespace frfit {

struct ProblemPosture {
  Posture posture;
  // Where the set was measured: its response and excitation points (measured.response_frame and
  // excitation_frame resolved on the model, SetMeasurementPoints). Empty bases: the sensor's (the
  // tool tip); Pack refuses a set that names frames without them.
  MeasurementPoints points;
  // prepared: in band, symmetrised, in cost.fit_format, bad lines out; its noise_variance is the
  // noise model the fit uses (noise_source "variance" or "coherence" from the file, "estimated"
  // from the data: noise_estimate), empty when there is none (cost.noise and docs/noise.md)
  FrfSet measured;
  NoiseEstimate noise_estimate;  // when measured.noise_source is "estimated"
  std::vector<double> weights;  // [line][9]; 0 where an entry is not fitted
  double posture_weight = 1.0;
  std::string source;           // the FRF file
  std::vector<double> dropped_hz;  // lines left out as bad (drop_bad_lines)
  // A static deflection test (cost/static_sets.h): one line at 0 Hz, scored by the linear
  // residual with weights 1/σ² whatever cost.type says; not an FRF set for the modal and model
  // checks.
  bool is_static = false;
  Eigen::Vector3d static_force_n = Eigen::Vector3d::Zero();  // its force, in the force frame's axes
  // The posture reduced for the evaluators (fit/reduce_problem.h, docs/reduction.md), null when it
  // is solved in full: Pack takes the reduced posture and points, the packed coefficients follow
  // the reduced layout (ParameterMap::UseReducedLayout). The host's results after the fit take
  // the reduced posture too unless assess_on_full (fit/host_posture.h).
  std::shared_ptr<const Reduction> reduction;
  bool assess_on_full = false;  // reduction.assess_on: full
  double reduction_error = 0.0;  // ReductionError at the parameter samples, over the set's lines
  double basis_seconds = 0.0, error_seconds = 0.0;  // wall time of Reduce and of ReductionError
};

struct Problem {
  std::shared_ptr<const Model> model;
  CostOptions cost;
  std::vector<ProblemPosture> postures;
  // Measured modes fitted beside (or instead of) the sets above, on the host (fit/modal_cost.h);
  // Pack ignores them.
  ModalData modes;
};

// Prepares one posture's measured data. The posture of `measured` must match `posture.name`
// unless allow_other_posture_name. Throws Error naming `source` and the line/field at fault.
ProblemPosture PreparePosture(const Posture& posture, const FrfSet& measured,
                              const CostOptions& cost, const std::string& source,
                              double posture_weight);

// Resolves the set's response and excitation frames on `model` into posture->points (an Error
// naming `source` for a frame the model does not have).
void SetMeasurementPoints(const Model& model, const std::string& source, ProblemPosture* posture);

// The posture's measurement points, the sensor's when none were set.
MeasurementPoints PointsOf(const ProblemPosture& posture);

// A name for one set of a problem: the posture's name for a tool-tip set, else
// "posture:response:excitation" (a posture can carry several sets, one per pair of points); a
// static test's is its source (file and entry).
std::string SetName(const ProblemPosture& posture);
// The same name for a posture and two frames ("" = the sensor).
std::string SetName(const std::string& posture, const std::string& response_frame,
                    const std::string& excitation_frame);

// The weights of a prepared set, [line][9]: peak picking, bands, uniform, or the inverse noise
// variances (WeightMode::kNoise, from prepared.noise_variance).
std::vector<double> ComputeWeights(const FrfSet& prepared, const CostOptions& cost);

// Noise weights (WeightMode::kNoise) of a prepared posture recomputed at a model's FRF on its
// lines and in its format: |H_model|²/σ² for the log costs, 1/σ² for normalized_complex, where σ²
// is the file's variance, or the estimated noise model evaluated at |H_model|. The reweighting
// passes of a fit (cost.noise.reweight_passes); entries not fitted keep weight 0.
std::vector<double> NoiseWeightsAtModel(const ProblemPosture& posture, const FrfSet& model,
                                        const CostOptions& cost);

// The lines of entry `entry` at peaks that stand clear of the noise (WeightOptions::search_peak_gain):
// FindPeaks' local maxima at least 10 dB above the noise there and rising above the higher of their
// valleys by at least 3 noise standard deviations (all of FindPeaks' without a noise model).
std::vector<int> ClearPeaks(const FrfSet& set, const WeightOptions& weights, int entry);

// Indices of the local maxima of `magnitude` standing at least min_prominence_db above the
// higher of their two surrounding valleys and at most floor_db below the highest of them.
std::vector<int> FindPeaks(const std::vector<double>& magnitude, double min_prominence_db,
                           double floor_db = std::numeric_limits<double>::infinity());

PackedProblem Pack(const Problem& problem);

// Real residuals of a packed problem: for every line and entry with a non-zero weight, two
// (real and imaginary part) for the complex costs, one for log-magnitude.
int CountResiduals(const PackedProblem& problem);

}  // namespace frfit
