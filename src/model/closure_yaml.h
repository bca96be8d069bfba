// The `closure` block of a model file (docs/model-format.md, "Closed chains") and the closing of
// its postures' loops at load time.
#pragma once

#include <yaml-cpp/yaml.h>

#include "frfit/files/yaml_reader.h"
#include "frfit/model/model.h"

namespace frfit {

// Reads `closure` (frames, rigid coordinates and the sensor already known) into model->closure.
void ParseClosure(const YamlReader& r, const YAML::Node& node, Model* model);

// Closes the loops of posture `spec` (its q holds the values the file gives, `given` flags them;
// `target` is its end effector's position or null). Errors name the posture's `node` and `path`.
void ClosePosture(const YamlReader& r, const YAML::Node& node, const std::string& path,
                  const Model& model, const std::vector<bool>& given,
                  const Eigen::Vector3d* target, PostureSpec* spec);

}  // namespace frfit
