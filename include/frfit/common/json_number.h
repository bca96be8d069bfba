// A number for --json output, or null where it is not one: JSON has no NaN or infinity, and a
// missing value (no σ without a covariance, no lobe in a speed range) must stay visible as null.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

namespace frfit {

inline nlohmann::ordered_json JsonNumber(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

inline nlohmann::ordered_json JsonNumbers(const std::vector<double>& values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (double v : values) out.push_back(JsonNumber(v));
  return out;
}

}  // namespace frfit
