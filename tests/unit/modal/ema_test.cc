// frfit ema's estimator (modal/ema.h) on the bundled FRF sets, whose truth is known: the model's
// modes with the parameters the sets were synthesised from (what `frfit modal --params` prints).
// The estimated modes in the band must match them — frequency within 0.2 %, damping ratio within
// 5 %, shape MAC — and again with 2 % complex noise added (0.5 %, 15 %). Also the pieces alone:
// the layout choice, the stability marks, the rank-one shape, LSFD on an exact modal model.
#include "frfit/modal/ema.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/frf/synthesize.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/modal/lscf.h"
#include "frfit/modal/lsfd.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/common/rng.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

const std::string kData = std::string(FRFIT_SOURCE_DIR) + "/datasets/";

struct Case {
  std::string dataset, params, posture;
};

// The true modes up to the set's highest line, from the library's modal analysis.
std::vector<Mode> TrueModes(const Case& c, const FrfSet& set) {
  const Model model = LoadModel(kData + c.dataset + "/model.yaml");
  const std::vector<double> p = LoadParameters(kData + c.dataset + "/" + c.params, model);
  const Posture posture = Linearize(model, c.posture);
  std::vector<Mode> in_band;
  for (const Mode& m : ComputeModes(posture, Coefficients(model, p, posture.q)))
    if (m.frequency_hz <= set.frequency_hz.back()) in_band.push_back(m);
  return in_band;
}

FrfSet Load(const Case& c) {
  return ReadFrfSet(kData + c.dataset + "/frf_" + c.posture + "_inertance.h5");
}

// h += |h|·(level/√2)·(n_re + i n_im), standard normal n: complex noise of rms `level`·|h|, as
// frfit-make-fleet --noise adds it.
FrfSet WithNoise(FrfSet set, double level, std::uint64_t seed) {
  Rng rng(seed);
  for (std::complex<double>& h : set.H) {
    const double re = rng.Normal(), im = rng.Normal();
    h += std::abs(h) * level / std::sqrt(2.0) * std::complex<double>(re, im);
  }
  return set;
}

// Every true mode has exactly one estimate, nearest in frequency, within the tolerances; no
// estimate is left without a true mode.
void ExpectModesMatch(const std::vector<Mode>& truth, const EmaResult& r, double frequency_tol,
                      double damping_tol, double min_mac, const std::string& what) {
  ASSERT_FALSE(truth.empty()) << what;
  EXPECT_EQ(r.modes.size(), truth.size()) << what << ": estimated modes " << r.modes.size();
  for (const Mode& t : truth) {
    const EmaMode* best = nullptr;
    for (const EmaMode& m : r.modes)
      if (!best || std::abs(m.mode.frequency_hz - t.frequency_hz) <
                       std::abs(best->mode.frequency_hz - t.frequency_hz))
        best = &m;
    ASSERT_NE(best, nullptr) << what;
    const std::string at = what + ", true mode at " + std::to_string(t.frequency_hz) + " Hz";
    EXPECT_LE(std::abs(best->mode.frequency_hz - t.frequency_hz) / t.frequency_hz, frequency_tol)
        << at << ": estimated " << best->mode.frequency_hz;
    EXPECT_LE(std::abs(best->mode.damping_ratio - t.damping_ratio) / t.damping_ratio, damping_tol)
        << at << ": true damping " << t.damping_ratio << ", estimated " << best->mode.damping_ratio;
    if (min_mac > 0.0) {
      EXPECT_GE(Mac({t.sensor_shape}, {best->mode.sensor_shape})(0, 0), min_mac) << at;
    }
  }
}

const Case kCases[] = {{"paper_3dof", "params_table1.yaml", "milling"},
                       {"kuka_kr90", "params_from34.yaml", "milling"},
                       {"kuka_kr90", "params_from34.yaml", "reach"},
                       {"kuka_kr90", "params_from34.yaml", "folded"}};

TEST(Ema, BundledSetsGiveTheTrueModes) {
  for (const Case& c : kCases) {
    const FrfSet set = Load(c);
    const EmaResult r = EstimateModes(set, EmaOptions{}, c.dataset);
    EXPECT_EQ(r.method, "plscf");
    ExpectModesMatch(TrueModes(c, set), r, 0.002, 0.05, 0.99, c.dataset + "/" + c.posture);
  }
}

TEST(Ema, TwoPercentNoiseStaysWithinTolerance) {
  for (const Case& c : kCases)
    for (std::uint64_t seed : {1, 2, 3}) {
      const FrfSet clean = Load(c);
      const EmaResult r = EstimateModes(WithNoise(clean, 0.02, seed), EmaOptions{}, c.dataset);
      ExpectModesMatch(TrueModes(c, clean), r, 0.005, 0.15, 0.95,
                       c.dataset + "/" + c.posture + " seed " + std::to_string(seed));
    }
}

TEST(Ema, ABandKeepsOnlyItsModes) {
  const Case c = kCases[1];
  const FrfSet set = Load(c);
  EmaOptions options;
  options.band_min_hz = 15.0;
  options.band_max_hz = 30.0;
  const EmaResult r = EstimateModes(set, options, "kuka");
  std::vector<Mode> truth;
  for (const Mode& m : TrueModes(c, set))
    if (m.frequency_hz >= 15.0) truth.push_back(m);
  EXPECT_EQ(r.band_min_hz, 15.0);
  for (int k = 0; k < r.measured.num_lines(); ++k) EXPECT_GE(r.measured.frequency_hz[k], 15.0);
  ExpectModesMatch(truth, r, 0.002, 0.05, 0.99, "kuka 15-30 Hz");
}

// Some entries missing: common-denominator LSCF on the direct FRFs alone, or pLSCF on a 2×2 block.
TEST(Ema, SubsetsOfTheMatrix) {
  const Case c = kCases[1];
  const FrfSet full = Load(c);
  const std::vector<Mode> truth = TrueModes(c, full);
  auto keep = [&](std::vector<int> entries) {
    FrfSet s = full;
    s.present = {};
    for (int e : entries) s.present[e] = true;
    for (int k = 0; k < s.num_lines(); ++k)
      for (int e = 0; e < 9; ++e)
        if (!s.present[e]) s.H[k * 9 + e] = 0.0;
    return s;
  };
  const EmaResult direct = EstimateModes(keep({0, 4, 8}), EmaOptions{}, "direct");
  EXPECT_EQ(direct.method, "lscf");
  EXPECT_TRUE(direct.references.empty());
  // Without cross FRFs the shapes' relative signs are unknown: no MAC check.
  ExpectModesMatch(truth, direct, 0.002, 0.05, 0.0, "direct FRFs");

  const EmaResult block = EstimateModes(keep({0, 1, 3, 4}), EmaOptions{}, "xy block");
  EXPECT_EQ(block.method, "plscf");
  EXPECT_EQ(block.references, (std::vector<int>{0, 1}));
  for (const EmaMode& m : block.modes) EXPECT_TRUE(std::isnan(m.mode.sensor_shape(2).real()));
  for (const Mode& t : truth) {
    // The z-dominated mode near 11 Hz barely moves x and y; compare the others.
    if (std::abs(t.sensor_shape(2)) >
        std::max(std::abs(t.sensor_shape(0)), std::abs(t.sensor_shape(1))))
      continue;
    const EmaMode* best = &block.modes.front();
    for (const EmaMode& m : block.modes)
      if (std::abs(m.mode.frequency_hz - t.frequency_hz) <
          std::abs(best->mode.frequency_hz - t.frequency_hz))
        best = &m;
    EXPECT_LE(std::abs(best->mode.frequency_hz - t.frequency_hz) / t.frequency_hz, 0.002)
        << t.frequency_hz;
  }
}

TEST(Ema, LayoutPicksPolyReferenceOnlyForAFullBlock) {
  std::array<bool, 9> all;
  all.fill(true);
  LscfLayout l = ChooseLayout(all);
  EXPECT_TRUE(l.poly_reference);
  EXPECT_EQ(l.m(), 3);
  EXPECT_EQ(l.rows.size(), 3u);
  std::array<bool, 9> column{};
  column[EntryIndex(0, 2)] = column[EntryIndex(1, 2)] = column[EntryIndex(2, 2)] = true;
  l = ChooseLayout(column);  // one reference: a common denominator over three rows
  EXPECT_FALSE(l.poly_reference);
  EXPECT_EQ(l.rows.size(), 3u);
  std::array<bool, 9> eight = all;
  eight[EntryIndex(2, 0)] = false;  // not a full block: every measured entry still used
  l = ChooseLayout(eight);
  EXPECT_FALSE(l.poly_reference);
  EXPECT_EQ(l.rows.size(), 8u);
  std::array<bool, 9> rows_xz{};
  for (int i : {0, 2})
    for (int j = 0; j < 3; ++j) rows_xz[EntryIndex(i, j)] = true;
  l = ChooseLayout(rows_xz);
  EXPECT_TRUE(l.poly_reference);
  EXPECT_EQ(l.references, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(l.rows, (std::vector<std::vector<int>>{{0, 1, 2}, {6, 7, 8}}));
}

TEST(Ema, MarksAndColumns) {
  StabilisationCriteria c;
  auto pole = [](int order, double f, double zeta, Eigen::VectorXcd v) {
    StabilisationPole p;
    p.order = order, p.frequency_hz = f, p.damping_ratio = zeta, p.vector = std::move(v);
    return p;
  };
  Eigen::VectorXcd a(2), b(2);
  a << 1.0, 0.5;
  b << 0.5, -1.0;  // MAC(a, b) = 0
  std::vector<StabilisationPole> poles = {
      pole(1, 10.0, 0.020, a),                                                      // new
      pole(2, 10.05, 0.0202, a), pole(2, 20.0, 0.01, a),                            // stable; new
      pole(3, 10.06, 0.0250, a), pole(3, 20.1, 0.0101, b), pole(3, 35.0, 0.01, a),  // v; d; o
      pole(4, 10.5, 0.0250, a)};                                                    // 4 % away: new
  MarkStability(c, &poles);
  const char expected[] = "osovdoo";
  for (size_t k = 0; k < poles.size(); ++k)
    EXPECT_EQ(ToLetter(poles[k].stability), expected[k]) << k;

  // Columns: fully stable poles within 1 % of each other, counted by order.
  std::vector<StabilisationPole> column;
  for (int order = 1; order <= 6; ++order)
    column.push_back(pole(order, 10.0 + 0.001 * order, 0.02, a));
  for (auto& p : column) p.stability = PoleStability::kStable;
  column.push_back(pole(3, 30.0, 0.01, a));
  column.back().stability = PoleStability::kStable;
  const std::vector<PoleColumn> kept = SelectColumns(column, c, 3);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].stable_poles, 6);
  EXPECT_EQ(kept[0].lowest_order, 1);
  EXPECT_NEAR(kept[0].frequency_hz, 10.0035, 1e-12);
  EXPECT_EQ(c.MinStablePolesFor(40), 10);
  EXPECT_EQ(c.MinStablePolesFor(4), 3);
}

TEST(Ema, ShapeFromAnExactResidueMatrix) {
  const Eigen::Vector3cd phi(std::complex<double>(0.3, 0.1), std::complex<double>(-1.2, 0.05), 0.7);
  std::array<std::complex<double>, 9> residues;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) residues[EntryIndex(i, j)] = 2.5 * phi(i) * phi(j);
  std::array<bool, 9> all;
  all.fill(true);
  Eigen::Vector3cd shape = ShapeFromResidues(residues, all);
  EXPECT_NEAR(Mac({phi}, {shape})(0, 0), 1.0, 1e-12);
  EXPECT_NEAR(std::abs(shape(1)), 1.0, 1e-12);  // the largest component is 1
  // One row and its direct entries: still every axis, signs from the cross entries.
  std::array<bool, 9> row{};
  row[0] = row[1] = row[2] = row[4] = row[8] = true;
  shape = ShapeFromResidues(residues, row);
  EXPECT_NEAR(Mac({phi}, {shape})(0, 0), 1.0, 1e-10);
  // An axis nothing measures is NaN; the others are still right.
  std::array<bool, 9> xy{};
  xy[0] = xy[1] = xy[3] = xy[4] = true;
  shape = ShapeFromResidues(residues, xy);
  EXPECT_TRUE(std::isnan(shape(2).real()));
  EXPECT_NEAR(Mac({phi.head<2>().eval()}, {shape.head<2>().eval()})(0, 0), 1.0, 1e-12);
}

// LSFD with the exact poles of a two-mode receptance plus residual terms gives back its residues.
TEST(Ema, LsfdRecoversAnExactModalModel) {
  const std::vector<std::complex<double>> poles = {PoleFrom(8.0, 0.02), PoleFrom(14.0, 0.01)};
  const std::complex<double> r0(1e-4, 2e-5), r1(-3e-5, 1e-5);
  FrfSet set;
  set.format = FrfFormat::kMobility;
  set.present[EntryIndex(1, 1)] = true;
  std::vector<int> lines;
  for (int k = 0; k < 100; ++k) {
    const double f = 0.5 + 0.25 * k;
    const std::complex<double> s(0.0, 2.0 * std::numbers::pi * f);
    const std::complex<double> h = r0 / (s - poles[0]) + std::conj(r0) / (s - std::conj(poles[0])) +
                                   r1 / (s - poles[1]) + std::conj(r1) / (s - std::conj(poles[1])) +
                                   2e-7 + 3e-3 / (s * s);
    set.frequency_hz.push_back(f);
    set.H.resize(set.H.size() + 9);
    set.H[k * 9 + 4] = s * h;
    lines.push_back(k);
  }
  const LsfdFit fit = FitResidues(set, lines, poles);
  EXPECT_NEAR(std::abs(fit.residues[0][4] - r0) / std::abs(r0), 0.0, 1e-8);
  EXPECT_NEAR(std::abs(fit.residues[1][4] - r1) / std::abs(r1), 0.0, 1e-8);
  EXPECT_NEAR(fit.upper_residual[4][0], 2e-7, 1e-14);
  EXPECT_NEAR(fit.upper_residual[4][1], 0.0, 1e-14);
  EXPECT_NEAR(fit.lower_residual[4], 3e-3, 1e-10);
  for (int k = 0; k < set.num_lines(); ++k)
    EXPECT_NEAR(std::abs(fit.synthesized.H[k * 9 + 4] - set.H[k * 9 + 4]), 0.0,
                1e-9 * std::abs(set.H[k * 9 + 4]));
}

TEST(Ema, BadInputIsRefusedByName) {
  FrfSet set = Load(kCases[0]);
  auto message = [](const FrfSet& s, const EmaOptions& o) {
    try {
      EstimateModes(s, o, "in.h5");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EmaOptions narrow;
  narrow.band_min_hz = 40.0;
  narrow.band_max_hz = 50.0;
  EXPECT_NE(message(set, narrow).find("in.h5: frequency_hz: expected enough lines"),
            std::string::npos);
  EmaOptions bad;
  bad.criteria.min_mac = 1.5;
  EXPECT_NE(message(set, bad).find("criteria.min_mac"), std::string::npos);
  FrfSet nan = set;
  nan.H[7 * 9 + 4] = {std::nan(""), 0.0};
  const std::string not_finite = message(nan, EmaOptions{});
  EXPECT_NE(not_finite.find("in.h5: H: line 7 ("), std::string::npos) << not_finite;
  EXPECT_NE(not_finite.find("H_yy is not finite"), std::string::npos) << not_finite;
  FrfSet none = set;
  none.present = {};
  EXPECT_NE(message(none, EmaOptions{}).find("present"), std::string::npos);
}

}  // namespace
}  // namespace frfit
