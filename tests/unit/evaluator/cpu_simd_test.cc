// Every vector width of the cpu backend gives the bits of the one-line code (docs/cpu-backend.md,
// DESIGN.md §3). The reference is kernels::LineCost / LineNormalTerms on doubles, compiled here in
// this file — the function the cuda backend runs — and each variant of src/evaluator/
// cpu_line_kernels.cc that this processor can run ("scalar" and "sse2" always, "avx2", "avx2x8"
// and "avx512" where the processor has them) must match it with ==, line by line and status by
// status: random systems of every size from 1 to 32, every cost kind, phase mode and fitted
// format, unweighted entries that differ between the lines of one vector, pivots that differ
// between them, ties, singular and NaN systems in some slots only. Then the evaluator: every
// variant, thread count and split of lines over threads gives the same costs and normal
// equations, on random batches and on the bundled datasets.
#include <gtest/gtest.h>

// Vectors of 4 and 8 doubles are used here in code compiled for the baseline x86-64; GCC warns
// that passing them by value would change the ABI of functions it inlines anyway.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "benchmarks/random_batch.h"
#include "frfit/common/error.h"
#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/model/model_yaml.h"
#include "kernels/det_math.h"
#include "kernels/line_cost.h"
#include "kernels/line_normal.h"
#include "kernels/simd.h"
#include "src/evaluator/cpu/cpu_line_kernels.h"

namespace frfit {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Equal bits, or both NaN: a NaN's payload may depend on the order of an addition's operands,
// which the compiler may swap; NaN line costs never reach an individual's cost (it becomes +inf).
bool Same(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) ||
         (std::isnan(a) && std::isnan(b));
}

std::vector<std::string> Variants() {
  std::vector<std::string> names;
  for (const cpu::LineKernels& k : cpu::SupportedLineKernels()) names.push_back(k.name);
  return names;
}

// ---- the deterministic log and atan2, slot by slot ------------------------------------------

std::vector<double> AwkwardValues() {
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1.4142135623730951, 0.7071067811865476,
                           kInf, -kInf, kNaN, std::numeric_limits<double>::denorm_min(),
                           -std::numeric_limits<double>::denorm_min(), 2.2250738585072014e-308,
                           1e-310, 1.7976931348623157e308, -1.7976931348623157e308, 1e-300, 3e300,
                           M_PI, -M_PI, 1e-17, 1e17};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-1070, 1020);
  for (int i = 0; i < 600; ++i)
    v.push_back((rng() & 1 ? -1.0 : 1.0) * std::ldexp(mantissa(rng), i < 300 ? exponent(rng) % 40 : exponent(rng)));
  return v;
}

template <typename V>
void CheckDetMath() {
  constexpr int w = kernels::WidthOf<V>();
  const std::vector<double> values = AwkwardValues();
  std::mt19937_64 rng(w);
  int checked = 0;
  for (int round = 0; round < 3000; ++round) {
    double x[w], y[w], log[w], log_abs[w], atan2[w];
    for (int s = 0; s < w; ++s) {
      x[s] = values[rng() % values.size()];
      y[s] = values[rng() % values.size()];
    }
    const V vx = kernels::Load<V>(x), vy = kernels::Load<V>(y);
    kernels::Store(log, det::Log(vx));
    kernels::Store(log_abs, det::LogAbs(vx, vy));
    kernels::Store(atan2, det::Atan2(vy, vx));
    for (int s = 0; s < w; ++s) {
      ASSERT_TRUE(Same(log[s], det::Log(x[s]))) << w << " slots: Log(" << x[s] << ")";
      ASSERT_TRUE(Same(log_abs[s], det::LogAbs(x[s], y[s])))
          << w << " slots: LogAbs(" << x[s] << ", " << y[s] << ")";
      ASSERT_TRUE(Same(atan2[s], det::Atan2(y[s], x[s])))
          << w << " slots: Atan2(" << y[s] << ", " << x[s] << ")";
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3000 * w);
}

TEST(CpuSimdDetMath, EverySlotRoundsAsTheScalarFunction) {
  CheckDetMath<kernels::SimdReal<2>>();
  CheckDetMath<kernels::SimdReal<4>>();
  CheckDetMath<kernels::SimdReal<8>>();
  CheckDetMath<kernels::SimdPair<4>>();
}

// The vector primitives det_math.h and the pivot search lean on, slot by slot against the scalar
// operation: int64 → double (done without a conversion instruction on AVX2, so its range is the
// point: every exponent a double can have and beyond, both signs, up to 2^51 − 1), and Any with
// one set slot in each position (an or-reduction that dropped a slot would miss it).
template <int W>
void CheckSimdPrimitives() {
  using T = kernels::SimdTraits<W>;
  std::vector<long long> ints;
  for (long long i = -2200; i <= 2200; ++i) ints.push_back(i);
  for (int b = 12; b <= 50; ++b)
    for (long long i : {1LL << b, (1LL << b) - 1, (1LL << b) + 1})
      for (long long s : {1LL, -1LL}) ints.push_back(s * i);
  ints.push_back((1LL << 51) - 1);
  ints.push_back(-((1LL << 51) - 1));
  for (std::size_t at = 0; at < ints.size(); at += W) {
    typename T::Int v;
    for (int s = 0; s < W; ++s) v[s] = ints[(at + s) % ints.size()];
    const typename T::Real d = T::ToDouble(v);
    for (int s = 0; s < W; ++s)
      ASSERT_TRUE(Same(d[s], static_cast<double>(v[s]))) << W << " slots: ToDouble(" << v[s] << ")";
  }
  // ClearSign (the pivot size's |x|) is fabs in every slot, signed zeros, NaN and infinities
  // included.
  const double specials[] = {0.0, -0.0, 1.5, -1.5, 5e-324, -5e-324, kInf, -kInf, kNaN, -kNaN};
  for (std::size_t at = 0; at < std::size(specials); ++at) {
    typename T::Real v;
    for (int s = 0; s < W; ++s) v[s] = specials[(at + s) % std::size(specials)];
    const typename T::Real cleared = kernels::ClearSign(v);
    for (int s = 0; s < W; ++s)
      ASSERT_EQ(std::bit_cast<std::uint64_t>(cleared[s]),
                std::bit_cast<std::uint64_t>(std::fabs(v[s])))
          << W << " slots: ClearSign(" << v[s] << ")";
  }
  EXPECT_FALSE(T::Any(T::SplatInt(0))) << W << " slots";
  for (int set = 0; set < W; ++set) {
    typename T::Mask m = T::SplatInt(0);
    m[set] = -1;
    EXPECT_TRUE(T::Any(m)) << W << " slots, slot " << set << " set";
  }
}

TEST(CpuSimdDetMath, VectorConversionsAndReductionsMatchTheScalarOnes) {
  CheckSimdPrimitives<2>();
  CheckSimdPrimitives<4>();
  CheckSimdPrimitives<8>();
}

// On host vectors the pivot size |re| + |im| clears the sign bits (kernels/complex.h), where a
// double takes x < 0 ? −x : x, which keeps −0. Sizes are only compared, with each other and with
// 0 and the largest double, so every comparison must come out the same for both, for every pair
// of candidates built from signed zeros, subnormals, infinities and NaN: the same pivot rows and
// the same singular systems on every variant.
TEST(CpuSimdDetMath, VectorPivotSizesCompareAsTheScalarOnes) {
  using V = kernels::SimdReal<4>;
  const double parts[] = {0.0, -0.0, 1.5, -1.5, 5e-324, -5e-324, kInf, -kInf, kNaN, 3.0};
  std::vector<std::pair<double, double>> sizes;  // (vector slot, double) for every candidate
  for (double re : parts)
    for (double im : parts) {
      const V size =
          kernels::Magnitude1(kernels::ComplexOf<V>{kernels::Splat<V>(re), kernels::Splat<V>(im)});
      sizes.emplace_back(size[2], kernels::Magnitude1(kernels::Cplx{re, im}));
    }
  for (const auto& [a, a_scalar] : sizes) {
    EXPECT_EQ(a <= 0.0, a_scalar <= 0.0);
    EXPECT_EQ(a >= det::kMaxFinite, a_scalar >= det::kMaxFinite);
    EXPECT_EQ(a != a, a_scalar != a_scalar);
    EXPECT_EQ(a > -1.0, a_scalar > -1.0);
    for (const auto& [b, b_scalar] : sizes)
      ASSERT_EQ(a > b, a_scalar > b_scalar) << a << " vs " << b;
  }
}

// The scalar functions against the C library (an independent reference): within 4 ulp of the
// larger of the result and 1 (log|z| near |z| = 1 is small, and the libraries' absolute errors
// there are ~1e-16), and the special values of their contracts.
TEST(CpuSimdDetMath, ScalarFunctionsAgreeWithTheCLibrary) {
  auto close = [](double got, double want) {
    return std::abs(got - want) <= 4.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(want));
  };
  int checked = 0;
  for (double x : AwkwardValues()) {
    if (!std::isfinite(x)) continue;
    const double ax = std::abs(x);
    if (ax > 0.0) EXPECT_PRED2(close, det::Log(ax), std::log(ax)) << "log " << ax;
    for (double y : {1.0, -3.5, 1e-200, -7e200, 0.0, -0.0}) {
      if (x != 0.0 || y != 0.0) EXPECT_PRED2(close, det::LogAbs(x, y), std::log(std::hypot(x, y))) << x << ", " << y;
      // Documented difference: the principal range is (−π, π], so atan2(−0, x < 0) is π.
      const double want = y == 0.0 && x < 0.0 ? M_PI : std::atan2(y, x);
      if (x != 0.0 || y != 0.0) EXPECT_PRED2(close, det::Atan2(y, x), want) << "atan2(" << y << ", " << x << ")";
      ++checked;
    }
  }
  EXPECT_GT(checked, 3000);
  EXPECT_EQ(det::Log(0.0), -kInf);
  EXPECT_TRUE(std::isnan(det::Log(-1.0)));
  EXPECT_EQ(det::Log(kInf), kInf);
  EXPECT_EQ(det::LogAbs(0.0, -0.0), -kInf);
  EXPECT_EQ(det::LogAbs(-kInf, 1.0), kInf);
  EXPECT_EQ(det::Atan2(0.0, -1.0), det::kPi + det::kPiLo);
  EXPECT_EQ(det::Atan2(0.0, 0.0), 0.0);
  EXPECT_TRUE(std::isnan(det::Atan2(kNaN, 1.0)));
}

// ---- the line kernels against the one-line code ---------------------------------------------

struct LineCase {
  std::string what;
  PackedProblem problem;              // one posture
  std::vector<double> coefficients;   // individuals × (3n + 1)
};

std::vector<double> RandomCoefficients(std::mt19937_64& rng, int n, int individuals,
                                       double stiffness_min) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> c;
  for (int i = 0; i < individuals; ++i) {
    for (int j = 0; j < n; ++j) c.push_back(stiffness_min * std::pow(10.0, 3.0 * u(rng)));
    for (int j = 0; j < n; ++j) c.push_back(std::pow(10.0, 4.0 * u(rng)));
    for (int j = 0; j < n; ++j) c.push_back(u(rng) < 0.5 ? 0.0 : 0.02 * c[c.size() - 2 * n]);
    c.push_back(i % 2 ? 1e-4 : 0.0);
  }
  return c;
}

// Entries unweighted at random, so the slots of one vector skip different entries.
void ZeroSomeWeights(std::mt19937_64& rng, PackedPosture* posture) {
  for (double& w : posture->weight)
    if (rng() % 4 == 0) w = 0.0;
}

std::vector<LineCase> LineCases() {
  std::mt19937_64 rng(20261123);
  std::vector<LineCase> cases;
  for (int n = 1; n <= kernels::kMaxDofs; ++n)
    for (int variant = 0; variant < (n <= 12 || n % 5 == 0 ? 6 : 1); ++variant) {
      LineCase c;
      c.problem = bench::RandomProblem(rng, n, 1);
      c.problem.cost_kind = variant % 3;
      c.problem.phase_mode = variant / 3;
      c.problem.loss = (n + variant) % 3;  // none, Huber, Cauchy (kernels::LossKind)
      c.problem.loss_scale = c.problem.loss ? 0.7 : 0.0;
      PackedPosture& posture = c.problem.postures[0];
      posture.fit_order = (n + variant) % 3;
      if (c.problem.cost_kind == kernels::kCostNormalizedComplex)
        for (double& t : posture.target) t = 1e-6 * t;
      ZeroSomeWeights(rng, &posture);
      c.coefficients = RandomCoefficients(rng, n, 3, 1e5);
      c.what = "random n = " + std::to_string(n) + " loss " + std::to_string(c.problem.loss) +
               " cost " + std::to_string(c.problem.cost_kind) +
               " phase " + std::to_string(c.problem.phase_mode) + " order " +
               std::to_string(posture.fit_order);
      cases.push_back(std::move(c));
    }
  // Entries unweighted on every line, 1 to 8 of the nine left: a vector then scores fewer than
  // nine entries (its stages run over 3, 6 or 9 of them, padded with the first weighted one).
  for (int weighted = 1; weighted <= 8; ++weighted)
    for (int cost_kind = 0; cost_kind < 3; ++cost_kind) {
      LineCase c;
      const int n = 3 + weighted % 7;
      c.problem = bench::RandomProblem(rng, n, 1);
      c.problem.cost_kind = cost_kind;
      PackedPosture& posture = c.problem.postures[0];
      if (cost_kind == kernels::kCostNormalizedComplex)
        for (double& t : posture.target) t = 1e-6 * t;
      std::vector<int> entries = {0, 1, 2, 3, 4, 5, 6, 7, 8};
      std::shuffle(entries.begin(), entries.end(), rng);
      for (int l = 0; l < posture.num_lines(); ++l)
        for (int k = weighted; k < 9; ++k) posture.weight[9 * l + entries[k]] = 0.0;
      c.coefficients = RandomCoefficients(rng, n, 2, 1e5);
      c.what = std::to_string(weighted) + " entries weighted, n = " + std::to_string(n) +
               ", cost " + std::to_string(cost_kind);
      cases.push_back(std::move(c));
    }
  // Pivots that change along the band: the mass pairs coordinates r and n−1−r, so as ω grows
  // −ω²M outgrows the stiffness on the diagonal and the pivot leaves it, at a different line for
  // each row; the lines of one vector then pivot on different rows.
  for (int n : {2, 5, 8, 13}) {
    LineCase c;
    c.problem = bench::RandomProblem(rng, n, 1);
    PackedPosture& posture = c.problem.postures[0];
    for (int r = 0; r < n; ++r)
      for (int col = 0; col < n; ++col) {
        posture.mass[r * n + col] = (r + col == n - 1 ? 1.0 + 0.1 * r : 0.0) + (r == col ? 0.01 : 0.0);
        posture.gravity[r * n + col] = 0.0;
      }
    c.coefficients = RandomCoefficients(rng, n, 2, 1e3);
    c.what = "pivots change along the band, n = " + std::to_string(n);
    cases.push_back(std::move(c));
  }
  // Fitted body masses: M0 and K_gravity assembled from their rest and per-kg shares, and the
  // masses' derivative terms (kernels::MassTerm), on every variant.
  for (int n : {2, 7, 9, 18}) {
    LineCase c;
    c.problem = bench::RandomProblem(rng, n, 1);
    c.problem.cost_kind = n % 3;
    bench::AddRandomMasses(rng, n == 9 ? 3 : 1, &c.problem);
    ZeroSomeWeights(rng, &c.problem.postures[0]);
    const std::vector<double> joints = RandomCoefficients(rng, n, 3, 1e5);
    for (int i = 0; i < 3; ++i) {
      c.coefficients.insert(c.coefficients.end(), joints.begin() + i * (3 * n + 1),
                            joints.begin() + (i + 1) * (3 * n + 1));
      for (int b = 0; b < c.problem.masses; ++b) c.coefficients.push_back(20.0 + 40.0 * (b + i));
    }
    c.what = "fitted masses, n = " + std::to_string(n);
    cases.push_back(std::move(c));
  }
  // Ties: mass and coefficients zero, so Z is the gravity matrix, whose column 0 is ±1000 in
  // every row: the pivot search sees equal candidates and must take row 0.
  {
    LineCase c;
    c.problem = bench::RandomProblem(rng, 8, 1);
    PackedPosture& posture = c.problem.postures[0];
    std::fill(posture.mass.begin(), posture.mass.end(), 0.0);
    for (int r = 0; r < 8; ++r) posture.gravity[r * 8] = r % 3 ? -1e3 : 1e3;
    c.coefficients.assign(2 * 25, 0.0);
    c.what = "tied pivots";
    cases.push_back(std::move(c));
  }
  // Singular and non-finite lines in some slots only: NaN and infinite ω on single lines (the
  // system is singular there), a NaN target on a weighted entry (a non-finite cost) and on an
  // unweighted one (no effect: 0·NaN must not be added), a NaN below
  // the diagonal of column 0 (never the pivot, spread by the elimination), an exactly singular
  // system at one line (no stiffness, no damping, ω = 0), and a NaN stiffness (every line).
  {
    LineCase c;
    c.problem = bench::RandomProblem(rng, 6, 1);
    PackedPosture& posture = c.problem.postures[0];
    posture.omega_rad_s[3] = kNaN;
    posture.omega_rad_s[9] = kInf;
    posture.weight[9 * 17 + 2] = 3.0;
    posture.target[18 * 17 + 4] = kNaN;
    posture.weight[9 * 21 + 5] = 0.0;  // a NaN target on an unweighted entry: not a term at all,
    posture.target[18 * 21 + 10] = kNaN;  // while the same entry of the other slots is weighted
    c.coefficients = RandomCoefficients(rng, 6, 2, 1e5);
    c.coefficients[19 + 2] = kNaN;  // second individual: k_3 NaN
    c.what = "NaN and infinite lines";
    cases.push_back(std::move(c));
  }
  {
    LineCase c;
    c.problem = bench::RandomProblem(rng, 5, 1);
    c.problem.postures[0].gravity[2 * 5] = kNaN;
    c.coefficients = RandomCoefficients(rng, 5, 1, 1e5);
    c.what = "NaN below the diagonal";
    cases.push_back(std::move(c));
  }
  {
    LineCase c;
    c.problem = bench::RandomProblem(rng, 1, 1);
    PackedPosture& posture = c.problem.postures[0];
    posture.gravity = {0.0};
    posture.omega_rad_s[6] = 0.0;
    c.coefficients = {0.0, 0.0, 0.0, 0.0};
    c.what = "exactly singular at one line";
    cases.push_back(std::move(c));
  }
  // Fewer lines than one vector, and a last vector one line short.
  for (int lines : {1, 3, 7}) {
    LineCase c;
    c.problem = bench::RandomProblem(rng, 4, 1);
    PackedPosture& posture = c.problem.postures[0];
    posture.omega_rad_s.resize(lines);
    posture.weight.resize(9 * lines);
    posture.target.resize(18 * lines);
    c.coefficients = RandomCoefficients(rng, 4, 1, 1e5);
    c.what = std::to_string(lines) + " lines";
    cases.push_back(std::move(c));
  }
  return cases;
}

kernels::PostureArrays Arrays(const PackedProblem& p) {
  const PackedPosture& q = p.postures[0];
  return {p.n,     q.mass.data(),       q.gravity.data(),      q.basis.data(),
          nullptr, p.masses,            q.mass_parts.data(),   q.gravity_parts.data()};
}

kernels::LineTarget Target(const PackedProblem& p, int l) {
  const PackedPosture& q = p.postures[0];
  return {q.omega_rad_s[l], q.weight.data() + 9 * l, q.target.data() + 18 * l, p.loss,
          p.loss_scale};
}

TEST(CpuSimdLines, EveryVariantGivesTheOneLineBitsAndStatus) {
  const std::vector<LineCase> cases = LineCases();
  int singular = 0, non_finite = 0, lines_checked = 0;
  for (const std::string& name : Variants()) {
    const cpu::LineKernels kernels = cpu::FindLineKernels(name);
    for (const LineCase& c : cases) {
      const PackedPosture& posture = c.problem.postures[0];
      const cpu::LineBlocks blocks = cpu::MakeLineBlocks(posture, kernels.width);
      const int stride = c.problem.coefficient_stride();
      for (size_t i = 0; i * stride < c.coefficients.size(); ++i) {
        const double* coefficients = c.coefficients.data() + i * stride;
        for (int b = 0; b < blocks.blocks; ++b) {
          std::vector<double> got(blocks.blocks * blocks.width, -1.0);
          unsigned got_status = 0;
          kernels.cost({Arrays(c.problem), coefficients, &blocks, b, b + 1, posture.fit_order,
                        c.problem.cost_kind, c.problem.phase_mode, c.problem.loss,
                        c.problem.loss_scale},
                       got.data(), &got_status);
          unsigned want_status = 0;
          for (int l = b * blocks.width; l < std::min(blocks.lines, (b + 1) * blocks.width); ++l) {
            unsigned line_status = 0;
            const double want = kernels::LineCost(Arrays(c.problem), coefficients,
                                                  Target(c.problem, l), posture.fit_order,
                                                  c.problem.cost_kind, c.problem.phase_mode,
                                                  &line_status);
            want_status |= line_status;
            singular += (line_status & kernels::kLineSingular) != 0;
            non_finite += (line_status & kernels::kLineNonFinite) != 0;
            ++lines_checked;
            ASSERT_TRUE(Same(got[l], want)) << name << ", " << c.what << ", individual " << i
                                            << ", line " << l << ": " << got[l] << " vs " << want;
          }
          ASSERT_EQ(got_status, want_status) << name << ", " << c.what << ", block " << b;
        }
      }
    }
  }
  // The special cases must reach both statuses, or they test less than they claim.
  EXPECT_GT(singular, 0);
  EXPECT_GT(non_finite, 0);
  EXPECT_GT(lines_checked, 0);
}

// Sensitivities D [3n + 1 + masses][dim] with zeros and, for some individuals, a moving α.
std::vector<double> RandomSensitivities(std::mt19937_64& rng, int n, int masses, int dim,
                                        bool moves_alpha) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> d(kernels::CoefficientStride(n, masses) * dim);
  for (double& v : d) v = rng() % 3 == 0 ? 0.0 : u(rng) * 1e3;
  for (int j = 0; j < dim; ++j) d[3 * n * dim + j] = moves_alpha && j % 2 ? 1e-5 * u(rng) : 0.0;
  return d;
}

TEST(CpuSimdLines, EveryVariantGivesTheOneLineNormalTerms) {
  const std::vector<LineCase> cases = LineCases();
  std::mt19937_64 rng(17);
  for (const std::string& name : Variants()) {
    const cpu::LineKernels kernels = cpu::FindLineKernels(name);
    for (size_t k = 0; k < cases.size(); ++k) {
      const LineCase& c = cases[k];
      if (c.problem.n > 12 && k % 3 && c.what.rfind("random", 0) == 0) continue;  // time
      const PackedPosture& posture = c.problem.postures[0];
      const int n = c.problem.n, dim = 1 + static_cast<int>(k % 7);
      const std::vector<double> d =
          RandomSensitivities(rng, n, c.problem.masses, dim, k % 2 == 0);
      const cpu::LineBlocks blocks = cpu::MakeLineBlocks(posture, kernels.width);
      const int terms = kernels::NormalTermCount(dim);
      const long long stride = blocks.blocks * blocks.width;
      std::vector<double> got(terms * stride, -1.0);
      unsigned got_status = 0;
      kernels.normal({Arrays(c.problem), c.coefficients.data(), &blocks, 0, blocks.blocks,
                      posture.fit_order, c.problem.cost_kind, c.problem.phase_mode,
                      c.problem.loss, c.problem.loss_scale},
                     d.data(), dim, got.data(), stride, &got_status);
      unsigned want_status = 0;
      std::vector<double> want(terms);
      for (int l = 0; l < blocks.lines; ++l) {
        kernels::LineNormalTerms(Arrays(c.problem), c.coefficients.data(), d.data(), dim,
                                 Target(c.problem, l), posture.fit_order, c.problem.cost_kind,
                                 c.problem.phase_mode, want.data(), 1, &want_status);
        for (int t = 0; t < terms; ++t)
          ASSERT_TRUE(Same(got[t * stride + l], want[t]))
              << name << ", " << c.what << ", line " << l << ", term " << t << ": "
              << got[t * stride + l] << " vs " << want[t];
      }
      ASSERT_EQ(got_status, want_status) << name << ", " << c.what;
    }
  }
}

// ---- the evaluator: variants, threads and splits ---------------------------------------------

// A batch of the bench's kind with, per problem, free parameters and the points' sensitivities.
struct Batch : bench::Batch {
  std::vector<int> dims;
  std::vector<double> sensitivities;
  size_t points() const { return std::accumulate(individuals.begin(), individuals.end(), size_t{0}); }
};

// Problems of several sizes, postures and kinds; `per_problem` points each, one of them singular.
// Every second posture is a multi-point set (a response point other than the excitation's); the
// n = 9 problem fits two body masses.
Batch RandomBatch(int per_problem, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::mt19937_64 points_rng(seed + 1000);  // apart, so the other draws stay as they were
  std::mt19937_64 mass_rng(seed + 2000);
  Batch b;
  const int ns[] = {3, 9, 18, 1};
  for (int p = 0; p < 4; ++p) {
    PackedProblem problem = bench::RandomProblem(rng, ns[p], 1 + p % 3);
    problem.cost_kind = p % 3;
    problem.phase_mode = p / 2 % 2;
    for (int q = 0; q < problem.num_postures(); ++q) {
      PackedPosture& posture = problem.postures[q];
      posture.fit_order = (p + q) % 3;
      posture.posture_weight = 0.5 + q;
      if (problem.cost_kind == kernels::kCostNormalizedComplex)
        for (double& t : posture.target) t = 1e-6 * t;
      // Lines per posture not a multiple of any width.
      const int lines = 150 - 7 * q - p;
      posture.omega_rad_s.resize(lines);
      posture.weight.resize(9 * lines);
      posture.target.resize(18 * lines);
      ZeroSomeWeights(rng, &posture);
      posture.is_static = q == 2;  // scored by the linear residual whatever the problem's kind
      if (q % 2 == 1) {
        posture.response_basis.resize(posture.basis.size());
        for (double& v : posture.response_basis)
          v = std::uniform_real_distribution<double>(-1.0, 1.0)(points_rng);
      }
    }
    if (problem.n == 9) bench::AddRandomMasses(mass_rng, 2, &problem);
    const int n = problem.n, dim = 2 + p;
    for (int i = 0; i < per_problem; ++i)
      for (int q = 0; q < problem.num_postures(); ++q) {
        std::vector<double> c = RandomCoefficients(rng, n, 1, 1e5);
        if (i == 1 && q == 0) c[0] = kNaN;
        for (int m = 0; m < problem.masses; ++m) c.push_back(30.0 + 10.0 * (i + m));
        b.coefficients.insert(b.coefficients.end(), c.begin(), c.end());
        const std::vector<double> d =
            RandomSensitivities(rng, n, problem.masses, dim, i % 2 == 0);
        b.sensitivities.insert(b.sensitivities.end(), d.begin(), d.end());
      }
    b.problems.push_back(std::move(problem));
    b.individuals.push_back(per_problem);
    b.dims.push_back(dim);
  }
  return b;
}

struct Outcome {
  std::vector<double> costs;
  std::vector<EvalStatus> status;
  std::vector<double> normal;
  std::vector<EvalStatus> normal_status;
};

Outcome RunBatch(const Batch& b, int threads, const std::string& simd) {
  auto evaluator = CreateCpuEvaluator(threads, simd);
  evaluator->SetProblems(b.problems);
  Outcome o;
  o.costs.assign(b.points(), -1.0);
  o.status.assign(b.points(), EvalStatus::kOk);
  evaluator->Evaluate(b.individuals, b.coefficients, o.costs, o.status);
  size_t terms = 0;
  for (size_t p = 0; p < b.problems.size(); ++p)
    terms += static_cast<size_t>(b.individuals[p]) * NormalTermCount(b.dims[p]);
  o.normal.assign(terms, -1.0);
  o.normal_status.assign(b.points(), EvalStatus::kOk);
  evaluator->EvaluateNormalEquations({b.individuals, b.dims, b.coefficients, b.sensitivities},
                                     o.normal, o.normal_status);
  return o;
}

void ExpectSame(const Outcome& got, const Outcome& want, const std::string& what) {
  ASSERT_EQ(got.costs.size(), want.costs.size());
  for (size_t i = 0; i < want.costs.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got.costs[i]), std::bit_cast<std::uint64_t>(want.costs[i]))
        << what << ": cost of point " << i << " " << got.costs[i] << " vs " << want.costs[i];
    EXPECT_EQ(got.status[i], want.status[i]) << what << ", point " << i;
    EXPECT_EQ(got.normal_status[i], want.normal_status[i]) << what << ", point " << i;
  }
  ASSERT_EQ(got.normal.size(), want.normal.size());
  int mismatches = 0;
  for (size_t t = 0; t < want.normal.size(); ++t)
    if (std::bit_cast<std::uint64_t>(got.normal[t]) != std::bit_cast<std::uint64_t>(want.normal[t]) &&
        ++mismatches <= 3)
      ADD_FAILURE() << what << ": normal term " << t << " " << got.normal[t] << " vs " << want.normal[t];
  EXPECT_EQ(mismatches, 0) << what;
}

// Many points (one job per point) and few (each point's lines split into chunks over threads).
TEST(CpuSimdEvaluator, VariantsThreadsAndSplitsChangeNoBit) {
  for (int per_problem : {1, 2, 24}) {
    const Batch b = RandomBatch(per_problem, 40 + per_problem);
    const Outcome want = RunBatch(b, 1, "scalar");
    int singular = 0;
    for (EvalStatus s : want.status) singular += s == EvalStatus::kSingular;
    EXPECT_EQ(singular, per_problem > 1 ? 4 : 0);
    for (const std::string& name : Variants())
      for (int threads : {1, 2, 3})
        ExpectSame(RunBatch(b, threads, name), want,
                   name + ", " + std::to_string(threads) + " threads, " +
                       std::to_string(per_problem) + " points per problem");
  }
}

// The bundled datasets as `frfit fit` packs them, every FRF file of each, at random points of
// the configured parameter space.
TEST(CpuSimdEvaluator, DatasetsGiveTheSameBitsOnEveryVariant) {
  const std::string root = std::string(FRFIT_SOURCE_DIR) + "/datasets/";
  const std::vector<std::pair<std::string, std::vector<std::string>>> datasets = {
      {"paper_3dof", {"frf_milling_inertance.h5"}},
      {"paper_3dof_law", {"frf_milling_inertance.h5", "frf_reach_inertance.h5", "frf_folded_inertance.h5"}},
      {"kuka_kr90", {"frf_milling_inertance.h5", "frf_reach_inertance.h5"}},
      {"six_axis_18dof", {"frf_milling_inertance.h5", "frf_reach_inertance.h5"}}};
  for (const auto& [name, files] : datasets) {
    const std::string dir = root + name + "/";
    const auto model = std::make_shared<const Model>(LoadModel(dir + "model.yaml"));
    const FitOptions options = LoadFitOptions(dir + "fit.yaml");
    std::vector<std::string> paths;
    for (const std::string& f : files) paths.push_back(dir + f);
    const Problem problem = LoadProblem(model, paths, options, dir + "fit.yaml");
    const ParameterMap map(*model, options.parameters, dir + "fit.yaml");
    std::mt19937_64 rng(3);
    Batch b;
    b.problems = {Pack(problem)};
    b.individuals = {3};
    b.dims = {map.dim()};
    std::vector<double> u(3 * map.dim());
    for (double& v : u) v = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    const std::vector<std::vector<double>> q = PostureCoordinates(problem);
    map.AppendCoefficients(u, q, &b.coefficients);
    map.AppendSensitivities(u, q, &b.sensitivities);
    const Outcome want = RunBatch(b, 1, "scalar");
    for (EvalStatus s : want.status) EXPECT_EQ(s, EvalStatus::kOk) << name;
    for (const std::string& variant : Variants())
      for (int threads : {1, 2}) ExpectSame(RunBatch(b, threads, variant), want, name + ", " + variant);
  }
}

TEST(CpuSimdEvaluator, UnknownOrUnsupportedVariantsAreRefused) {
  EXPECT_THROW(CreateCpuEvaluator(1, "avx3"), Error);
  try {
    CreateCpuEvaluator(1, "neon");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected one of scalar, sse2"), std::string::npos) << e.what();
  }
  auto evaluator = CreateCpuEvaluator(2, "scalar");
  EXPECT_NE(evaluator->description().find("scalar"), std::string::npos) << evaluator->description();
}

}  // namespace
}  // namespace frfit
