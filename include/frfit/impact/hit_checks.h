// Quality checks of one hit, each a reason a person can act on: a double hit, a clipped channel,
// a force spectrum that falls too far inside the band (a soft tip or a slow hit), a response that
// did not decay inside the record (leakage). The force-spectrum check needs the spectrum and
// lives with the estimation (impact_frf.cc); the others look at the samples only.
#pragma once

#include <string>
#include <vector>

#include "frfit/impact/time_recording.h"
#include "frfit/impact/windows.h"

namespace frfit {

struct HitCheckOptions {
  // A second force peak above this fraction of the first, outside the pulse, is a double hit.
  double double_hit_fraction = 0.1;
  // Samples at ±full_scale, or this many consecutive samples equal to the channel's extreme
  // (when full_scale is not known), mean the front end clipped.
  int flat_top_samples = 3;
  // The force autospectrum may fall at most this many dB between its largest and smallest value
  // inside the band.
  double max_force_drop_db = 20.0;
  // A response has not decayed when the RMS of the record's last `tail_fraction` exceeds both
  // max_tail_ratio of its peak and 3 times the pre-trigger RMS (its noise floor).
  double tail_fraction = 0.1;
  double max_tail_ratio = 0.02;
  // False with *error = "field: expected …" (when error is not null) when a setting is invalid.
  bool IsValid(std::string* error) const;
};

// Every reason the hit's samples give to reject it (empty: none). `record` is after DC removal;
// `exponential` is the window applied to the responses before the decay check (empty: none);
// `dc_end` is the first sample after the pre-trigger region.
std::vector<std::string> CheckDoubleHit(const std::vector<double>& force, const Pulse& pulse,
                                        double sample_rate_hz, const HitCheckOptions& options);
std::vector<std::string> CheckClipping(const TimeRecording& raw, const HitCheckOptions& options);
std::vector<std::string> CheckDecay(const TimeRecording& record, const std::vector<double>& exponential,
                                    int dc_end, const HitCheckOptions& options);
// Reason when the force autospectrum |F|² over the band's lines falls more than allowed.
std::string CheckForceDrop(const std::vector<double>& force_power, const HitCheckOptions& options);

}  // namespace frfit
