// The HTML pages of a fleet night (fleet_night.h, docs/fleet.md "Fleet picture"): per fitted
// robot <robot>.html, showing what its result file holds, and index.html with one row per robot, its
// start and drift flags, and each parameter's spread across the fleet.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>

#include "frfit/files/atomic_file.h"
#include "frfit/report/fleet_index.h"
#include "frfit/report/html_report.h"
#include "src/fleet/fleet_drift.h"
#include "src/fleet/fleet_file_writer.h"
#include "src/fleet/fleet_night.h"
#include "src/fleet/fleet_spread.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

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

void WriteIndex(const FleetNight& night) {
  const FleetReport& report = night.report;
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
  WriteFleetIndex((night.run_dir / "index.html").string(), index, FleetSpread(report),
                  {report.run_id, report.started_utc, PreviousNights(night.manifest, night.run_dir)});
}

}  // namespace

void WriteRobotReport(const FleetNight& night, const std::string& robot, const FitResult& result,
                      FleetFileWriter* writer) {
  writer->Write((night.run_dir / (robot + ".html")).string(),
                RenderReportHtml(result, {"index.html", "fleet index"}));
}

// The robots whose report WriteRobotResults could not render from the result in memory: their
// result file is read back (under the HDF5 lock), rendered beside the other threads and written
// in the background.
void WriteReportsFromFiles(const FleetNight& night) {
  FleetFileWriter writer;
  ForEachRobot(night.ready.size(), night.threads, [&](size_t k) {
    const FleetRobotFit& r = *night.ready[k];
    const FleetRobotOutcome& out = night.report.robots[r.index];
    if (out.status != "ok" || r.report_written) return;
    FitResult data;
    {
      const std::lock_guard<std::mutex> lock(Hdf5Lock());
      data = ReadFitResult(out.result_file);
    }
    WriteRobotReport(night, out.name, data, &writer);
  });
  writer.Finish();
}

void WriteReports(const FleetNight& night) { WriteIndex(night); }

}  // namespace frfit
