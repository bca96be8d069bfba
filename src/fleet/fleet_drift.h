// Drift since the previous night (docs/fleet.md, "Drift"): for one robot the change of every
// parameter and of every modal frequency, each with its 1σ from both nights' identifiability
// reports and its z-score, flagged by the manifest's rule (FleetDrift); and how the drift reads
// in drift.json, drift.txt and the index page. Not here: the fleet-wide spread of the parameters
// (fleet_spread.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/results/identifiability.h"
#include "frfit/fleet/fleet_manifest.h"
#include "frfit/fleet/fleet_run.h"
#include "frfit/modal/modal.h"
#include "frfit/model/model.h"
#include "src/fleet/fleet_warm_night.h"

namespace frfit {

// The modes up to max_hz of the model with `parameters` (Model::parameters order) at a posture,
// ascending; ModeFrequencies their frequencies.
std::vector<Mode> ModesBelow(const Posture& posture, const Model& model,
                             const std::vector<double>& parameters, double max_hz);
std::vector<double> ModeFrequencies(const Posture& posture, const Model& model,
                                    const std::vector<double>& parameters, double max_hz);

// 1σ (Hz) of the first `modes` of ModesBelow's modes, from the covariance of the free
// parameters in `id` (σ_f² = gᵀ Cov g, g the exact derivatives of the frequency by the
// parameters); NaN for every mode when the covariance is not finite.
std::vector<double> ModeFrequencySigmas(const Posture& posture, const Model& model,
                                        const std::vector<double>& parameters, size_t modes,
                                        const Identifiability& id);

// Fills out->drift_parameters and out->drift_frequencies (and has_drift): every parameter of the
// model, and every mode of the previous parameters per posture of the problem against the nearest
// current mode. `current_modes` are ModesBelow(posture, model, current, the posture's highest
// line) per posture of the problem (the caller has them already: each analysis is done once);
// `current_sigma_hz` their frequency 1σ per posture where the caller has them (the fit's result
// propagated them from `current_id`), an empty list where the drift propagates them itself.
// `current_id` is tonight's identifiability report at `current`, whose fit has `cost`. When the
// previous result's cost is above `poor_baseline_factor` × `cost`, the previous night fitted its
// data far worse than tonight (a local minimum, a bad measurement): nothing is flagged and
// out->drift_note says why.
void ComputeDrift(const Problem& problem, const Model& model, const std::vector<double>& current,
                  const std::vector<std::vector<Mode>>& current_modes,
                  const std::vector<std::vector<double>>& current_sigma_hz,
                  const Identifiability& current_id, double cost, const PreviousNight& previous,
                  const FleetDrift& rule, double poor_baseline_factor, FleetRobotOutcome* out);

// The frequencies of `modes`, in order.
std::vector<double> FrequenciesOf(const std::vector<Mode>& modes);

// The rule as the outputs state it.
nlohmann::ordered_json DriftRuleJson(const FleetDrift& rule);
std::string DriftRuleText(const FleetDrift& rule);

// A robot's drift section of summary.json and drift.json.
nlohmann::ordered_json DriftJson(const FleetRobotOutcome& r);

// The flagged changes, one text each ("k_z2 +5.02% (z 12.3)", "milling mode 2 +2.41% (z 9.8)").
std::vector<std::string> DriftFlags(const FleetRobotOutcome& r);

}  // namespace frfit
