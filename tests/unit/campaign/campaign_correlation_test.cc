// frfit modal --ema --mapping (campaign/campaign_correlation.h) on a roving-hammer campaign
// synthesised from the bundled KUKA model with points added on its links: three accelerometers
// fixed at the tool tip, the hammer at eight nodes (each a model frame) along X, Y, Z, with
// impact-test noise. Its `frfit ema` modes compared with the model's through the node map: every
// mode in the band paired, MAC ≥ 0.99 and frequency within 0.1 %; MAC and COMAC recomputed here
// from the model's modes seen at each frame; one node mapped to the wrong frame has the lowest
// COMAC.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "frfit/campaign/campaign_ema.h"
#include "frfit/campaign/campaign_ema_hdf5.h"
#include "frfit/campaign/campaign_hdf5.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/frf/synthesize.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "test_support.h"

namespace frfit::test {
namespace {

using campaign::Dof;
using cd = std::complex<double>;

const std::string kDataset = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";
const std::string kParams = kDataset + "params_from34.yaml";

// Node → frame of the campaign (node 1 is the tool tip, where the accelerometers are). Node 8 is
// measured but left out of the node map.
const std::map<long, std::string> kFrames = {
    {1, "sensor"}, {2, "tip_side"}, {3, "arm_mid"}, {4, "arm_root"},
    {5, "joint3"}, {6, "upper_mid"}, {7, "joint2"}, {8, "upper_root"}};

// The KUKA model with points on the forearm and the upper arm, as a modal test would have them.
std::string KukaWithPoints() {
  std::string text = ReadText(kDataset + "model.yaml");
  const std::string sensor_line =
      "  - {name: sensor, parent: joint3, transforms: [{disp: [1.566, 0.042, 0.005]}, {rotx: -90}]}\n";
  const size_t at = text.find(sensor_line);
  EXPECT_NE(at, std::string::npos);
  text.insert(at + sensor_line.size(),
              "  - {name: tip_side, parent: joint3, transforms: [{disp: [1.566, 0.25, 0.005]}]}\n"
              "  - {name: arm_mid, parent: joint3, transforms: [{disp: [0.8, 0.12, 0.0]}]}\n"
              "  - {name: arm_root, parent: joint3, transforms: [{disp: [0.3, -0.1, 0.05]}]}\n"
              "  - {name: upper_mid, parent: joint2, transforms: [{disp: [0.7, 0.0, 0.15]}]}\n"
              "  - {name: upper_root, parent: joint2, transforms: [{disp: [0.3, 0.1, -0.1]}]}\n");
  return text;
}

class CampaignCorrelation : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    model_path_ = Path("kuka_points.yaml");
    std::ofstream(model_path_) << KukaWithPoints();
    model_ = LoadModel(model_path_);
    posture_ = Linearize(model_, "milling");
    coefficients_ = Coefficients(model_, LoadParameters(kParams, model_), posture_.q);
  }

  // Roving hammer: H(tip axis i, node axis j) = B_tipᵀ Z⁻¹ B_node as inertance, 3 % + 0.1 %-of-peak
  // noise, recorded as response 1±i, reference node±j.
  campaign::Campaign Synthesise(double noise = 0.03, double step_hz = 0.05) const {
    campaign::Campaign c;
    c.frequency_hz = MakeBand(2.0, 30.0, step_hz, "band");
    std::mt19937 rng(45);
    std::normal_distribution<double> g;
    for (const auto& [node, frame] : kFrames) {
      const FrfSet set = Synthesize(posture_, coefficients_, c.frequency_hz, FrfFormat::kInertance,
                                    PointsAt(model_, posture_, "", frame, "test"));
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          campaign::Record r;
          r.response = {1, i + 1};
          r.reference = {node, j + 1};
          r.format = FrfFormat::kInertance;
          r.units = "m/s^2 / N";
          double peak = 0.0;
          for (size_t l = 0; l < c.frequency_hz.size(); ++l) {
            r.H.push_back(set.H[l * 9 + EntryIndex(i, j)]);
            peak = std::max(peak, std::abs(r.H.back()));
          }
          for (cd& h : r.H)
            h += noise * (std::abs(h) + peak / 30.0) * cd(g(rng), g(rng)) / std::sqrt(2.0);
          c.records.push_back(std::move(r));
        }
    }
    return c;
  }

  // The node map as a mapping file, `wrong` nodes sent to other frames.
  std::string WriteMap(const std::map<long, std::string>& wrong = {}, bool with_node_8 = false) const {
    const std::string path = Path("map.yaml");
    std::ofstream out(path);
    out << "nodes:\n";
    for (const auto& [node, frame] : kFrames)
      if (node != 8 || with_node_8) out << "  " << node << ": " << (wrong.count(node) ? wrong.at(node) : frame) << "\n";
    return path;
  }

  nlohmann::json Run(const std::string& ema, const std::string& map) const {
    const CliResult r = RunCli({"modal", "--model", model_path_, "--posture", "milling", "--params",
                                kParams, "--ema", ema, "--mapping", map, "--json"},
                               Path("out.json"), Path("err.txt"));
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  // The model's mode k at a DOF, written here from the frames' bases: the response along the
  // frame's axis the direction names.
  cd ModelAt(const Mode& mode, const Dof& dof, const std::map<long, std::string>& frames) const {
    const Eigen::MatrixXd b = PointsAt(model_, posture_, frames.at(dof.node), "", "test").response_basis;
    const Eigen::VectorXcd seen = b.transpose() * mode.shape;
    return (dof.direction < 0 ? -1.0 : 1.0) * seen(std::abs(dof.direction) - 1);
  }

  std::string model_path_;
  Model model_;
  Posture posture_;
  JointCoefficients coefficients_;
};

double Mac(const std::vector<cd>& a, const std::vector<cd>& b) {
  cd dot = 0.0;
  double na = 0.0, nb = 0.0;
  for (size_t i = 0; i < a.size(); ++i) dot += std::conj(a[i]) * b[i], na += std::norm(a[i]), nb += std::norm(b[i]);
  return std::norm(dot) / (na * nb);
}

TEST_F(CampaignCorrelation, ModesOfACampaignSynthesisedFromTheModelPairWithItsModes) {
  const campaign::Campaign c = Synthesise();
  const campaign::EmaResult ema = campaign::EstimateModes(c, {}, "kuka campaign");
  const std::string ema_path = Path("ema.h5");
  campaign::WriteEmaResult(ema_path, ema, c);
  const std::map<long, std::string> wrong = {{3, "upper_mid"}};
  for (const bool deliberately_wrong : {false, true}) {
    SCOPED_TRACE(deliberately_wrong ? "node 3 mapped to upper_mid" : "the true map");
    std::map<long, std::string> frames = kFrames;
    if (deliberately_wrong) frames[3] = "upper_mid";
    const nlohmann::json out = Run(ema_path, WriteMap(deliberately_wrong ? wrong : std::map<long, std::string>{}));
    EXPECT_EQ(out["unmapped_nodes"], nlohmann::json::array({8}));
    EXPECT_EQ(out["mapped_dofs"], 21);

    const std::vector<Mode> modes = ComputeModes(posture_, coefficients_);
    // Every model mode in the band is paired (the EMA finds them all), MAC ≥ 0.99, f within 0.1 %.
    int in_band = 0;
    for (const Mode& m : modes) in_band += m.frequency_hz > 2.0 && m.frequency_hz < 30.0;
    ASSERT_EQ(out["pairs"].size(), static_cast<size_t>(in_band)) << out.dump(1);
    std::vector<std::vector<cd>> test_unit, model_unit;  // per pair, over the mapped DOFs
    for (const auto& p : out["pairs"]) {
      const int t = p["test_mode"].get<int>() - 1, k = p["model_mode"].get<int>() - 1;
      EXPECT_NEAR(p["model_frequency_hz"].get<double>(), modes[k].frequency_hz, 1e-9);
      EXPECT_NEAR(p["test_frequency_hz"].get<double>(), ema.modes[t].frequency_hz, 1e-9);
      if (!deliberately_wrong) {
        EXPECT_LT(std::abs(p["frequency_difference"].get<double>()), 1e-3);
        EXPECT_GE(p["mac"].get<double>(), 0.99) << "pair " << t + 1;
      }
      // The MAC recomputed here over the mapped DOFs (node 8 out).
      std::vector<cd> a, b;
      for (size_t d = 0; d < ema.dofs.size(); ++d)
        if (ema.dofs[d].node != 8) a.push_back(ema.modes[t].shape[d]), b.push_back(ModelAt(modes[k], ema.dofs[d], frames));
      EXPECT_NEAR(p["mac"].get<double>(), Mac(a, b), 1e-9);
      EXPECT_NEAR(out["mac"][t][k].get<double>(), Mac(a, b), 1e-9);
      double na = 0.0, nb = 0.0;
      for (size_t i = 0; i < a.size(); ++i) na += std::norm(a[i]), nb += std::norm(b[i]);
      for (cd& x : a) x /= std::sqrt(na);
      for (cd& x : b) x /= std::sqrt(nb);
      test_unit.push_back(a);
      model_unit.push_back(b);
    }
    // COMAC per node recomputed: the node's three DOFs are entries 3(n−1)..3(n−1)+2 of the
    // mapped DOFs (the EMA's roving DOFs come node by node, X, Y, Z).
    ASSERT_EQ(out["comac"].size(), 7u);
    long lowest = 0;
    double lowest_comac = 2.0;
    for (const auto& n : out["comac"]) {
      const long node = n["node"].get<long>();
      double cross = 0.0, ta = 0.0, tb = 0.0;
      for (size_t j = 0; j < test_unit.size(); ++j) {
        cd inner = 0.0;
        for (int d = 0; d < 3; ++d) {
          const size_t i = 3 * (node - 1) + d;
          ASSERT_EQ(ema.dofs[i].node, node);
          inner += std::conj(test_unit[j][i]) * model_unit[j][i];
          ta += std::norm(test_unit[j][i]);
          tb += std::norm(model_unit[j][i]);
        }
        cross += std::abs(inner);
      }
      EXPECT_NEAR(n["comac"].get<double>(), cross * cross / (ta * tb), 1e-9) << "node " << node;
      if (!deliberately_wrong) EXPECT_GE(n["comac"].get<double>(), 0.98) << "node " << node;
      if (n["comac"].get<double>() < lowest_comac) lowest_comac = n["comac"].get<double>(), lowest = node;
    }
    if (deliberately_wrong) {
      EXPECT_EQ(lowest, 3) << out["comac"].dump();
      EXPECT_LT(lowest_comac, 0.9);
    }
  }
}

TEST_F(CampaignCorrelation, AFrameTheModelLacksIsRefusedNamingTheNode) {
  const campaign::Campaign c = Synthesise();
  campaign::EmaOptions options;
  options.ema.max_order = 20;
  const std::string ema_path = Path("ema.h5");
  campaign::WriteEmaResult(ema_path, campaign::EstimateModes(c, options, "kuka campaign"), c);
  const std::string map = WriteMap({{4, "no_such_frame"}});
  const CliResult r = RunCli({"modal", "--model", model_path_, "--posture", "milling", "--ema",
                              ema_path, "--mapping", map},
                             Path("out.txt"), Path("err.txt"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("nodes.4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no_such_frame"), std::string::npos) << r.err;
  const CliResult alone = RunCli({"modal", "--model", model_path_, "--posture", "milling", "--ema",
                                  ema_path},
                                 Path("out.txt"), Path("err.txt"));
  EXPECT_NE(alone.status, 0);
  EXPECT_NE(alone.err.find("--mapping"), std::string::npos) << alone.err;
}

// frfit campaign --sets: the campaign's records regrouped into one multi-point set per pair of
// nodes, equal to the model's FRFs between those frames synthesised here (node 4's Z hammer
// recorded as -Z, its values negated, as some files have it).
TEST_F(CampaignCorrelation, ACampaignBecomesOneMultiPointSetPerPairOfNodes) {
  campaign::Campaign c = Synthesise(0.0);
  for (campaign::Record& r : c.records)
    if (r.reference.node == 4 && r.reference.direction == 3) {
      r.reference.direction = -3;
      for (cd& h : r.H) h = -h;
    }
  campaign::WriteHdf5(Path("c.h5"), c);
  const CliResult r = RunCli({"campaign", Path("c.h5"), "--sets", Path("sets"), "--mapping",
                              WriteMap({}, true), "--posture", "milling", "--json"},
                             Path("out.json"), Path("err.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json sets = nlohmann::json::parse(r.out)["sets"];
  ASSERT_EQ(sets.size(), kFrames.size());
  for (const auto& [node, frame] : kFrames) {
    SCOPED_TRACE("node " + std::to_string(node));
    const FrfSet set = ReadFrfSet(Path("sets/nodes_1_" + std::to_string(node) + ".h5"));
    EXPECT_EQ(set.posture, "milling");
    EXPECT_EQ(set.response_frame, "sensor");
    EXPECT_EQ(set.excitation_frame, frame);
    const FrfSet truth = Synthesize(posture_, coefficients_, c.frequency_hz, FrfFormat::kInertance,
                                    PointsAt(model_, posture_, "sensor", frame, "test"));
    for (int e = 0; e < 9; ++e) {
      ASSERT_TRUE(set.present[e]) << e;
      for (size_t l = 0; l < c.frequency_hz.size(); l += 40)
        EXPECT_LE(std::abs(set.H[l * 9 + e] - truth.H[l * 9 + e]), 1e-12 * std::abs(truth.H[l * 9 + e]))
            << "entry " << e << " line " << l;
    }
  }
  // A node the map leaves out is refused, naming its first record.
  const CliResult unmapped = RunCli({"campaign", Path("c.h5"), "--sets", Path("sets2"), "--mapping",
                                     WriteMap(), "--posture", "milling"},
                                    Path("out.json"), Path("err.txt"));
  EXPECT_NE(unmapped.status, 0);
  EXPECT_NE(unmapped.err.find("node 8"), std::string::npos) << unmapped.err;
}

// frfit fit on a campaign: every FRF, as the multi-point sets frfit campaign --sets writes, fitted
// from the model's initial values; the nine joint stiffnesses the campaign was synthesised with
// come back.
TEST_F(CampaignCorrelation, AFitOnACampaignsSetsFindsTheStiffnesses) {
  campaign::WriteHdf5(Path("c.h5"), Synthesise(0.0, 0.25));
  const CliResult sets = RunCli({"campaign", Path("c.h5"), "--sets", Path("sets"), "--mapping",
                                 WriteMap({}, true), "--posture", "milling", "--json"},
                                Path("out.json"), Path("err.txt"));
  ASSERT_EQ(sets.status, 0) << sets.err;
  std::string list;
  const nlohmann::json written = nlohmann::json::parse(sets.out);
  for (const auto& path : written["sets"])
    list += (list.empty() ? "" : ",") + path.get<std::string>();
  const CliResult fit = RunCli({"fit", "--model", model_path_, "--frf", list, "--config",
                                kDataset + "fit.yaml", "--json"},
                               Path("fit.json"), Path("fit_err.txt"));
  ASSERT_EQ(fit.status, 0) << fit.err;
  const nlohmann::json fitted = nlohmann::json::parse(fit.out)["parameters"];
  const std::vector<double> truth = LoadParameters(kParams, model_);
  for (int i = 0; i < model_.num_parameters(); ++i) {
    const std::string& name = model_.parameters[i].name;
    if (name.rfind("k_", 0) == 0)
      EXPECT_NEAR(fitted[name].get<double>(), truth[i], 1e-3 * truth[i]) << name;
  }
}

}  // namespace
}  // namespace frfit::test
