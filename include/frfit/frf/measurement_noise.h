// Synthetic measurement noise for FRF sets made from a model (`frfit simulate --noise`, tests,
// studies): the two errors that dominate an impact test, per line and entry,
//     H_measured = H·(1 + relative·e₁) + floor·max_l |H_e(l)|·e₂,    e₁, e₂ ~ CN(0, 1),
// a relative error (force and response calibration, leakage, the hammer's scatter) and a noise
// floor at a fraction of each entry's own peak (the accelerometer and the data acquisition), under
// which weak cross entries and low lines fall. Its variance, relative²|H|² + (floor·peak)², is the
// noise model a measurement with coherence would carry.
#pragma once

#include <cstdint>
#include <string>

#include "frfit/frf/frf_set.h"

namespace frfit {

struct MeasurementNoise {
  double relative = 0.0;  // standard deviation of e₁'s factor (0.03: 3 %)
  double floor = 0.0;     // of each entry's peak |H| over the lines (0.001: 60 dB below it)
  bool IsValid(std::string* error) const;
};

// Parses "RELATIVE[:FLOOR]" (e.g. "0.03:0.001"); errors name `what`.
MeasurementNoise ParseMeasurementNoise(const std::string& text, const std::string& what);

// Adds the noise to every present entry of `set`, drawn from `seed` (line by line, entries in
// order, e₁ then e₂), and records its variance as the set's noise model when record_variance.
void AddMeasurementNoise(const MeasurementNoise& noise, std::uint64_t seed, bool record_variance,
                         FrfSet* set);

}  // namespace frfit
