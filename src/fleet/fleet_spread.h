// Each parameter's spread across a fleet night (docs/fleet.md, "Fleet picture"): the quartiles
// of the fitted robots' values and the robots outside Tukey's fences, for the index page and
// summary.json.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "frfit/fleet/fleet_run.h"
#include "frfit/report/fleet_index.h"

namespace frfit {

// Outliers are named only in fleets of at least this many fitted robots: below, quartiles say
// little.
inline constexpr int kFleetSpreadMinRobots = 4;
// Tukey's fences: this many interquartile ranges beyond the quartiles.
inline constexpr double kFleetOutlierIqr = 1.5;

// Per parameter (first-seen order over the robots), over the robots with status "ok". Quartiles
// interpolate linearly between order statistics (q at position q·(n − 1)) of the values' logarithm
// when every value is > 0, else of the values themselves; outliers in the robots' order.
std::vector<FleetParameterSpread> FleetSpread(const FleetReport& report);

nlohmann::ordered_json FleetSpreadJson(const std::vector<FleetParameterSpread>& spread);

}  // namespace frfit
