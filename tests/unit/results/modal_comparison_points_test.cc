// The modal comparison over all of a posture's response points: on the KUKA model measured at the
// tool tip, at joint3 and at joint2, the shapes stacked over the three points tell apart two modes
// that the tool tip's three components confuse. Checked against the undamped modes of M0 and K0
// from Eigen's dense generalized eigen-solver, seen through each point's basis.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/fit/fit_options.h"
#include "frfit/fit/load_problem.h"
#include "frfit/results/fit_result.h"
#include "frfit/results/modal_comparison.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kKuka = std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/";
const std::vector<std::string> kFrames = {"", "joint3", "joint2"};  // "" = the tool tip

// MAC of two real or complex vectors, written out.
double PlainMac(const Eigen::VectorXcd& a, const Eigen::VectorXcd& b) {
  return std::norm(a.dot(b)) / (a.squaredNorm() * b.squaredNorm());
}

// The undamped modes of the posture at `truth`: K0 = gravity stiffness + diag(k_<dof>), solved
// with M0 by Eigen's dense generalized eigen-solver (no damping, no first-order pencil).
struct UndampedModes {
  std::vector<double> frequency_hz;
  std::vector<Eigen::VectorXd> shapes;  // joint space
};

UndampedModes SolveUndamped(const Model& model, const Posture& posture,
                            const std::vector<double>& truth) {
  Eigen::MatrixXd K = posture.gravity_stiffness;
  for (int j = 0; j < posture.n; ++j)
    K(j, j) += truth[model.FindParameter("k_" + model.dofs[j].name)];
  Eigen::GeneralizedEigenSolver<Eigen::MatrixXd> solver(K, posture.mass);
  std::vector<std::pair<double, Eigen::VectorXd>> modes;
  for (int k = 0; k < posture.n; ++k) {
    const double omega2 = (solver.alphas()(k) / solver.betas()(k)).real();
    const double f = std::sqrt(omega2) / (2 * M_PI);
    modes.push_back({f, solver.eigenvectors().col(k).real()});
  }
  std::sort(modes.begin(), modes.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  UndampedModes out;
  for (const auto& [f, shape] : modes) out.frequency_hz.push_back(f), out.shapes.push_back(shape);
  return out;
}

// A joint-space shape seen through a basis.
Eigen::VectorXcd Seen(const Eigen::MatrixXd& basis, const Eigen::VectorXd& shape) {
  return (basis.transpose() * shape).cast<std::complex<double>>();
}

// The index of the frequency nearest f.
size_t Nearest(const std::vector<double>& frequency_hz, double f) {
  size_t m = 0;
  for (size_t k = 1; k < frequency_hz.size(); ++k)
    if (std::abs(frequency_hz[k] - f) < std::abs(frequency_hz[m] - f)) m = k;
  return m;
}

class ModesOverAllPoints : public test::TempDirTest {
 protected:
  ModesOverAllPoints()
      : model_(std::make_shared<const Model>(LoadModel(kKuka + "model.yaml"))),
        posture_(Linearize(*model_, "milling")),
        truth_(LoadParameters(kKuka + "params_from34.yaml", *model_)) {}

  // frfit simulate at the truth, one file per response frame, the hammer at the tool tip.
  std::vector<std::string> SimulateSets() {
    std::vector<std::string> files;
    for (const std::string& frame : kFrames) {
      files.push_back(Path((frame.empty() ? "tip" : frame) + ".h5"));
      std::vector<std::string> args = {"simulate", "--model", kKuka + "model.yaml", "--posture",
                                       "milling", "--params", kKuka + "params_from34.yaml"};
      args.insert(args.end(), {"--band", "2:30:0.25", "--out", files.back()});
      if (!frame.empty()) args.insert(args.end(), {"--response-frame", frame});
      const test::CliResult r = Run(args);
      EXPECT_EQ(r.status, 0) << r.err;
    }
    return files;
  }

  // The three points' bases side by side, in kFrames order.
  Eigen::MatrixXd StackedBasis() const {
    Eigen::MatrixXd basis(posture_.n, 9);
    for (int k = 0; k < 3; ++k)
      basis.middleCols(3 * k, 3) =
          PointsAt(*model_, posture_, kFrames[k], "", "test").response_basis;
    return basis;
  }

  std::shared_ptr<const Model> model_;
  Posture posture_;
  std::vector<double> truth_;
};

// The premise and the claim, against the independent eigen-solve: some pair of modes has a tool-tip
// MAC near 1, and over the three points the same pair's MAC is far lower; the comparison at the
// truth pairs every mode with itself at MAC ~1 and its whole MAC table is the independent one.
TEST_F(ModesOverAllPoints, TheMacTellsApartModesTheToolTipConfuses) {
  const Problem problem = LoadProblem(model_, SimulateSets(), FitOptions{}, "test");
  ASSERT_EQ(problem.postures.size(), 3u);
  const std::vector<ModalComparison> none(3);
  const std::vector<const ModalComparison*> per_set = {&none[0], &none[1], &none[2]};
  const std::vector<ModalComparisonPoints> all = CompareModesAtPoints(problem, truth_, per_set);
  ASSERT_EQ(all.size(), 1u);
  const ModalComparisonPoints& c = all[0];
  EXPECT_EQ(c.posture, "milling");
  EXPECT_EQ(c.points, (std::vector<std::string>{"sensor", "joint3", "joint2"}));
  EXPECT_NE(c.modal.reference.find("synthesised from"), std::string::npos) << c.modal.reference;

  const UndampedModes modes = SolveUndamped(*model_, posture_, truth_);
  size_t in_band = 0;  // the reference modes: those up to the band's 30 Hz
  while (in_band < modes.frequency_hz.size() && modes.frequency_hz[in_band] <= 30.0) ++in_band;
  const Eigen::MatrixXd tip = posture_.sensor_basis, stacked = StackedBasis();
  ASSERT_EQ(c.modal.rows.size(), in_band);
  // The pair of modes in the band the tool tip confuses most.
  int a = -1, b = -1;
  double tip_mac = 0.0;
  for (size_t i = 0; i < in_band; ++i)
    for (size_t j = i + 1; j < in_band; ++j) {
      const double mac = PlainMac(Seen(tip, modes.shapes[i]), Seen(tip, modes.shapes[j]));
      if (mac > tip_mac) tip_mac = mac, a = static_cast<int>(i), b = static_cast<int>(j);
    }
  const double stacked_mac =
      PlainMac(Seen(stacked, modes.shapes[a]), Seen(stacked, modes.shapes[b]));
  std::printf("modes at %.3f and %.3f Hz: MAC %.3f at the tool tip, %.3f over the three points\n",
              modes.frequency_hz[a], modes.frequency_hz[b], tip_mac, stacked_mac);
  EXPECT_GT(tip_mac, 0.85)
      << "the tool tip no longer confuses two modes: the test lost its premise";
  EXPECT_LT(stacked_mac, 0.5 * tip_mac);
  // The same pair in the tables frfit writes: the tool-tip set's own (its columns are the fitted
  // modes from the lowest, so column b is mode b) and the one over all points.
  std::string description;
  const ProblemPosture& tip_set = problem.postures[0];
  const ModalComparison tip_table = CompareModes(
      ReferenceModes(*model_, tip_set.posture, tip_set.measured, 30.0, &description),
      ComputeModes(posture_, Coefficients(*model_, truth_, posture_.q)), description, 30.0);
  EXPECT_NEAR(tip_table.mac(a, b), tip_mac, 0.02);
  EXPECT_NEAR(c.modal.mac(a, b), stacked_mac, 0.02);
  EXPECT_LT(c.modal.mac(a, b), 0.5 * tip_table.mac(a, b));

  // The comparison's table: every mode paired with itself, MAC ~1; every cell as the eigen-solve's
  // (the damped modes' shapes are nearly real at 1-2 % damping).
  ASSERT_EQ(c.modal.mac.rows(), static_cast<Eigen::Index>(in_band));
  for (size_t r = 0; r < c.modal.rows.size(); ++r) {
    const ModalComparisonRow& row = c.modal.rows[r];
    EXPECT_NEAR(row.reference_frequency_hz, modes.frequency_hz[r], 0.01 * modes.frequency_hz[r]);
    EXPECT_EQ(row.fitted_frequency_hz, row.reference_frequency_hz) << "mode " << r;
    EXPECT_GT(row.mac, 0.999) << "mode " << r;
    for (Eigen::Index col = 0; col < c.modal.mac.cols(); ++col) {
      const double f = c.modal.mac_fitted_frequency_hz[col];
      const size_t m = Nearest(modes.frequency_hz, f);
      EXPECT_NEAR(c.modal.mac(r, col),
                  PlainMac(Seen(stacked, modes.shapes[r]), Seen(stacked, modes.shapes[m])), 0.02)
          << "reference " << r << ", fitted " << f << " Hz";
    }
  }
}

// Measured data (no parameters in the files): the reference comes from each set's EMA estimate,
// paired across the sets by frequency and stacked from the residues. On noise-free FRFs those are
// the model's modes, so the stacked reference matches the eigen-solve as the truth's does.
TEST_F(ModesOverAllPoints, FromEmaEstimatesTheyAreTheModelsModes) {
  const std::vector<std::string> files = SimulateSets();
  for (const std::string& file : files) {
    FrfSet set = ReadFrfSet(file);
    set.provenance.clear();
    WriteFrfSet(file, set);
  }
  const Problem problem = LoadProblem(model_, files, FitOptions{}, "test");
  std::vector<ModalComparison> own;
  for (const ProblemPosture& pp : problem.postures) {
    std::string description;
    ModalComparison c;
    ReferenceModes(*model_, pp.posture, pp.measured, 30.0, &description, &c.ema);
    ASSERT_TRUE(c.ema) << description;
    own.push_back(std::move(c));
  }
  const std::vector<const ModalComparison*> per_set = {&own[0], &own[1], &own[2]};
  const std::vector<ModalComparisonPoints> all = CompareModesAtPoints(problem, truth_, per_set);
  ASSERT_EQ(all.size(), 1u);
  const ModalComparisonPoints& c = all[0];
  EXPECT_EQ(c.points, (std::vector<std::string>{"sensor", "joint3", "joint2"}));
  EXPECT_NE(c.modal.reference.find("frfit ema) at sensor, joint3, joint2, excited at sensor"),
            std::string::npos)
      << c.modal.reference;

  const UndampedModes modes = SolveUndamped(*model_, posture_, truth_);
  const Eigen::MatrixXd stacked = StackedBasis();
  ASSERT_GE(c.modal.rows.size(), 4u) << "the four modes of the band";
  double largest_off_pairs = 0.0;
  for (size_t r = 0; r < c.modal.rows.size(); ++r) {
    const ModalComparisonRow& row = c.modal.rows[r];
    EXPECT_GT(row.mac, 0.99) << "reference mode at " << row.reference_frequency_hz << " Hz";
    EXPECT_NEAR(row.fitted_frequency_hz, row.reference_frequency_hz,
                1e-3 * row.reference_frequency_hz);
    const size_t m = Nearest(modes.frequency_hz, row.reference_frequency_hz);
    for (Eigen::Index col = 0; col < c.modal.mac.cols(); ++col) {
      const size_t n = Nearest(modes.frequency_hz, c.modal.mac_fitted_frequency_hz[col]);
      EXPECT_NEAR(c.modal.mac(r, col),
                  PlainMac(Seen(stacked, modes.shapes[m]), Seen(stacked, modes.shapes[n])), 0.02)
          << "reference " << row.reference_frequency_hz << " Hz, fitted "
          << c.modal.mac_fitted_frequency_hz[col] << " Hz";
      if (n != m) largest_off_pairs = std::max(largest_off_pairs, c.modal.mac(r, col));
    }
  }
  // No two modes look alike over the three points, the pair the tool tip confuses included.
  std::printf("largest MAC between two different modes, from the EMA estimates: %.3f\n",
              largest_off_pairs);
  EXPECT_LT(largest_off_pairs, 0.5);
}

// The whole way: frfit fit prints the comparison over all points, puts it in --json and in the
// result file, which the report's reader reads back and frfit report shows; a fit at one point has
// none.
TEST_F(ModesOverAllPoints, FitWritesPrintsAndReportsThem) {
  const std::vector<std::string> files = SimulateSets();
  std::ofstream(Path("fit.yaml")) << test::kTinyFitConfig;
  const std::string frf = files[0] + "," + files[1] + "," + files[2];
  const std::vector<std::string> fit = {
      "fit", "--model", kKuka + "model.yaml", "--config", Path("fit.yaml"), "--seed", "3", "--frf"};
  std::vector<std::string> args = fit;
  args.insert(args.end(), {frf, "--out", Path("result.h5")});
  const test::CliResult text = Run(args);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("posture milling, mode shapes over all its points (sensor, joint3, "
                          "joint2)"),
            std::string::npos)
      << text.out;
  args = fit;
  args.insert(args.end(), {frf, "--json"});
  const test::CliResult json = Run(args);
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out)["modal_comparison_points"];
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["posture"], "milling");
  EXPECT_EQ(j[0]["points"], (std::vector<std::string>{"sensor", "joint3", "joint2"}));

  // The file holds what --json printed (the same seed gives the same fit).
  const FitResult d = ReadFitResult(Path("result.h5"));
  ASSERT_EQ(d.modal_comparison_points.size(), 1u);
  const ModalComparisonPoints& c = d.modal_comparison_points[0];
  EXPECT_EQ(c.posture, "milling");
  EXPECT_EQ(c.points, (std::vector<std::string>{"sensor", "joint3", "joint2"}));
  EXPECT_EQ(c.modal.reference, j[0]["modal_reference"]);
  ASSERT_EQ(c.modal.rows.size(), j[0]["modes"].size());
  ASSERT_FALSE(c.modal.rows.empty());
  for (size_t r = 0; r < c.modal.rows.size(); ++r)
    EXPECT_EQ(c.modal.rows[r].mac, j[0]["modes"][r]["mac"].get<double>());
  ASSERT_EQ(c.modal.mac_fitted_frequency_hz.size(), j[0]["mac_fitted_frequency_hz"].size());
  ASSERT_EQ(static_cast<size_t>(c.modal.mac.size()),
            c.modal.rows.size() * c.modal.mac_fitted_frequency_hz.size());
  for (size_t r = 0; r < c.modal.rows.size(); ++r)
    for (size_t col = 0; col < c.modal.mac_fitted_frequency_hz.size(); ++col)
      EXPECT_EQ(c.modal.mac(r, col), j[0]["mac"][r][col].get<double>());

  const test::CliResult report = Run({"report", Path("result.h5"), "-o", Path("report.html")});
  ASSERT_EQ(report.status, 0) << report.err;
  const std::string html = test::ReadText(Path("report.html"));
  EXPECT_NE(html.find("id=\"points-milling\""), std::string::npos);
  EXPECT_NE(html.find("id=\"modal-points-milling\""), std::string::npos);
  EXPECT_NE(html.find("id=\"mac-points-milling\""), std::string::npos);
  EXPECT_NE(html.find("sensor, joint3, joint2"), std::string::npos);

  args = fit;
  args.insert(args.end(), {files[0], "--out", Path("tip_result.h5"), "--json"});
  const test::CliResult tip = Run(args);
  ASSERT_EQ(tip.status, 0) << tip.err;
  EXPECT_FALSE(nlohmann::json::parse(tip.out).contains("modal_comparison_points"));
  EXPECT_TRUE(ReadFitResult(Path("tip_result.h5")).modal_comparison_points.empty());
}

}  // namespace
}  // namespace frfit
