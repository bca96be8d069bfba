// frfit lobes --out: the lobes file read back as written, its report page (the envelope with the
// band, titled from the model) and its CSV export; and the export of a posture map.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frfit/io/lobes_hdf5.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kKuka = kRoot + "/datasets/kuka_kr90/";
const std::string kCut = kKuka + "cut_example.yaml";

// A CSV file as header → column of cells (the export writes no quoted cells for numbers).
std::map<std::string, std::vector<std::string>> ReadCsv(const std::string& path,
                                                        std::vector<std::string>* header) {
  std::istringstream in(test::ReadText(path));
  std::string line;
  std::getline(in, line);
  auto split = [](const std::string& text) {
    std::vector<std::string> cells;
    std::stringstream s(text);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    if (!text.empty() && text.back() == ',') cells.push_back("");
    return cells;
  };
  *header = split(line);
  std::map<std::string, std::vector<std::string>> columns;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line);
    for (size_t c = 0; c < header->size() && c < cells.size(); ++c) columns[(*header)[c]].push_back(cells[c]);
  }
  return columns;
}

class LobesFileCli : public test::TempDirTest {};

TEST_F(LobesFileCli, ReadsBackWhatWasWritten) {
  LobesFile d;
  d.model_name = "robot \"A\"";
  d.model_file = "m.yaml";
  d.posture = "reach+q";
  d.parameters_source = "R.h5";
  d.cut = "cut.yaml";
  d.milling = "down";
  d.teeth = 3;
  d.kt_n_per_m2 = 7e8;
  d.kr_ratio = 0.3;
  d.lobes.spindle_speed_rpm = {100.0, 200.0, 300.0};
  d.lobes.depth_limit_m = {1e-4, INFINITY, 2.5e-4};
  d.lobes.chatter_frequency_hz = {10.5, NAN, 11.25};
  d.lobes.critical_depth_m = 1e-4;
  d.lobes.critical_spindle_speed_rpm = 100.0;
  d.lobes.critical_chatter_frequency_hz = 10.5;
  d.lobes.absolute_critical_depth_m = 0.9e-4;
  d.lobes.absolute_chatter_frequency_hz = 10.25;
  d.lobes.lobes = {{0, 1e-4, 100.0, 10.5, false}, {1, 2.5e-4, 300.0, 11.25, true}};
  d.band.samples = 7;
  d.band.reflected = 2;
  d.band.seed = 42;
  d.band.depth_limit_m_p05 = {0.9e-4, INFINITY, 2e-4};
  d.band.depth_limit_m_p95 = {1.1e-4, INFINITY, 3e-4};
  d.band.critical_depth_m_p05 = 0.95e-4;
  d.band.critical_depth_m_p95 = 1.2e-4;
  d.band.brackets_estimate = false;
  d.band.note = "a reason";
  d.sigma_note = "scaled";
  WriteLobesFile(Path("L.h5"), d);
  const LobesFile r = ReadLobesFile(Path("L.h5"));
  EXPECT_EQ(r.model_name, d.model_name);
  EXPECT_EQ(r.posture, d.posture);
  EXPECT_EQ(r.parameters_source, d.parameters_source);
  EXPECT_EQ(r.cut, d.cut);
  EXPECT_EQ(r.milling, d.milling);
  EXPECT_EQ(r.teeth, 3);
  EXPECT_EQ(r.kt_n_per_m2, d.kt_n_per_m2);
  EXPECT_EQ(r.kr_ratio, d.kr_ratio);
  EXPECT_EQ(r.lobes.spindle_speed_rpm, d.lobes.spindle_speed_rpm);
  EXPECT_EQ(r.lobes.depth_limit_m, d.lobes.depth_limit_m);
  EXPECT_EQ(r.lobes.chatter_frequency_hz[0], 10.5);
  EXPECT_TRUE(std::isnan(r.lobes.chatter_frequency_hz[1]));
  EXPECT_EQ(r.lobes.absolute_critical_depth_m, 0.9e-4);
  EXPECT_EQ(r.lobes.absolute_chatter_frequency_hz, 10.25);
  ASSERT_EQ(r.lobes.lobes.size(), 2u);
  EXPECT_EQ(r.lobes.lobes[1].k, 1);
  EXPECT_TRUE(r.lobes.lobes[1].clipped);
  EXPECT_EQ(r.lobes.lobes[1].chatter_frequency_hz, 11.25);
  EXPECT_EQ(r.band.samples, 7);
  EXPECT_EQ(r.band.reflected, 2);
  EXPECT_EQ(r.band.seed, 42u);
  EXPECT_EQ(r.band.depth_limit_m_p05, d.band.depth_limit_m_p05);
  EXPECT_EQ(r.band.depth_limit_m_p95, d.band.depth_limit_m_p95);
  EXPECT_EQ(r.band.critical_depth_m_p05, 0.95e-4);
  EXPECT_FALSE(r.band.brackets_estimate);
  EXPECT_EQ(r.band.note, "a reason");
  EXPECT_EQ(r.sigma_note, "scaled");
  // Without a band: none read back. Another kind of file is refused, naming it.
  d.band = LobeBand{};
  WriteLobesFile(Path("L0.h5"), d);
  EXPECT_EQ(ReadLobesFile(Path("L0.h5")).band.samples, 0);
  EXPECT_THROW(ReadLobesFile(kKuka + "frf_milling_inertance.h5"), Error);
}

// The command: --out beside --json, the page with the band, the CSVs with the JSON's numbers.
TEST_F(LobesFileCli, CommandReportAndExport) {
  std::ofstream(Path("tiny.yaml")) << test::kTinyFitConfig;
  test::CliResult r = Run({"fit", "--model", kKuka + "model.yaml", "--frf",
                           kKuka + "frf_milling_inertance.h5", "--config", Path("tiny.yaml"),
                           "--out", Path("R.h5"), "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = Run({"lobes", "--model", kKuka + "model.yaml", "--posture", "milling", "--params",
           Path("R.h5"), "--cut", kCut, "--samples", "8", "--out", Path("L.h5"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["out"], Path("L.h5"));

  r = Run({"report", Path("L.h5"), "-o", Path("L.html")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string html = test::ReadText(Path("L.html"));
  const std::string model = j["model"];
  EXPECT_NE(html.find("<h1>Stability lobes: model " + model + ", posture milling</h1>"), std::string::npos);
  EXPECT_EQ(html.find("KUKA KR90"), std::string::npos);  // the model's own name, nothing hard-coded
  EXPECT_NE(html.find("<svg id=\"lobes-plot\""), std::string::npos);
  EXPECT_NE(html.find("<path id=\"lobes-band\""), std::string::npos);
  EXPECT_NE(html.find("<path id=\"lobes-envelope\""), std::string::npos);
  EXPECT_NE(html.find("<circle id=\"lobes-critical\""), std::string::npos);

  r = Run({"export", Path("L.h5"), "--csv", Path("csv"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kind"], "stability_lobes");
  std::vector<std::string> header;
  auto lobes = ReadCsv(Path("csv/lobes.csv"), &header);
  EXPECT_EQ(header, (std::vector<std::string>{"spindle_speed_rpm", "depth_limit_m",
                                              "chatter_frequency_hz", "depth_limit_m_p05",
                                              "depth_limit_m_p95"}));
  ASSERT_EQ(lobes["spindle_speed_rpm"].size(), j["spindle_speed_rpm"].size());
  for (size_t i = 0; i < j["spindle_speed_rpm"].size(); i += 97) {
    EXPECT_EQ(std::stod(lobes["spindle_speed_rpm"][i]), j["spindle_speed_rpm"][i].get<double>());
    if (!j["depth_limit_m"][i].is_null())
      EXPECT_EQ(std::stod(lobes["depth_limit_m"][i]), j["depth_limit_m"][i].get<double>());
    if (!j["depth_limit_m_p95"][i].is_null())
      EXPECT_EQ(std::stod(lobes["depth_limit_m_p95"][i]), j["depth_limit_m_p95"][i].get<double>());
  }
  auto minima = ReadCsv(Path("csv/lobe_minima.csv"), &header);
  EXPECT_EQ(header, (std::vector<std::string>{"k", "depth_m", "spindle_speed_rpm",
                                              "chatter_frequency_hz", "clipped"}));
  ASSERT_EQ(minima["k"].size(), j["lobes"].size());
  EXPECT_EQ(std::stod(minima["depth_m"][0]), j["lobes"][0]["depth_m"].get<double>());
}

TEST_F(LobesFileCli, ExportTakesAPostureMap) {
  const std::string params = kKuka + "params_from34.yaml";
  test::CliResult r = Run({"map", "--model", kKuka + "model.yaml", "--posture", "milling", "--params",
                           params, "--grid", "z2=40:70:15,z3=-100:-80:20", "--max-hz", "30",
                           "--cut", kCut, "--out", Path("M.h5"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  r = Run({"export", Path("M.h5"), "--csv", Path("csv")});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> header;
  auto points = ReadCsv(Path("csv/map_points.csv"), &header);
  const std::vector<std::string> expected = {
      "posture", "z2", "z3",
      "stiffness_x_n_per_m", "stiffness_x_sigma_n_per_m", "stiffness_x_at_hz",
      "stiffness_y_n_per_m", "stiffness_y_sigma_n_per_m", "stiffness_y_at_hz",
      "stiffness_z_n_per_m", "stiffness_z_sigma_n_per_m", "stiffness_z_at_hz",
      "least_stiffness_n_per_m", "least_stiffness_at_hz",
      "least_direction_x", "least_direction_y", "least_direction_z",
      "critical_depth_m", "critical_spindle_speed_rpm", "absolute_critical_depth_m"};
  EXPECT_EQ(header, expected);
  ASSERT_EQ(points["posture"].size(), j["points"].size());
  ASSERT_EQ(j["points"].size(), 6u);
  size_t modes = 0;
  for (size_t p = 0; p < j["points"].size(); ++p) {
    const auto& point = j["points"][p];
    EXPECT_EQ(std::stod(points["z2"][p]), point["q"]["z2"].get<double>());
    EXPECT_EQ(std::stod(points["z3"][p]), point["q"]["z3"].get<double>());
    EXPECT_EQ(std::stod(points["least_stiffness_n_per_m"][p]),
              point["stiffness"]["least_n_per_m"].get<double>());
    EXPECT_EQ(std::stod(points["stiffness_y_n_per_m"][p]),
              point["stiffness"]["axis_n_per_m"][1].get<double>());
    EXPECT_EQ(std::stod(points["critical_depth_m"][p]),
              point["stability"]["critical_depth_m"].get<double>());
    EXPECT_EQ(points["stiffness_x_sigma_n_per_m"][p], "");  // a parameter file: no σ
    modes += point["modes"].size();
  }
  auto mode_rows = ReadCsv(Path("csv/map_modes.csv"), &header);
  EXPECT_EQ(header, (std::vector<std::string>{"posture", "mode", "frequency_hz",
                                              "frequency_sigma_hz", "damping_ratio",
                                              "damping_ratio_sigma"}));
  ASSERT_EQ(mode_rows["mode"].size(), modes);
  EXPECT_EQ(std::stod(mode_rows["frequency_hz"][0]), j["points"][0]["modes"][0]["frequency_hz"].get<double>());
}

}  // namespace
}  // namespace frfit
