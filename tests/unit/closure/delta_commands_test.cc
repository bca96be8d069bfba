// The commands on a closed chain: frfit modal, the static deflection tests, frfit map, frfit
// lobes and the identifiability report on the Delta of datasets/delta, each against the 3-DOF
// Lagrangian in the arm rotations written in delta_reference.h (its own closure, its own
// Jacobian of the platform centre, its own FRF and modes): nothing of frfit's kinematics.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <complex>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/cost/static_sets.h"
#include "frfit/deflection/static_tests.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/model/model_yaml.h"
#include "delta_reference.h"
#include "test_support.h"

namespace frfit {
namespace {

using namespace delta_reference;
const std::string kDelta = std::string(FRFIT_SOURCE_DIR) + "/datasets/delta/";
const Eigen::Vector3d kC1(0.0, 0.0, -1.1), kC2(0.19, -0.33, -0.9);
// Parameters the dataset was not built from.
const std::array<double, 3> kK = {3.3e4, 1.9e4, 2.7e4}, kD = {40.0, 25.0, 15.0};

class DeltaCommands : public test::TempDirTest {
 protected:
  std::string WriteParams(const std::array<double, 3>& k, const std::array<double, 3>& d) {
    std::ofstream out(Path("params.yaml"));
    out << "parameters:\n";
    for (int i = 0; i < 3; ++i)
      out << "  k_a" << i + 1 << ": " << FormatDouble(k[i]) << "\n  d_a" << i + 1 << ": "
          << FormatDouble(d[i]) << "\n";
    return Path("params.yaml");
  }
  nlohmann::json RunJson(std::vector<std::string> args) {
    args.push_back("--json");
    const test::CliResult r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
  }
  static std::string FormatDouble(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
  }
};

void ExpectModes(const nlohmann::json& modes, const std::vector<ReferenceMode>& ref,
                 const std::string& what) {
  ASSERT_EQ(modes.size(), ref.size()) << what;
  for (size_t m = 0; m < ref.size(); ++m) {
    EXPECT_NEAR(modes[m]["frequency_hz"].get<double>() / ref[m].frequency_hz, 1.0, 1e-6)
        << what << " mode " << m;
    EXPECT_NEAR(modes[m]["damping_ratio"].get<double>() / ref[m].damping_ratio, 1.0, 1e-6)
        << what << " mode " << m;
  }
}

TEST_F(DeltaCommands, ModalEqualsTheLagrangian) {
  const std::string params = WriteParams(kK, kD);
  for (const auto& [name, E] : {std::pair{"C1", kC1}, std::pair{"C2", kC2}}) {
    const nlohmann::json json = RunJson({"modal", "--model", kDelta + "model.yaml", "--posture",
                                         name, "--params", params});
    ExpectModes(json["modes"], Modes(Independent(E), kK, kD), name);
  }
}

// δ = J_E K0⁻¹ J_bᵀ R_b F: a force at the platform centre (base axes), and one in the axes of
// arm 1's elbow frame (rotz 0°, roty th1), whose point moves with arm 1 only.
TEST_F(DeltaCommands, StaticDeflectionEqualsTheComplianceThroughTheClosure) {
  auto model = std::make_shared<const Model>(LoadModel(kDelta + "model.yaml"));
  Problem problem;
  problem.model = model;
  AddStaticTests(ParseStaticTests(R"(format: frfit-static-1
tests:
  - posture: C2
    force: {n: [100, -200, 300]}
    displacement: {m: [0, 0, 0], std_m: 1.0e-6}
  - posture: C2
    force: {frame: elbow1, n: [50, 0, -400]}
    displacement: {m: [0, 0, 0], std_m: 1.0e-6}
)", "static.yaml"),
                 &problem);
  ASSERT_EQ(problem.postures.size(), 2u);
  std::vector<double> parameters;
  const std::map<std::string, double> values = {{"k_a1", kK[0]}, {"k_a2", kK[1]}, {"k_a3", kK[2]},
                                                {"d_a1", kD[0]}, {"d_a2", kD[1]}, {"d_a3", kD[2]}};
  for (const ParameterSpec& spec : model->parameters) parameters.push_back(values.at(spec.name));

  const Lagrangian l = Independent(kC2);
  const Eigen::Matrix3d compliance = Stiffness(l, kK).inverse();
  const Eigen::Vector3d platform = l.JE * compliance * l.JE.transpose() *
                                   Eigen::Vector3d(100, -200, 300);
  const double th1 = ArmAngle(0, kC2);
  Eigen::Matrix3d J_elbow = Eigen::Matrix3d::Zero();
  J_elbow.col(0) = dElbow(0, th1);
  const Eigen::Matrix3d R_elbow = Eigen::AngleAxisd(th1, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const Eigen::Vector3d elbow = l.JE * compliance * J_elbow.transpose() * R_elbow *
                                Eigen::Vector3d(50, 0, -400);
  const Eigen::Vector3d got0 = PredictedDeflection(*model, problem.postures[0], parameters);
  const Eigen::Vector3d got1 = PredictedDeflection(*model, problem.postures[1], parameters);
  EXPECT_LT((got0 - platform).norm(), 1e-7 * platform.norm()) << got0.transpose() << "\n" << platform.transpose();
  EXPECT_LT((got1 - elbow).norm(), 1e-7 * elbow.norm()) << got1.transpose() << "\n" << elbow.transpose();
}

// A map over the motor angle th1 closes the loops again at every point: its modes equal the
// Lagrangian's at the platform centre that the motor angles put it at (this file's Newton).
TEST_F(DeltaCommands, MapModesEqualTheLagrangianAtEveryPosture) {
  const Model model = LoadModel(kDelta + "model.yaml");
  const std::vector<double>& q = model.posture("C1").q;
  const double th2 = q[model.FindCoordinate("th2")], th3 = q[model.FindCoordinate("th3")];
  const nlohmann::json json =
      RunJson({"map", "--model", kDelta + "model.yaml", "--posture", "C1", "--params",
               WriteParams(kK, kD), "--grid", "th1=37:49:6", "--max-hz", "40", "--threads", "1"});
  ASSERT_EQ(json["points"].size(), 3u);
  for (const nlohmann::json& point : json["points"]) {
    const double th1 = point["q"]["th1"].get<double>() * kPi / 180.0;
    const Eigen::Vector3d E = Platform({th1, th2, th3}, kC1);
    ExpectModes(point["modes"], Modes(Independent(E), kK, kD),
                "th1 = " + point["q"]["th1"].dump());
  }
}

// Lobes take the platform's receptance in the cutting plane (x, y): the FRF lines they write
// equal the Lagrangian's, and the absolute critical depth min 2π/(N K_t Re λ(Φα)) over those lines
// (α of the half-immersion down-milling cut, docs/lobes.md) equals the one they report.
TEST_F(DeltaCommands, LobesUseThePlatformReceptance) {
  std::ofstream(Path("cut.yaml")) << R"(format: frfit-cut-1
teeth: 2
entry_angle_deg: 90
exit_angle_deg: 180
kt_n_per_m2: 7.0e8
kr_ratio: 0.3
tool_axis: z
feed_axis: x
spindle_speed_rpm: [200, 6000]
speed_points: 200
)";
  const nlohmann::json json =
      RunJson({"lobes", "--model", kDelta + "model.yaml", "--posture", "C2", "--params",
               WriteParams(kK, kD), "--cut", Path("cut.yaml"), "--frf-out", Path("frf.csv")});
  const Lagrangian l = Independent(kC2);
  const double kr = 0.3, kt = 7.0e8, teeth = 2;
  auto alpha = [&](double p) -> Eigen::Matrix2d {
    Eigen::Matrix2d a;
    a << std::cos(2 * p) - 2 * kr * p + kr * std::sin(2 * p),
        -std::sin(2 * p) - 2 * p + kr * std::cos(2 * p),
        -std::sin(2 * p) + 2 * p + kr * std::cos(2 * p),
        -std::cos(2 * p) - 2 * kr * p - kr * std::sin(2 * p);
    return 0.5 * a;
  };
  const Eigen::Matrix2cd A = (alpha(kPi) - alpha(0.5 * kPi)).cast<std::complex<double>>();
  std::ifstream csv(Path("frf.csv"));
  std::string line;
  std::getline(csv, line);
  int lines = 0;
  double worst = 0.0, critical = INFINITY;
  while (std::getline(csv, line)) {
    std::vector<double> v;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) v.push_back(std::stod(cell));
    ASSERT_EQ(v.size(), 9u);
    const Eigen::Matrix3cd H = Receptance(l, kK, kD, v[0]);
    Eigen::Matrix2cd got;
    got << std::complex<double>(v[1], v[2]), std::complex<double>(v[3], v[4]),
        std::complex<double>(v[5], v[6]), std::complex<double>(v[7], v[8]);
    const Eigen::Matrix2cd ref = H.topLeftCorner(2, 2);
    worst = std::max(worst, (got - ref).norm() / ref.norm());
    const Eigen::Vector2cd lambda = Eigen::ComplexEigenSolver<Eigen::Matrix2cd>(ref * A).eigenvalues();
    for (int k = 0; k < 2; ++k)
      if (lambda(k).real() > 0.0)
        critical = std::min(critical, 2.0 * kPi / (teeth * kt * lambda(k).real()));
    ++lines;
  }
  EXPECT_GT(lines, 1000);
  EXPECT_LT(worst, 1e-6);
  EXPECT_NEAR(json["absolute_critical_depth_m"].get<double>() / critical, 1.0, 1e-6);
}

// The identifiability report's singular values are those of W^½J, J the FRF's derivative with
// respect to the relative parameters θ(1 + ε): with the linear cost and the file's noise weights
// (no reweighting), W = 1/σ² of each line and entry, and J = ∂(−ω²H)/∂ε from the Lagrangian's
// receptance (∂Z⁻¹/∂k_i = −Z⁻¹ e_i e_iᵀ Z⁻¹, ∂Z/∂d_i = iω e_i e_iᵀ) at the fitted parameters.
TEST_F(DeltaCommands, IdentifiabilityEqualsTheLagrangiansFisherInformation) {
  const std::string params = WriteParams(kK, kD);
  const std::string frf = Path("C2.h5");
  const test::CliResult s = Run({"simulate", "--model", kDelta + "model.yaml", "--posture", "C2",
                                 "--params", params, "--band", "2:40:0.05", "--format",
                                 "inertance", "--noise", "0.03:0.001", "--seed", "3", "--out", frf});
  ASSERT_EQ(s.status, 0) << s.err;
  std::string config = test::ReadText(kDelta + "fit.yaml");
  const std::string from = "  type: log_complex\n";
  config.replace(config.find(from), from.size(),
                 "  type: normalized_complex\n  noise: {source: file, reweight_passes: 0}\n");
  std::ofstream(Path("fit.yaml")) << config;
  const nlohmann::json json = RunJson({"fit", "--model", kDelta + "model.yaml", "--config",
                                       Path("fit.yaml"), "--frf", frf, "--backend", "cpu",
                                       "--seed", "1"});
  std::array<double, 3> k, d;
  for (int i = 0; i < 3; ++i) {
    k[i] = json["parameters"]["k_a" + std::to_string(i + 1)].get<double>();
    d[i] = json["parameters"]["d_a" + std::to_string(i + 1)].get<double>();
  }
  const FrfSet data = ReadFrfSet(frf);
  const Lagrangian l = Independent(kC2);
  std::vector<Eigen::Matrix<double, 1, 6>> rows;
  const std::complex<double> I(0.0, 1.0);
  for (size_t line = 0; line < data.frequency_hz.size(); ++line) {
    const double f = data.frequency_hz[line], w = 2.0 * kPi * f;
    if (f < 2.0 - 1e-9 || f > 40.0 + 1e-9) continue;
    Eigen::Matrix3cd Z = (Stiffness(l, k) - w * w * l.M).cast<std::complex<double>>();
    for (int i = 0; i < 3; ++i) Z(i, i) += I * w * d[i];
    const Eigen::Matrix3cd Zi = Z.inverse(), JE = l.JE.cast<std::complex<double>>();
    std::array<Eigen::Matrix3cd, 6> dA;  // ∂(inertance)/∂ε_j
    for (int j = 0; j < 3; ++j) {
      const Eigen::Matrix3cd dZi = -Zi.col(j) * Zi.row(j);
      dA[j] = -w * w * k[j] * JE * dZi * JE.transpose();
      dA[3 + j] = -w * w * d[j] * I * w * JE * dZi * JE.transpose();
    }
    for (int e = 0; e < 9; ++e) {
      const double weight = 1.0 / std::sqrt(data.noise_variance[9 * line + e]);
      Eigen::Matrix<double, 1, 6> re, im;
      for (int j = 0; j < 6; ++j) {
        re(j) = weight * dA[j](e / 3, e % 3).real();
        im(j) = weight * dA[j](e / 3, e % 3).imag();
      }
      rows.push_back(re);
      rows.push_back(im);
    }
  }
  Eigen::MatrixXd J(rows.size(), 6);
  for (size_t r = 0; r < rows.size(); ++r) J.row(r) = rows[r];
  const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(J).singularValues();
  const nlohmann::json& got = json["identifiability"]["singular_values"];
  EXPECT_EQ(json["identifiability"]["residuals"].get<int>(), static_cast<int>(rows.size()));
  ASSERT_EQ(got.size(), 6u);
  for (int j = 0; j < 6; ++j)
    EXPECT_NEAR(got[j].get<double>() / sv(j), 1.0, 1e-6) << "singular value " << j;
}

// The platform's mass as a fitted parameter (m_platform): M0 and gravity's stiffness through the
// constraints scale with the value given, as the Lagrangian's with that platform mass.
TEST_F(DeltaCommands, FittedPlatformMassEqualsTheLagrangianWithThatMass) {
  std::string text = test::ReadText(kDelta + "model.yaml");
  const std::string from = "{name: platform, frame: platform, mass: 6.64,";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               "{name: platform, frame: platform, mass: {initial: 6.64, min: 2, max: 20},");
  std::ofstream(Path("model.yaml")) << text;
  const std::string params = WriteParams(kK, kD);
  std::ofstream(params, std::ios::app) << "  m_platform: 9.5\n";
  for (const auto& [name, E] : {std::pair{"C1", kC1}, std::pair{"C2", kC2}}) {
    const nlohmann::json json = RunJson({"modal", "--model", Path("model.yaml"), "--posture",
                                         name, "--params", params});
    ExpectModes(json["modes"], Modes(Independent(E, 9.5), kK, kD), name);
  }
}

}  // namespace
}  // namespace frfit
