// The first stage of a fleet night (fleet_night.h): the manifest read and the run directory made
// (or found, to resume), before any robot is touched; and FleetRunOptions::IsValid, which
// RunFleet calls before it.
#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>

#include "frfit/common/error.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/fleet/fleet_shard.h"
#include "src/evaluator/cpu/thread_pool.h"
#include "src/fleet/fleet_night.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

// A resumed run must exist and be unfinished; a new one must not exist (rank 0 makes it for
// every rank), so a re-run never overwrites an earlier night.
void MakeOrFindRunDirectory(const FleetRunOptions& options, const FleetNight& night) {
  const fs::path& run_dir = night.run_dir;
  const std::string& run_id = night.report.run_id;
  if (options.resume) {
    if (!fs::is_directory(run_dir))
      throw Error("frfit fleet", "--resume", "no run directory " + run_dir.string() + " to resume");
    if (fs::exists(run_dir / "summary.json"))
      throw Error("frfit fleet", "--resume",
                  "run " + run_id + " is complete (" + (run_dir / "summary.json").string() +
                      " exists); nothing to resume");
    CheckCheckpointRankCount(run_dir.string(), options.peers);
  } else if (IsRankZero(options.peers)) {
    std::error_code ec;
    fs::create_directories(options.out, ec);
    if (ec) throw Error("frfit fleet", "--out", "cannot create " + options.out + ": " + ec.message());
    if (!fs::create_directory(run_dir, ec)) {
      if (ec)
        throw Error("frfit fleet", "--out",
                    "cannot create " + run_dir.string() + ": " + ec.message());
      throw Error("frfit fleet", "--run-id",
                  "run directory " + run_dir.string() +
                      " exists; refusing to overwrite an earlier run (choose another "
                      "--run-id, or --resume to continue it)");
    }
  }
}

}  // namespace

bool FleetRunOptions::IsValid(std::string* error) const {
  std::string inner;
  if (manifest.empty()) return Invalid(error, "manifest: expected a FLEET.yaml path");
  if (out.empty()) return Invalid(error, "out: expected an output directory");
  if (!run_id.empty() && !IsValidRobotName(run_id))
    return Invalid(error, "run_id: expected letters, digits, '_', '-' and '.', got '" + run_id + "'");
  if (resume && run_id.empty()) return Invalid(error, "run_id: expected the run to continue (resume)");
  if (!evaluator.IsValid(&inner)) return Invalid(error, "evaluator." + inner);
  // The checkpoint triggers are the drive's (fleet_fit.cc hands them on): its rule, its words.
  DriveOptions drive;
  drive.checkpoint_every_evaluations = checkpoint_every_evaluations;
  drive.checkpoint_every_seconds = checkpoint_every_seconds;
  if (!drive.IsValid(&inner)) return Invalid(error, inner);
  if (progress_every_rounds < 0)
    return Invalid(error, "progress_every_rounds: expected an integer >= 0 (0: none), got " +
                              std::to_string(progress_every_rounds));
  return true;
}

void FleetNight::Log(const std::string& line) const {
  if (options->log) options->log(line);
}

FleetNight OpenNight(const FleetRunOptions& options) {
  FleetNight night;
  night.options = &options;
  night.manifest = LoadFleetManifest(options.manifest);
  FleetReport& report = night.report;
  report.manifest = options.manifest;
  report.warm_start = night.manifest.warm_start;
  report.drift = night.manifest.drift;
  report.started_utc = FleetUtcNow();
  report.run_id = options.run_id.empty() ? FleetDefaultRunId() : options.run_id;
  night.run_dir = fs::path(options.out) / report.run_id;
  report.run_dir = night.run_dir.string();
  night.checkpoint_path = (night.run_dir / CheckpointFileName(options.peers)).string();
  night.history_path = (night.run_dir / HistoryFileName(options.peers)).string();
  night.threads = options.evaluator.threads > 0
                      ? options.evaluator.threads
                      : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  MakeOrFindRunDirectory(options, night);
  AgreeWithPeers(options.peers);
  return night;
}

std::mutex& Hdf5Lock() {
  static std::mutex mutex;
  return mutex;
}

void ForEachRobot(size_t count, int threads, const std::function<void(size_t)>& job) {
  cpu::ThreadPool pool(threads);
  pool.RunEach(count, job);
}

double Median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
}

}  // namespace frfit
