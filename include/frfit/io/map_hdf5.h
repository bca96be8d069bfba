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
  std::string cut;  // the cut file of points' stability; empty: none
  // The postures the parameters were fitted at (names and swept coordinates, file units), for the
  // report to mark; empty when the parameters are not a fit result's.
  std::vector<std::string> measured_postures;
  std::vector<std::vector<double>> measured_grid;
};

// Written atomically; Error naming the file on failure.
void WritePostureMap(const std::string& path, const Model& model, const PostureMapFile& map);

// What a report draws from a map file, read back without the model: each posture's swept
// coordinates (file units), modes and stiffness. Error naming the file and dataset on anything
// that is not a posture map of consistent shapes.
struct PostureMapData {
  std::string model_name, parameters_source, base_posture, max_hz, cut;  // cut: "" without
  std::vector<std::string> coordinates;    // swept, in --grid's order
  std::vector<std::string> units;          // of each swept coordinate: "deg" or "m" ("" in old files)
  std::vector<std::vector<double>> grid;   // [posture][coordinate], file units
  std::vector<std::string> measured_postures;        // as PostureMapFile
  std::vector<std::vector<double>> measured_grid;
  std::vector<MapPoint> points;            // q left empty
};
PostureMapData ReadPostureMap(const std::string& path);

}  // namespace frfit
