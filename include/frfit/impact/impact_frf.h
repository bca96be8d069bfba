// From impact-test records to an FrfSet: trigger (continuous recordings), checks, DC removal,
// windows, spectra, averaging per hammer axis, estimator, coherence, noise variance, format.
// Options are plain values with defaults for an impact test; every hit ends with a verdict.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "frfit/frf/frf_set.h"
#include "frfit/impact/hit_checks.h"
#include "frfit/impact/spectra.h"
#include "frfit/impact/time_recording.h"
#include "frfit/impact/trigger.h"
#include "frfit/impact/windows.h"

namespace frfit {

struct ImpactOptions {
  std::string posture;  // written to the set
  // Band in Hz, both ends inclusive, on the record's lines k·fs/N. band_max_hz 0: fs/2.56 (the
  // usual anti-alias limit); band_min_hz 0 still leaves out the 0 Hz line (no FRF at DC).
  double band_min_hz = 0.0, band_max_hz = 0.0;
  FrfEstimator estimator = FrfEstimator::kH1;
  // Unset: the responses' own (acceleration → inertance, velocity → mobility, displacement →
  // receptance); then every response must measure the same quantity.
  std::optional<FrfFormat> format;
  ForceWindowOptions force_window;
  ExponentialWindowOptions exponential;
  TriggerOptions trigger;
  HitCheckOptions checks;
  // Keep what the estimation saw of every hit in ImpactResult::traces (the impact-test page,
  // report/impact_report.h); off by default: it holds every record until the result goes.
  bool keep_traces = false;
  // Called with (hits done, hits) after each hit when set: the progress of a long recording.
  std::function<void(std::size_t, std::size_t)> progress;
  // False with *error = "field: expected …" (when error is not null) when a setting is invalid.
  bool IsValid(std::string* error) const;
};

struct HitVerdict {
  int hit = 0;          // 0-based over all hits of all inputs, in input order
  std::string source;   // the file and its hit number
  int hammer_axis = 0;
  double trigger_time_s = 0.0;  // in a continuous recording; 0 for triggered records
  bool kept = false;
  std::string reason;   // why rejected ("; "-joined when several); empty when kept
};

// One hit as the estimation saw it, for plots. `record` is after triggering and DC removal, before
// the windows; it has no channels when the hit could not be cut whole (its verdict says why).
struct HitTrace {
  std::string file;      // the recording it came from; record.hit is its number there
  TimeRecording record;
  Pulse pulse;           // the force pulse in record
  // |F|² on the set's lines after the force and exponential windows, what the force-drop check
  // looks at; empty when the hit was not processed.
  std::vector<double> force_power;
  // A rejected hit's |F|² on the same lines before the force window (exponential window only):
  // the window cuts a double hit's second pulse, after which its spectrum looks like a kept one's.
  // Empty for kept hits.
  std::vector<double> force_power_unwindowed;
};

struct ImpactResult {
  FrfSet set;  // H, present, coherence, averages (the fewest of any hammer axis), noise variance
  std::vector<HitVerdict> verdicts;
  std::vector<int> averages_per_axis;  // hits kept per hammer axis x, y, z
  double exponential_tau_s = 0.0;      // +inf: no exponential window
  int record_samples = 0;
  double sample_rate_hz = 0.0;
  std::vector<HitTrace> traces;  // parallel to verdicts when options.keep_traces, else empty
};

// Throws Error (naming the recording's source) for input that cannot give FRFs: mixed sample
// rates or record lengths, two responses on one axis of a hit, no hit kept for an axis.
ImpactResult EstimateFrfs(const std::vector<TimeRecording>& recordings,
                          const ImpactOptions& options);

}  // namespace frfit
