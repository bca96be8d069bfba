// Impact-test time data in HDF5 (layout: docs/file-formats.md, "Time recordings"):
//   /@frfit_file = "time_recording", /@recording = "hits" | "continuous"
//   /sample_rate_hz            float64 [1]
//   /channels/name, quantity   strings [C]  (quantity: force, acceleration, velocity, displacement)
//   /channels/axis             int64   [C]  (x=0, y=1, z=2; a force: the hammer's direction)
//   /channels/full_scale       float64 [C]  (the front end's range in SI units; 0: unknown)
//   /samples                   float64 [H][C][N]  SI units; H triggered hits, or H = 1 continuous
#pragma once

#include <string>
#include <vector>

#include "frfit/impact/time_recording.h"

namespace frfit {

// Writes atomically. `recordings` are triggered hits (hit ≥ 0) sharing channels, sample rate and
// length, or one continuous recording (hit = −1).
void WriteTimeRecordings(const std::string& path, const std::vector<TimeRecording>& recordings);
// Reads and validates; every problem is an Error naming the file and the dataset. Each hit's
// source is the path.
std::vector<TimeRecording> ReadTimeRecordings(const std::string& path);

}  // namespace frfit
