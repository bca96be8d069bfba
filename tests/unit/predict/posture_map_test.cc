// frfit map's library (predict/posture_map.h): the modal form of the tool-tip receptance against the
// direct solve, the least stiffness against a dense scan of the direct solve, its 1σ against
// finite differences of the map itself, and the grid's parsing. The command line is in
// cli/map_cli_test.cc.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <complex>
#include <string>

#include "../../../src/predict/tool_tip_receptance.h"
#include "frfit/common/error.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/predict/posture_map.h"

namespace frfit {
namespace {

const std::string kKuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";

struct Kuka {
  Kuka() = default;
  Kuka(const std::string& model_file, const std::string& params_file)
      : model(LoadModel(kKuka + model_file)),
        parameters(LoadParameters(kKuka + params_file, model)) {}
  Model model = LoadModel(kKuka + "model.yaml");
  std::vector<double> parameters = LoadParameters(kKuka + "params_from34.yaml", model);
  std::vector<double> q = model.posture("milling").q;
};

TEST(ToolTipReceptance, EqualsTheDirectSolve) {
  const Kuka k;
  const Posture posture = Linearize(k.model, k.q, "milling");
  const JointCoefficients c = Coefficients(k.model, k.parameters, k.q);
  const ToolTipReceptance modal(posture, c);
  const std::vector<double> f = {0.0, 3.3, 7.91, 12.5, 25.0, 60.0};
  const FrfSet direct = Synthesize(posture, c, f, FrfFormat::kReceptance);
  for (size_t l = 0; l < f.size(); ++l) {
    const Eigen::Matrix3cd h = modal.At(f[l]);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_LT(std::abs(h(i, j) - direct.at(static_cast<int>(l), i, j)),
                  1e-9 * h.cwiseAbs().maxCoeff())
            << f[l] << " Hz, entry " << i << j;
  }
}

TEST(PostureMap, LeastStiffnessIsTheMinimumOfADenseScan) {
  const Kuka k;
  const double max_hz = 40.0;
  const std::vector<MapPoint> map = ComputePostureMap(k.model, k.parameters, Identifiability{}, {k.q},
                                                      {max_hz, 1});
  ASSERT_EQ(map.size(), 1u);
  const Posture posture = Linearize(k.model, k.q, "milling");
  const FrfSet scan = Synthesize(posture, Coefficients(k.model, k.parameters, k.q),
                                 MakeBand(0.0, max_hz, 0.002, "scan"), FrfFormat::kReceptance);
  for (int i = 0; i < 3; ++i) {
    double largest = 0.0, at = 0.0;
    for (int l = 0; l < scan.num_lines(); ++l)
      if (std::abs(scan.at(l, i, i)) > largest) largest = std::abs(scan.at(l, i, i)), at = scan.frequency_hz[l];
    const double stiffness = map[0].stiffness.axis_n_per_m[i];
    // The map's minimum is refined past the scan's 2 mHz: never above it, and close.
    EXPECT_LE(stiffness, 1.0 / largest * (1 + 1e-12)) << "axis " << i;
    EXPECT_GT(stiffness, 1.0 / largest * (1 - 2e-3)) << "axis " << i;
    EXPECT_NEAR(map[0].stiffness.axis_at_hz[i], at, 0.01) << "axis " << i;
    EXPECT_TRUE(std::isnan(map[0].stiffness.axis_sigma_n_per_m[i]));
  }
  EXPECT_LE(map[0].stiffness.least_n_per_m, *std::min_element(map[0].stiffness.axis_n_per_m.begin(),
                                                               map[0].stiffness.axis_n_per_m.end()));
  double norm = 0.0;
  for (double d : map[0].stiffness.least_direction) norm += d * d;
  EXPECT_NEAR(norm, 1.0, 1e-12);
}

// σ of the least stiffness per axis against finite differences of the map itself (which moves
// the frequency of the minimum too): the linearisation holds the frequency, which is exact to
// first order at a minimum.
void ExpectStiffnessSigmaMatchesFiniteDifferences(const Kuka& k,
                                                  const std::vector<std::string>& free) {
  Identifiability id;
  for (size_t a = 0; a < free.size(); ++a) {
    ParameterIdentifiability p;
    p.name = free[a];
    p.value = k.parameters[k.model.FindParameter(free[a])];
    p.std_absolute = 0.02 * p.value;
    id.per_parameter.push_back(p);
  }
  const size_t p = free.size();
  id.correlation.assign(p * p, 0.0);
  for (size_t a = 0; a < p; ++a)
    for (size_t b = 0; b < p; ++b) id.correlation[a * p + b] = a == b ? 1.0 : 0.3;
  const MapOptions options{60.0, 1};
  const MapPoint at = ComputePostureMap(k.model, k.parameters, id, {k.q}, options)[0];
  for (int i = 0; i < 3; ++i) {
    std::vector<double> g(p);
    for (size_t a = 0; a < p; ++a) {
      std::vector<double> up = k.parameters, down = k.parameters;
      const int index = k.model.FindParameter(free[a]);
      const double h = 1e-5 * up[index];
      up[index] += h, down[index] -= h;
      const double su = ComputePostureMap(k.model, up, Identifiability{}, {k.q}, options)[0].stiffness.axis_n_per_m[i];
      const double sd = ComputePostureMap(k.model, down, Identifiability{}, {k.q}, options)[0].stiffness.axis_n_per_m[i];
      g[a] = (su - sd) / (2 * h);
    }
    double variance = 0.0;
    for (size_t a = 0; a < p; ++a)
      for (size_t b = 0; b < p; ++b)
        variance += g[a] * g[b] * id.per_parameter[a].std_absolute * id.per_parameter[b].std_absolute *
                    id.correlation[a * p + b];
    EXPECT_NEAR(at.stiffness.axis_sigma_n_per_m[i], std::sqrt(variance), 1e-4 * std::sqrt(variance))
        << "axis " << i;
  }
}

TEST(PostureMap, StiffnessSigmaMatchesFiniteDifferences) {
  ExpectStiffnessSigmaMatchesFiniteDifferences(Kuka{}, {"k_x1", "k_y2", "k_z2", "k_x3", "d_z2"});
}

// A fitted tool mass moves M0 and K_gravity (posture_map.cc's MassPartDerivative term).
TEST(PostureMap, StiffnessSigmaWithAFittedMassMatchesFiniteDifferences) {
  ExpectStiffnessSigmaMatchesFiniteDifferences(Kuka("model_tool.yaml", "params_tool_78kg.yaml"),
                                               {"k_x1", "k_z2", "k_x3", "m_tool"});
}

TEST(PostureGrid, ParsesRangesInFileUnitsFirstAxisSlowest) {
  const Kuka k;
  const std::vector<GridAxis> axes = ParseGrid("z2=30:50:10,z3=-100:-95:5", k.model, "--grid");
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0].values, (std::vector<double>{30, 40, 50}));
  EXPECT_EQ(axes[1].values, (std::vector<double>{-100, -95}));
  const auto postures = GridPostures(k.model, k.q, axes);
  ASSERT_EQ(postures.size(), 6u);
  const int z2 = k.model.FindCoordinate("z2"), z3 = k.model.FindCoordinate("z3");
  EXPECT_DOUBLE_EQ(postures[1][z2], 30 * M_PI / 180);
  EXPECT_DOUBLE_EQ(postures[1][z3], -95 * M_PI / 180);
  EXPECT_DOUBLE_EQ(postures[2][z2], 40 * M_PI / 180);
  for (size_t c = 0; c < k.q.size(); ++c)
    if (static_cast<int>(c) != z2 && static_cast<int>(c) != z3) EXPECT_EQ(postures[5][c], k.q[c]);
}

TEST(PostureGrid, RefusesBadRanges) {
  const Kuka k;
  auto refused = [&](const std::string& grid, const std::string& expected) {
    try {
      ParseGrid(grid, k.model, "--grid", 1000);
      ADD_FAILURE() << grid << ": accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused("w9=0:1:1", "--grid: w9: unknown coordinate of model");
  refused("z2=0:10", "--grid: z2: expected START:STOP:STEP, got '0:10'");
  refused("z2=10:0:1", "expected STOP >= START and STEP > 0");
  refused("z2=0:10:0", "expected STOP >= START and STEP > 0");
  refused("z2=0:x:1", "--grid: z2: expected a finite number, got 'x'");
  refused("z2=0:10:1,z2=0:1:1", "--grid: z2: given twice");
  refused("z2=0:100:1,z3=0:100:1", "expected at most 1000 postures, the grid has 10201");
  refused("z2", "--grid: 'z2': expected NAME=START:STOP:STEP");
}

}  // namespace
}  // namespace frfit

namespace frfit {
namespace {

// A beam's E enters through an affine part (posture.h): the stiffness σ it carries equals finite
// differences of 1/|H_ii| at the map's least-stiff frequency, held fixed as the linearisation holds
// it. (Differences of the map itself would also move that frequency, which the search finds only
// to a tolerance: on the arm's sharp peaks, η = 0.002, that noise swamps a step small enough to
// stay inside the peak.)
TEST(PostureMap, StiffnessSigmaOfABeamsModulusMatchesFiniteDifferences) {
  const std::string arm = std::string(FRFIT_SOURCE_DIR) + "/datasets/flexible_arm/";
  const Model model = LoadModel(arm + "model.yaml");
  const std::vector<double> parameters = LoadParameters(arm + "params_truth.yaml", model);
  const std::vector<double> q = model.posture("straight").q;
  const int e = model.FindParameter("E_arm");
  ASSERT_GE(e, 0);
  Identifiability id;
  ParameterIdentifiability p;
  p.name = "E_arm";
  p.value = parameters[e];
  p.std_absolute = 0.01 * p.value;
  id.per_parameter.push_back(p);
  id.correlation = {1.0};
  const MapOptions options{60.0, 1};
  const MapPoint at = ComputePostureMap(model, parameters, id, {q}, options)[0];
  const Posture posture = Linearize(model, q, "straight");
  for (int i = 0; i < 3; ++i) {
    const double f = at.stiffness.axis_at_hz[i];
    // 1/|H_ii| by a dense solve of the 121-coordinate Z at f: exact to rounding, so a step far
    // inside the peak's half-power band (η = 0.002) can be taken.
    auto stiffness = [&](double scale) {
      std::vector<double> moved = parameters;
      moved[e] *= scale;
      const JointCoefficients c = Coefficients(model, moved, q);
      const double w = 2.0 * M_PI * f;
      using Cplx = std::complex<double>;
      const Eigen::MatrixXcd Z = -w * w * MassMatrix(posture, c).cast<Cplx>() +
                                 Cplx(0.0, w) * TangentDamping(posture, c).cast<Cplx>() +
                                 TangentStiffness(posture, c);
      const Eigen::VectorXcd b = posture.sensor_basis.col(i).cast<Cplx>();
      return 1.0 / std::abs((b.transpose() * Z.partialPivLu().solve(b))(0, 0));
    };
    const double h = 1e-7;
    const double expected =
        std::abs((stiffness(1 + h) - stiffness(1 - h)) / (2 * h * parameters[e])) * p.std_absolute;
    EXPECT_GT(expected, 0.0) << "axis " << i;
    EXPECT_NEAR(at.stiffness.axis_sigma_n_per_m[i], expected, 1e-2 * expected) << "axis " << i;
  }
}

TEST(PostureMap, OptionsIsValidNamesTheBadFieldBeforeAnyPosture) {
  std::string error;
  EXPECT_TRUE(MapOptions{}.IsValid(&error)) << error;
  CutConfig cut;
  MapOptions with_cut;
  with_cut.cut = &cut;
  EXPECT_TRUE(with_cut.IsValid(&error)) << error;
  CutConfig no_teeth;
  no_teeth.teeth = 0;
  struct Case {
    MapOptions options;
    const char* field;
  };
  const Case cases[] = {
      {{0.0, 1}, "max_hz"},
      {{-5.0, 1}, "max_hz"},
      {{INFINITY, 1}, "max_hz"},
      {{std::nan(""), 1}, "max_hz"},
      {{60.0, 0}, "threads"},
      {{60.0, -2}, "threads"},
      {{60.0, 1, &no_teeth}, "cut.teeth"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(c.options.IsValid(&error)) << c.field;
    EXPECT_EQ(error.rfind(std::string(c.field) + ": expected", 0), 0u) << error;
    // Refused at the entry: the model here is empty, which a posture would fail on otherwise.
    const std::string message = [&] {
      try {
        ComputePostureMap(Model{}, {}, Identifiability{}, {{0.0}}, c.options);
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    }();
    EXPECT_EQ(message.rfind(std::string("posture map: ") + c.field + ": expected", 0), 0u) << message;
  }
}

}  // namespace
}  // namespace frfit
