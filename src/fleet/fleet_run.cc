#include "frfit/fleet/fleet_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/common/hashing.h"
#include "frfit/cost/problem.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/fit/fit_result.h"
#include "frfit/fit/history_log.h"
#include "frfit/fit/load_problem.h"
#include "frfit/io/atomic_file.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/io/output_path.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/report/fleet_index.h"
#include "frfit/report/html_report.h"

namespace frfit {
namespace {

// 2: the robots' histories moved out to checkpoint.history (fit/history_log.h).
constexpr const char* kCheckpointFormat = "frfit-fleet-checkpoint-2";

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One robot ready to fit. Held by unique_ptr: FitRun keeps a pointer to the map, the map one to
// the model.
struct Ready {
  size_t index;  // into the manifest's robots / the outcomes
  std::shared_ptr<const Model> model;
  FitOptions options;
  std::string config_source;
  std::unique_ptr<ParameterMap> map;
  Problem problem;
  std::vector<double> previous;  // previous parameters (Model::parameters order); empty: none
  std::unique_ptr<FitRun> run;
};

// Tells the fleet when a round starts (progress lines), counts the rounds and times the
// evaluator.
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
  std::int64_t rounds() const { return rounds_; }
  double seconds() const { return seconds_; }

 private:
  std::function<void(std::int64_t)> before_round_;
  std::int64_t rounds_ = 0;
  double seconds_ = 0.0;  // inside the inner evaluator's Evaluate, progress lines excluded
};

// The configuration a robot is fitted with: its own (or the shared) file, and for a warm start
// the previous result as the initial values and a short GA around them.
FitOptions WarmStartOptions(const FitOptions& base, const Model& model, const std::vector<double>& previous,
                            const FleetWarmStart& warm, const std::string& source) {
  FitOptions o = base;
  const ParameterMap plain(model, base.parameters, source);  // effective bounds
  for (int index : plain.free_indices()) {
    const Bounds& b = plain.bounds()[index];
    const std::string& name = model.parameters[index].name;
    auto it = o.parameters.bounds.find(name);
    if (it == o.parameters.bounds.end())
      it = o.parameters.bounds.emplace(name, Bounds{std::nan(""), std::nan(""), std::nan("")}).first;
    it->second.initial = std::min(std::max(previous[index], b.min), b.max);
  }
  o.parameters.initial = InitialGuess::kModel;
  o.genetic_algorithm.generations = warm.generations;
  o.genetic_algorithm.init_spread = warm.init_spread;
  o.genetic_algorithm.init_mode = GaInitMode::kAroundGuess;
  std::string error;
  if (!o.IsValid(&error)) throw Error(source, "warm_start", error);
  return o;
}

std::vector<double> ModeFrequencies(const Posture& posture, const Model& model, const std::vector<double>& params,
                                    double max_hz) {
  std::vector<double> out;
  for (const Mode& m : ComputeModes(posture, Coefficients(model, params, posture.q)))
    if (m.frequency_hz <= max_hz) out.push_back(m.frequency_hz);
  return out;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return out + "\"";
}

std::string Num(double v) { return std::isfinite(v) ? FormatDouble(v) : std::string(""); }

nlohmann::ordered_json JsonNum(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); }

std::string SummaryCsv(const FleetReport& report) {
  std::vector<std::string> names;  // union of parameter names, first-seen order
  for (const FleetRobotOutcome& r : report.robots)
    for (const std::string& n : r.parameter_names)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  std::string csv = "robot,status,reason,seed,warm_start,cost,evaluations,cycles,termination,drift,"
                    "drift_parameters,drift_frequencies,modal_frequencies_hz";
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
    csv += CsvField(r.name) + "," + r.status + "," + CsvField(r.reason) + "," + std::to_string(r.seed) + "," +
           (r.warm_start ? "1" : "0") + "," + (ok ? Num(r.cost) : "") + "," +
           (ok ? std::to_string(r.evaluations) : "") + "," + (ok ? std::to_string(r.cycles) : "") + "," +
           r.termination + "," + (!r.has_drift ? "" : r.drift_flagged() ? "flagged" : "none") + "," +
           CsvField(drift_params) + "," + CsvField(drift_freqs) + "," + CsvField(modes);
    for (const std::string& n : names) {
      csv += ",";
      for (size_t k = 0; k < r.parameter_names.size(); ++k)
        if (r.parameter_names[k] == n) csv += Num(r.parameters[k]);
    }
    csv += "\n";
  }
  return csv;
}

nlohmann::ordered_json DriftJson(const FleetRobotOutcome& r) {
  nlohmann::ordered_json j;
  j["previous"] = r.previous;
  j["flagged"] = r.drift_flagged();
  nlohmann::ordered_json flagged_params = nlohmann::ordered_json::array();
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const FleetDriftParameter& d : r.drift_parameters) {
    if (d.flagged) flagged_params.push_back(d.name);
    params.push_back({{"name", d.name}, {"previous", JsonNum(d.previous)}, {"current", JsonNum(d.current)},
                      {"change_percent", JsonNum(d.change_percent)}, {"flagged", d.flagged}});
  }
  nlohmann::ordered_json flagged_freqs = nlohmann::ordered_json::array();
  nlohmann::ordered_json freqs = nlohmann::ordered_json::array();
  for (const FleetDriftFrequency& d : r.drift_frequencies) {
    nlohmann::ordered_json row = {{"posture", d.posture}, {"mode", d.mode}, {"previous_hz", JsonNum(d.previous_hz)},
                                  {"current_hz", JsonNum(d.current_hz)}, {"change_percent", JsonNum(d.change_percent)},
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

std::string Percent(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.2f%%", v);
  return buffer;
}

}  // namespace

bool FleetRobotOutcome::cost_flagged() const { return cost_over_median > kFleetHighCostFactor; }

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

std::string FleetDefaultRunId() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H%M%SZ", &utc);
  return buffer;
}

nlohmann::ordered_json FleetReportToJson(const FleetReport& report) {
  nlohmann::ordered_json j;
  j["format"] = "frfit-fleet-summary-1";
  j["run_id"] = report.run_id;
  j["run_dir"] = report.run_dir;
  j["manifest"] = report.manifest;
  j["backend"] = report.backend;
  j["ranks"] = report.ranks;
  j["robots_ok"] = report.ok();
  j["robots_skipped"] = report.skipped();
  j["evaluations"] = report.evaluations;
  j["resumed_at_evaluations"] = report.resumed_at_evaluations >= 0 ? nlohmann::ordered_json(report.resumed_at_evaluations)
                                                                   : nlohmann::ordered_json(nullptr);
  j["rounds"] = report.rounds;
  j["wall_seconds"] = report.wall_seconds;
  j["drive_seconds"] = report.drive_seconds;
  j["evaluator_seconds"] = report.evaluator_seconds;
  j["drift_thresholds"] = {{"parameter_percent", report.drift.parameter_percent},
                           {"frequency_percent", report.drift.frequency_percent}};
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
    o["result"] = r.result_file;
    o["cost"] = r.cost;
    o["cost_over_median"] = JsonNum(r.cost_over_median);
    o["cost_flagged"] = r.cost_flagged();
    o["evaluations"] = r.evaluations;
    o["cycles"] = r.cycles;
    o["termination"] = r.termination;
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
  report.drift = manifest.drift;
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
      r->options = c->second;
      if (robot.frf.empty()) throw Error(manifest.path, "robots." + robot.name + ".frf", "expected at least one FRF file");
      if (!robot.previous.empty()) {
        r->previous = ParametersFromResult(robot.previous, model);
        r->options = WarmStartOptions(r->options, model, r->previous, manifest.warm_start, r->config_source);
        out.warm_start = true;
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
      if (!robot.previous.empty()) fp.MixFile(robot.previous);
    }
    const std::string fingerprint = std::to_string(fp.value());

    const bool checkpoints = options.checkpoint_every_evaluations > 0 || options.checkpoint_every_seconds > 0.0;
    std::optional<HistoryLog> history_log;
    std::vector<size_t> logged_rows(ready.size(), 0);  // per robot, rows already in the log
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
      const nlohmann::json& states = j.at("runs");
      if (!states.is_array() || states.size() != ready.size())
        throw Error(checkpoint_path, "runs", "expected one state per fitted robot");
      if (!j.contains("history_bytes") || !j["history_bytes"].is_number_integer())
        throw Error(checkpoint_path, "history_bytes", "expected the length of the history log it covers");
      const std::int64_t history_bytes = j["history_bytes"].get<std::int64_t>();
      history_log.emplace(HistoryLog::Resume(history_path, history_bytes));
      std::vector<std::vector<HistoryRow>> histories =
          HistoryLog::Read(history_path, history_bytes, static_cast<int>(ready.size()));
      report.resumed_at_evaluations = 0;
      for (size_t k = 0; k < ready.size(); ++k) {
        logged_rows[k] = histories[k].size();
        ready[k]->run = std::make_unique<FitRun>(*ready[k]->map, ready[k]->options, states[k], std::move(histories[k]));
        report.resumed_at_evaluations += ready[k]->run->evaluations();
      }
      log("frfit fleet: resuming run " + report.run_id + " from " + checkpoint_path + " at " +
          std::to_string(report.resumed_at_evaluations) + " evaluations");
    } else {
      if (options.resume) log("frfit fleet: run " + report.run_id + " has no checkpoint; starting it from the beginning");
      for (const auto& r : ready) r->run = std::make_unique<FitRun>(*r->map, r->options, manifest.robots[r->index].seed);
      if (checkpoints) history_log.emplace(HistoryLog::Create(history_path));
    }

    evaluator = CreateEvaluator(options.evaluator);
    report.backend = ToString(evaluator->backend());
    log("frfit fleet: " + std::to_string(ready.size()) + " robot(s) to fit, " +
        std::to_string(OwnedRobotCount(options.peers, manifest.robots.size()) - ready.size()) +
        " skipped; backend " + report.backend + " (" + evaluator->description() + ")");

    const std::int64_t evaluations_before = report.resumed_at_evaluations > 0 ? report.resumed_at_evaluations : 0;
    const auto drive_start = Clock::now();
    auto progress_line = [&](std::int64_t round) {
      int running = 0, in_ga = 0, in_nm = 0, in_lm = 0;
      std::int64_t evaluations = 0;
      std::vector<double> best;
      for (const auto& r : ready) {
        evaluations += r->run->evaluations();
        if (!r->run->Done()) ++running;
        if (r->run->phase() == FitPhase::kGeneticAlgorithm) ++in_ga;
        if (r->run->phase() == FitPhase::kNelderMead) ++in_nm;
        if (r->run->phase() == FitPhase::kLevenbergMarquardt) ++in_lm;
        if (r->run->evaluations() > 0) best.push_back(r->run->best_cost());
      }
      std::sort(best.begin(), best.end());
      const double seconds = std::chrono::duration<double>(Clock::now() - drive_start).count();
      const double rate = seconds > 0 ? (evaluations - evaluations_before) / seconds : 0.0;
      char buffer[256];
      if (best.empty())
        std::snprintf(buffer, sizeof buffer, "round %lld: %d/%zu robots running (ga %d, nm %d)", static_cast<long long>(round),
                      running, ready.size(), in_ga, in_nm);
      else
        std::snprintf(buffer, sizeof buffer,
                      "round %lld: %d/%zu robots running (ga %d, nm %d)  best cost min %.4e median %.4e max %.4e  "
                      "evaluations %lld  (%.0f/s)",
                      static_cast<long long>(round), running, ready.size(), in_ga, in_nm, best.front(),
                      best[best.size() / 2], best.back(), static_cast<long long>(evaluations), rate);
      if (options.progress)
        options.progress(buffer);
      else
        log(buffer);
    };
    rounds = std::make_unique<RoundEvaluator>(evaluator.get(), [&](std::int64_t round) {
      if (options.progress_every_rounds > 0 && (round == 1 || round % options.progress_every_rounds == 0))
        progress_line(round);
    });
    std::vector<PackedProblem> packed;
    for (const auto& r : ready) packed.push_back(Pack(r->problem));
    rounds->SetProblems(std::move(packed));

    std::vector<FitJob> jobs;
    for (const auto& r : ready)
      jobs.push_back({r->run.get(), r->map.get(), static_cast<int>(r->problem.postures.size()),
                      PostureCoordinates(r->problem)});
    DriveOptions drive;
    if (checkpoints) {
      drive.checkpoint_every_evaluations = options.checkpoint_every_evaluations;
      drive.checkpoint_every_seconds = options.checkpoint_every_seconds;
      drive.checkpoint_history = StateHistory::kRowCountOnly;
      drive.checkpoint = [&](const std::vector<nlohmann::json>& states) {
        // The log first: a checkpoint must never record rows the log does not hold yet.
        for (size_t k = 0; k < ready.size(); ++k) {
          const std::vector<HistoryRow>& rows = ready[k]->run->history();
          history_log->Append(static_cast<int>(k), std::span(rows).subspan(logged_rows[k]));
          logged_rows[k] = rows.size();
        }
        const std::int64_t history_bytes = history_log->Sync();
        nlohmann::json names = nlohmann::json::array();
        for (const auto& r : ready) names.push_back(manifest.robots[r->index].name);
        nlohmann::json j = {{"format", kCheckpointFormat}, {"fingerprint", fingerprint},
                            {"run_id", report.run_id},     {"robots", names},
                            {"history_bytes", history_bytes}, {"runs", states}};
        WriteTextFileAtomically(checkpoint_path, j.dump());
      };
    }
    BeginShardFits(options.peers);
    DriveFits(jobs, rounds.get(), drive);
    report.drive_seconds = std::chrono::duration<double>(Clock::now() - drive_start).count();
    report.rounds = rounds->rounds();
    report.evaluator_seconds = rounds->seconds();
    if (options.progress_every_rounds > 0) progress_line(report.rounds);
  } else {
    BeginShardFits(options.peers);  // nothing to fit here, but the other ranks wait for this one
  }

  // --- results, per robot ------------------------------------------------------------------
  const FleetDrift& thresholds = manifest.drift;
  for (const auto& r : ready) {
    FleetRobotOutcome& out = report.robots[r->index];
    const Model& model = *r->model;
    FitResult result = AssembleFitResult(r->problem, *r->map, *r->run, r->options);
    result.backend_given = options.backend_given;
    result.backend_used = report.backend;
    result.wall_seconds = r->run->ga_seconds() + r->run->nm_seconds() + r->run->lm_seconds();
    out.result_file = (run_dir / (out.name + ".h5")).string();
    WriteFitResult(out.result_file, result);
    out.status = "ok";
    out.cost = result.cost;
    out.evaluations = result.evaluations;
    out.cycles = result.cycles;
    out.termination = result.termination;
    out.parameter_names = result.parameter_names;
    out.parameters = result.parameters;
    report.evaluations += result.evaluations;
    for (const ProblemPosture& pp : r->problem.postures) {
      const double max_hz = pp.measured.frequency_hz.back();
      const std::vector<double> current = ModeFrequencies(pp.posture, model, result.parameters, max_hz);
      out.modal_frequencies_hz.emplace_back(pp.posture.name, current);
      if (r->previous.empty()) continue;
      const std::vector<double> before = ModeFrequencies(pp.posture, model, r->previous, max_hz);
      for (size_t k = 0; k < before.size(); ++k) {
        FleetDriftFrequency d;
        d.posture = pp.posture.name;
        d.mode = static_cast<int>(k) + 1;
        d.previous_hz = before[k];
        // The current mode nearest in frequency (a mode that left the band reads as missing).
        double best = std::nan("");
        for (double f : current)
          if (std::isnan(best) || std::fabs(f - before[k]) < std::fabs(best - before[k])) best = f;
        d.current_hz = best;
        d.change_percent = 100.0 * (best - before[k]) / before[k];
        d.flagged = !(std::fabs(d.change_percent) <= thresholds.frequency_percent);
        out.drift_frequencies.push_back(d);
      }
    }
    if (!r->previous.empty()) {
      out.has_drift = true;
      for (int k = 0; k < model.num_parameters(); ++k) {
        FleetDriftParameter d;
        d.name = model.parameters[k].name;
        d.previous = r->previous[k];
        d.current = result.parameters[k];
        d.change_percent = 100.0 * (d.current - d.previous) / d.previous;
        d.flagged = !(std::fabs(d.change_percent) <= thresholds.parameter_percent);
        out.drift_parameters.push_back(d);
      }
    }
  }
  if (!GatherShardOutcomes(options.peers, &report)) return report;  // rank 0 writes the outputs

  // Each fitted robot's cost against the fleet's median (the middle of the sorted costs; the mean
  // of the two middle ones for an even count).
  std::vector<double> costs;
  for (const FleetRobotOutcome& r : report.robots)
    if (r.status == "ok") costs.push_back(r.cost);
  if (!costs.empty()) {
    std::sort(costs.begin(), costs.end());
    const size_t m = costs.size() / 2;
    const double median = costs.size() % 2 ? costs[m] : 0.5 * (costs[m - 1] + costs[m]);
    for (FleetRobotOutcome& r : report.robots)
      if (r.status == "ok" && median > 0.0) r.cost_over_median = r.cost / median;
  }
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // --- fleet outputs (atomic each); the summary last, as the mark of a finished run ----------
  nlohmann::ordered_json drift;
  drift["format"] = "frfit-fleet-drift-1";
  drift["run_id"] = report.run_id;
  drift["thresholds"] = {{"parameter_percent", thresholds.parameter_percent},
                         {"frequency_percent", thresholds.frequency_percent}};
  drift["robots"] = nlohmann::ordered_json::array();
  std::string drift_text;
  for (const FleetRobotOutcome& r : report.robots) {
    if (!r.has_drift) continue;
    nlohmann::ordered_json o = DriftJson(r);
    o["name"] = r.name;
    drift["robots"].push_back(o);
    std::string moved;
    for (const FleetDriftParameter& d : r.drift_parameters)
      if (d.flagged) moved += " " + d.name + " " + Percent(d.change_percent);
    for (const FleetDriftFrequency& d : r.drift_frequencies)
      if (d.flagged) moved += " " + d.posture + "#" + std::to_string(d.mode) + " " + Percent(d.change_percent);
    drift_text += r.name + ":" + (moved.empty() ? " no drift beyond the thresholds" : moved) + "\n";
  }
  WriteTextFileAtomically((run_dir / "drift.json").string(), drift.dump(2) + "\n");
  WriteTextFileAtomically((run_dir / "drift.txt").string(),
                          "# parameters moved more than " + FormatDouble(thresholds.parameter_percent) +
                              " %, modal frequencies more than " + FormatDouble(thresholds.frequency_percent) +
                              " % since the robot's previous result\n" + drift_text);
  // Per robot an HTML report, and an index page with one row per robot and its drift flags.
  std::vector<FleetIndexRow> index;
  for (const FleetRobotOutcome& r : report.robots) {
    FleetIndexRow row;
    row.robot = r.name;
    row.status = r.status != "ok"    ? "skipped: " + r.reason
                 : r.cost_flagged()  ? "high cost"
                 : r.drift_flagged() ? "drift"
                                     : "ok";
    row.cost = r.status == "ok" ? r.cost : std::nan("");
    row.cost_over_median = r.cost_over_median;
    if (r.status == "ok") {
      row.result_file = r.name + ".h5";
      row.report_link = r.name + ".html";
      WriteReport(r.result_file, (run_dir / row.report_link).string());
    }
    for (const FleetDriftParameter& d : r.drift_parameters)
      if (d.flagged) row.drift_flags.push_back(d.name + " " + Percent(d.change_percent));
    for (const FleetDriftFrequency& d : r.drift_frequencies)
      if (d.flagged)
        row.drift_flags.push_back(d.posture + " mode " + std::to_string(d.mode) + " " + Percent(d.change_percent));
    index.push_back(row);
  }
  WriteFleetIndex((run_dir / "index.html").string(), index);
  WriteTextFileAtomically((run_dir / "summary.csv").string(), SummaryCsv(report));
  WriteTextFileAtomically((run_dir / "summary.json").string(), FleetReportToJson(report).dump(2) + "\n");
  std::error_code ignored;
  fs::remove(checkpoint_path, ignored);
  fs::remove(history_path, ignored);
  RemoveShardCheckpoints(options.peers, run_dir.string());
  return report;
}

}  // namespace frfit
