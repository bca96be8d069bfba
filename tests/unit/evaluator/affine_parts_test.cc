// Affine parts in the batched evaluator (kernels/line_cost.h, PostureArrays): a KUKA posture with
// random dense symmetric parts of every target, each on its own coefficient (one coefficient
// shared by a stiffness and a loss part), scored by the cpu evaluator and by an independent dense
// evaluation written here in long double (Eigen's LU, std::log and std::arg): costs to 1e-12, the
// normal equations' gradient and Gauss–Newton matrix to central differences of that evaluation.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/load_problem.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"
#include "kernels/det_math.h"
#include "kernels/line_normal.h"

namespace frfit {
namespace {

using LD = long double;
using CLD = std::complex<LD>;
using MatrixLD = Eigen::Matrix<CLD, Eigen::Dynamic, Eigen::Dynamic>;

struct Case {
  Posture posture;
  JointCoefficients c;     // the point evaluated
  JointCoefficients truth; // the coefficients the targets are made from
  std::vector<double> omega;
  std::vector<double> weight;  // [line][9]
  std::vector<double> target;  // [line][9][2]: log|H|, arg H of the truth's inertance
};

constexpr int kParts = 5;  // K, K'' (same coefficient as K), C, M, K: coefficients 0, 0, 1, 2, 3
constexpr int kPartCoefficients = 4;

Eigen::MatrixXd RandomSymmetric(std::mt19937_64& rng, int n, double scale, bool semidefinite) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd a(n, n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) a(r, c) = u(rng);
  return semidefinite ? (scale / n) * (a.transpose() * a) : Eigen::MatrixXd(0.5 * scale * (a + a.transpose()));
}

// Z(ω) = K + iωC − ω²M of `c` at `posture`, in long double, written from the definitions of
// posture/posture.h (not the kernels' assembly).
MatrixLD DynamicStiffness(const Posture& p, const JointCoefficients& c, LD omega) {
  const int n = p.n;
  MatrixLD m = p.mass.cast<LD>().cast<CLD>(), k = p.gravity_stiffness.cast<LD>().cast<CLD>();
  MatrixLD damping = MatrixLD::Zero(n, n);
  for (int j = 0; j < n; ++j) {
    k(j, j) += CLD(c.stiffness[j], c.hysteretic[j]);
    damping(j, j) += c.viscous[j];
  }
  for (const AffinePart& part : p.affine_parts) {
    const MatrixLD scaled = (static_cast<LD>(c.parts[part.coefficient]) * part.matrix.cast<LD>()).cast<CLD>();
    switch (part.target) {
      case AffinePart::Target::kStiffness: k += scaled; break;
      case AffinePart::Target::kLossStiffness: k += CLD(0, 1) * scaled; break;
      case AffinePart::Target::kDamping: damping += scaled; break;
      case AffinePart::Target::kMass: m += scaled; break;
    }
  }
  damping += static_cast<LD>(c.mass_proportional) * m;
  return k + CLD(0, omega) * damping - omega * omega * m;
}

// The nine inertance entries −ω² BᵀZ⁻¹B at one line.
std::vector<CLD> Inertance(const Posture& p, const JointCoefficients& c, LD omega) {
  const MatrixLD b = p.sensor_basis.cast<LD>().cast<CLD>();
  const MatrixLD h = b.transpose() * DynamicStiffness(p, c, omega).partialPivLu().solve(b);
  std::vector<CLD> out(9);
  for (int e = 0; e < 9; ++e) out[e] = -omega * omega * h(e / 3, e % 3);
  return out;
}

// Residuals (log|H| − t0, arg H − t1 wrapped into (−π, π]) of every weighted entry and line.
std::vector<LD> Residuals(const Case& k, const JointCoefficients& c) {
  std::vector<LD> r;
  const LD pi = std::acos(LD(-1));
  for (size_t l = 0; l < k.omega.size(); ++l) {
    const std::vector<CLD> h = Inertance(k.posture, c, k.omega[l]);
    for (int e = 0; e < 9; ++e) {
      if (k.weight[l * 9 + e] == 0.0) continue;
      LD phase = std::arg(h[e]) - k.target[(l * 9 + e) * 2 + 1];
      if (phase > pi) phase -= 2 * pi;
      if (phase <= -pi) phase += 2 * pi;
      r.push_back(std::log(std::abs(h[e])) - k.target[(l * 9 + e) * 2]);
      r.push_back(phase);
    }
  }
  return r;
}
std::vector<LD> Weights(const Case& k) {
  std::vector<LD> w;
  for (double v : k.weight)
    if (v != 0.0) w.push_back(v), w.push_back(v);
  return w;
}

Case MakeCase() {
  const Model model = LoadModel(std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/model.yaml");
  Case k;
  k.posture = Linearize(model, "milling");
  const int n = k.posture.n;
  std::mt19937_64 rng(43);
  // Parts on the scale of the joints' stiffness (1e6 .. 1e7 N·m/rad) and the mass matrix.
  const double k_scale = 1e-1, m_scale = 1e-2 * k.posture.mass.norm() / n;
  const AffinePart::Target targets[kParts] = {
      AffinePart::Target::kStiffness, AffinePart::Target::kLossStiffness,
      AffinePart::Target::kDamping, AffinePart::Target::kMass, AffinePart::Target::kStiffness};
  const int coefficient[kParts] = {0, 0, 1, 2, 3};
  for (int a = 0; a < kParts; ++a) {
    const bool mass = targets[a] == AffinePart::Target::kMass;
    k.posture.affine_parts.push_back(
        {targets[a], coefficient[a], RandomSymmetric(rng, n, mass ? m_scale : k_scale, true)});
  }
  std::vector<double> parameters = model.InitialParameters();
  k.truth = Coefficients(model, parameters, k.posture.q);
  k.truth.parts = {2e6, 30.0, 5.0, 1e6};
  k.truth.mass_proportional = 0.5;  // so that αM (with the mass part) is exercised
  k.c = k.truth;
  for (double& v : k.c.stiffness) v *= 1.1;
  k.c.parts = {3e6, 45.0, 3.0, 0.7e6};
  k.c.mass_proportional = 0.3;
  std::uniform_real_distribution<double> u(0.2, 1.0);
  for (double f = 5.0; f < 60.0; f += 2.5) {
    const double omega = 2.0 * M_PI * f;
    k.omega.push_back(omega);
    const std::vector<CLD> h = Inertance(k.posture, k.truth, omega);
    for (int e = 0; e < 9; ++e) {
      const double w = e == 4 ? 0.0 : u(rng);  // one entry unweighted
      const double re = static_cast<double>(h[e].real()), im = static_cast<double>(h[e].imag());
      k.weight.push_back(w);
      // Noise-free targets scored at another point: the same log and atan2 the packing uses.
      k.target.push_back(det::LogAbs(re, im) + 0.05 * (u(rng) - 0.6));
      k.target.push_back(det::Atan2(im, re));
    }
  }
  return k;
}

PackedProblem PackCase(const Case& k) {
  PackedProblem p;
  p.n = k.posture.n;
  p.parts = kPartCoefficients;
  p.cost_kind = kernels::kCostLogComplex;
  p.phase_mode = kernels::kPhaseWrapped;
  PackedPosture q;
  for (int r = 0; r < p.n; ++r)
    for (int c = 0; c < p.n; ++c) {
      q.mass.push_back(k.posture.mass(r, c));
      q.gravity.push_back(k.posture.gravity_stiffness(r, c));
    }
  for (const AffinePart& part : k.posture.affine_parts) {
    for (int r = 0; r < p.n; ++r)
      for (int c = 0; c < p.n; ++c) q.part_matrices.push_back(part.matrix(r, c));
    q.part_layout.push_back(static_cast<double>(part.target));
    q.part_layout.push_back(part.coefficient);
  }
  for (int r = 0; r < p.n; ++r)
    for (int j = 0; j < 3; ++j) q.basis.push_back(k.posture.sensor_basis(r, j));
  q.omega_rad_s = k.omega;
  q.weight = k.weight;
  q.target = k.target;
  q.fit_order = 2;
  p.postures.push_back(q);
  return p;
}

LD Cost(const Case& k, const JointCoefficients& c) {
  const std::vector<LD> r = Residuals(k, c), w = Weights(k);
  LD cost = 0;
  for (size_t i = 0; i < r.size(); ++i) cost += w[i] * r[i] * r[i];
  return cost;
}

TEST(AffineParts, CostEqualsAnIndependentDenseEvaluation) {
  const Case k = MakeCase();
  auto cpu = CreateCpuEvaluator(1);
  cpu->SetProblems({PackCase(k)});
  std::vector<double> coefficients;
  AppendPacked(k.c, &coefficients);
  ASSERT_EQ(static_cast<int>(coefficients.size()), cpu->problems()[0].coefficient_stride());
  double cost = 0;
  EvalStatus status;
  const int one = 1;
  cpu->Evaluate({&one, 1}, coefficients, {&cost, 1}, {&status, 1});
  ASSERT_EQ(status, EvalStatus::kOk);
  const LD want = Cost(k, k.c);
  ASSERT_GT(want, 1e-3L);
  EXPECT_NEAR(cost / static_cast<double>(want), 1.0, 1e-12) << cost << " vs " << static_cast<double>(want);
  // Without the parts the cost is another one: they are not ignored.
  JointCoefficients zero = k.c;
  zero.parts.assign(kPartCoefficients, 0.0);
  EXPECT_GT(std::abs(static_cast<double>(Cost(k, zero) / want) - 1.0), 1e-3);
}

// The normal equations' gradient g = Σ w r ∂r/∂u and A = Σ w ∂r/∂u ∂r/∂uᵀ with u the four part
// coefficients and α, against central differences of the long-double residuals.
TEST(AffineParts, NormalEquationsEqualCentralDifferences) {
  const Case k = MakeCase();
  const PackedProblem packed = PackCase(k);
  auto cpu = CreateCpuEvaluator(1);
  cpu->SetProblems({packed});
  const int stride = packed.coefficient_stride(), n = packed.n;
  const int dim = kPartCoefficients + 1;
  // D: u_j moves part coefficient j (j < 4) by its own scale, u_4 moves α.
  const double scale[dim] = {1e6, 10.0, 1.0, 1e5, 0.1};
  std::vector<double> d(static_cast<size_t>(stride) * dim, 0.0);
  for (int j = 0; j < kPartCoefficients; ++j) d[(3 * n + 1 + j) * dim + j] = scale[j];
  d[(3 * n) * dim + kPartCoefficients] = scale[kPartCoefficients];
  std::vector<double> coefficients;
  AppendPacked(k.c, &coefficients);
  std::vector<double> normal(kernels::NormalTermCount(dim));
  EvalStatus status;
  const int one = 1;
  cpu->EvaluateNormalEquations({{&one, 1}, {&dim, 1}, coefficients, d}, normal, {&status, 1});
  ASSERT_EQ(status, EvalStatus::kOk);

  const std::vector<LD> r0 = Residuals(k, k.c), w = Weights(k);
  std::vector<std::vector<LD>> jac(dim);
  for (int j = 0; j < dim; ++j) {
    const LD h = 1e-5;
    JointCoefficients plus = k.c, minus = k.c;
    if (j < kPartCoefficients) {
      plus.parts[j] += static_cast<double>(h * scale[j]);
      minus.parts[j] -= static_cast<double>(h * scale[j]);
    } else {
      plus.mass_proportional += static_cast<double>(h * scale[j]);
      minus.mass_proportional -= static_cast<double>(h * scale[j]);
    }
    const std::vector<LD> rp = Residuals(k, plus), rm = Residuals(k, minus);
    for (size_t i = 0; i < rp.size(); ++i) jac[j].push_back((rp[i] - rm[i]) / (2 * h));
  }
  for (int j = 0; j < dim; ++j) {
    LD g = 0;
    for (size_t i = 0; i < r0.size(); ++i) g += w[i] * r0[i] * jac[j][i];
    EXPECT_NEAR(normal[1 + j] / static_cast<double>(g), 1.0, 1e-7) << "gradient " << j;
    for (int m = j; m < dim; ++m) {
      LD a = 0;
      for (size_t i = 0; i < r0.size(); ++i) a += w[i] * jac[j][i] * jac[m][i];
      EXPECT_NEAR(normal[kernels::NormalTermIndex(dim, j, m)] / static_cast<double>(a), 1.0, 1e-7)
          << "A " << j << " " << m;
    }
  }
}

// Pack (cost/problem.cc) of a problem whose posture has parts: every part's matrix row-major and
// its (target, coefficient) pair in part order, the part coefficients counted into the stride,
// and M0 packed without the mass part (the kernels add it per individual).
TEST(AffineParts, PackCarriesThePostureParts) {
  const auto model = std::make_shared<Model>(
      LoadModel(std::string(FRFIT_SOURCE_DIR) + "/datasets/kuka_kr90/model.yaml"));
  const Case k = MakeCase();
  FrfSet set = Synthesize(k.posture, k.truth, MakeBand(5.0, 60.0, 2.5, "band"),
                          FrfFormat::kInertance);
  set.posture = "milling";
  Problem problem = ProblemFromSets(model, {set}, {"set"}, FitOptions{}, "");
  problem.postures[0].posture.affine_parts = k.posture.affine_parts;
  const PackedProblem packed = Pack(problem);
  const int n = packed.n;
  EXPECT_EQ(packed.parts, kPartCoefficients);
  EXPECT_EQ(packed.coefficient_stride(), 3 * n + 1 + kPartCoefficients);
  const PackedPosture& q = packed.postures[0];
  ASSERT_EQ(q.num_parts(), kParts);
  ASSERT_EQ(q.part_matrices.size(), static_cast<size_t>(kParts * n * n));
  for (int a = 0; a < kParts; ++a) {
    const AffinePart& part = k.posture.affine_parts[a];
    EXPECT_EQ(q.part_layout[2 * a], static_cast<double>(part.target)) << a;
    EXPECT_EQ(q.part_layout[2 * a + 1], part.coefficient) << a;
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) EXPECT_EQ(q.part_matrices[(a * n + r) * n + c], part.matrix(r, c));
  }
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) EXPECT_EQ(q.mass[r * n + c], k.posture.mass(r, c));
}

}  // namespace
}  // namespace frfit
