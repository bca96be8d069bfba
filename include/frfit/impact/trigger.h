// Trigger: splits a continuous recording into hits where the force crosses a level, each record
// starting a pre-trigger before the crossing and holding a fixed number of samples. Triggered
// records (one hit each) do not come here. Windows, checks and spectra are in the other impact/
// headers.
#pragma once

#include <string>
#include <vector>

#include "frfit/impact/time_recording.h"

namespace frfit {

struct TriggerOptions {
  // Trigger level in N on |force|; 0 takes level_fraction of the recording's largest |force|, so
  // that one setting suits hammers of any size.
  double level_n = 0.0;
  double level_fraction = 0.1;
  // Seconds kept before the crossing: the pre-trigger mean is the DC that is removed, and the
  // pulse's rise before the level must stay inside the record.
  double pretrigger_s = 0.05;
  // Length of each record in seconds (required for a continuous recording: the frequency lines
  // are fs/N, and every hit averaged must have the same N).
  double record_s = 0.0;
  // False with *error = "field: expected …" (when error is not null) when a setting is invalid.
  bool IsValid(std::string* error) const;
};

// A hit cut out of a continuous recording. `problem` is non-empty when the record could not be
// cut whole (the recording starts or ends inside it): such a hit is reported, not averaged.
struct TriggeredHit {
  TimeRecording record;  // record.hit: index of the hit in the recording
  double trigger_time_s = 0.0;
  std::string problem;
};

// Crossings closer than one record to the previous trigger belong to that record (a double hit
// stays in the record it spoils and is rejected there, never split into a hit of its own).
std::vector<TriggeredHit> SplitHits(const TimeRecording& recording, const TriggerOptions& options);

}  // namespace frfit
