#include "frfit/fleet/fleet_outcome_json.h"

#include <cstdint>

#include "frfit/common/error.h"
#include "frfit/optim/state_json.h"

namespace frfit {
namespace {

constexpr const char* kWhat = "fleet robot outcome";

double Double(const nlohmann::json& j, const char* key, const std::string& context) {
  return DoubleFromHex(JsonField<std::string>(j, key, context), context + "." + key);
}

std::vector<double> Doubles(const nlohmann::json& j, const char* key, const std::string& context) {
  return DoublesFromJson(JsonField<nlohmann::json>(j, key, context), context + "." + key);
}

std::vector<nlohmann::json> Array(const nlohmann::json& j, const char* key,
                                  const std::string& context) {
  const nlohmann::json a = JsonField<nlohmann::json>(j, key, context);
  if (!a.is_array()) throw Error(kWhat, context + "." + key, "expected an array");
  return std::vector<nlohmann::json>(a.begin(), a.end());
}

}  // namespace

nlohmann::json FleetRobotOutcomeToJson(const FleetRobotOutcome& r) {
  nlohmann::json j;
  j["name"] = r.name;
  j["status"] = r.status;
  j["reason"] = r.reason;
  j["seed"] = std::to_string(r.seed);
  j["warm_start"] = r.warm_start;
  j["previous"] = r.previous;
  j["result_file"] = r.result_file;
  j["cost"] = DoubleToHex(r.cost);
  j["evaluations"] = r.evaluations;
  j["cycles"] = r.cycles;
  j["termination"] = r.termination;
  j["model_check"] = r.model_check;
  j["model_check_reasons"] = r.model_check_reasons;
  j["parameter_names"] = r.parameter_names;
  j["parameter_units"] = r.parameter_units;
  j["parameters"] = DoublesToJson(r.parameters);
  j["modal_frequencies_hz"] = nlohmann::json::array();
  for (const auto& [posture, f] : r.modal_frequencies_hz)
    j["modal_frequencies_hz"].push_back({{"posture", posture}, {"hz", DoublesToJson(f)}});
  j["has_drift"] = r.has_drift;
  j["drift_parameters"] = nlohmann::json::array();
  for (const FleetDriftParameter& d : r.drift_parameters)
    j["drift_parameters"].push_back({{"name", d.name},
                                     {"previous", DoubleToHex(d.previous)},
                                     {"current", DoubleToHex(d.current)},
                                     {"change_percent", DoubleToHex(d.change_percent)},
                                     {"sigma", DoubleToHex(d.sigma)},
                                     {"z", DoubleToHex(d.z)},
                                     {"flagged", d.flagged}});
  j["drift_frequencies"] = nlohmann::json::array();
  for (const FleetDriftFrequency& d : r.drift_frequencies)
    j["drift_frequencies"].push_back({{"posture", d.posture},
                                      {"mode", d.mode},
                                      {"previous_hz", DoubleToHex(d.previous_hz)},
                                      {"current_hz", DoubleToHex(d.current_hz)},
                                      {"change_percent", DoubleToHex(d.change_percent)},
                                      {"sigma_hz", DoubleToHex(d.sigma_hz)},
                                      {"z", DoubleToHex(d.z)},
                                      {"flagged", d.flagged}});
  j["cost_over_median"] = DoubleToHex(r.cost_over_median);
  j["warm_start_method"] = r.warm_start_method;
  j["previous_cost"] = DoubleToHex(r.previous_cost);
  j["warm_path"] = r.warm_path;
  j["warm_path_reason"] = r.warm_path_reason;
  j["fell_back"] = r.fell_back;
  j["fallback"] = {{"reason", r.fallback.reason},
                   {"warm_cost", DoubleToHex(r.fallback.warm_cost)},
                   {"warm_evaluations", r.fallback.warm_evaluations},
                   {"kept_warm", r.fallback.kept_warm}};
  j["drift_note"] = r.drift_note;
  return j;
}

FleetRobotOutcome FleetRobotOutcomeFromJson(const nlohmann::json& j) {
  const std::string c = kWhat;
  FleetRobotOutcome r;
  r.name = JsonField<std::string>(j, "name", c);
  r.status = JsonField<std::string>(j, "status", c);
  r.reason = JsonField<std::string>(j, "reason", c);
  const std::string seed = JsonField<std::string>(j, "seed", c);
  size_t used = 0;
  try {
    r.seed = std::stoull(seed, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != seed.size())
    throw Error(kWhat, "seed", "expected an unsigned 64-bit integer, got '" + seed + "'");
  r.warm_start = JsonField<bool>(j, "warm_start", c);
  r.previous = JsonField<std::string>(j, "previous", c);
  r.result_file = JsonField<std::string>(j, "result_file", c);
  r.cost = Double(j, "cost", c);
  r.evaluations = JsonField<std::int64_t>(j, "evaluations", c);
  r.cycles = JsonField<int>(j, "cycles", c);
  r.termination = JsonField<std::string>(j, "termination", c);
  r.model_check = JsonField<std::string>(j, "model_check", c);
  for (const nlohmann::json& reason : Array(j, "model_check_reasons", c)) {
    if (!reason.is_string()) throw Error(kWhat, "model_check_reasons", "expected strings");
    r.model_check_reasons.push_back(reason.get<std::string>());
  }
  for (const nlohmann::json& name : Array(j, "parameter_names", c)) {
    if (!name.is_string()) throw Error(kWhat, "parameter_names", "expected strings");
    r.parameter_names.push_back(name.get<std::string>());
  }
  for (const nlohmann::json& unit : Array(j, "parameter_units", c)) {
    if (!unit.is_string()) throw Error(kWhat, "parameter_units", "expected strings");
    r.parameter_units.push_back(unit.get<std::string>());
  }
  r.parameters = Doubles(j, "parameters", c);
  for (const nlohmann::json& m : Array(j, "modal_frequencies_hz", c))
    r.modal_frequencies_hz.emplace_back(
        JsonField<std::string>(m, "posture", c + ".modal_frequencies_hz"),
        Doubles(m, "hz", c + ".modal_frequencies_hz"));
  r.has_drift = JsonField<bool>(j, "has_drift", c);
  for (const nlohmann::json& d : Array(j, "drift_parameters", c)) {
    const std::string where = c + ".drift_parameters";
    FleetDriftParameter p;
    p.name = JsonField<std::string>(d, "name", where);
    p.previous = Double(d, "previous", where);
    p.current = Double(d, "current", where);
    p.change_percent = Double(d, "change_percent", where);
    p.sigma = Double(d, "sigma", where);
    p.z = Double(d, "z", where);
    p.flagged = JsonField<bool>(d, "flagged", where);
    r.drift_parameters.push_back(p);
  }
  for (const nlohmann::json& d : Array(j, "drift_frequencies", c)) {
    const std::string where = c + ".drift_frequencies";
    FleetDriftFrequency f;
    f.posture = JsonField<std::string>(d, "posture", where);
    f.mode = JsonField<int>(d, "mode", where);
    f.previous_hz = Double(d, "previous_hz", where);
    f.current_hz = Double(d, "current_hz", where);
    f.change_percent = Double(d, "change_percent", where);
    f.sigma_hz = Double(d, "sigma_hz", where);
    f.z = Double(d, "z", where);
    f.flagged = JsonField<bool>(d, "flagged", where);
    r.drift_frequencies.push_back(f);
  }
  r.cost_over_median = Double(j, "cost_over_median", c);
  r.warm_start_method = JsonField<std::string>(j, "warm_start_method", c);
  r.previous_cost = Double(j, "previous_cost", c);
  r.warm_path = JsonField<std::string>(j, "warm_path", c);
  r.warm_path_reason = JsonField<std::string>(j, "warm_path_reason", c);
  r.fell_back = JsonField<bool>(j, "fell_back", c);
  const std::string where = c + ".fallback";
  const nlohmann::json f = JsonField<nlohmann::json>(j, "fallback", c);
  r.fallback.reason = JsonField<std::string>(f, "reason", where);
  r.fallback.warm_cost = Double(f, "warm_cost", where);
  r.fallback.warm_evaluations = JsonField<std::int64_t>(f, "warm_evaluations", where);
  r.fallback.kept_warm = JsonField<bool>(f, "kept_warm", where);
  r.drift_note = JsonField<std::string>(j, "drift_note", c);
  return r;
}

}  // namespace frfit
