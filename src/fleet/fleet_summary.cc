// What a fleet night reports (fleet_night.h): summary.json (FleetReportToJson, also what
// --json prints), summary.csv, drift.json and drift.txt, and the report's counts. Not here: the
// HTML pages (fleet_reports.cc) and each robot's drift (fleet_drift.h).
#include <algorithm>
#include <cmath>
#include <ctime>

#include "frfit/common/error.h"
#include "frfit/common/json_number.h"
#include "frfit/files/atomic_file.h"
#include "src/fleet/fleet_drift.h"
#include "src/fleet/fleet_night.h"
#include "src/fleet/fleet_spread.h"

namespace frfit {
namespace {

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return out + "\"";
}

nlohmann::ordered_json WarmStartJson(const FleetWarmStart& w) {
  nlohmann::ordered_json j = {{"method", ToString(w.method)}, {"init_spread", w.init_spread}};
  if (w.method == WarmStartMethod::kGeneticAlgorithm) {
    j["generations"] = w.generations;
  } else {
    j["starts"] = w.starts;
    j["fallback"] = w.fallback;
    j["max_cost_over_previous"] = w.max_cost_over_previous;
    j["short_path"] = w.short_path;
    if (w.short_path) j["sigma_step"] = w.sigma_step;
  }
  return j;
}

std::string Num(double v) { return std::isfinite(v) ? FormatDouble(v) : std::string(""); }

std::string SummaryCsv(const FleetReport& report) {
  std::vector<std::string> names;  // union of parameter names, first-seen order
  for (const FleetRobotOutcome& r : report.robots)
    for (const std::string& n : r.parameter_names)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  std::string csv =
      "robot,status,reason,seed,warm_start,fallback,cost,evaluations,cycles,termination,"
      "model_check,drift,drift_parameters,drift_frequencies,modal_frequencies_hz";
  for (const std::string& n : names) csv += "," + n;
  csv += "\n";
  for (const FleetRobotOutcome& r : report.robots) {
    const bool ok = r.status == "ok";
    std::string drift_params, drift_freqs, modes;
    for (const FleetDriftParameter& d : r.drift_parameters)
      if (d.flagged) drift_params += (drift_params.empty() ? "" : " ") + d.name;
    for (const FleetDriftFrequency& d : r.drift_frequencies)
      if (d.flagged) drift_freqs += (drift_freqs.empty() ? "" : " ") + d.posture + "#" + std::to_string(d.mode);
    for (const auto& [posture, f] : r.modal_frequencies_hz) {
      if (!modes.empty()) modes += ';';
      modes += posture;
      modes += '=';
      for (size_t k = 0; k < f.size(); ++k) {
        if (k) modes += ' ';
        modes += FormatDouble(f[k]);
      }
    }
    csv += CsvField(r.name) + "," + r.status + "," + CsvField(r.reason) + "," +
           std::to_string(r.seed) + "," + (r.warm_start ? "1" : "0") + "," +
           CsvField(r.fell_back ? r.fallback.reason : "") + "," + (ok ? Num(r.cost) : "") + "," +
           (ok ? std::to_string(r.evaluations) : "") + "," + (ok ? std::to_string(r.cycles) : "") +
           "," + r.termination + "," + r.model_check + "," +
           (!r.has_drift            ? ""
            : !r.drift_note.empty() ? "not_assessed"
            : r.drift_flagged()     ? "flagged"
                                    : "none") +
           "," + CsvField(drift_params) + "," + CsvField(drift_freqs) + "," + CsvField(modes);
    for (const std::string& n : names) {
      csv += ",";
      for (size_t k = 0; k < r.parameter_names.size(); ++k)
        if (r.parameter_names[k] == n) csv += Num(r.parameters[k]);
    }
    csv += "\n";
  }
  return csv;
}

std::string UtcNow(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, format, &utc);
  return buffer;
}

}  // namespace

bool FleetRobotOutcome::cost_flagged() const { return cost_over_median > kFleetHighCostFactor; }

int FleetReport::fell_back() const {
  return static_cast<int>(
      std::count_if(robots.begin(), robots.end(), [](const auto& r) { return r.fell_back; }));
}

bool FleetRobotOutcome::drift_flagged() const {
  for (const FleetDriftParameter& d : drift_parameters)
    if (d.flagged) return true;
  for (const FleetDriftFrequency& d : drift_frequencies)
    if (d.flagged) return true;
  return false;
}

int FleetReport::short_path() const {
  return static_cast<int>(std::count_if(robots.begin(), robots.end(), [](const auto& r) {
    return r.warm_path == "short" && !r.fell_back;
  }));
}

int FleetReport::ok() const {
  return static_cast<int>(std::count_if(robots.begin(), robots.end(), [](const auto& r) { return r.status == "ok"; }));
}
int FleetReport::skipped() const { return static_cast<int>(robots.size()) - ok(); }

std::string FleetDefaultRunId() { return UtcNow("%Y-%m-%dT%H%M%SZ"); }

std::string FleetUtcNow() { return UtcNow("%Y-%m-%dT%H:%M:%SZ"); }

nlohmann::ordered_json FleetReportToJson(const FleetReport& report) {
  nlohmann::ordered_json j;
  j["format"] = "frfit-fleet-summary-1";
  j["run_id"] = report.run_id;
  j["started_utc"] = report.started_utc;
  j["run_dir"] = report.run_dir;
  j["manifest"] = report.manifest;
  j["backend"] = report.backend;
  j["ranks"] = report.ranks;
  j["robots_ok"] = report.ok();
  j["robots_skipped"] = report.skipped();
  j["robots_fell_back"] = report.fell_back();
  if (report.warm_start.method == WarmStartMethod::kLevenbergMarquardt &&
      report.warm_start.short_path)
    j["robots_short_path"] = report.short_path();
  j["evaluations"] = report.evaluations;
  j["resumed_at_evaluations"] = report.resumed_at_evaluations >= 0 ? nlohmann::ordered_json(report.resumed_at_evaluations)
                                                                   : nlohmann::ordered_json(nullptr);
  j["rounds"] = report.rounds;
  j["wall_seconds"] = report.wall_seconds;
  j["drive_seconds"] = report.drive_seconds;
  j["evaluator_seconds"] = report.evaluator_seconds;
  const FleetStageSeconds& t = report.stage_seconds;
  j["stage_seconds"] = {{"load", t.load},       {"check_inputs", t.check_inputs},
                        {"fit", t.fit},         {"fallback", t.fallback},
                        {"results", t.results}, {"drift", t.drift},
                        {"reports", t.reports}, {"summary", t.summary}};
  j["warm_start"] = WarmStartJson(report.warm_start);
  j["drift_thresholds"] = DriftRuleJson(report.drift);
  j["parameter_spread"] = FleetSpreadJson(FleetSpread(report));
  j["robots"] = nlohmann::ordered_json::array();
  for (const FleetRobotOutcome& r : report.robots) {
    nlohmann::ordered_json o;
    o["name"] = r.name;
    o["status"] = r.status;
    if (r.status != "ok") {
      o["reason"] = r.reason;
      o["seed"] = std::to_string(r.seed);
      j["robots"].push_back(o);
      continue;
    }
    o["seed"] = std::to_string(r.seed);  // text: 64-bit seeds do not survive every JSON reader
    o["warm_start"] = r.warm_start;
    if (r.warm_start) {
      o["warm_start_method"] = r.warm_start_method;
      o["previous"] = r.previous;
      o["previous_cost"] = JsonNumber(r.previous_cost);
      if (!r.warm_path.empty()) {
        o["path"] = r.warm_path;
        if (r.warm_path == "full") o["path_reason"] = r.warm_path_reason;
      }
      o["fallback"] =
          !r.fell_back ? nlohmann::ordered_json(nullptr)
                       : nlohmann::ordered_json{{"reason", r.fallback.reason},
                                                {"warm_cost", JsonNumber(r.fallback.warm_cost)},
                                                {"warm_evaluations", r.fallback.warm_evaluations},
                                                {"kept", r.fallback.kept_warm ? "warm" : "cold"}};
    }
    o["result"] = r.result_file;
    o["cost"] = r.cost;
    o["cost_over_median"] = JsonNumber(r.cost_over_median);
    o["cost_flagged"] = r.cost_flagged();
    o["evaluations"] = r.evaluations;
    o["cycles"] = r.cycles;
    o["termination"] = r.termination;
    o["model_check"] = {{"verdict", r.model_check}, {"reasons", r.model_check_reasons}};
    nlohmann::ordered_json params;
    for (size_t k = 0; k < r.parameters.size(); ++k) params[r.parameter_names[k]] = r.parameters[k];
    o["parameters"] = params;
    nlohmann::ordered_json modes;
    for (const auto& [posture, f] : r.modal_frequencies_hz) modes[posture] = f;
    o["modal_frequencies_hz"] = modes;
    if (r.has_drift) o["drift"] = DriftJson(r);
    j["robots"].push_back(o);
  }
  return j;
}

void RateCostsAgainstMedian(FleetReport* report) {
  std::vector<double> costs;
  for (const FleetRobotOutcome& r : report->robots)
    if (r.status == "ok") costs.push_back(r.cost);
  const double median = Median(costs);
  for (FleetRobotOutcome& r : report->robots)
    if (r.status == "ok" && median > 0.0) r.cost_over_median = r.cost / median;
}

void WriteDrift(const FleetNight& night) {
  const FleetReport& report = night.report;
  const FleetManifest& manifest = night.manifest;
  const std::filesystem::path& run_dir = night.run_dir;
  nlohmann::ordered_json drift;
  drift["format"] = "frfit-fleet-drift-2";
  drift["run_id"] = report.run_id;
  drift["thresholds"] = DriftRuleJson(manifest.drift);
  drift["robots"] = nlohmann::ordered_json::array();
  std::string drift_text;
  for (const FleetRobotOutcome& r : report.robots) {
    if (!r.has_drift) continue;
    nlohmann::ordered_json o = DriftJson(r);
    o["name"] = r.name;
    drift["robots"].push_back(o);
    std::string moved;
    for (const std::string& flag : DriftFlags(r)) moved += (moved.empty() ? "" : ", ") + flag;
    drift_text += r.name + ": " +
                  (!r.drift_note.empty() ? "drift " + r.drift_note
                   : moved.empty()       ? "no drift beyond the rule"
                                         : moved) +
                  "\n";
  }
  WriteTextFileAtomically((run_dir / "drift.json").string(), drift.dump(2) + "\n");
  WriteTextFileAtomically((run_dir / "drift.txt").string(),
                          DriftRuleText(manifest.drift) + drift_text);
}

void WriteSummaryCsv(const FleetNight& night) {
  WriteTextFileAtomically((night.run_dir / "summary.csv").string(), SummaryCsv(night.report));
}

void WriteSummaryJson(const FleetNight& night) {
  WriteTextFileAtomically((night.run_dir / "summary.json").string(),
                          FleetReportToJson(night.report).dump(2) + "\n");
}

}  // namespace frfit
