// RunFleet: a fleet night as its stages (fleet_night.h), each timed into
// FleetReport::stage_seconds. The stages live in the files fleet_night.h names.
#include "frfit/fleet/fleet_run.h"

#include <chrono>
#include <filesystem>
#include <system_error>

#include "frfit/common/error.h"
#include "frfit/fleet/fleet_shard.h"
#include "src/fleet/fleet_night.h"

namespace frfit {
namespace {

using Clock = std::chrono::steady_clock;

// Adds the time since the previous lap (or the start) to `slot`.
class StageClock {
 public:
  explicit StageClock(Clock::time_point start) : last_(start) {}
  void Lap(double* slot) {
    const auto now = Clock::now();
    *slot += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }
  // Starts the next lap now: the stage just ended timed itself.
  void Restart() { last_ = Clock::now(); }

 private:
  Clock::time_point last_;
};

}  // namespace

FleetReport RunFleet(const FleetRunOptions& options) {
  if (std::string error; !options.IsValid(&error)) throw Error("frfit fleet", "", error);
  const auto start = Clock::now();
  StageClock clock(start);
  FleetNight night = OpenNight(options);
  FleetStageSeconds& t = night.report.stage_seconds;
  LoadRobots(&night);
  clock.Lap(&t.load);
  const std::string fingerprint = CheckInputs(night);
  clock.Lap(&t.check_inputs);
  FitRobots(&night, fingerprint);  // times its two passes itself
  clock.Restart();
  WriteRobotResults(&night);
  clock.Lap(&t.results);
  WriteReportsFromFiles(night);
  clock.Lap(&t.reports);
  AssessDrift(&night);
  clock.Lap(&t.drift);
  FleetReport& report = night.report;
  for (const auto& r : night.ready) report.evaluations += report.robots[r->index].evaluations;
  if (!GatherShardOutcomes(options.peers, &report)) return report;  // rank 0 writes the outputs
  RateCostsAgainstMedian(&report);
  // The fleet's outputs (atomic each); the summary last, as the mark of a finished run.
  WriteDrift(night);
  clock.Lap(&t.summary);
  WriteReports(night);
  clock.Lap(&t.reports);
  WriteSummaryCsv(night);
  clock.Lap(&t.summary);
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  WriteSummaryJson(night);
  std::error_code ignored;
  std::filesystem::remove(night.checkpoint_path, ignored);
  std::filesystem::remove(night.history_path, ignored);
  RemoveShardCheckpoints(options.peers, night.run_dir.string());
  return report;
}

}  // namespace frfit
