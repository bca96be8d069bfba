#include "src/fleet/fleet_spread.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace frfit {
namespace {

// The q-quantile of sorted values, interpolating between order statistics.
double Quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(at));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

std::vector<FleetParameterSpread> FleetSpread(const FleetReport& report) {
  std::vector<std::string> names;
  for (const FleetRobotOutcome& r : report.robots)
    if (r.status == "ok")
      for (const std::string& n : r.parameter_names)
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  std::vector<FleetParameterSpread> out;
  for (const std::string& name : names) {
    std::vector<std::pair<const FleetRobotOutcome*, double>> values;
    for (const FleetRobotOutcome& r : report.robots) {
      if (r.status != "ok") continue;
      for (size_t k = 0; k < r.parameter_names.size(); ++k)
        if (r.parameter_names[k] == name && std::isfinite(r.parameters[k]))
          values.emplace_back(&r, r.parameters[k]);
    }
    if (values.empty()) continue;
    FleetParameterSpread s;
    s.name = name;
    // The unit as the robots' models give it; models that disagree are all named.
    std::vector<std::string> units;
    for (const auto& [robot, v] : values)
      for (size_t k = 0; k < robot->parameter_names.size() && k < robot->parameter_units.size();
           ++k)
        if (robot->parameter_names[k] == name && !robot->parameter_units[k].empty() &&
            std::find(units.begin(), units.end(), robot->parameter_units[k]) == units.end())
          units.push_back(robot->parameter_units[k]);
    for (const std::string& unit : units) s.unit += (s.unit.empty() ? "" : ", ") + unit;
    s.robots = static_cast<int>(values.size());
    for (const auto& [robot, v] : values) s.log_scale = s.log_scale && v > 0.0;
    auto scaled = [&](double v) { return s.log_scale ? std::log(v) : v; };
    auto unscaled = [&](double v) { return s.log_scale ? std::exp(v) : v; };
    std::vector<double> sorted;
    for (const auto& [robot, v] : values) sorted.push_back(scaled(v));
    std::sort(sorted.begin(), sorted.end());
    const double q1 = Quantile(sorted, 0.25), q3 = Quantile(sorted, 0.75);
    const double low = q1 - kFleetOutlierIqr * (q3 - q1), high = q3 + kFleetOutlierIqr * (q3 - q1);
    // The extremes as fitted, not through the logarithm and back.
    s.min = s.max = values.front().second;
    for (const auto& [robot, v] : values) s.min = std::min(s.min, v), s.max = std::max(s.max, v);
    s.q1 = unscaled(q1);
    s.median = unscaled(Quantile(sorted, 0.5));
    s.q3 = unscaled(q3);
    s.low_fence = unscaled(low);
    s.high_fence = unscaled(high);
    if (s.robots >= kFleetSpreadMinRobots)
      for (const auto& [robot, v] : values)
        if (scaled(v) < low || scaled(v) > high) s.outliers.emplace_back(robot->name, v);
    out.push_back(std::move(s));
  }
  return out;
}

nlohmann::ordered_json FleetSpreadJson(const std::vector<FleetParameterSpread>& spread) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const FleetParameterSpread& s : spread) {
    nlohmann::ordered_json outliers = nlohmann::ordered_json::array();
    for (const auto& [robot, value] : s.outliers)
      outliers.push_back({{"robot", robot}, {"value", value}});
    j.push_back({{"name", s.name},
                 {"unit", s.unit},
                 {"robots", s.robots},
                 {"scale", s.log_scale ? "log" : "linear"},
                 {"min", s.min},
                 {"q1", s.q1},
                 {"median", s.median},
                 {"q3", s.q3},
                 {"max", s.max},
                 {"low_fence", s.low_fence},
                 {"high_fence", s.high_fence},
                 {"outliers", outliers}});
  }
  return j;
}

}  // namespace frfit
