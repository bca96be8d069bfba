// frfit ema on transfer sets (response and excitation at different points): a mode's residue
// matrix is R = φ_a φ_bᵀ / a_r, not symmetric, and the set's shape must be the response point's
// φ_a — what the modal comparison compares with (the model's modes seen at the response point).
// Checked on the KUKA model, response at joint3 and at joint2, the hammer at the tool tip, against
// the undamped modes of M0 and K0 from Eigen's dense generalized eigen-solver seen through the
// response point's basis: noise-free and with 3 % noise (and a 0.1 % floor), as `frfit simulate
// --noise 0.03:0.001` makes them.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "frfit/results/modal_comparison.h"
#include "frfit/frf/measurement_noise.h"
#include "frfit/frf/synthesize.h"
#include "frfit/modal/ema.h"
#include "frfit/modal/lsfd.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

const std::string kKuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";

// MAC of two complex vectors, written out.
double PlainMac(const Eigen::VectorXcd& a, const Eigen::VectorXcd& b) {
  return std::norm(a.dot(b)) / (a.squaredNorm() * b.squaredNorm());
}

// An undamped mode of M0 and K0 = gravity stiffness + diag(k_<dof>) at the truth.
struct UndampedMode {
  double frequency_hz = 0.0;
  Eigen::VectorXd shape;  // joint space
  double modal_mass = 0.0;
};

std::vector<UndampedMode> SolveUndamped(const Model& model, const Posture& posture,
                                        const std::vector<double>& truth) {
  Eigen::MatrixXd K = posture.gravity_stiffness;
  for (int j = 0; j < posture.n; ++j)
    K(j, j) += truth[model.FindParameter("k_" + model.dofs[j].name)];
  const Eigen::GeneralizedEigenSolver<Eigen::MatrixXd> solver(K, posture.mass);
  std::vector<UndampedMode> modes;
  for (int k = 0; k < posture.n; ++k) {
    UndampedMode m;
    m.frequency_hz = std::sqrt((solver.alphas()(k) / solver.betas()(k)).real()) / (2 * M_PI);
    m.shape = solver.eigenvectors().col(k).real();
    m.modal_mass = m.shape.dot(posture.mass * m.shape);
    modes.push_back(std::move(m));
  }
  std::sort(modes.begin(), modes.end(),
            [](const auto& a, const auto& b) { return a.frequency_hz < b.frequency_hz; });
  return modes;
}

class EmaTransferSets : public ::testing::Test {
 protected:
  EmaTransferSets()
      : model_(LoadModel(kKuka + "model.yaml")),
        posture_(Linearize(model_, "milling")),
        truth_(LoadParameters(kKuka + "params_from34.yaml", model_)),
        modes_(SolveUndamped(model_, posture_, truth_)) {}

  // The inertance FRFs between the points over 2-30 Hz, as frfit simulate writes them (without
  // the parameters in the provenance: measured data to a fit).
  FrfSet Simulate(const MeasurementPoints& points, double noise, std::uint64_t seed) const {
    FrfSet set = Synthesize(posture_, Coefficients(model_, truth_, posture_.q),
                            MakeBand(2, 30, 0.25, "test"), FrfFormat::kInertance, points);
    if (noise > 0.0) AddMeasurementNoise({noise, 0.001}, seed, true, &set);
    return set;
  }

  // Each true mode in the band that the set excites well — its inertance residue between the two
  // points, |B_aᵀφ|·|B_bᵀφ| / modal mass, at least 5 % of the strongest mode's — must have an EMA
  // estimate within 1 % in frequency whose shape has MAC > min_mac with B_aᵀφ. Returns the lowest
  // MAC found (0 for a mode not found).
  double LowestMac(const MeasurementPoints& points, const EmaResult& ema, double min_mac,
                   const std::string& what) const {
    std::vector<double> strength;
    for (const UndampedMode& m : modes_)
      strength.push_back((points.response_basis.transpose() * m.shape).norm() *
                         (points.excitation_basis.transpose() * m.shape).norm() / m.modal_mass);
    double strongest = 0.0;
    for (size_t r = 0; r < modes_.size(); ++r)
      if (modes_[r].frequency_hz <= 30.0) strongest = std::max(strongest, strength[r]);
    double lowest = 1.0;
    int checked = 0;
    for (size_t r = 0; r < modes_.size(); ++r) {
      const UndampedMode& m = modes_[r];
      if (m.frequency_hz < 2.0 || m.frequency_hz > 30.0) continue;
      const EmaMode* found = nullptr;
      for (const EmaMode& e : ema.modes)
        if (std::abs(e.mode.frequency_hz - m.frequency_hz) <= 0.01 * m.frequency_hz) found = &e;
      const Eigen::VectorXcd seen =
          (points.response_basis.transpose() * m.shape).cast<std::complex<double>>();
      const double mac = found ? PlainMac(seen, found->mode.sensor_shape) : 0.0;
      const bool well_excited = strength[r] >= 0.05 * strongest;
      std::printf("%s: mode %.3f Hz, excitation %.3f of the strongest, %s, MAC %.4f\n",
                  what.c_str(), m.frequency_hz, strength[r] / strongest,
                  found ? "found" : "not found", mac);
      if (!well_excited) continue;
      ++checked;
      lowest = std::min(lowest, mac);
      EXPECT_GT(mac, min_mac) << what << ", mode at " << m.frequency_hz << " Hz";
    }
    EXPECT_GE(checked, 3) << what;
    return lowest;
  }

  Model model_;
  Posture posture_;
  std::vector<double> truth_;
  std::vector<UndampedMode> modes_;
};

// The options of a fit's reference modes on measured data (fit/modal_comparison.cc): the band of
// the set, modes that explain 2 % of the misfit kept.
EmaOptions FitReferenceOptions() {
  EmaOptions options;
  options.band_max_hz = 30.0;
  options.criteria.min_contribution = 0.02;
  return options;
}

TEST_F(EmaTransferSets, ShapesAreTheResponsePointsNoiseFree) {
  for (const std::string frame : {"joint3", "joint2"}) {
    const MeasurementPoints points = PointsAt(model_, posture_, frame, "", "test");
    const EmaResult ema = EstimateModes(Simulate(points, 0.0, 0), FitReferenceOptions(), frame);
    const double lowest = LowestMac(points, ema, 0.99, frame + " noise-free");
    std::printf("%s noise-free: lowest MAC %.4f\n", frame.c_str(), lowest);
  }
}

TEST_F(EmaTransferSets, ShapesAreTheResponsePointsWithThreePercentNoise) {
  for (const std::string frame : {"joint3", "joint2"})
    for (std::uint64_t seed : {1, 2, 3}) {
      const MeasurementPoints points = PointsAt(model_, posture_, frame, "", "test");
      const std::string what = frame + " 3 % noise, seed " + std::to_string(seed);
      const EmaResult ema =
          EstimateModes(Simulate(points, 0.03, seed), FitReferenceOptions(), what);
      const double lowest = LowestMac(points, ema, 0.95, what);
      std::printf("%s: lowest MAC %.4f\n", what.c_str(), lowest);
    }
}

// The table a fit prints for the transfer set (its reference: the set's EMA estimate, as for
// measured data; its fitted modes: the model's at the truth seen at the response point), which
// paired the modes at MAC 0.50-0.80 while the shapes were taken as a driving point's.
TEST_F(EmaTransferSets, AFitsTableOfTheSetPairsItsModesAtMacNearOne) {
  for (const std::string frame : {"joint3", "joint2"}) {
    const MeasurementPoints points = PointsAt(model_, posture_, frame, "", "test");
    std::string description;
    const std::vector<Mode> reference =
        ReferenceModes(model_, posture_, Simulate(points, 0.03, 4), 30.0, &description);
    ASSERT_NE(description.find("frfit ema"), std::string::npos) << description;
    std::vector<Mode> fitted = ComputeModes(posture_, Coefficients(model_, truth_, posture_.q));
    SeeShapesAt(points.response_basis, &fitted);
    const ModalComparison table = CompareModes(reference, fitted, description, 30.0);
    ASSERT_EQ(table.rows.size(), 4u) << frame;
    for (const ModalComparisonRow& row : table.rows) {
      std::printf("%s table: %.4f Hz, MAC %.4f\n", frame.c_str(), row.reference_frequency_hz,
                  row.mac);
      EXPECT_NEAR(row.fitted_frequency_hz, row.reference_frequency_hz,
                  0.002 * row.reference_frequency_hz);
      EXPECT_GT(row.mac, 0.99) << frame << ", " << row.reference_frequency_hz << " Hz";
    }
  }
}

// The rank-one factor alone, on an exact transfer residue matrix φ_a φ_bᵀ / a: the symmetric
// driving-point shape is wrong there, the response shape is φ_a, from every entry or a subset.
TEST(EmaTransferShape, ResponseShapeFromAnExactTransferResidueMatrix) {
  const Eigen::Vector3cd phi_a(std::complex<double>(0.3, 0.1), std::complex<double>(-1.2, 0.05),
                               0.7);
  const Eigen::Vector3cd phi_b(0.9, std::complex<double>(0.2, -0.1), -0.4);
  std::array<std::complex<double>, 9> residues;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      residues[EntryIndex(i, j)] = phi_a(i) * phi_b(j) / std::complex<double>(2.0, 0.5);
  std::array<bool, 9> all;
  all.fill(true);
  EXPECT_LT(PlainMac(phi_a, ShapeFromResidues(residues, all)), 0.9);
  Eigen::Vector3cd shape = ResponseShapeFromResidues(residues, all);
  EXPECT_NEAR(PlainMac(phi_a, shape), 1.0, 1e-12);
  EXPECT_NEAR(std::abs(shape(1) - 1.0), 0.0, 1e-12);  // the largest component is 1
  // One hammer direction (the column z) gives the whole shape.
  std::array<bool, 9> column{};
  column[EntryIndex(0, 2)] = column[EntryIndex(1, 2)] = column[EntryIndex(2, 2)] = true;
  EXPECT_NEAR(PlainMac(phi_a, ResponseShapeFromResidues(residues, column)), 1.0, 1e-12);
  // Rows linked through shared columns: xx, yx, yy, zy.
  std::array<bool, 9> chain{};
  for (const auto& [i, j] : {std::pair{0, 0}, {1, 0}, {1, 1}, {2, 1}})
    chain[EntryIndex(i, j)] = true;
  EXPECT_NEAR(PlainMac(phi_a, ResponseShapeFromResidues(residues, chain)), 1.0, 1e-12);
  // xx and yy alone: y's scale against x is not in the data, and z is not measured.
  std::array<bool, 9> direct{};
  direct[EntryIndex(0, 0)] = direct[EntryIndex(1, 1)] = true;
  shape = ResponseShapeFromResidues(residues, direct);
  EXPECT_FALSE(std::isnan(shape(0).real()));
  EXPECT_TRUE(std::isnan(shape(1).real()) && std::isnan(shape(2).real()));
}

// A driving point keeps the symmetric rank-one shape: at the tool tip the same comparison holds
// (what the bundled sets' EMA has always given).
TEST_F(EmaTransferSets, TheToolTipStillGivesItsShapes) {
  const MeasurementPoints points = PointsAt(model_, posture_, "", "", "test");
  const EmaResult ema = EstimateModes(Simulate(points, 0.0, 0), FitReferenceOptions(), "tool tip");
  LowestMac(points, ema, 0.99, "tool tip noise-free");
}

}  // namespace
}  // namespace frfit
