// The HTML page of a posture map (frfit report MAP.h5): heat maps over the first two swept
// coordinates (the least dynamic stiffness, its relative 1σ, the first mode's frequency), or
// curves with their ±1σ band over one.
#pragma once

#include <string>

#include "frfit/io/map_hdf5.h"

namespace frfit {

std::string RenderMapReportHtml(const PostureMapData& map, const std::string& map_path);

// Reads the map file and writes the page atomically; on any error nothing is written.
void WriteMapReport(const std::string& map_path, const std::string& html_path);

}  // namespace frfit
