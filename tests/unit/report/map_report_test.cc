// The posture map's page (frfit report MAP.h5): a map file read back holds what was computed, a
// two-coordinate map draws one heat-map cell per posture with the value it shows, a one-coordinate
// map draws curves with a ±1σ band, and what is not a map is refused.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "frfit/common/error.h"
#include "frfit/io/map_hdf5.h"
#include "frfit/model/model_yaml.h"
#include "frfit/report/map_report.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";

class MapReport : public test::TempDirTest {
 protected:
  Model model = LoadModel(kData + "model.yaml");
  // A map of `grid` with a made-up covariance (every free parameter 2 %, uncorrelated).
  PostureMapFile Map(const std::string& grid) {
    const std::vector<double> parameters = LoadParameters(kData + "params_from34.yaml", model);
    Identifiability id;
    for (int j = 0; j < model.num_parameters(); ++j)
      id.per_parameter.push_back({model.parameters[j].name, parameters[j], 0.02 * parameters[j], 0.02, {}});
    const size_t p = id.per_parameter.size();
    id.correlation.assign(p * p, 0.0);
    for (size_t j = 0; j < p; ++j) id.correlation[j * p + j] = 1.0;
    const std::vector<GridAxis> axes = ParseGrid(grid, model, "--grid");
    return {model.name, model.source, "params_from34.yaml", "milling", 40.0, axes,
            ComputePostureMap(model, parameters, id, GridPostures(model, model.posture("milling").q, axes), {40.0, 2})};
  }
};

TEST_F(MapReport, FileReadsBackAndEachCellShowsItsPosture) {
  const PostureMapFile map = Map("z2=40:80:20,z3=-140:-80:20");
  WritePostureMap(Path("map.h5"), model, map);
  const PostureMapData d = ReadPostureMap(Path("map.h5"));
  ASSERT_EQ(d.points.size(), 12u);
  EXPECT_EQ(d.coordinates, (std::vector<std::string>{"z2", "z3"}));
  for (size_t p = 0; p < 12; ++p) {
    EXPECT_EQ(d.grid[p][0], 40.0 + 20.0 * (p / 4)) << p;  // first coordinate slowest
    EXPECT_EQ(d.points[p].stiffness.least_n_per_m, map.points[p].stiffness.least_n_per_m);
    EXPECT_EQ(d.points[p].stiffness.axis_sigma_n_per_m, map.points[p].stiffness.axis_sigma_n_per_m);
    ASSERT_EQ(d.points[p].modes.size(), map.points[p].modes.size());
    EXPECT_EQ(d.points[p].modes[0].frequency_sigma_hz, map.points[p].modes[0].frequency_sigma_hz);
  }
  const std::string html = RenderMapReportHtml(d, "map.h5");
  const size_t start = html.find("id=\"heat-least-stiffness\""), end = html.find("</svg>", start);
  ASSERT_NE(start, std::string::npos);
  const std::string svg = html.substr(start, end - start);
  const std::regex cell("<rect x=\"[^\"]+\" y=\"[^\"]+\" width=\"[^\"]+\" height=\"[^\"]+\" fill=\"#[0-9a-f]{6}\" "
                        "data-value=\"([^\"]+)\"><title>z2 ([^,]+), z3 ([^:]+):");
  size_t cells = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cell); it != std::sregex_iterator(); ++it, ++cells) {
    const double z2 = std::stod((*it)[2]), z3 = std::stod((*it)[3]);
    const size_t p = static_cast<size_t>((z2 - 40) / 20) * 4 + static_cast<size_t>((z3 + 140) / 20);
    EXPECT_EQ(std::stod((*it)[1]), d.points[p].stiffness.least_n_per_m) << z2 << ", " << z3;
  }
  EXPECT_EQ(cells, 12u);
  EXPECT_NE(html.find("id=\"heat-weakest-axis-sigma\""), std::string::npos);
  EXPECT_NE(html.find("id=\"heat-first-mode\""), std::string::npos);
}

TEST_F(MapReport, OneCoordinateDrawsCurvesWithTheirBand) {
  WritePostureMap(Path("line.h5"), model, Map("z2=30:120:10"));
  const std::string html = RenderMapReportHtml(ReadPostureMap(Path("line.h5")), "line.h5");
  EXPECT_EQ(html.find("map-heat"), std::string::npos);
  const size_t curve = html.find("id=\"curve-first-mode\"");
  ASSERT_NE(curve, std::string::npos);
  // Value and both σ edges: three paths of 10 points each.
  const std::string svg = html.substr(curve, html.find("</svg>", curve) - curve);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), 'L'), 3 * 9) << svg;
}

TEST_F(MapReport, WhatIsNotAMapIsRefused) {
  try {
    ReadPostureMap(kData + "frf_milling_inertance.h5");
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a posture map"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace frfit
