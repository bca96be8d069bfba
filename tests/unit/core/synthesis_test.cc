// FRF synthesis (DESIGN.md §2) checked by properties and by an independent computation:
//  - reciprocity: H = Hᵀ (the linearised model is symmetric);
//  - the peaks of the direct FRFs sit at the modal frequencies of ComputeModes;
//  - receptance / mobility / inertance are iω-multiples of each other, whether synthesised
//    directly in each format or converted with ConvertFormat;
//  - Synthesize agrees with a long-double Gaussian elimination written here.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <ostream>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/frf/frf_set.h"
#include "frfit/frf/synthesize.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

struct Case {
  const char* name;
  const char* model;
  const char* params;
};
const Case kCases[] = {
    {"paper_3dof", "datasets/paper_3dof/model.yaml", "datasets/paper_3dof/params_table1.yaml"},
    {"kuka_kr90", "datasets/kuka_kr90/model.yaml", "datasets/kuka_kr90/params_from34.yaml"},
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

struct Loaded {
  Model model;
  std::vector<double> params;
  Posture posture;
  JointCoefficients coefficients;
};

Loaded Load(const Case& c) {
  const std::string root = std::string(FRFIT_SOURCE_DIR) + "/";
  Loaded l;
  l.model = LoadModel(root + c.model);
  l.params = LoadParameters(root + c.params, l.model);
  l.posture = Linearize(l.model, "milling");
  l.coefficients = Coefficients(l.model, l.params);
  return l;
}

double LineNorm(const FrfSet& set, int k) {
  double m = 0.0;
  for (int e = 0; e < 9; ++e) m = std::max(m, std::abs(set.H[k * 9 + e]));
  return m;
}

class CoreSynthesis : public ::testing::TestWithParam<Case> {};

TEST_P(CoreSynthesis, IsReciprocal) {
  const Loaded l = Load(GetParam());
  const std::vector<double> band = MakeBand(0.0, 40.0, 0.05, "test");
  const FrfSet set = Synthesize(l.posture, l.coefficients, band, FrfFormat::kReceptance);
  ASSERT_EQ(set.num_lines(), static_cast<int>(band.size()));
  for (int e = 0; e < 9; ++e) EXPECT_TRUE(set.present[e]);
  for (int k = 0; k < set.num_lines(); ++k) {
    const double scale = LineNorm(set, k);
    ASSERT_GT(scale, 0.0);
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 3; ++j)
        ASSERT_LE(std::abs(set.at(k, i, j) - set.at(k, j, i)), 1e-12 * scale)
            << "H" << "xyz"[i] << "xyz"[j] << " at " << band[k] << " Hz";
  }
}

// Local maxima of |H_xx|+|H_yy|+|H_zz| on a 0.01 Hz grid lie within 0.5 % of the modes'
// (damped) frequencies Im λ/2π, and every mode in the band shows one. For a lightly damped mode
// the receptance peak sits at ω_n·sqrt(1 − 2ζ²) and the damped frequency at ω_n·sqrt(1 − ζ²):
// they differ by about ζ²/2 (< 0.02 % for ζ < 2 %), far inside the tolerance.
TEST_P(CoreSynthesis, DirectFrfPeaksSitAtModalFrequencies) {
  const Loaded l = Load(GetParam());
  const std::vector<Mode> modes = ComputeModes(l.posture, l.coefficients);
  const double f_max = 30.0;
  const std::vector<double> band = MakeBand(0.5, f_max, 0.01, "test");
  const FrfSet set = Synthesize(l.posture, l.coefficients, band, FrfFormat::kReceptance);
  std::vector<double> sum(band.size());
  for (size_t k = 0; k < band.size(); ++k)
    sum[k] = std::abs(set.at(k, 0, 0)) + std::abs(set.at(k, 1, 1)) + std::abs(set.at(k, 2, 2));
  std::vector<double> peaks;
  for (size_t k = 1; k + 1 < band.size(); ++k)
    if (sum[k] > sum[k - 1] && sum[k] >= sum[k + 1]) peaks.push_back(band[k]);

  std::vector<double> in_band;
  for (const Mode& m : modes) {
    if (m.frequency_hz >= f_max - 0.5) continue;
    ASSERT_LT(m.damping_ratio, 0.05) << "mode at " << m.frequency_hz << " Hz";
    EXPECT_NEAR(m.frequency_hz / (std::abs(m.eigenvalue) / (2 * M_PI)), 1.0,
                m.damping_ratio * m.damping_ratio)
        << "damped vs undamped frequency differ by more than zeta^2";
    in_band.push_back(m.frequency_hz);
  }
  ASSERT_FALSE(in_band.empty());
  EXPECT_EQ(peaks.size(), in_band.size()) << "one peak per mode below " << f_max << " Hz";
  for (double f : in_band) {
    double nearest = 1e300;
    for (double p : peaks)
      if (std::abs(p - f) < std::abs(nearest - f)) nearest = p;
    EXPECT_NEAR(nearest, f, 0.005 * f) << "no peak near the mode at " << f << " Hz";
  }
  for (double p : peaks) {
    double nearest = 1e300;
    for (double f : in_band)
      if (std::abs(p - f) < std::abs(nearest - p)) nearest = f;
    EXPECT_NEAR(nearest, p, 0.005 * p) << "peak at " << p << " Hz matches no mode";
  }
}

void ExpectScaled(const FrfSet& rec, const FrfSet& other, int order, const std::string& what) {
  ASSERT_EQ(rec.num_lines(), other.num_lines());
  for (int k = 0; k < rec.num_lines(); ++k) {
    const double w = 2 * M_PI * rec.frequency_hz[k];
    const std::complex<double> factor = order == 0 ? std::complex<double>(1, 0)
                                        : order == 1 ? std::complex<double>(0, w)
                                                     : std::complex<double>(-w * w, 0);
    double scale = 0.0;
    for (int e = 0; e < 9; ++e) scale = std::max(scale, std::abs(factor * rec.H[k * 9 + e]));
    for (int e = 0; e < 9; ++e) {
      const std::complex<double> expected = factor * rec.H[k * 9 + e];
      ASSERT_LE(std::abs(other.H[k * 9 + e] - expected), 1e-12 * scale + 1e-300)
          << what << " line " << k << " entry " << EntryName(e);
    }
  }
}

TEST_P(CoreSynthesis, FormatsAreConsistent) {
  const Loaded l = Load(GetParam());
  const std::vector<double> band = MakeBand(0.2, 30.0, 0.2, "test");
  const FrfSet rec = Synthesize(l.posture, l.coefficients, band, FrfFormat::kReceptance);
  const FrfSet mob = Synthesize(l.posture, l.coefficients, band, FrfFormat::kMobility);
  const FrfSet ine = Synthesize(l.posture, l.coefficients, band, FrfFormat::kInertance);
  EXPECT_EQ(rec.format, FrfFormat::kReceptance);
  EXPECT_EQ(mob.format, FrfFormat::kMobility);
  EXPECT_EQ(ine.format, FrfFormat::kInertance);
  ExpectScaled(rec, mob, 1, "Synthesize mobility");
  ExpectScaled(rec, ine, 2, "Synthesize inertance");
  const FrfSet mob2 = ConvertFormat(rec, FrfFormat::kMobility);
  const FrfSet ine2 = ConvertFormat(rec, FrfFormat::kInertance);
  EXPECT_EQ(mob2.format, FrfFormat::kMobility);
  EXPECT_EQ(ine2.format, FrfFormat::kInertance);
  ExpectScaled(rec, mob2, 1, "ConvertFormat mobility");
  ExpectScaled(rec, ine2, 2, "ConvertFormat inertance");
  // Mobility → inertance is one more factor iω; inertance → receptance undoes −ω².
  ExpectScaled(mob, ConvertFormat(mob, FrfFormat::kInertance), 1, "mobility to inertance");
  ExpectScaled(ConvertFormat(ine, FrfFormat::kReceptance), ine, 2, "inertance to receptance");
  ExpectScaled(rec, ConvertFormat(rec, FrfFormat::kReceptance), 0, "identity");
}

TEST(CoreSynthesisFormats, ConvertingDownAtZeroHzIsAnError) {
  FrfSet set;
  set.frequency_hz = {0.0, 1.0};
  set.H.assign(18, {1.0, 0.0});
  set.present.fill(true);
  set.format = FrfFormat::kInertance;
  EXPECT_THROW(ConvertFormat(set, FrfFormat::kReceptance), Error);
  // Up is fine: the 0 Hz line becomes 0.
  set.format = FrfFormat::kReceptance;
  const FrfSet up = ConvertFormat(set, FrfFormat::kInertance);
  EXPECT_EQ(up.at(0, 0, 0), std::complex<double>(0.0, 0.0));
}

// ---- Independent solve in long double ---------------------------------------------------------

using LCplx = std::complex<long double>;
using LMat = std::vector<std::vector<LCplx>>;

// Solves A X = B (A n×n, B n×m) by Gaussian elimination with partial pivoting.
LMat Solve(LMat A, LMat B) {
  const size_t n = A.size(), m = B[0].size();
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(A[r][c]) > std::abs(A[pivot][c])) pivot = r;
    std::swap(A[c], A[pivot]);
    std::swap(B[c], B[pivot]);
    for (size_t r = c + 1; r < n; ++r) {
      const LCplx f = A[r][c] / A[c][c];
      for (size_t k = c; k < n; ++k) A[r][k] -= f * A[c][k];
      for (size_t k = 0; k < m; ++k) B[r][k] -= f * B[c][k];
    }
  }
  LMat X(n, std::vector<LCplx>(m));
  for (size_t k = 0; k < m; ++k)
    for (size_t r = n; r-- > 0;) {
      LCplx s = B[r][k];
      for (size_t c = r + 1; c < n; ++c) s -= A[r][c] * X[c][k];
      X[r][k] = s / A[r][r];
    }
  return X;
}

TEST_P(CoreSynthesis, AgreesWithLongDoubleSolve) {
  const Loaded l = Load(GetParam());
  const int n = l.posture.n;
  const Eigen::MatrixXd& M = l.posture.mass;
  const Eigen::MatrixXcd K = TangentStiffness(l.posture, l.coefficients);
  const Eigen::MatrixXd C = TangentDamping(l.posture, l.coefficients);
  // B = J_Sᵀ R_0,S, formed here from the Jacobian and the rotation, not taken from sensor_basis.
  LMat Bl(n, std::vector<LCplx>(3));
  for (int p = 0; p < n; ++p)
    for (int j = 0; j < 3; ++j) {
      long double s = 0;
      for (int a = 0; a < 3; ++a)
        s += static_cast<long double>(l.posture.sensor_jacobian(a, p)) *
             static_cast<long double>(l.posture.sensor_rotation(a, j));
      Bl[p][j] = s;
    }
  const std::vector<double> band = {0.0, 0.2, 5.0, 10.17, 11.24, 18.7, 22.6, 23.8, 29.8, 100.0};
  for (FrfFormat format : {FrfFormat::kReceptance, FrfFormat::kInertance}) {
    const FrfSet set = Synthesize(l.posture, l.coefficients, band, format);
    for (size_t k = 0; k < band.size(); ++k) {
      const long double w = 2.0L * 3.14159265358979323846264338327950288L * band[k];
      LMat Z(n, std::vector<LCplx>(n));
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
          Z[r][c] = LCplx(-w * w * M(r, c) + K(r, c).real(), w * C(r, c) + K(r, c).imag());
      const LMat X = Solve(Z, Bl);
      const LCplx factor = format == FrfFormat::kReceptance ? LCplx(1) : LCplx(-w * w);
      LCplx H[3][3];
      long double scale = 0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          LCplx s = 0;
          for (int p = 0; p < n; ++p) s += Bl[p][i] * X[p][j];
          H[i][j] = factor * s;
          scale = std::max(scale, std::abs(H[i][j]));
        }
      if (scale == 0) continue;  // inertance at 0 Hz
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          const std::complex<double> got = set.at(static_cast<int>(k), i, j);
          const LCplx diff = LCplx(got.real(), got.imag()) - H[i][j];
          EXPECT_LE(static_cast<double>(std::abs(diff) / scale), 1e-10)
              << GetParam().name << " " << ToString(format) << " H" << "xyz"[i] << "xyz"[j]
              << " at " << band[k] << " Hz";
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Datasets, CoreSynthesis, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace frfit
