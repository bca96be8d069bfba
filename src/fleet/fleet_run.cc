#include "frfit/fleet/fleet_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <thread>

#include "frfit/common/error.h"
#include "frfit/common/hashing.h"
#include "frfit/common/json_number.h"
#include "frfit/cost/problem.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/fit/fit_result.h"
#include "frfit/fit/history_log.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/load_problem.h"
#include "frfit/io/atomic_file.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/io/output_path.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/report/fleet_index.h"
#include "frfit/report/html_report.h"
#include "frfit/report/report_data.h"
#include "src/evaluator/thread_pool.h"
#include "src/fleet/fleet_drift.h"
#include "src/fleet/fleet_spread.h"
#include "src/fleet/fleet_warm_night.h"

namespace frfit {
namespace {

// 2: the robots' histories moved out to checkpoint.history (fit/history_log.h).
// 3: a second pass refits the warm robots whose result is not trusted; its checkpoints hold the
//    finished first pass too.
constexpr const char* kCheckpointFormat = "frfit-fleet-checkpoint-3";
constexpr const char* kUntrustedRobotsExpected =
    "expected the robots whose first-pass result is not trusted, with one state each";

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One robot ready to fit. Held by unique_ptr: FitRun keeps a pointer to the map, the map one to
// the model.
struct Ready {
  size_t index;  // into the manifest's robots / the outcomes
  std::shared_ptr<const Model> model;
  FitOptions options;       // of the first pass: warm-started when the robot has a previous result
  FitOptions cold_options;  // the configuration as written: a fallback's
  std::string config_source;
  std::unique_ptr<ParameterMap> map;
  Problem problem;
  std::optional<PreviousNight> previous;
  std::unique_ptr<FitRun> run;
  // The second pass, when the warm result is not trusted (fallback_reason says why).
  std::string fallback_reason;
  std::unique_ptr<ParameterMap> cold_map;
  std::unique_ptr<FitRun> cold_run;
};

// Tells the fleet when a round starts (progress lines), counts the rounds — evaluator calls,
// for costs or for the least-squares normal equations — and times the evaluator.
class RoundEvaluator : public ForwardingEvaluator {
 public:
  RoundEvaluator(Evaluator* inner, std::function<void(std::int64_t)> before_round)
      : ForwardingEvaluator(inner), before_round_(std::move(before_round)) {}
  void Evaluate(std::span<const int> individuals, std::span<const double> coefficients,
                std::span<double> costs, std::span<EvalStatus> status) override {
    ++rounds_;
    if (before_round_) before_round_(rounds_);
    const auto t0 = Clock::now();
    ForwardingEvaluator::Evaluate(individuals, coefficients, costs, status);
    seconds_ += std::chrono::duration<double>(Clock::now() - t0).count();
  }
  void EvaluateNormalEquations(const NormalEquationsBatch& batch, std::span<double> normal,
                               std::span<EvalStatus> status) override {
    ++rounds_;
    if (before_round_) before_round_(rounds_);
    const auto t0 = Clock::now();
    ForwardingEvaluator::EvaluateNormalEquations(batch, normal, status);
    seconds_ += std::chrono::duration<double>(Clock::now() - t0).count();
  }
  std::int64_t rounds() const { return rounds_; }
  double seconds() const { return seconds_; }

 private:
  std::function<void(std::int64_t)> before_round_;
  std::int64_t rounds_ = 0;
  double seconds_ = 0.0;  // inside the inner evaluator's Evaluate, progress lines excluded
};

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
  }
  return j;
}

// Calls job(k) for every k in [0, count) on `threads` threads (0: every hardware thread) and
// rethrows the first exception one threw once all have returned. The robots' results, reports and
// drift are independent of each other and take about 0.1 s a robot on one core — a minute and a
// half of a 1024-robot night, longer than its least-squares refinements on 2 cores.
void ForEachRobot(size_t count, int threads, const std::function<void(size_t)>& job) {
  cpu::ThreadPool pool(
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  std::mutex mutex;
  std::exception_ptr first;
  pool.Run(count, [&](size_t k, int) {
    try {
      job(k);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!first) first = std::current_exception();
    }
  });
  if (first) std::rethrow_exception(first);
}

// The middle of the sorted values (the mean of the two middle ones for an even count); NaN for
// none.
double Median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
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

// The index pages of the nights the robots' previous results come from: each run directory
// holding a previous result and an index.html, once, in manifest order, as a link from
// `run_dir` (relative: the runs can be moved together). Both paths are made absolute and
// normalised without touching the file system, as a browser resolves a relative link.
std::vector<FleetIndexRun::Night> PreviousNights(const FleetManifest& manifest,
                                                 const fs::path& run_dir) {
  const fs::path here = fs::absolute(run_dir).lexically_normal();
  std::vector<fs::path> seen;
  std::vector<FleetIndexRun::Night> nights;
  for (const FleetRobot& robot : manifest.robots) {
    if (robot.previous.empty()) continue;
    const fs::path dir = fs::absolute(robot.previous).lexically_normal().parent_path();
    if (dir == here || std::find(seen.begin(), seen.end(), dir) != seen.end()) continue;
    seen.push_back(dir);
    if (!fs::is_regular_file(dir / "index.html")) continue;
    const fs::path link = (dir / "index.html").lexically_relative(here);
    nights.push_back(
        {dir.filename().string(), link.empty() ? (dir / "index.html").string() : link.string()});
  }
  return nights;
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
  j["evaluations"] = report.evaluations;
  j["resumed_at_evaluations"] = report.resumed_at_evaluations >= 0 ? nlohmann::ordered_json(report.resumed_at_evaluations)
                                                                   : nlohmann::ordered_json(nullptr);
  j["rounds"] = report.rounds;
  j["wall_seconds"] = report.wall_seconds;
  j["drive_seconds"] = report.drive_seconds;
  j["evaluator_seconds"] = report.evaluator_seconds;
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

FleetReport RunFleet(const FleetRunOptions& options) {
  const auto start = Clock::now();
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  const FleetManifest manifest = LoadFleetManifest(options.manifest);
  FleetReport report;
  report.manifest = options.manifest;
  report.warm_start = manifest.warm_start;
  report.drift = manifest.drift;
  report.started_utc = FleetUtcNow();
  report.run_id = options.run_id.empty() ? FleetDefaultRunId() : options.run_id;
  if (!IsValidRobotName(report.run_id))
    throw Error("frfit fleet", "--run-id", "expected letters, digits, '_', '-' and '.', got '" + report.run_id + "'");
  if (options.out.empty()) throw Error("frfit fleet", "--out", "expected an output directory");
  if (options.checkpoint_every_evaluations < 0)
    throw Error("frfit fleet", "--checkpoint-every", "expected an integer >= 0");
  if (!(options.checkpoint_every_seconds >= 0.0) || std::isinf(options.checkpoint_every_seconds))
    throw Error("frfit fleet", "--checkpoint-seconds", "expected a finite number >= 0");
  const fs::path run_dir = fs::path(options.out) / report.run_id;
  report.run_dir = run_dir.string();
  const std::string checkpoint_path = (run_dir / CheckpointFileName(options.peers)).string();
  // The robots' cost histories, appended at each checkpoint instead of rewritten in it.
  const std::string history_path = (run_dir / HistoryFileName(options.peers)).string();
  if (options.resume) {
    if (!fs::is_directory(run_dir))
      throw Error("frfit fleet", "--resume", "no run directory " + run_dir.string() + " to resume");
    if (fs::exists(run_dir / "summary.json"))
      throw Error("frfit fleet", "--resume", "run " + report.run_id + " is complete (" +
                                                 (run_dir / "summary.json").string() + " exists); nothing to resume");
    CheckCheckpointRankCount(run_dir.string(), options.peers);
  } else if (IsRankZero(options.peers)) {  // rank 0 makes the directory for every rank
    std::error_code ec;
    fs::create_directories(options.out, ec);
    if (ec) throw Error("frfit fleet", "--out", "cannot create " + options.out + ": " + ec.message());
    if (!fs::create_directory(run_dir, ec)) {
      if (ec) throw Error("frfit fleet", "--out", "cannot create " + run_dir.string() + ": " + ec.message());
      throw Error("frfit fleet", "--run-id", "run directory " + run_dir.string() +
                                                 " exists; refusing to overwrite an earlier run (choose another "
                                                 "--run-id, or --resume to continue it)");
    }
  }
  AgreeWithPeers(options.peers);

  // --- every robot checked before any work; a bad one is skipped with its reason -------------
  std::map<std::string, std::shared_ptr<const Model>> models;
  std::map<std::string, FitOptions> configs;
  std::vector<std::unique_ptr<Ready>> ready;
  report.robots.resize(manifest.robots.size());
  for (size_t i = 0; i < manifest.robots.size(); ++i) {
    const FleetRobot& robot = manifest.robots[i];
    FleetRobotOutcome& out = report.robots[i];
    if (!OwnsRobot(options.peers, i)) continue;  // another rank's
    out.name = robot.name;
    out.seed = robot.seed;
    out.previous = robot.previous;
    try {
      auto r = std::make_unique<Ready>();
      r->index = i;
      auto m = models.find(robot.model);
      if (m == models.end()) m = models.emplace(robot.model, std::make_shared<const Model>(LoadModel(robot.model))).first;
      r->model = m->second;
      const Model& model = *r->model;
      auto c = configs.find(robot.config);
      if (c == configs.end()) c = configs.emplace(robot.config, LoadFitOptions(robot.config)).first;
      r->config_source = robot.config.empty() ? "default fit configuration" : robot.config;
      r->options = r->cold_options = c->second;
      if (robot.frf.empty()) throw Error(manifest.path, "robots." + robot.name + ".frf", "expected at least one FRF file");
      if (!robot.previous.empty()) {
        r->previous = ReadPreviousNight(robot.previous, model);
        r->options = WarmStartOptions(r->options, model, r->previous->parameters,
                                      manifest.warm_start, r->config_source);
        out.warm_start = true;
        out.warm_start_method = ToString(manifest.warm_start.method);
        out.previous_cost = r->previous->cost;
      }
      r->map = std::make_unique<ParameterMap>(model, r->options.parameters, r->config_source);
      r->problem = LoadProblem(r->model, robot.frf, r->options, r->config_source);
      ready.push_back(std::move(r));
    } catch (const std::exception& e) {
      out.status = "skipped";
      out.reason = e.what();
      log("frfit fleet: skipping robot " + robot.name + ": " + out.reason);
    }
  }

  // No output may be an input: a resumed run's directory, or a previous result named there.
  InputFileSet inputs;
  inputs.Add(manifest.path);
  for (const FleetRobot& robot : manifest.robots) {
    for (const std::string& file : {robot.model, robot.config, robot.previous}) inputs.Add(file);
    for (const std::string& file : robot.frf) inputs.Add(file);
  }
  for (const auto& [path, model] : models)
    for (const std::string& file : model->files) inputs.Add(file);
  std::vector<std::string> outputs = {checkpoint_path, history_path};
  for (const char* name : {"drift.json", "drift.txt", "index.html", "summary.csv", "summary.json"})
    outputs.push_back((run_dir / name).string());
  for (const auto& r : ready)
    for (const char* extension : {".h5", ".html"})
      outputs.push_back((run_dir / (manifest.robots[r->index].name + extension)).string());
  for (const std::string& output : outputs)
    if (const std::string* input = inputs.Find(output))
      throw Error(
          "frfit fleet", "--out",
          "expected a run directory that holds no input; " + output + " would overwrite " + *input);

  // Which warm robots the second pass refits cold: a function of the finished first pass only, so
  // a run resumed in the second pass finds the same ones. Its median cost is the whole fleet's:
  // under MPI every rank contributes its robots' costs, each rank exactly once per run — after
  // its first pass, or at once when it resumes in the second (the ranks' collective calls then
  // still pair up, whichever pass each resumed in).
  const bool may_fall_back = manifest.warm_start.method == WarmStartMethod::kLevenbergMarquardt &&
                             manifest.warm_start.fallback;
  auto first_pass_median = [&] {
    std::vector<double> costs;
    for (const auto& r : ready) costs.push_back(r->run->best_cost());
    return Median(AllRanksValues(options.peers, costs));
  };
  auto choose_fallbacks = [&](double median) {
    std::vector<size_t> chosen;
    for (size_t k = 0; k < ready.size(); ++k) {
      Ready& r = *ready[k];
      if (!r.previous) continue;
      r.fallback_reason =
          WarmResultDistrust(*r.run, *r.map, *r.previous, median, manifest.warm_start);
      if (!r.fallback_reason.empty()) chosen.push_back(k);
    }
    return chosen;
  };
  auto make_cold_map = [&](Ready& r) {
    r.cold_map =
        std::make_unique<ParameterMap>(*r.model, r.cold_options.parameters, r.config_source);
  };

  std::unique_ptr<Evaluator> evaluator;
  std::unique_ptr<RoundEvaluator> rounds;
  if (!ready.empty()) {
    // Fingerprint of everything that decides the results, so --resume refuses another fleet's checkpoint.
    Fingerprint fp;
    fp.MixFile(manifest.path);
    for (const auto& r : ready) {
      const FleetRobot& robot = manifest.robots[r->index];
      fp.Mix(robot.name);
      fp.Mix(std::to_string(robot.seed));
      fp.MixFile(robot.model);
      fp.Mix(FitOptionsToYaml(r->options));
      for (const std::string& file : robot.frf) fp.MixFile(file);
      if (!robot.previous.empty()) {
        fp.MixFile(robot.previous);
        fp.Mix(FitOptionsToYaml(r->cold_options));  // a fallback's
      }
    }
    const std::string fingerprint = std::to_string(fp.value());

    const bool checkpoints = options.checkpoint_every_evaluations > 0 || options.checkpoint_every_seconds > 0.0;
    std::optional<HistoryLog> history_log;
    // The history log's jobs: the first pass's runs (one per robot), then the second pass's.
    std::vector<FitRun*> logged;
    std::vector<size_t> logged_rows;  // per job, rows already in the log
    std::vector<size_t> fallbacks;    // into `ready`: the robots of the second pass
    int pass = 1;
    if (options.resume && fs::exists(checkpoint_path)) {
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(ReadFileBytes(checkpoint_path));
      } catch (const nlohmann::json::exception& e) {
        throw Error(checkpoint_path, "", std::string("not a readable checkpoint: ") + e.what());
      }
      if (j.value("format", "") != kCheckpointFormat)
        throw Error(checkpoint_path, "format", std::string("expected ") + kCheckpointFormat);
      if (j.value("fingerprint", "") != fingerprint)
        throw Error(checkpoint_path, "fingerprint",
                    "this checkpoint belongs to another fleet run (manifest, models, FRF files, configurations, "
                    "seeds, previous results or the set of usable robots differ)");
      report.started_utc =
          j.value("started_utc", report.started_utc);  // the night's, not the resume's
      pass = j.value("pass", 0);
      if (pass != 1 && pass != 2) throw Error(checkpoint_path, "pass", "expected 1 or 2");
      const nlohmann::json& first = pass == 1 ? j.at("runs") : j.at("first_pass_runs");
      if (!first.is_array() || first.size() != ready.size())
        throw Error(checkpoint_path, pass == 1 ? "runs" : "first_pass_runs",
                    "expected one state per fitted robot");
      if (!j.contains("history_bytes") || !j["history_bytes"].is_number_integer())
        throw Error(checkpoint_path, "history_bytes", "expected the length of the history log it covers");
      const std::int64_t history_bytes = j["history_bytes"].get<std::int64_t>();
      std::vector<std::string> fallback_names;
      if (pass == 2) fallback_names = j.at("fallback_robots").get<std::vector<std::string>>();
      const int jobs = static_cast<int>(ready.size() + fallback_names.size());
      history_log.emplace(HistoryLog::Resume(history_path, history_bytes));
      std::vector<std::vector<HistoryRow>> histories =
          HistoryLog::Read(history_path, history_bytes, jobs);
      report.resumed_at_evaluations = 0;
      for (size_t k = 0; k < ready.size(); ++k) {
        logged_rows.push_back(histories[k].size());
        ready[k]->run = std::make_unique<FitRun>(*ready[k]->map, ready[k]->options, first[k],
                                                 std::move(histories[k]));
        report.resumed_at_evaluations += ready[k]->run->evaluations();
        logged.push_back(ready[k]->run.get());
      }
      if (pass == 2) {
        // The robots as the checkpoint names them; that they are the ones the first pass does
        // not trust is checked once the fleet's median is known (below).
        for (const std::string& name : fallback_names)
          for (size_t k = 0; k < ready.size(); ++k)
            if (manifest.robots[ready[k]->index].name == name) fallbacks.push_back(k);
        const nlohmann::json& states = j.at("runs");
        if (fallbacks.size() != fallback_names.size() ||
            !std::is_sorted(fallbacks.begin(), fallbacks.end()) || !states.is_array() ||
            states.size() != fallbacks.size())
          throw Error(checkpoint_path, "fallback_robots", kUntrustedRobotsExpected);
        for (size_t i = 0; i < fallbacks.size(); ++i) {
          Ready& r = *ready[fallbacks[i]];
          make_cold_map(r);
          const size_t job = ready.size() + i;
          logged_rows.push_back(histories[job].size());
          r.cold_run = std::make_unique<FitRun>(*r.cold_map, r.cold_options, states[i],
                                                std::move(histories[job]));
          report.resumed_at_evaluations += r.cold_run->evaluations();
          logged.push_back(r.cold_run.get());
        }
      }
      log("frfit fleet: resuming run " + report.run_id + " from " + checkpoint_path + " at " +
          std::to_string(report.resumed_at_evaluations) + " evaluations" +
          (pass == 2
               ? " (second pass: " + std::to_string(fallbacks.size()) + " robot(s) refitted cold)"
               : ""));
    } else {
      if (options.resume) log("frfit fleet: run " + report.run_id + " has no checkpoint; starting it from the beginning");
      for (const auto& r : ready) {
        r->run = std::make_unique<FitRun>(*r->map, r->options, manifest.robots[r->index].seed);
        logged.push_back(r->run.get());
        logged_rows.push_back(0);
      }
      if (checkpoints) history_log.emplace(HistoryLog::Create(history_path));
    }

    evaluator = CreateEvaluator(options.evaluator);
    report.backend = ToString(evaluator->backend());
    log("frfit fleet: " + std::to_string(ready.size()) + " robot(s) to fit, " +
        std::to_string(OwnedRobotCount(options.peers, manifest.robots.size()) - ready.size()) +
        " skipped; backend " + report.backend + " (" + evaluator->description() + ")");

    const std::int64_t evaluations_before = report.resumed_at_evaluations > 0 ? report.resumed_at_evaluations : 0;
    const auto drive_start = Clock::now();
    std::vector<FitRun*> active;  // the runs of the current pass
    auto progress_line = [&](std::int64_t round) {
      int running = 0, in_ga = 0, in_nm = 0, in_lm = 0;
      std::int64_t evaluations = 0;
      std::vector<double> best;
      for (const FitRun* run : logged) evaluations += run->evaluations();
      for (const FitRun* run : active) {
        if (!run->Done()) ++running;
        if (run->phase() == FitPhase::kGeneticAlgorithm) ++in_ga;
        if (run->phase() == FitPhase::kNelderMead) ++in_nm;
        if (run->phase() == FitPhase::kLevenbergMarquardt) ++in_lm;
        if (run->evaluations() > 0) best.push_back(run->best_cost());
      }
      std::sort(best.begin(), best.end());
      const double seconds = std::chrono::duration<double>(Clock::now() - drive_start).count();
      const double rate = seconds > 0 ? (evaluations - evaluations_before) / seconds : 0.0;
      const char* what = pass == 1 ? "robots running" : "robots refitted cold";
      char buffer[256];
      if (best.empty())
        std::snprintf(buffer, sizeof buffer, "round %lld: %d/%zu %s (ga %d, nm %d, lm %d)",
                      static_cast<long long>(round), running, active.size(), what, in_ga, in_nm,
                      in_lm);
      else
        std::snprintf(
            buffer, sizeof buffer,
            "round %lld: %d/%zu %s (ga %d, nm %d, lm %d)  best cost min %.4e median %.4e max %.4e  "
            "evaluations %lld  (%.0f/s)",
            static_cast<long long>(round), running, active.size(), what, in_ga, in_nm, in_lm,
            best.front(), best[best.size() / 2], best.back(), static_cast<long long>(evaluations),
            rate);
      if (options.progress)
        options.progress(buffer);
      else
        log(buffer);
    };
    rounds = std::make_unique<RoundEvaluator>(evaluator.get(), [&](std::int64_t round) {
      if (options.progress_every_rounds > 0 && (round == 1 || round % options.progress_every_rounds == 0))
        progress_line(round);
    });

    std::vector<nlohmann::json>
        first_pass_states;  // the finished first pass, in the second's checkpoints
    DriveOptions drive;
    if (checkpoints) {
      drive.checkpoint_every_evaluations = options.checkpoint_every_evaluations;
      drive.checkpoint_every_seconds = options.checkpoint_every_seconds;
      drive.checkpoint_history = StateHistory::kRowCountOnly;
      drive.checkpoint = [&](const std::vector<nlohmann::json>& states) {
        // The log first: a checkpoint must never record rows the log does not hold yet.
        for (size_t k = 0; k < logged.size(); ++k) {
          const std::vector<HistoryRow>& rows = logged[k]->history();
          history_log->Append(static_cast<int>(k), std::span(rows).subspan(logged_rows[k]));
          logged_rows[k] = rows.size();
        }
        const std::int64_t history_bytes = history_log->Sync();
        nlohmann::json names = nlohmann::json::array();
        for (const auto& r : ready) names.push_back(manifest.robots[r->index].name);
        nlohmann::json j = {{"format", kCheckpointFormat},
                            {"fingerprint", fingerprint},
                            {"run_id", report.run_id},
                            {"started_utc", report.started_utc},
                            {"robots", names},
                            {"history_bytes", history_bytes},
                            {"pass", pass},
                            {"runs", states}};
        if (pass == 2) {
          nlohmann::json fallback_names = nlohmann::json::array();
          for (size_t k : fallbacks)
            fallback_names.push_back(manifest.robots[ready[k]->index].name);
          j["fallback_robots"] = fallback_names;
          j["first_pass_runs"] = first_pass_states;
        }
        WriteTextFileAtomically(checkpoint_path, j.dump());
      };
    }
    BeginShardFits(options.peers);
    // One batched drive over the given robots' runs of the current pass.
    auto drive_pass = [&](const std::vector<size_t>& robots, bool cold) {
      std::vector<PackedProblem> packed;
      std::vector<FitJob> jobs;
      active.clear();
      for (size_t k : robots) {
        const Ready& r = *ready[k];
        FitRun* run = cold ? r.cold_run.get() : r.run.get();
        const ParameterMap* map = cold ? r.cold_map.get() : r.map.get();
        packed.push_back(PackForPass(r.problem, *map, 0, {}));
        jobs.push_back(MakeFitJob(run, *map, r.problem));
        active.push_back(run);
      }
      rounds->SetProblems(std::move(packed));
      DriveFits(jobs, rounds.get(), drive);
    };
    const bool resumed_in_second_pass = pass == 2;
    if (pass == 1) {
      std::vector<size_t> all(ready.size());
      for (size_t k = 0; k < ready.size(); ++k) all[k] = k;
      drive_pass(all, false);
    }
    if (may_fall_back) {
      const std::vector<size_t> chosen = choose_fallbacks(first_pass_median());
      if (resumed_in_second_pass && chosen != fallbacks)
        throw Error(checkpoint_path, "fallback_robots", kUntrustedRobotsExpected);
      fallbacks = chosen;
    }
    if (!resumed_in_second_pass) {
      pass = 2;
      for (size_t i = 0; i < fallbacks.size(); ++i) {
        Ready& r = *ready[fallbacks[i]];
        make_cold_map(r);
        r.cold_run =
            std::make_unique<FitRun>(*r.cold_map, r.cold_options, manifest.robots[r.index].seed);
        logged.push_back(r.cold_run.get());
        logged_rows.push_back(0);
      }
    }
    for (size_t k : fallbacks)
      log("frfit fleet: refitting robot " + manifest.robots[ready[k]->index].name +
          " with its cold configuration: " + ready[k]->fallback_reason);
    if (!fallbacks.empty()) {
      for (const auto& r : ready)
        first_pass_states.push_back(r->run->SaveState(StateHistory::kRowCountOnly));
      drive_pass(fallbacks, true);
    }
    report.drive_seconds = std::chrono::duration<double>(Clock::now() - drive_start).count();
    report.rounds = rounds->rounds();
    report.evaluator_seconds = rounds->seconds();
    if (options.progress_every_rounds > 0) progress_line(report.rounds);
  } else {
    BeginShardFits(options.peers);  // nothing to fit here, but the other ranks wait for this one
    if (may_fall_back) first_pass_median();  // nor costs to add to the fleet's median
  }

  // --- results, per robot, on every thread; the HDF5 library (not thread-safe as Debian builds it)
  // one file at a time ---------------------------------------------------------------------------
  std::mutex hdf5;
  ForEachRobot(ready.size(), options.evaluator.threads, [&](size_t k) {
    const auto& r = ready[k];
    FleetRobotOutcome& out = report.robots[r->index];
    const Model& model = *r->model;
    // A fallback keeps the cold refit unless it ended clearly above the warm result: the warm one
    // was not trusted, and where both found the same minimum (their costs within the agreement
    // tolerance; with noise weights each under weights from its own point) the cold one stands.
    const bool cold =
        r->cold_run &&
        r->cold_run->best_cost() <=
            r->run->best_cost() * (1.0 + r->options.levenberg_marquardt.agreement_tolerance);
    const FitRun& run = cold ? *r->cold_run : *r->run;
    FitResult result = AssembleFitResult(r->problem, cold ? *r->cold_map : *r->map, run,
                                         cold ? r->cold_options : r->options);
    result.backend_given = options.backend_given;
    result.backend_used = report.backend;
    result.wall_seconds = run.ga_seconds() + run.nm_seconds() + run.lm_seconds();
    out.result_file = (run_dir / (out.name + ".h5")).string();
    {
      const std::lock_guard<std::mutex> lock(hdf5);
      WriteFitResult(out.result_file, result);
    }
    out.status = "ok";
    out.cost = result.cost;
    out.evaluations = r->run->evaluations() + (r->cold_run ? r->cold_run->evaluations() : 0);
    out.cycles = result.cycles;
    out.termination = result.termination;
    out.model_check = result.model_check.verdict();
    out.model_check_reasons = result.model_check.reasons;
    out.parameter_names = result.parameter_names;
    out.parameter_units = result.parameter_units;
    out.parameters = result.parameters;
    if (r->cold_run) {
      out.fell_back = true;
      out.fallback = {r->fallback_reason, r->run->best_cost(), r->run->evaluations(), !cold};
    }
    for (const ProblemPosture& pp : r->problem.postures)
      out.modal_frequencies_hz.emplace_back(
          pp.posture.name,
          ModeFrequencies(pp.posture, model, result.parameters, pp.measured.frequency_hz.back()));
    if (r->previous)
      ComputeDrift(r->problem, model, result.parameters, result.identifiability, result.cost,
                   *r->previous, manifest.drift, manifest.warm_start.max_cost_over_previous, &out);
  });
  for (const auto& r : ready) report.evaluations += report.robots[r->index].evaluations;
  if (!GatherShardOutcomes(options.peers, &report)) return report;  // rank 0 writes the outputs

  // Each fitted robot's cost against the fleet's median.
  std::vector<double> costs;
  for (const FleetRobotOutcome& r : report.robots)
    if (r.status == "ok") costs.push_back(r.cost);
  const double median = Median(costs);
  for (FleetRobotOutcome& r : report.robots)
    if (r.status == "ok" && median > 0.0) r.cost_over_median = r.cost / median;
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // --- fleet outputs (atomic each); the summary last, as the mark of a finished run ----------
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
  // Per robot an HTML report, and an index page with one row per robot, its start and drift
  // flags, and each parameter's spread across the fleet.
  ForEachRobot(report.robots.size(), options.evaluator.threads, [&](size_t i) {
    const FleetRobotOutcome& r = report.robots[i];
    if (r.status != "ok") return;
    ReportData data;
    {
      const std::lock_guard<std::mutex> lock(hdf5);
      data = ReadReportData(r.result_file);
    }
    // The report lies next to the index.
    WriteTextFileAtomically((run_dir / (r.name + ".html")).string(),
                            RenderReportHtml(data, {"index.html", "fleet index"}));
  });
  std::vector<FleetIndexRow> index;
  for (const FleetRobotOutcome& r : report.robots) {
    FleetIndexRow row;
    row.robot = r.name;
    row.status = r.status != "ok"              ? "skipped: " + r.reason
                 : r.cost_flagged()            ? "high cost"
                 : r.drift_flagged()           ? "drift"
                 : r.model_check == "misfit"   ? "misfit: the model does not explain its data"
                                               : "ok";
    row.cost = r.status == "ok" ? r.cost : std::nan("");
    row.cost_over_median = r.cost_over_median;
    if (r.status == "ok") {
      row.result_file = r.name + ".h5";
      row.report_link = r.name + ".html";
      row.start = !r.warm_start ? "cold"
                  : !r.fell_back
                      ? "warm"
                      : std::string("warm, refitted cold") +
                            (r.fallback.kept_warm ? " (warm result kept: lower cost)" : "") + ": " +
                            r.fallback.reason;
    }
    row.drift_flags = DriftFlags(r);
    if (!r.drift_note.empty()) row.drift_flags.push_back("drift " + r.drift_note);
    index.push_back(row);
  }
  WriteFleetIndex((run_dir / "index.html").string(), index, FleetSpread(report),
                  {report.run_id, report.started_utc, PreviousNights(manifest, run_dir)});
  WriteTextFileAtomically((run_dir / "summary.csv").string(), SummaryCsv(report));
  WriteTextFileAtomically((run_dir / "summary.json").string(), FleetReportToJson(report).dump(2) + "\n");
  std::error_code ignored;
  fs::remove(checkpoint_path, ignored);
  fs::remove(history_path, ignored);
  RemoveShardCheckpoints(options.peers, run_dir.string());
  return report;
}

}  // namespace frfit
