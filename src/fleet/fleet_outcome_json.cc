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
  j["parameter_names"] = r.parameter_names;
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
                                     {"flagged", d.flagged}});
  j["drift_frequencies"] = nlohmann::json::array();
  for (const FleetDriftFrequency& d : r.drift_frequencies)
    j["drift_frequencies"].push_back({{"posture", d.posture},
                                      {"mode", d.mode},
                                      {"previous_hz", DoubleToHex(d.previous_hz)},
                                      {"current_hz", DoubleToHex(d.current_hz)},
                                      {"change_percent", DoubleToHex(d.change_percent)},
                                      {"flagged", d.flagged}});
  j["cost_over_median"] = DoubleToHex(r.cost_over_median);
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
  for (const nlohmann::json& name : Array(j, "parameter_names", c)) {
    if (!name.is_string()) throw Error(kWhat, "parameter_names", "expected strings");
    r.parameter_names.push_back(name.get<std::string>());
  }
  r.parameters = Doubles(j, "parameters", c);
  for (const nlohmann::json& m : Array(j, "modal_frequencies_hz", c))
    r.modal_frequencies_hz.emplace_back(
        JsonField<std::string>(m, "posture", c + ".modal_frequencies_hz"),
        Doubles(m, "hz", c + ".modal_frequencies_hz"));
  r.has_drift = JsonField<bool>(j, "has_drift", c);
  for (const nlohmann::json& d : Array(j, "drift_parameters", c)) {
    const std::string where = c + ".drift_parameters";
    r.drift_parameters.push_back({JsonField<std::string>(d, "name", where),
                                  Double(d, "previous", where), Double(d, "current", where),
                                  Double(d, "change_percent", where),
                                  JsonField<bool>(d, "flagged", where)});
  }
  for (const nlohmann::json& d : Array(j, "drift_frequencies", c)) {
    const std::string where = c + ".drift_frequencies";
    r.drift_frequencies.push_back(
        {JsonField<std::string>(d, "posture", where), JsonField<int>(d, "mode", where),
         Double(d, "previous_hz", where), Double(d, "current_hz", where),
         Double(d, "change_percent", where), JsonField<bool>(d, "flagged", where)});
  }
  r.cost_over_median = Double(j, "cost_over_median", c);
  return r;
}

}  // namespace frfit
