#include "frfit/frf/measurement_noise.h"

#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/common/rng.h"

namespace frfit {

bool MeasurementNoise::IsValid(std::string* error) const {
  if (!(relative >= 0.0 && relative < 1.0)) {
    *error = "expected a relative noise in [0, 1), got " + FormatDouble(relative);
    return false;
  }
  if (!(floor >= 0.0 && floor < 1.0)) {
    *error = "expected a noise floor in [0, 1) of each entry's peak, got " + FormatDouble(floor);
    return false;
  }
  return true;
}

MeasurementNoise ParseMeasurementNoise(const std::string& text, const std::string& what) {
  MeasurementNoise noise;
  const size_t colon = text.find(':');
  auto number = [&](const std::string& part) {
    size_t used = 0;
    double v = 0.0;
    try {
      v = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size())
      throw Error("", what, "expected RELATIVE[:FLOOR] (e.g. 0.03:0.001), got '" + text + "'");
    return v;
  };
  noise.relative = number(text.substr(0, colon));
  if (colon != std::string::npos) noise.floor = number(text.substr(colon + 1));
  std::string error;
  if (!noise.IsValid(&error)) throw Error("", what, error);
  return noise;
}

void AddMeasurementNoise(const MeasurementNoise& noise, std::uint64_t seed, bool record_variance,
                         FrfSet* set) {
  const int lines = set->num_lines();
  double peak[9] = {};
  for (int k = 0; k < lines; ++k)
    for (int e = 0; e < 9; ++e) peak[e] = std::max(peak[e], std::abs(set->H[k * 9 + e]));
  Rng rng(seed);
  const double unit = 1.0 / std::sqrt(2.0);  // CN(0, 1): each part of variance 1/2
  auto complex_normal = [&] {
    const double re = rng.Normal(), im = rng.Normal();
    return std::complex<double>(re * unit, im * unit);
  };
  if (record_variance) {
    set->noise_variance.assign(static_cast<size_t>(lines) * 9, 0.0);
    set->noise_source = "variance";
  }
  for (int k = 0; k < lines; ++k)
    for (int e = 0; e < 9; ++e) {
      if (!set->present[e]) continue;
      std::complex<double>& h = set->H[k * 9 + e];
      const double level = noise.floor * peak[e];
      if (record_variance)
        set->noise_variance[k * 9 + e] =
            noise.relative * noise.relative * std::norm(h) + level * level;
      const std::complex<double> e1 = complex_normal(), e2 = complex_normal();
      h = h * (1.0 + noise.relative * e1) + level * e2;
    }
}

}  // namespace frfit
