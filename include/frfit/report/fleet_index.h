// The fleet index page: the run (its id, when it started, links to the previous nights' index
// pages), one table row per robot linking to its result file and HTML report, with the fit cost, a
// status, how the fit started and drift flags, and below it each parameter's spread across the
// fleet with its outliers named (the fleet command fills all three).
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace frfit {

struct FleetIndexRow {
  std::string robot;
  std::string result_file;  // link target (relative to the index page, or absolute)
  std::string report_link;  // link target of the robot's HTML report; empty: no report
  double cost = 0.0;        // NaN: no cost (shown as a dash)
  std::string status;       // free text, e.g. "ok", "failed", "drift", "high cost"
  std::vector<std::string> drift_flags;
  double cost_over_median = std::numeric_limits<double>::quiet_NaN();  // shown next to the cost
  std::string start;  // how the fit started: "cold", "warm", "warm, refitted cold: <why>"; "" : —
};

// One parameter across the fleet's fitted robots (fleet/fleet_spread.h computes it): the
// quartiles, and the robots outside the fences named as outliers.
struct FleetParameterSpread {
  std::string name;
  std::string unit;  // the model's ("N*m/rad"); the values below are in it
  int robots = 0;
  double min = 0.0, q1 = 0.0, median = 0.0, q3 = 0.0, max = 0.0;
  double low_fence = 0.0, high_fence = 0.0;
  bool log_scale = true;  // quartiles and fences on the log of the values
  std::vector<std::pair<std::string, double>> outliers;  // robot, value
};

// The run a page shows, above its table; a field left empty is not shown.
struct FleetIndexRun {
  std::string run_id;
  std::string started_utc;  // ISO 8601, "2026-11-22T03:15:00Z"
  // The previous nights the robots started from: their run id and their index page, as a path
  // relative to this page (so that a tree of runs can be moved) or absolute.
  struct Night {
    std::string run_id;
    std::string index;
  };
  std::vector<Night> previous;
};

// A self-contained HTML page (inline CSS, no scripts): the run, one table row per entry in the
// order given, and one strip per parameter spread (box from q1 to q3, the median, whiskers to the
// fences or to the extremes where those lie inside, outliers as dots, named beside it); every
// value escaped, every number with its unit.
std::string RenderFleetIndex(const std::vector<FleetIndexRow>& rows,
                             const std::vector<FleetParameterSpread>& spread = {},
                             const std::string& title = "frfit fleet",
                             const FleetIndexRun& run = {});

// Writes RenderFleetIndex(rows, spread, "frfit fleet", run) to `path` atomically; throws Error
// naming the path on failure.
void WriteFleetIndex(const std::string& path, const std::vector<FleetIndexRow>& rows,
                     const std::vector<FleetParameterSpread>& spread = {},
                     const FleetIndexRun& run = {});

}  // namespace frfit
