// A synthetic fleet for tests and demonstrations (tools/make_fleet.cc, docs/fleet.md): N robots of
// one model whose elastic parameters scatter log-uniformly around a base set, each measured at one
// or more postures with relative complex Gaussian noise. Writes the FRF files, the truth and a
// fleet manifest. Everything is a function of the seed (robot i's data do not depend on N).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frfit/frf/frf_format.h"

namespace frfit {

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
};

// Parses "--q-postures" text: "name:z2=60,z3=-90;name2:z2=45". Throws Error naming `what`.
std::vector<std::pair<std::string, std::string>> ParseQPostures(const std::string& text,
                                                                const std::string& what);

// Writes DIR/model.yaml, DIR/robot_NNN/frf_<posture>.h5, DIR/truth.json, DIR/fleet.yaml (and
// DIR/fit.yaml when a config is given). Returns the robot names.
std::vector<std::string> GenerateFleet(const FleetGeneratorOptions& options);

// "k_z1=3000000;d_z1=100;..." with shortest round-trip numbers (the `parameters` provenance).
std::string FleetDescribeParameters(const std::vector<std::string>& names, const std::vector<double>& values);

}  // namespace frfit
