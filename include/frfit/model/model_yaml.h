// Reading models and parameter sets from YAML (format: docs/model-format.md).
#pragma once

#include <string>
#include <vector>

#include "frfit/files/yaml_reader.h"
#include "frfit/model/model.h"

namespace frfit {

// Reads and validates a model file; throws Error naming the file, field and expectation.
Model LoadModel(const std::string& path);
Model ParseModelText(const std::string& yaml_text, const std::string& source);

// Reads a parameter file `parameters: {k_z1: 2.0e6, d_z1: 1200, ...}` against `model`. Every
// parameter of the model must be given exactly once; values must be finite and positive.
std::vector<double> LoadParameters(const std::string& path, const Model& model);

// Parses "z2=70,z3=-100" (degrees for rotational coordinates, metres for translational ones) on
// top of `base` (values in rad / m). Throws Error naming `what` on an unknown name or a bad number.
std::vector<double> ParseCoordinateAssignments(const std::string& text, const Model& model,
                                               std::vector<double> base, const std::string& what);

// The keys a model file and a URDF overlay share: name, gravity, damping_model.
void ParseModelHeader(const YamlReader& reader, const YAML::Node& root, Model* model);

// A parameter's {initial, min, max} (all positive, min <= initial <= max), for the model file
// and the URDF overlay alike.
Bounds ParseBounds(const YamlReader& reader, const YAML::Node& node, const std::string& path);

// Converts a coordinate value from file units (deg / m) to SI (rad / m), and back.
double CoordinateFromFileUnits(const Model& model, int coordinate, double value);
double CoordinateToFileUnits(const Model& model, int coordinate, double value);

}  // namespace frfit
