// A nightly fleet refit (docs/fleet.md): every usable robot of a manifest fitted in ONE DriveFits
// call against ONE Evaluator holding all their problems, so each round (a GA generation of every
// robot, or one lock-step Nelder–Mead step of every robot) is one batched evaluation — one GPU job
// on the cuda backend. A robot's result depends only on its own data, configuration and seed (not
// on the other robots, batching, threads or backend). Robots whose data are missing or bad are
// reported and skipped; they never sink the batch.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "frfit/evaluator/evaluator.h"
#include "frfit/fleet/fleet_manifest.h"
#include "frfit/fleet/fleet_shard.h"

namespace frfit {

struct FleetRunOptions {
  std::string manifest;               // FLEET.yaml
  std::string out;                    // DIR; outputs go to DIR/<run_id>/
  std::string run_id;                 // empty: FleetDefaultRunId()
  EvaluatorOptions evaluator;
  std::string backend_given = "cpu";  // as the user wrote it, for the result files
  // One rank of an MPI fleet run (fleet/fleet_mpi.h): this process fits only its shard of the
  // robots and checkpoints it on its own; rank 0 gathers every rank's outcomes and writes the
  // fleet's outputs. The run id must be the same on every rank. Null: the whole fleet here.
  FleetPeers* peers = nullptr;
  // Continue DIR/<run_id> from its checkpoint.json (from the start when it has none). Without it
  // an existing run directory is refused, so a re-run never overwrites an earlier night.
  bool resume = false;
  // Checkpoints (checkpoint.json) every so many evaluations, all robots together, and every so
  // many seconds of wall time; 0 turns a trigger off, both 0 no checkpoints. By time by default:
  // a checkpoint holds every robot's state, so by count a fleet of N robots would write O(N²).
  std::int64_t checkpoint_every_evaluations = 0;
  double checkpoint_every_seconds = 60.0;
  // Lines for the user (stderr): skipped robots, resume notes and, when progress_every_rounds > 0,
  // a progress line every that many rounds (and one at the end) — to `progress` when set (a
  // terminal shows them as one line that updates in place), else to `log`.
  std::function<void(const std::string&)> log;
  std::function<void(const std::string&)> progress;
  int progress_every_rounds = 0;

  // Names the offending field ("out", "run_id", "evaluator.threads", "checkpoint_every_seconds",
  // …): manifest and out given, run_id a valid name when given and given when resuming, the
  // evaluator's options valid, the checkpoint triggers and progress_every_rounds >= 0 (seconds
  // finite). What needs the file system (the run directory) is RunFleet's to check.
  bool IsValid(std::string* error) const;
};

// A change since the previous night (docs/fleet.md, "Drift"): sigma is its 1σ,
// sqrt(σ_previous² + σ_now²), from both nights' identifiability reports, and z = change / sigma;
// both NaN (null in JSON) where a night has no 1σ for it.
struct FleetDriftParameter {
  std::string name;
  double previous = 0.0, current = 0.0, change_percent = 0.0;
  double sigma = std::numeric_limits<double>::quiet_NaN();  // in the parameter's unit
  double z = std::numeric_limits<double>::quiet_NaN();
  bool flagged = false;
};

struct FleetDriftFrequency {
  std::string posture;
  int mode = 0;  // 1-based, in order of the previous modes
  double previous_hz = 0.0, current_hz = 0.0, change_percent = 0.0;
  double sigma_hz = std::numeric_limits<double>::quiet_NaN();
  double z = std::numeric_limits<double>::quiet_NaN();
  bool flagged = false;
};

// A warm result that was not trusted and refitted with the cold configuration in the same run.
struct FleetFallback {
  std::string reason;      // every failed trust test
  double warm_cost = 0.0;  // of the warm result
  std::int64_t warm_evaluations = 0;
  // The result kept: the cold refit's unless it ended above the warm result's cost.
  bool kept_warm = false;
};

struct FleetRobotOutcome {
  std::string name;
  std::string status;  // "ok" | "skipped"
  std::string reason;  // why skipped
  std::uint64_t seed = 0;
  bool warm_start = false;
  std::string warm_start_method;  // "levenberg_marquardt" | "genetic_algorithm" when warm_start
  std::string previous;     // previous result file, when given
  double previous_cost = std::numeric_limits<double>::quiet_NaN();  // that result's cost
  // levenberg_marquardt warm starts: the path the robot took (docs/fleet.md, "Short path"):
  // "short" (one start from the previous result, stopped at sigma_step of its 1σ) or "full" (the
  // full warm search), and for "full" why the previous result was not enough to start from.
  std::string warm_path;
  std::string warm_path_reason;
  bool fell_back = false;  // warm result not trusted: refitted cold (fallback says why)
  FleetFallback fallback;
  std::string result_file;  // DIR/<run-id>/<name>.h5 when ok
  double cost = 0.0;
  std::int64_t evaluations = 0;  // all of the robot's fits tonight (a fallback's both)
  int cycles = 0;
  std::string termination;
  // The fit's model check (docs/noise.md): "consistent", "misfit" or "unchecked", and why.
  std::string model_check;
  std::vector<std::string> model_check_reasons;
  std::vector<std::string> parameter_names;
  std::vector<std::string> parameter_units;  // the model's, one per name
  std::vector<double> parameters;
  // Fitted modal frequencies up to the highest fitted line, per posture (problem order).
  std::vector<std::pair<std::string, std::vector<double>>> modal_frequencies_hz;
  bool has_drift = false;  // a `previous` was given (and the robot was fitted)
  // Why nothing is flagged although changes are listed, e.g. a previous result that fitted its
  // data far worse than tonight's: its parameters are no baseline. Empty: the rule applied.
  std::string drift_note;
  std::vector<FleetDriftParameter> drift_parameters;
  std::vector<FleetDriftFrequency> drift_frequencies;
  bool drift_flagged() const;
  // cost / the median cost of the fleet's fitted robots (NaN when not fitted). A robot far above
  // the median (kFleetHighCostFactor) fits its data much worse than its siblings: wrong data,
  // another model, a local minimum. Flagged in the index, the table and summary.json.
  double cost_over_median = std::numeric_limits<double>::quiet_NaN();
  bool cost_flagged() const;
};

inline constexpr double kFleetHighCostFactor = 10.0;

// Where a night's wall time went, stage by stage (this process; seconds). The stages run one
// after the other, so their sum is at most FleetReport::wall_seconds; what is left is the time
// between them. fit and fallback are the two passes of the fitting loop (drive_seconds, and the
// evaluator's creation and a resumed run's checkpoint reading before it); an MPI run's ranks
// wait for each other in them. Rank 0 reports its own stages.
struct FleetStageSeconds {
  double load = 0.0;          // manifest, models, configurations, previous results, FRF files
  double check_inputs = 0.0;  // no output is an input; the fingerprint of every input file
  double fit = 0.0;           // the first pass: every robot in one batched drive
  double fallback = 0.0;      // the second pass: the untrusted warm results refitted cold
  double results = 0.0;       // <robot>.h5, each robot's modal frequencies and <robot>.html
  double drift = 0.0;         // each warm robot's changes since its previous night
  double reports = 0.0;       // index.html and the <robot>.html read back from the file
  double summary = 0.0;       // drift.json, drift.txt, summary.csv (summary.json, last, is not in)
};

struct FleetReport {
  std::string run_id;
  // When the run started (a resumed run: when its first part did), ISO 8601 UTC:
  // "2026-11-22T03:15:00Z".
  std::string started_utc;
  std::string run_dir;
  std::string manifest;
  std::string backend;
  // Processes of an MPI run that shared the robots; rounds, drive_seconds and evaluator_seconds
  // are then its slowest rank's, wall_seconds rank 0's.
  int ranks = 1;
  FleetWarmStart warm_start;              // the manifest's
  FleetDrift drift;                       // the manifest's rule
  int fell_back() const;                  // robots whose warm result was refitted cold
  int short_path() const;                 // robots whose result is the short path's
  std::vector<FleetRobotOutcome> robots;  // manifest order
  std::int64_t evaluations = 0;           // all robots, this process and any resumed part
  std::int64_t resumed_at_evaluations = -1;  // -1: not resumed from a checkpoint
  std::int64_t rounds = 0;                // evaluator calls made by this process
  double wall_seconds = 0.0;              // this process, up to summary.json
  double drive_seconds = 0.0;             // inside DriveFits, this process
  // Of drive_seconds, inside the evaluator (the rest is the optimisers, packing, checkpoints and
  // progress on the host: what a faster evaluator cannot shorten).
  double evaluator_seconds = 0.0;
  FleetStageSeconds stage_seconds;  // this process
  int ok() const;
  int skipped() const;
};

// Runs the fleet and writes every output (atomically): <name>.h5 per fitted robot, summary.csv,
// summary.json, drift.json; checkpoint.json while running. Errors that concern the whole run
// (invalid options, checked first: "frfit fleet: <field>: expected …"; bad manifest, run directory
// exists, damaged checkpoint) throw Error; a bad robot does not.
FleetReport RunFleet(const FleetRunOptions& options);

// The summary.json object.
nlohmann::ordered_json FleetReportToJson(const FleetReport& report);

// UTC now as 2026-11-22T031500Z.
std::string FleetDefaultRunId();

// UTC now as 2026-11-22T03:15:00Z (FleetReport::started_utc).
std::string FleetUtcNow();

}  // namespace frfit
