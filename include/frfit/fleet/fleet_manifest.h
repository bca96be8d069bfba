// The fleet manifest (docs/fleet.md): which robots a nightly refit covers, where each robot's FRF
// files, model and fit configuration are, its seed, and the previous night's result it warm-starts
// from. Reading is strict (unknown keys are errors naming file, field and line); paths are
// resolved relative to the manifest's directory. Whether a robot's files are usable is not decided
// here: the fleet run checks each robot and skips the bad ones (fleet/fleet_run.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace frfit {

struct FleetWarmStart {
  int generations = 5;       // GA generations of a warm-started fit
  double init_spread = 0.05; // half-width in u of the GA's initial box around the previous result
};

struct FleetDrift {
  double parameter_percent = 10.0;  // flag a parameter that moved more than this since `previous`
  double frequency_percent = 1.0;   // flag a modal frequency that moved more than this
};

struct FleetRobot {
  std::string name;               // [A-Za-z0-9_.-]+, unique; names the output files
  std::vector<std::string> frf;   // resolved paths
  std::string model;              // resolved path (the robot's own, else the manifest's)
  std::string config;             // resolved path; empty: the default fit configuration
  std::uint64_t seed = 0;         // own `seed`, else FleetRobotSeed(manifest seed, name)
  bool explicit_seed = false;
  std::string previous;           // resolved path of the previous result; empty: none
};

struct FleetManifest {
  std::string path;               // the manifest file
  std::string directory;          // its directory (paths are relative to it)
  std::string model;              // shared default model (resolved; may be empty)
  std::string config;             // shared default fit configuration (resolved; may be empty)
  std::uint64_t seed = 1;
  std::vector<FleetRobot> robots;
  FleetWarmStart warm_start;
  FleetDrift drift;
};

// Reads and checks the manifest's structure. A robot without a model (neither its own nor the
// shared one) is an error, as are duplicate or unusable robot names.
FleetManifest LoadFleetManifest(const std::string& path);

// The seed of a robot that names none: SplitMix64(base ^ FNV-1a-64(name)) >> 1 (63 bits, so
// `frfit fit --seed` can take it). Depends only on the
// base seed and the name, never on the other robots or their order.
std::uint64_t FleetRobotSeed(std::uint64_t base_seed, const std::string& name);

// True for names usable as file names: [A-Za-z0-9_.-]+, not starting with '.'.
bool IsValidRobotName(const std::string& name);

}  // namespace frfit
