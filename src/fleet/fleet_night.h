// One fleet night as it passes through RunFleet's stages (fleet_run.cc calls them in this order,
// after FleetRunOptions::IsValid, which fleet_open.cc defines):
//   OpenNight           fleet_open.cc      the manifest, the run directory
//   LoadRobots          fleet_load.cc      models, configurations, previous results, problems
//   CheckInputs         fleet_load.cc      no output is an input; the inputs' fingerprint
//   FitRobots           fleet_fit.cc       both passes of the batched fitting loop, checkpoints
//   WriteRobotResults   fleet_results.cc   <robot>.h5, each robot's outcome and modes, <robot>.html
//   WriteReportsFromFiles fleet_reports.cc the <robot>.html the result in memory could not give
//   AssessDrift         fleet_results.cc   each warm robot's changes since its previous night
//   WriteDrift, WriteSummary (fleet_summary.cc) and WriteReports (fleet_reports.cc, index.html)
// The per-robot files go to the disk on FleetFileWriter's threads (fleet_file_writer.h).
// Not here: what the outputs say (fleet_summary.cc, fleet_drift.h) and MPI (fleet_shard.h).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/fit/fit_options.h"
#include "frfit/results/fit_result.h"
#include "frfit/results/identifiability.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/fleet/fleet_manifest.h"
#include "frfit/fleet/fleet_run.h"
#include "frfit/modal/modal.h"
#include "src/fleet/fleet_warm_night.h"

namespace frfit {

// One robot ready to fit. Held by unique_ptr: FitRun keeps a pointer to the map, the map one to
// the model.
struct FleetRobotFit {
  size_t index = 0;  // into the manifest's robots / the outcomes
  std::shared_ptr<const Model> model;
  FitOptions options;       // of the first pass: warm-started when the robot has a previous result
  FitOptions cold_options;  // the configuration as written: a fallback's
  std::string config_source;
  std::unique_ptr<ParameterMap> map;
  Problem problem;
  std::optional<PreviousNight> previous;
  // The short path (docs/fleet.md, "Short path"): `options` are then ShortPathOptions; else
  // full_search_reason says why the previous result was not enough to start from.
  bool short_path = false;
  std::string full_search_reason;
  // A short path's search weighs the problem at the previous result (LoadRobotData); these are
  // the problem's configured weights per posture, which a cold refit searches with.
  std::vector<std::vector<double>> configured_weights;
  std::unique_ptr<FitRun> run;
  // The second pass, when the warm result is not trusted (fallback_reason says why).
  std::string fallback_reason;
  std::unique_ptr<ParameterMap> cold_map;
  std::unique_ptr<FitRun> cold_run;
  // From WriteRobotResults on, for AssessDrift: the result's identifiability report, and the
  // fitted modes up to each posture's highest line (problem order), which the outcome's
  // frequencies and the drift both read, so each posture's modes are analysed once.
  Identifiability identifiability;
  std::vector<std::vector<Mode>> modes;
  // Per posture of the problem, its modes' frequency 1σ (Hz) as the fit's result propagated them
  // from `identifiability`; empty for a posture whose result was assessed on another (a reduced
  // or static one): the drift propagates those itself.
  std::vector<std::vector<double>> mode_sigma_hz;
  // Whether WriteRobotResults rendered <robot>.html from the result in memory (AsReadBack: what
  // the file holds); else WriteReportsFromFiles reads the file back for it.
  bool report_written = false;
};

struct FleetNight {
  const FleetRunOptions* options = nullptr;
  FleetManifest manifest;
  FleetReport report;
  std::filesystem::path run_dir;
  std::string checkpoint_path;
  std::string history_path;  // the robots' cost histories, appended at each checkpoint
  std::map<std::string, std::shared_ptr<const Model>> models;  // by path, loaded once
  std::vector<std::unique_ptr<FleetRobotFit>> ready;           // manifest order
  int threads = 1;  // for the stages around the fitting loop: the evaluator's
  void Log(const std::string& line) const;
};

// The HDF5 library, as Debian builds it, is not thread-safe: every stage that runs on several
// threads reads and writes .h5 files under this one lock (and only the file access: the work
// on what they hold runs beside it).
std::mutex& Hdf5Lock();

class FleetFileWriter;
// <robot>.html of `result` (what the robot's result file holds), written by `writer`.
void WriteRobotReport(const FleetNight& night, const std::string& robot, const FitResult& result,
                      FleetFileWriter* writer);

// Calls job(k) for every k in [0, count) on `threads` threads and rethrows the first exception
// one threw once all have returned.
void ForEachRobot(size_t count, int threads, const std::function<void(size_t)>& job);

// The middle of the sorted values (the mean of the two middle ones for an even count); NaN for
// none.
double Median(std::vector<double> values);

// The stages, in order. Errors that concern the whole run throw Error; a bad robot does not.
FleetNight OpenNight(const FleetRunOptions& options);
void LoadRobots(FleetNight* night);
std::string CheckInputs(const FleetNight& night);  // the fingerprint of everything that decides
void FitRobots(FleetNight* night, const std::string& fingerprint);
void WriteRobotResults(FleetNight* night);
void WriteReportsFromFiles(const FleetNight& night);
void AssessDrift(FleetNight* night);
void RateCostsAgainstMedian(FleetReport* report);
void WriteDrift(const FleetNight& night);
void WriteReports(const FleetNight& night);
void WriteSummaryCsv(const FleetNight& night);
void WriteSummaryJson(const FleetNight& night);

}  // namespace frfit
