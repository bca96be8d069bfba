// A posture map (frfit map --out) as HDF5; layout in docs/file-formats.md, "Posture map".
#pragma once

#include <string>
#include <vector>

#include "frfit/model/model.h"
#include "frfit/predict/posture_map.h"

namespace frfit {

struct PostureMapFile {
  std::string model_name, model_file, parameters_source, base_posture;
  double max_hz = 0.0;
  std::vector<GridAxis> axes;
  std::vector<MapPoint> points;
};

// Written atomically; Error naming the file on failure.
void WritePostureMap(const std::string& path, const Model& model, const PostureMapFile& map);

}  // namespace frfit
