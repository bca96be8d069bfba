// Reading a model from a URDF robot description plus a small YAML overlay that says which joints
// are flexible, the bounds of their parameters, the sensor frame and the postures
// (format: docs/urdf.md). The result is an ordinary Model: every URDF joint becomes elementary
// transforms of its child link's frame, every link with mass a Body on that frame.
#pragma once

#include <string>

#include "frfit/model/model.h"

namespace frfit {

// The `format` value of an overlay file; LoadModel (model_yaml.h) dispatches on it.
inline constexpr const char* kUrdfOverlayFormat = "frfit-urdf-overlay-1";

// Reads an overlay file and the URDF it names (`urdf:`, relative to the overlay's folder).
// Throws Error naming the file (overlay or URDF), the field and the expectation.
Model LoadUrdfModel(const std::string& overlay_path);

// The same from overlay text; `source` names it in messages and a relative `urdf:` path is taken
// relative to `base_dir`.
Model ParseUrdfOverlayText(const std::string& yaml_text, const std::string& source,
                           const std::string& base_dir);

}  // namespace frfit
