#include "src/fleet/fleet_drift.h"

#include <cmath>
#include <cstdio>

#include "frfit/common/error.h"
#include "frfit/results/mode_uncertainty.h"
#include "frfit/modal/modal.h"
#include "frfit/modal/mode_pairing.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::ordered_json JsonNumber(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

// The 1σ of a parameter in a night's report (in its unit), NaN when the report has none for it.
double ParameterSigma(const Identifiability& id, const std::string& name) {
  for (const ParameterIdentifiability& p : id.per_parameter)
    if (p.name == name) return p.std_absolute;
  return kNaN;
}

// The rule of FleetDrift: beyond `sigma` standard deviations of the change and, when a percent
// threshold is given, beyond it too; without a 1σ, beyond the percent threshold (or its default).
// A change that is not a number (a mode gone from the band) is flagged.
bool Flagged(double change_percent, double z, double given_percent, double percent_without_sigma,
             const FleetDrift& rule) {
  if (std::isnan(change_percent)) return true;
  const double percent = std::fabs(change_percent);
  if (std::isnan(z)) return percent > (given_percent > 0.0 ? given_percent : percent_without_sigma);
  return std::fabs(z) > rule.sigma && percent > given_percent;
}

// change / sigma, NaN without a sigma; a change against a 1σ of exactly 0 (noise-free data) is
// infinitely significant unless it is 0 too.
double ZScore(double change, double sigma) {
  if (!std::isfinite(sigma) || !std::isfinite(change)) return kNaN;
  if (sigma > 0.0) return change / sigma;
  return change == 0.0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), change);
}

// sqrt(σ_previous² + σ_now²), NaN unless both nights have a 1σ.
double CombinedSigma(double before, double now) {
  return std::isnan(before) || std::isnan(now) ? kNaN : std::hypot(before, now);
}

std::string Percent(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.2f%%", v);
  return buffer;
}

std::string ZText(double z) {
  if (std::isnan(z)) return "";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, " (%.1f sigma)", z);
  return buffer;
}

}  // namespace

std::vector<Mode> ModesBelow(const Posture& posture, const Model& model,
                             const std::vector<double>& parameters, double max_hz) {
  std::vector<Mode> out;
  for (Mode& m : ComputeModes(posture, Coefficients(model, parameters, posture.q)))
    if (m.frequency_hz <= max_hz) out.push_back(std::move(m));
  return out;
}

std::vector<double> ModeFrequencies(const Posture& posture, const Model& model,
                                    const std::vector<double>& parameters, double max_hz) {
  return FrequenciesOf(ModesBelow(posture, model, parameters, max_hz));
}

std::vector<double> FrequenciesOf(const std::vector<Mode>& modes) {
  std::vector<double> out;
  for (const Mode& m : modes) out.push_back(m.frequency_hz);
  return out;
}

std::vector<double> ModeFrequencySigmas(const Posture& posture, const Model& model,
                                        const std::vector<double>& parameters, size_t modes,
                                        const Identifiability& id) {
  std::vector<double> out;
  for (const ModeSigma& sigma : PropagateModeSigmas(posture, model, parameters, id))
    if (out.size() < modes) out.push_back(sigma.frequency_hz);
  return out;
}

void ComputeDrift(const Problem& problem, const Model& model, const std::vector<double>& current,
                  const std::vector<std::vector<Mode>>& current_modes,
                  const std::vector<std::vector<double>>& current_sigma_hz,
                  const Identifiability& current_id, double cost, const PreviousNight& previous,
                  const FleetDrift& rule, double poor_baseline_factor, FleetRobotOutcome* out) {
  const Identifiability none;
  const Identifiability& before_id = previous.has_identifiability ? previous.identifiability : none;
  out->has_drift = true;
  for (size_t p = 0; p < problem.postures.size(); ++p) {
    const ProblemPosture& pp = problem.postures[p];
    const double max_hz = pp.measured.frequency_hz.back();
    // Each night's modes analysed once per posture: their frequencies, their 1σ and the pairing
    // all read the same analysis.
    const std::vector<Mode>& now_modes = current_modes[p];
    const std::vector<Mode> before_modes = ModesBelow(pp.posture, model, previous.parameters, max_hz);
    const std::vector<double> now = FrequenciesOf(now_modes);
    const bool given = p < current_sigma_hz.size() && current_sigma_hz[p].size() >= now.size();
    const std::vector<double> now_sigma =
        given ? std::vector<double>(current_sigma_hz[p].begin(),
                                    current_sigma_hz[p].begin() + now.size())
              : ModeFrequencySigmas(pp.posture, model, current, now.size(), current_id);
    const std::vector<double> before = FrequenciesOf(before_modes);
    const std::vector<double> before_sigma =
        previous.has_identifiability
            ? ModeFrequencySigmas(pp.posture, model, previous.parameters, before.size(), before_id)
            : std::vector<double>(before.size(), kNaN);
    // Last night's modes paired one to one with tonight's (a mode that left the band, or that
    // no longer has a partner, reads as missing).
    const std::vector<int> partner = PairModes(before_modes, now_modes, {0.25, 0.0});
    for (size_t k = 0; k < before.size(); ++k) {
      FleetDriftFrequency d;
      d.posture = pp.posture.name;
      d.mode = static_cast<int>(k) + 1;
      d.previous_hz = before[k];
      const size_t nearest = partner[k] < 0 ? now.size() : static_cast<size_t>(partner[k]);
      d.current_hz = nearest < now.size() ? now[nearest] : kNaN;
      d.change_percent = 100.0 * (d.current_hz - before[k]) / before[k];
      if (nearest < now.size()) d.sigma_hz = CombinedSigma(before_sigma[k], now_sigma[nearest]);
      d.z = ZScore(d.current_hz - before[k], d.sigma_hz);
      d.flagged = Flagged(d.change_percent, d.z, rule.frequency_percent,
                          kDriftFrequencyPercentWithoutSigma, rule);
      out->drift_frequencies.push_back(d);
    }
  }
  for (int k = 0; k < model.num_parameters(); ++k) {
    FleetDriftParameter d;
    d.name = model.parameters[k].name;
    d.previous = previous.parameters[k];
    d.current = current[k];
    d.change_percent = 100.0 * (d.current - d.previous) / d.previous;
    d.sigma = CombinedSigma(ParameterSigma(before_id, d.name), ParameterSigma(current_id, d.name));
    d.z = ZScore(d.current - d.previous, d.sigma);
    d.flagged = Flagged(d.change_percent, d.z, rule.parameter_percent,
                        kDriftParameterPercentWithoutSigma, rule);
    out->drift_parameters.push_back(d);
  }
  if (previous.cost > poor_baseline_factor * cost) {
    char note[200];
    std::snprintf(note, sizeof note,
                  "not assessed: the previous result fitted its data %.3g x worse than tonight's "
                  "(cost %.4g against "
                  "%.4g), so its parameters are no baseline",
                  previous.cost / cost, previous.cost, cost);
    out->drift_note = note;
    for (FleetDriftParameter& d : out->drift_parameters) d.flagged = false;
    for (FleetDriftFrequency& d : out->drift_frequencies) d.flagged = false;
  }
}

nlohmann::ordered_json DriftRuleJson(const FleetDrift& rule) {
  return {
      {"sigma", rule.sigma},
      {"parameter_percent",
       rule.parameter_percent > 0.0 ? JsonNumber(rule.parameter_percent) : nullptr},
      {"frequency_percent",
       rule.frequency_percent > 0.0 ? JsonNumber(rule.frequency_percent) : nullptr},
      {"without_sigma",
       {{"parameter_percent", rule.parameter_percent > 0.0 ? rule.parameter_percent
                                                           : kDriftParameterPercentWithoutSigma},
        {"frequency_percent", rule.frequency_percent > 0.0 ? rule.frequency_percent
                                                           : kDriftFrequencyPercentWithoutSigma}}}};
}

std::string DriftRuleText(const FleetDrift& rule) {
  std::string text = "# flagged: changes since the robot's previous result beyond " +
                     FormatDouble(rule.sigma) +
                     " sigma of the change (both nights' identifiability)";
  if (rule.parameter_percent > 0.0)
    text += ", parameters also beyond " + FormatDouble(rule.parameter_percent) + " %";
  if (rule.frequency_percent > 0.0)
    text += ", modal frequencies also beyond " + FormatDouble(rule.frequency_percent) + " %";
  const double p =
      rule.parameter_percent > 0.0 ? rule.parameter_percent : kDriftParameterPercentWithoutSigma;
  const double f =
      rule.frequency_percent > 0.0 ? rule.frequency_percent : kDriftFrequencyPercentWithoutSigma;
  return text + "; without a sigma, parameters beyond " + FormatDouble(p) +
         " %, modal frequencies beyond " + FormatDouble(f) + " %\n";
}

nlohmann::ordered_json DriftJson(const FleetRobotOutcome& r) {
  nlohmann::ordered_json j;
  j["previous"] = r.previous;
  j["flagged"] = r.drift_flagged();
  j["note"] =
      r.drift_note.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.drift_note);
  nlohmann::ordered_json flagged_params = nlohmann::ordered_json::array();
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const FleetDriftParameter& d : r.drift_parameters) {
    if (d.flagged) flagged_params.push_back(d.name);
    params.push_back({{"name", d.name},
                      {"previous", JsonNumber(d.previous)},
                      {"current", JsonNumber(d.current)},
                      {"change_percent", JsonNumber(d.change_percent)},
                      {"sigma", JsonNumber(d.sigma)},
                      {"z", JsonNumber(d.z)},
                      {"flagged", d.flagged}});
  }
  nlohmann::ordered_json flagged_freqs = nlohmann::ordered_json::array();
  nlohmann::ordered_json freqs = nlohmann::ordered_json::array();
  for (const FleetDriftFrequency& d : r.drift_frequencies) {
    nlohmann::ordered_json row = {{"posture", d.posture},
                                  {"mode", d.mode},
                                  {"previous_hz", JsonNumber(d.previous_hz)},
                                  {"current_hz", JsonNumber(d.current_hz)},
                                  {"change_percent", JsonNumber(d.change_percent)},
                                  {"sigma_hz", JsonNumber(d.sigma_hz)},
                                  {"z", JsonNumber(d.z)},
                                  {"flagged", d.flagged}};
    if (d.flagged) flagged_freqs.push_back(row);
    freqs.push_back(row);
  }
  j["flagged_parameters"] = flagged_params;
  j["flagged_frequencies"] = flagged_freqs;
  j["parameters"] = params;
  j["frequencies"] = freqs;
  return j;
}

std::vector<std::string> DriftFlags(const FleetRobotOutcome& r) {
  std::vector<std::string> flags;
  for (const FleetDriftParameter& d : r.drift_parameters)
    if (d.flagged) flags.push_back(d.name + " " + Percent(d.change_percent) + ZText(d.z));
  for (const FleetDriftFrequency& d : r.drift_frequencies)
    if (d.flagged)
      flags.push_back(d.posture + " mode " + std::to_string(d.mode) + " " +
                      Percent(d.change_percent) + ZText(d.z));
  return flags;
}

}  // namespace frfit
