// The fitting stage of a fleet night (fleet_night.h): every ready robot's run driven in ONE
// batched DriveFits call per pass against one evaluator — the first pass every robot, the second
// the warm robots whose result is not trusted, refitted with their cold configuration — with
// checkpoints (checkpoint.json and the history log) and --resume from them. Stage times:
// report.stage_seconds.fit and .fallback.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>

#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit.h"
#include "frfit/fit/history_log.h"
#include "frfit/fleet/fleet_shard.h"
#include "frfit/files/atomic_file.h"
#include "frfit/common/hashing.h"
#include "src/fleet/fleet_night.h"

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

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

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
    seconds_ += SecondsSince(t0);
  }
  void EvaluateNormalEquations(const NormalEquationsBatch& batch, std::span<double> normal,
                               std::span<EvalStatus> status) override {
    ++rounds_;
    if (before_round_) before_round_(rounds_);
    const auto t0 = Clock::now();
    ForwardingEvaluator::EvaluateNormalEquations(batch, normal, status);
    seconds_ += SecondsSince(t0);
  }
  std::int64_t rounds() const { return rounds_; }
  double seconds() const { return seconds_; }

 private:
  std::function<void(std::int64_t)> before_round_;
  std::int64_t rounds_ = 0;
  double seconds_ = 0.0;  // inside the inner evaluator's Evaluate, progress lines excluded
};

// The runs of both passes and what the checkpoints need of them.
struct Passes {
  int pass = 1;
  std::vector<size_t> fallbacks;  // into `ready`: the robots of the second pass
  // The history log's jobs: the first pass's runs (one per robot), then the second pass's.
  std::vector<FitRun*> logged;
  std::vector<size_t> logged_rows;  // per job, rows already in the log
  std::optional<HistoryLog> history_log;
  std::vector<nlohmann::json> first_pass_states;  // the finished first pass, in the second's
  std::vector<FitRun*> active;                    // the runs of the current pass
};

// The cold refit's map, and the robot's problem as configured: a short path searched on the
// previous result's weights without the peak emphasis (LoadRobotData); the cold search has the
// configuration's.
void MakeColdMap(FleetRobotFit& r) {
  r.cold_map = std::make_unique<ParameterMap>(*r.model, r.cold_options.parameters, r.config_source);
  r.cold_map->UseReducedLayout(r.map->reduced_joints(), r.map->reduced_size());  // as the problem
  r.problem.cost = r.cold_options.cost;
  for (size_t q = 0; q < r.configured_weights.size(); ++q)
    r.problem.postures[q].weights = r.configured_weights[q];
  r.run->ForgetPassWeights();  // the warm run's: of the problem as it was
}

// The runs as the checkpoint left them; the fallback robots it names are checked against the
// first pass once the fleet's median is known (FitRobots).
void ResumeFromCheckpoint(FleetNight* night, const std::string& fingerprint, Passes* s) {
  const std::string& path = night->checkpoint_path;
  auto& ready = night->ready;
  FleetReport& report = night->report;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ReadFileBytes(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, "", std::string("not a readable checkpoint: ") + e.what());
  }
  if (j.value("format", "") != kCheckpointFormat)
    throw Error(path, "format", std::string("expected ") + kCheckpointFormat);
  if (j.value("fingerprint", "") != fingerprint)
    throw Error(path, "fingerprint",
                "this checkpoint belongs to another fleet run (manifest, models, FRF files, "
                "configurations, seeds, previous results or the set of usable robots differ)");
  report.started_utc = j.value("started_utc", report.started_utc);  // the night's, not the resume's
  s->pass = j.value("pass", 0);
  if (s->pass != 1 && s->pass != 2) throw Error(path, "pass", "expected 1 or 2");
  const nlohmann::json& first = s->pass == 1 ? j.at("runs") : j.at("first_pass_runs");
  if (!first.is_array() || first.size() != ready.size())
    throw Error(path, s->pass == 1 ? "runs" : "first_pass_runs",
                "expected one state per fitted robot");
  if (!j.contains("history_bytes") || !j["history_bytes"].is_number_integer())
    throw Error(path, "history_bytes", "expected the length of the history log it covers");
  const std::int64_t history_bytes = j["history_bytes"].get<std::int64_t>();
  std::vector<std::string> fallback_names;
  if (s->pass == 2) fallback_names = j.at("fallback_robots").get<std::vector<std::string>>();
  const int jobs = static_cast<int>(ready.size() + fallback_names.size());
  s->history_log.emplace(HistoryLog::Resume(night->history_path, history_bytes));
  std::vector<std::vector<HistoryRow>> histories =
      HistoryLog::Read(night->history_path, history_bytes, jobs);
  report.resumed_at_evaluations = 0;
  for (size_t k = 0; k < ready.size(); ++k) {
    s->logged_rows.push_back(histories[k].size());
    ready[k]->run = std::make_unique<FitRun>(*ready[k]->map, ready[k]->options, first[k],
                                             std::move(histories[k]));
    report.resumed_at_evaluations += ready[k]->run->evaluations();
    s->logged.push_back(ready[k]->run.get());
  }
  if (s->pass == 2) {
    for (const std::string& name : fallback_names)
      for (size_t k = 0; k < ready.size(); ++k)
        if (night->manifest.robots[ready[k]->index].name == name) s->fallbacks.push_back(k);
    const nlohmann::json& states = j.at("runs");
    if (s->fallbacks.size() != fallback_names.size() ||
        !std::is_sorted(s->fallbacks.begin(), s->fallbacks.end()) || !states.is_array() ||
        states.size() != s->fallbacks.size())
      throw Error(path, "fallback_robots", kUntrustedRobotsExpected);
    for (size_t i = 0; i < s->fallbacks.size(); ++i) {
      FleetRobotFit& r = *ready[s->fallbacks[i]];
      MakeColdMap(r);
      const size_t job = ready.size() + i;
      s->logged_rows.push_back(histories[job].size());
      r.cold_run = std::make_unique<FitRun>(*r.cold_map, r.cold_options, states[i],
                                            std::move(histories[job]));
      report.resumed_at_evaluations += r.cold_run->evaluations();
      s->logged.push_back(r.cold_run.get());
    }
  }
  night->Log("frfit fleet: resuming run " + report.run_id + " from " + path + " at " +
             std::to_string(report.resumed_at_evaluations) + " evaluations" +
             (s->pass == 2 ? " (second pass: " + std::to_string(s->fallbacks.size()) +
                                 " robot(s) refitted cold)"
                           : ""));
}

// "round R: running/active robots running (ga, nm, lm)  best cost min median max  evaluations (rate)".
std::string ProgressLine(const Passes& s, std::int64_t round, double seconds,
                         std::int64_t evaluations_before) {
  int running = 0, in_ga = 0, in_nm = 0, in_lm = 0;
  std::int64_t evaluations = 0;
  std::vector<double> best;
  for (const FitRun* run : s.logged) evaluations += run->evaluations();
  for (const FitRun* run : s.active) {
    if (!run->Done()) ++running;
    if (run->phase() == FitPhase::kGeneticAlgorithm) ++in_ga;
    if (run->phase() == FitPhase::kNelderMead) ++in_nm;
    if (run->phase() == FitPhase::kLevenbergMarquardt) ++in_lm;
    if (run->evaluations() > 0) best.push_back(run->best_cost());
  }
  std::sort(best.begin(), best.end());
  const double rate = seconds > 0 ? (evaluations - evaluations_before) / seconds : 0.0;
  const char* what = s.pass == 1 ? "robots running" : "robots refitted cold";
  char buffer[256];
  if (best.empty())
    std::snprintf(buffer, sizeof buffer, "round %lld: %d/%zu %s (ga %d, nm %d, lm %d)",
                  static_cast<long long>(round), running, s.active.size(), what, in_ga, in_nm,
                  in_lm);
  else
    std::snprintf(
        buffer, sizeof buffer,
        "round %lld: %d/%zu %s (ga %d, nm %d, lm %d)  best cost min %.4e median %.4e max %.4e  "
        "evaluations %lld  (%.0f/s)",
        static_cast<long long>(round), running, s.active.size(), what, in_ga, in_nm, in_lm,
        best.front(), best[best.size() / 2], best.back(), static_cast<long long>(evaluations),
        rate);
  return buffer;
}

// Appends the runs' new history rows to the log, then writes checkpoint.json: a checkpoint must
// never record rows the log does not hold yet.
void WriteCheckpoint(const FleetNight& night, const std::string& fingerprint, Passes* s,
                     const std::vector<nlohmann::json>& states) {
  for (size_t k = 0; k < s->logged.size(); ++k) {
    const std::vector<HistoryRow>& rows = s->logged[k]->history();
    s->history_log->Append(static_cast<int>(k), std::span(rows).subspan(s->logged_rows[k]));
    s->logged_rows[k] = rows.size();
  }
  const std::int64_t history_bytes = s->history_log->Sync();
  const FleetManifest& manifest = night.manifest;
  nlohmann::json names = nlohmann::json::array();
  for (const auto& r : night.ready) names.push_back(manifest.robots[r->index].name);
  nlohmann::json j = {{"format", kCheckpointFormat},
                      {"fingerprint", fingerprint},
                      {"run_id", night.report.run_id},
                      {"started_utc", night.report.started_utc},
                      {"robots", names},
                      {"history_bytes", history_bytes},
                      {"pass", s->pass},
                      {"runs", states}};
  if (s->pass == 2) {
    nlohmann::json fallback_names = nlohmann::json::array();
    for (size_t k : s->fallbacks)
      fallback_names.push_back(manifest.robots[night.ready[k]->index].name);
    j["fallback_robots"] = fallback_names;
    j["first_pass_runs"] = s->first_pass_states;
  }
  WriteTextFileAtomically(night.checkpoint_path, j.dump());
}

// One batched drive over the given robots' runs of the current pass.
void DrivePass(FleetNight* night, const std::vector<size_t>& robots, bool cold,
               RoundEvaluator* rounds, const DriveOptions& drive, Passes* s) {
  std::vector<BatchFit> fits;
  s->active.clear();
  for (size_t k : robots) {
    const FleetRobotFit& r = *night->ready[k];
    FitRun* run = cold ? r.cold_run.get() : r.run.get();
    fits.push_back({run, &r.problem, cold ? r.cold_map.get() : r.map.get()});
    s->active.push_back(run);
  }
  DriveTogether(fits, rounds, drive);
}

// Which warm robots the second pass refits cold: a function of the finished first pass only, so
// a run resumed in the second pass finds the same ones. Its median cost is the whole fleet's:
// under MPI every rank contributes its robots' costs, each rank exactly once per run — after
// its first pass, or at once when it resumes in the second (the ranks' collective calls then
// still pair up, whichever pass each resumed in).
double FirstPassMedian(const FleetNight& night) {
  std::vector<double> costs;
  for (const auto& r : night.ready) costs.push_back(r->run->best_cost());
  return Median(AllRanksValues(night.options->peers, costs));
}

// A short path's result is also tested against the model check's χ² and the drift rule (on the
// threads: each test synthesizes the robot's FRFs once); a result that fails any test gets the
// cold configuration's full search.
std::vector<size_t> ChooseFallbacks(FleetNight* night, double median) {
  const FleetManifest& manifest = night->manifest;
  ForEachRobot(night->ready.size(), night->threads, [&](size_t k) {
    FleetRobotFit& r = *night->ready[k];
    if (!r.previous) return;
    const std::string short_reason =
        r.short_path ? ShortResultDistrust(r.problem, *r.map, r.run->best_u(), *r.previous,
                                           manifest.drift)
                     : std::string();
    const std::string warm_reason =
        WarmResultDistrust(*r.run, *r.map, *r.previous, median, manifest.warm_start);
    r.fallback_reason = short_reason.empty() || warm_reason.empty()
                            ? short_reason + warm_reason
                            : short_reason + "; " + warm_reason;
  });
  std::vector<size_t> chosen;
  for (size_t k = 0; k < night->ready.size(); ++k)
    if (!night->ready[k]->fallback_reason.empty()) chosen.push_back(k);
  return chosen;
}

}  // namespace

void FitRobots(FleetNight* night, const std::string& fingerprint) {
  const FleetRunOptions& options = *night->options;
  FleetReport& report = night->report;
  auto& ready = night->ready;
  const bool may_fall_back = night->manifest.warm_start.method == WarmStartMethod::kLevenbergMarquardt &&
                             night->manifest.warm_start.fallback;
  if (ready.empty()) {
    BeginShardFits(options.peers);  // nothing to fit here, but the other ranks wait for this one
    if (may_fall_back) FirstPassMedian(*night);  // nor costs to add to the fleet's median
    return;
  }
  const auto stage_start = Clock::now();
  const bool checkpoints =
      options.checkpoint_every_evaluations > 0 || options.checkpoint_every_seconds > 0.0;
  Passes s;
  if (options.resume && fs::exists(night->checkpoint_path)) {
    ResumeFromCheckpoint(night, fingerprint, &s);
  } else {
    if (options.resume)
      night->Log("frfit fleet: run " + report.run_id +
                 " has no checkpoint; starting it from the beginning");
    for (const auto& r : ready) {
      r->run = std::make_unique<FitRun>(*r->map, r->options, night->manifest.robots[r->index].seed);
      s.logged.push_back(r->run.get());
      s.logged_rows.push_back(0);
    }
    if (checkpoints) s.history_log.emplace(HistoryLog::Create(night->history_path));
  }

  std::unique_ptr<Evaluator> evaluator = CreateEvaluator(options.evaluator);
  report.backend = ToString(evaluator->backend());
  night->Log("frfit fleet: " + std::to_string(ready.size()) + " robot(s) to fit, " +
             std::to_string(OwnedRobotCount(options.peers, night->manifest.robots.size()) -
                            ready.size()) +
             " skipped; backend " + report.backend + " (" + evaluator->description() + ")");

  const std::int64_t evaluations_before =
      report.resumed_at_evaluations > 0 ? report.resumed_at_evaluations : 0;
  const auto drive_start = Clock::now();
  auto progress_line = [&](std::int64_t round) {
    const std::string line = ProgressLine(s, round, SecondsSince(drive_start), evaluations_before);
    if (options.progress) options.progress(line);
    else night->Log(line);
  };
  RoundEvaluator rounds(evaluator.get(), [&](std::int64_t round) {
    if (options.progress_every_rounds > 0 &&
        (round == 1 || round % options.progress_every_rounds == 0))
      progress_line(round);
  });
  DriveOptions drive;
  drive.threads = night->threads;
  if (checkpoints) {
    drive.checkpoint_every_evaluations = options.checkpoint_every_evaluations;
    drive.checkpoint_every_seconds = options.checkpoint_every_seconds;
    drive.checkpoint_history = StateHistory::kRowCountOnly;
    drive.checkpoint = [&](const std::vector<nlohmann::json>& states) {
      WriteCheckpoint(*night, fingerprint, &s, states);
    };
  }
  BeginShardFits(options.peers);
  const bool resumed_in_second_pass = s.pass == 2;
  if (s.pass == 1) {
    std::vector<size_t> all(ready.size());
    for (size_t k = 0; k < ready.size(); ++k) all[k] = k;
    DrivePass(night, all, false, &rounds, drive, &s);
  }
  // One instant ends the first pass and starts the second, one ends both and the drive: the
  // stages' times add up to the drive's.
  const auto first_pass_end = Clock::now();
  report.stage_seconds.fit = std::chrono::duration<double>(first_pass_end - stage_start).count();
  if (may_fall_back) {
    const std::vector<size_t> chosen = ChooseFallbacks(night, FirstPassMedian(*night));
    if (resumed_in_second_pass && chosen != s.fallbacks)
      throw Error(night->checkpoint_path, "fallback_robots", kUntrustedRobotsExpected);
    s.fallbacks = chosen;
  }
  if (!resumed_in_second_pass) {
    s.pass = 2;
    for (size_t k : s.fallbacks) {
      FleetRobotFit& r = *ready[k];
      MakeColdMap(r);
      r.cold_run = std::make_unique<FitRun>(*r.cold_map, r.cold_options,
                                            night->manifest.robots[r.index].seed);
      s.logged.push_back(r.cold_run.get());
      s.logged_rows.push_back(0);
    }
  }
  for (size_t k : s.fallbacks)
    night->Log("frfit fleet: refitting robot " + night->manifest.robots[ready[k]->index].name +
               " with its cold configuration: " + ready[k]->fallback_reason);
  if (!s.fallbacks.empty()) {
    for (const auto& r : ready)
      s.first_pass_states.push_back(r->run->SaveState(StateHistory::kRowCountOnly));
    DrivePass(night, s.fallbacks, true, &rounds, drive, &s);
  }
  const auto end = Clock::now();
  report.stage_seconds.fallback = std::chrono::duration<double>(end - first_pass_end).count();
  report.drive_seconds = std::chrono::duration<double>(end - drive_start).count();
  report.rounds = rounds.rounds();
  report.evaluator_seconds = rounds.seconds();
  if (options.progress_every_rounds > 0) progress_line(report.rounds);
}

}  // namespace frfit
