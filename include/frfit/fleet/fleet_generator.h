// A synthetic fleet for tests and demonstrations (tools/make_fleet.cc, docs/fleet.md): N robots of
// one model whose elastic parameters scatter log-uniformly around a base set, each measured at one
// or more postures with relative complex Gaussian noise. Writes the FRF files, the truth and a
// fleet manifest. Everything is a function of the seed (robot i's data do not depend on N); a
// later night of the same fleet keeps each robot's parameters (save a planted drift) and draws
// its noise afresh.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frfit/frf/frf_format.h"

namespace frfit {

// One robot's parameter multiplied by `factor` on the generated night (clipped to its bounds).
struct FleetPlantedDrift {
  std::string robot;
  std::string parameter;
  double factor = 1.0;
};

struct FleetGeneratorOptions {
  std::string model;                 // model file
  std::string params;                // parameter file of the base set; empty: the model's initial values
  std::string config;                // fit configuration copied to DIR/fit.yaml; empty: none
  int robots = 4;
  std::uint64_t seed = 1;
  std::vector<std::string> postures; // postures of the model (or of q_postures) to measure
  // Extra postures "name" → "z2=60,z3=-90" (degrees / metres; unnamed coordinates are 0, as in
  // model files); they are added to the copy of the model written to DIR/model.yaml.
  std::vector<std::pair<std::string, std::string>> q_postures;
  double perturb = 0.2;              // factor exp(U(-1,1)·ln(1+perturb)) per parameter, clipped to bounds
  double noise = 0.01;               // relative complex Gaussian noise per FRF value
  std::string band = "0.2:30:0.2";
  FrfFormat format = FrfFormat::kInertance;
  std::string out;                   // output directory (created; existing files are replaced)
  // Night 1 is the fleet as first generated. A later night measures the same robots again: the
  // same true parameters (times `drift`), noise drawn from a stream of (seed, robot, night).
  int night = 1;
  std::vector<FleetPlantedDrift> drift;
  // When set, every robot of the manifest gets `previous: <previous_run>/<robot>.h5`, written
  // relative to the manifest's directory (`out`), so the fleet and its runs can be moved together.
  std::string previous_run;
};

// Parses "--q-postures" text: "name:z2=60,z3=-90;name2:z2=45". Throws Error naming `what`.
std::vector<std::pair<std::string, std::string>> ParseQPostures(const std::string& text,
                                                                const std::string& what);

// Parses "--drift" text: "robot_003:k_z2=1.05,d_z2=0.9;robot_010:k_x1=0.97". Throws Error naming
// `what`.
std::vector<FleetPlantedDrift> ParsePlantedDrift(const std::string& text, const std::string& what);

// Writes DIR/model.yaml, DIR/robot_NNN/frf_<posture>.h5, DIR/truth.json, DIR/fleet.yaml (and
// DIR/fit.yaml when a config is given). Returns the robot names.
std::vector<std::string> GenerateFleet(const FleetGeneratorOptions& options);

// "k_z1=3000000;d_z1=100;..." with shortest round-trip numbers (the `parameters` provenance).
std::string FleetDescribeParameters(const std::vector<std::string>& names, const std::vector<double>& values);

}  // namespace frfit
