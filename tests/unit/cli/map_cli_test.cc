// frfit map end to end on the KUKA model with a fit result: at sampled grid points its modes and
// their 1σ are `frfit modal --q`'s (to 1e-12), the result does not depend on --threads, the HDF5
// file holds what the JSON says, and bad input is one error line with nothing written.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "frfit/files/hdf5_file.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;
const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";

class MapCli : public test::TempDirTest {
 protected:
  // A two-posture fit of the bundled data: parameters with a covariance.
  const std::string& Result() {
    if (!fs::exists(Path("kuka.h5"))) {
      const test::CliResult r = Run({"fit", "--model", kData + "model.yaml", "--config", kData + "fit.yaml",
                                     "--frf", kData + "frf_milling_inertance.h5," + kData + "frf_reach_inertance.h5",
                                     "--out", Path("kuka.h5"), "--quiet", "--threads", "2"});
      EXPECT_EQ(r.status, 0) << r.err;
    }
    static std::string path;
    path = Path("kuka.h5");
    return path;
  }
  nlohmann::json Map(const std::string& threads, const std::string& out = "") {
    std::vector<std::string> args = {"map", "--model", kData + "model.yaml", "--posture", "milling",
                                     "--params", Result(), "--grid", "z2=40:100:30,z3=-150:-70:40",
                                     "--max-hz", "60", "--threads", threads, "--json"};
    if (!out.empty()) args.insert(args.end(), {"--out", out});
    const test::CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
};

TEST_F(MapCli, ModesAndSigmaAreModalsAtEveryPoint) {
  const nlohmann::json map = Map("2");
  ASSERT_EQ(map["points"].size(), 9u);
  for (const nlohmann::json& point : map["points"]) {
    const double z2 = point["q"]["z2"], z3 = point["q"]["z3"];
    const test::CliResult r = Run({"modal", "--model", kData + "model.yaml", "--posture", "milling", "--q",
                                   "z2=" + std::to_string(z2) + ",z3=" + std::to_string(z3), "--params",
                                   Result(), "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json modal = nlohmann::json::parse(r.out)["modes"];
    size_t below = 0;
    while (below < modal.size() && modal[below]["frequency_hz"].get<double>() <= 60.0) ++below;
    ASSERT_EQ(point["modes"].size(), below) << point.dump();
    for (size_t k = 0; k < below; ++k) {
      const nlohmann::json& m = point["modes"][k];
      for (const auto& [mine, theirs] : {std::pair<const char*, const char*>{"frequency_hz", "frequency_hz"},
                                         {"frequency_hz_std", "frequency_sigma_hz"},
                                         {"damping_ratio", "damping_ratio"},
                                         {"damping_ratio_std", "damping_ratio_sigma"}}) {
        const double a = m[mine], b = modal[k][theirs];
        EXPECT_NEAR(a, b, 1e-12 * std::abs(b)) << mine << " at z2=" << z2 << ", z3=" << z3;
      }
      EXPECT_GT(m["frequency_hz_std"].get<double>(), 0.0);
    }
    for (int i = 0; i < 3; ++i) {
      const double k = point["stiffness"]["axis_n_per_m"][i], s = point["stiffness"]["axis_n_per_m_std"][i];
      EXPECT_GT(k, 1e3);
      EXPECT_GT(s, 0.0);
      EXPECT_LT(s, 0.5 * k);
      EXPECT_GE(k, point["stiffness"]["least_n_per_m"].get<double>());
    }
  }
}

TEST_F(MapCli, ThreadsDoNotChangeTheMapAndTheFileHoldsIt) {
  nlohmann::json one = Map("1"), two = Map("2", Path("map.h5"));
  one.erase("wall_seconds"), two.erase("wall_seconds"), two.erase("out");
  EXPECT_EQ(one.dump(), two.dump());
  const Hdf5File f(Path("map.h5"), Hdf5File::Mode::kRead);
  EXPECT_EQ(f.GetAttribute("/", "frfit_file"), "posture_map");
  std::vector<hsize_t> dims;
  const std::vector<double> grid = f.ReadDoubles("/grid", 2, &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{9, 2}));
  const std::vector<double> least = f.ReadDoubles("/stiffness/least_n_per_m", 1, &dims);
  const std::vector<double> frequency = f.ReadDoubles("/modes/frequency_hz", 2, &dims);
  const size_t width = dims[1];
  for (size_t p = 0; p < 9; ++p) {
    EXPECT_EQ(grid[2 * p], one["points"][p]["q"]["z2"].get<double>());
    EXPECT_EQ(grid[2 * p + 1], one["points"][p]["q"]["z3"].get<double>());
    EXPECT_EQ(least[p], one["points"][p]["stiffness"]["least_n_per_m"].get<double>());
    EXPECT_EQ(frequency[p * width], one["points"][p]["modes"][0]["frequency_hz"].get<double>());
  }
  EXPECT_EQ(f.ReadStrings("/grid_coordinates"), (std::vector<std::string>{"z2", "z3"}));
}

// With a cut, each posture's critical depth is frfit lobes' at that posture, and the map file and
// its page carry it.
TEST_F(MapCli, CutGivesTheCriticalDepthOfLobesAtEveryPosture) {
  const std::string cut = kData + "cut_example.yaml";
  test::CliResult r = Run({"map", "--model", kData + "model.yaml", "--posture", "milling", "--params", Result(),
                           "--grid", "z2=40:100:60,z3=-150:-70:80", "--cut", cut, "--json", "--out", Path("m.h5")});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json map = nlohmann::json::parse(r.out);
  ASSERT_EQ(map["points"].size(), 4u);
  for (const nlohmann::json& point : map["points"]) {
    const double z2 = point["q"]["z2"], z3 = point["q"]["z3"];
    r = Run({"lobes", "--model", kData + "model.yaml", "--posture", "milling", "--q",
             "z2=" + std::to_string(z2) + ",z3=" + std::to_string(z3), "--params", Result(), "--cut", cut,
             "--samples", "0", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json lobes = nlohmann::json::parse(r.out);
    const double depth = point["stability"]["critical_depth_m"];
    EXPECT_NEAR(depth, lobes["critical_depth_m"].get<double>(), 1e-12 * depth) << z2 << ", " << z3;
    EXPECT_NEAR(point["stability"]["critical_spindle_speed_rpm"].get<double>(),
                lobes["critical_spindle_speed_rpm"].get<double>(), 1e-9);
    EXPECT_GT(depth, 1e-6);
  }
  const Hdf5File f(Path("m.h5"), Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  const std::vector<double> depth = f.ReadDoubles("/stability/critical_depth_m", 1, &dims);
  ASSERT_EQ(depth.size(), 4u);
  EXPECT_EQ(depth[3], map["points"][3]["stability"]["critical_depth_m"].get<double>());
  ASSERT_EQ(Run({"report", Path("m.h5"), "-o", Path("m.html")}).status, 0);
  EXPECT_NE(test::ReadText(Path("m.html")).find("id=\"heat-critical-depth\""), std::string::npos);
}

TEST_F(MapCli, BadInputIsOneLineAndWritesNothing) {
  auto refused = [&](std::vector<std::string> args, const std::string& expected) {
    args.insert(args.begin(), {"map", "--model", kData + "model.yaml", "--posture", "milling"});
    args.insert(args.end(), {"--out", Path("m.h5")});
    const test::CliResult r = Run(args);
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(Path("m.h5")));
  };
  refused({}, "frfit map: --grid: missing");
  refused({"--grid", "z9=0:1:1"}, "--grid: z9: unknown coordinate of model");
  refused({"--grid", "z2=0:10:1", "--max-hz", "0"}, "frfit map: --max-hz: expected a frequency > 0 Hz");
  refused({"--grid", "z2=0:10:1", "--cut", Path("none.yaml")}, "none.yaml");
  refused({"--grid", "z2=0:1000000:0.01"}, "--grid: z2: more than 10 000 000 values");
  refused({"--grid", "z2=0:5000:1,z3=0:5000:1"}, "expected at most 10000000 postures, the grid has 25010001");
}

}  // namespace
}  // namespace frfit
