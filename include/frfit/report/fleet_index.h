// The fleet index page: one table row per robot linking to its result file and HTML report, with
// the fit cost, a status and drift flags (the fleet command fills the rows).
#pragma once

#include <limits>
#include <string>
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
};

// A self-contained HTML page (inline CSS, no scripts) with one table row per entry, in the order
// given; every value escaped.
std::string RenderFleetIndex(const std::vector<FleetIndexRow>& rows,
                             const std::string& title = "frfit fleet");

// Writes RenderFleetIndex(rows) to `path` atomically; throws Error naming the path on failure.
void WriteFleetIndex(const std::string& path, const std::vector<FleetIndexRow>& rows);

}  // namespace frfit
