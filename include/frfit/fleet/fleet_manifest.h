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

// How a robot with `previous` is fitted (docs/fleet.md, "Warm start").
enum class WarmStartMethod {
  // Least squares from the previous parameters and a few points around them, one cycle; a
  // result that fails the trust tests (FleetWarmStart::fallback) is refitted cold in the same run.
  kLevenbergMarquardt,
  // A short GA around the previous parameters, then the configuration's refinement and cycles
  // (the warm start before least squares); never falls back.
  kGeneticAlgorithm,
};
std::string ToString(WarmStartMethod method);  // "levenberg_marquardt" | "genetic_algorithm"
bool FromString(const std::string& text, WarmStartMethod* method);

struct FleetWarmStart {
  WarmStartMethod method = WarmStartMethod::kLevenbergMarquardt;
  // levenberg_marquardt: refinement starts, the previous point and starts − 1 points drawn within
  // ±init_spread of it.
  int starts = 4;
  // Half-width in u of the box around the previous result that the other starts (or the GA's
  // initial population) are drawn from.
  double init_spread = 0.05;
  int generations = 5;  // genetic_algorithm: GA generations
  // levenberg_marquardt: refit a warm result that is not trustworthy with the cold configuration.
  bool fallback = true;
  // A warm cost above this many times the previous night's cost is not trusted.
  double max_cost_over_previous = 2.0;
  // levenberg_marquardt: the short path (docs/fleet.md, "Short path"). A robot whose previous
  // result explains tonight's data refits from it with one start, stopping when every
  // parameter's step is below sigma_step of its 1σ (the reweighting passes too); any other robot,
  // and a short result that then fails its tests, gets the full search.
  bool short_path = true;
  double sigma_step = 0.05;
};

// Drift rule (docs/fleet.md, "Drift"): a change since the previous night is flagged when it exceeds
// `sigma` times its 1σ, sqrt(σ_previous² + σ_now²) from both nights' identifiability reports, and,
// when a percent threshold is given, also that many percent. A change without a 1σ (a result
// without an identifiability report, a parameter not free in both nights) is flagged by the
// percent threshold alone: the given one, else kDriftPercentWithoutSigma's.
struct FleetDrift {
  double sigma = 4.0;
  double parameter_percent = 0.0;  // 0: not given
  double frequency_percent = 0.0;  // 0: not given
};
inline constexpr double kDriftParameterPercentWithoutSigma = 10.0;
inline constexpr double kDriftFrequencyPercentWithoutSigma = 1.0;

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
