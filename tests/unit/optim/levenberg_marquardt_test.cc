// LevenbergMarquardt on small least-squares problems with known solutions, their residuals and
// Jacobians written out here (no physics): an exact linear fit, Rosenbrock's valley, a minimum
// outside the box, two minima for two starts, failed evaluations, and checkpoints.
#include "frfit/optim/levenberg_marquardt.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <cmath>
#include <functional>
#include <limits>

#include "frfit/common/error.h"
#include "kernels/line_normal.h"

namespace frfit {
namespace {

// A residual vector r(u) and its Jacobian (rows: residuals).
struct LeastSquares {
  std::function<Eigen::VectorXd(const Eigen::VectorXd&)> r;
  std::function<Eigen::MatrixXd(const Eigen::VectorXd&)> jacobian;
};

// What an Evaluator returns for one point: F = rᵀr, g = Jᵀr, A = JᵀJ (upper triangle).
std::vector<double> Terms(const LeastSquares& ls, std::span<const double> u) {
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(u.data(), u.size());
  const Eigen::VectorXd r = ls.r(x);
  const Eigen::MatrixXd j = ls.jacobian(x);
  const int n = static_cast<int>(u.size());
  std::vector<double> t(kernels::NormalTermCount(n));
  t[0] = r.squaredNorm();
  const Eigen::VectorXd g = j.transpose() * r;
  const Eigen::MatrixXd a = j.transpose() * j;
  for (int p = 0; p < n; ++p) {
    t[1 + p] = g(p);
    for (int q = p; q < n; ++q) t[kernels::NormalTermIndex(n, p, q)] = a(p, q);
  }
  return t;
}

// Drives `lm` to the end; returns the rounds it took.
int Drive(LevenbergMarquardt* lm, const LeastSquares& ls, int max_rounds = 1000) {
  int rounds = 0;
  while (!lm->Done() && rounds < max_rounds) {
    const std::vector<double> points = lm->Ask();
    std::vector<double> normal;
    for (size_t at = 0; at < points.size(); at += lm->dim()) {
      const std::vector<double> t = Terms(ls, std::span(points).subspan(at, lm->dim()));
      normal.insert(normal.end(), t.begin(), t.end());
    }
    lm->Tell(normal);
    ++rounds;
  }
  return rounds;
}

TEST(LevenbergMarquardt, SolvesALinearFitToItsLeastSquaresSolution) {
  // r = Mu − b with the minimiser inside the box; compare with Eigen's QR solution.
  Eigen::MatrixXd m(5, 3);
  m << 1, 2, 0, 0, 1, 3, 2, 0, 1, 1, 1, 1, 0.5, -1, 2;
  const Eigen::VectorXd target(Eigen::Vector3d(0.3, 0.6, 0.45));
  Eigen::VectorXd b = m * target;
  b(0) += 0.01;
  b(3) -= 0.02;  // not an exact fit
  const LeastSquares ls{[&](const Eigen::VectorXd& u) -> Eigen::VectorXd { return m * u - b; },
                        [&](const Eigen::VectorXd&) -> Eigen::MatrixXd { return m; }};
  const Eigen::VectorXd expected = m.colPivHouseholderQr().solve(b);
  LevenbergMarquardt lm({}, 3, std::vector<double>{0.9, 0.1, 0.9});
  const int rounds = Drive(&lm, ls);
  EXPECT_LT(rounds, 20);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(lm.best_u()[i], expected(i), 1e-10);
  EXPECT_NEAR(lm.best_cost(), (m * expected - b).squaredNorm(), 1e-14);
  EXPECT_NE(lm.starts()[0].termination, LmTermination::kMaxIterations);
  EXPECT_NE(lm.starts()[0].termination, LmTermination::kNoProgress);
}

TEST(LevenbergMarquardt, FollowsRosenbrocksValleyToItsMinimum) {
  // x = 4u − 2: r = (10(y − x²), 1 − x), minimum (1, 1) at u = (0.75, 0.75), F = 0.
  const LeastSquares ls{[](const Eigen::VectorXd& u) -> Eigen::VectorXd {
                          const double x = 4 * u(0) - 2, y = 4 * u(1) - 2;
                          return Eigen::Vector2d(10 * (y - x * x), 1 - x);
                        },
                        [](const Eigen::VectorXd& u) -> Eigen::MatrixXd {
                          const double x = 4 * u(0) - 2;
                          Eigen::Matrix2d j;
                          j << -20 * x * 4, 10 * 4, -4, 0;
                          return j;
                        }};
  LevenbergMarquardt lm({}, 2, std::vector<double>{0.2, 0.9});  // x = −1.2, y = 1.6
  Drive(&lm, ls);
  EXPECT_NEAR(lm.best_u()[0], 0.75, 1e-9);
  EXPECT_NEAR(lm.best_u()[1], 0.75, 1e-9);
  EXPECT_LT(lm.best_cost(), 1e-20);
  EXPECT_LT(lm.evaluations(), 100);
}

TEST(LevenbergMarquardt, StopsOnTheBoundWhenTheMinimumLiesOutside) {
  // r = (u0 − 1.5, u1 − 0.4): u0 is held at 1, u1 reaches 0.4.
  const LeastSquares ls{
      [](const Eigen::VectorXd& u) -> Eigen::VectorXd {
        return Eigen::Vector2d(u(0) - 1.5, u(1) - 0.4);
      },
      [](const Eigen::VectorXd&) -> Eigen::MatrixXd { return Eigen::Matrix2d::Identity(); }};
  LevenbergMarquardt lm({}, 2, std::vector<double>{0.5, 0.9});
  Drive(&lm, ls);
  EXPECT_EQ(lm.best_u()[0], 1.0);
  EXPECT_NEAR(lm.best_u()[1], 0.4, 1e-10);
  EXPECT_NEAR(lm.best_cost(), 0.25, 1e-12);
  EXPECT_NE(lm.starts()[0].termination, LmTermination::kMaxIterations);
  EXPECT_NE(lm.starts()[0].termination, LmTermination::kNoProgress);
}

TEST(LevenbergMarquardt, StartsRunInLockStepAndReportWhetherTheyAgree) {
  // r = ((u − 0.2)(u − 0.8), 0.05(u − 0.8)): the global minimum is u = 0.8 (F = 0), a local one
  // lies near 0.2. Starts at 0.05 and 0.95 find one each; two starts near 0.9 agree.
  const LeastSquares ls{[](const Eigen::VectorXd& u) -> Eigen::VectorXd {
                          return Eigen::Vector2d((u(0) - 0.2) * (u(0) - 0.8), 0.05 * (u(0) - 0.8));
                        },
                        [](const Eigen::VectorXd& u) -> Eigen::MatrixXd {
                          return Eigen::Vector2d(2 * u(0) - 1.0, 0.05);
                        }};
  LevenbergMarquardt split({}, 1, std::vector<double>{0.05, 0.95});
  EXPECT_EQ(split.batch_size(), 2);
  Drive(&split, ls);
  EXPECT_EQ(split.best_start(), 1);
  EXPECT_NEAR(split.best_u()[0], 0.8, 1e-10);
  EXPECT_GT(split.starts()[0].cost, 1e-6);
  EXPECT_NEAR(split.starts()[0].u[0], 0.2, 0.05);
  EXPECT_EQ(split.agreeing_starts(), 1);

  LevenbergMarquardt together({}, 1, std::vector<double>{0.9, 0.95});
  Drive(&together, ls);
  EXPECT_EQ(together.agreeing_starts(), 2);
}

// Rosenbrock's valley with a residual no point removes (F = 0.01 at its minimum, so no start is
// an exact fit): a start next to the minimum converges first; one far up the valley then agrees
// with it in cost and stops ("agreed") instead of crawling on. The best start's run is the one it
// makes alone, bit for bit (starts never see each other's points); the start in the split case
// above, at another minimum, does not agree and is not stopped.
TEST(LevenbergMarquardt, AStartThatAgreesWithTheConvergedBestStops) {
  const LeastSquares ls{[](const Eigen::VectorXd& u) -> Eigen::VectorXd {
                          const double x = 4 * u(0) - 2, y = 4 * u(1) - 2;
                          return Eigen::Vector3d(10 * (y - x * x), 1 - x, 0.1);
                        },
                        [](const Eigen::VectorXd& u) -> Eigen::MatrixXd {
                          const double x = 4 * u(0) - 2;
                          Eigen::Matrix<double, 3, 2> j;
                          j << -20 * x * 4, 10 * 4, -4, 0, 0, 0;
                          return j;
                        }};
  const std::vector<double> near = {0.76, 0.77}, far = {0.2, 0.9};
  LevenbergMarquardt alone_near({}, 2, near), alone_far({}, 2, far);
  Drive(&alone_near, ls);
  Drive(&alone_far, ls);
  std::vector<double> both = near;
  both.insert(both.end(), far.begin(), far.end());
  LevenbergMarquardt lm({}, 2, both);
  Drive(&lm, ls);
  ASSERT_EQ(lm.best_start(), 0);
  EXPECT_TRUE(IsConverged(lm.starts()[0].termination));
  EXPECT_EQ(lm.starts()[1].termination, LmTermination::kAgreed);
  EXPECT_LT(lm.starts()[1].iterations, alone_far.starts()[0].iterations);
  EXPECT_EQ(lm.agreeing_starts(), 2);
  EXPECT_EQ(lm.best_u(), alone_near.best_u());
  EXPECT_EQ(lm.best_cost(), alone_near.best_cost());
  EXPECT_NEAR(lm.best_cost(), 0.01, 1e-12);

  const LeastSquares two_minima{[](const Eigen::VectorXd& u) -> Eigen::VectorXd {
                                  return Eigen::Vector3d((u(0) - 0.2) * (u(0) - 0.8),
                                                         0.05 * (u(0) - 0.8), 0.01);
                                },
                                [](const Eigen::VectorXd& u) -> Eigen::MatrixXd {
                                  return Eigen::Vector3d(2 * u(0) - 1.0, 0.05, 0.0);
                                }};
  LevenbergMarquardt split({}, 1, std::vector<double>{0.05, 0.95});
  Drive(&split, two_minima);
  EXPECT_TRUE(IsConverged(split.starts()[0].termination)) << ToString(split.starts()[0].termination);
  EXPECT_EQ(split.agreeing_starts(), 1);
}

TEST(LevenbergMarquardt, RejectsATrialThatCannotBeEvaluatedAndGoesOn) {
  // r = u − 0.3 with a Jacobian that says 0.25: the Gauss–Newton step from 0 overshoots to 1,
  // where (as everywhere above 0.5) the evaluation fails (+inf); damped steps then get there.
  int failed = 0;
  const LeastSquares ls{[&](const Eigen::VectorXd& u) -> Eigen::VectorXd {
                          if (u(0) > 0.5) {
                            ++failed;
                            return Eigen::VectorXd::Constant(
                                1, std::numeric_limits<double>::infinity());
                          }
                          return Eigen::VectorXd::Constant(1, u(0) - 0.3);
                        },
                        [](const Eigen::VectorXd&) -> Eigen::MatrixXd {
                          return Eigen::MatrixXd::Constant(1, 1, 0.25);
                        }};
  LevenbergMarquardt lm({}, 1, std::vector<double>{0.0});
  Drive(&lm, ls);
  EXPECT_GE(failed, 1);
  EXPECT_NEAR(lm.best_u()[0], 0.3, 1e-9);
  // A start that cannot be evaluated at all ends at once, and the others go on.
  LevenbergMarquardt two({}, 1, std::vector<double>{0.9, 0.0});
  Drive(&two, ls);
  EXPECT_EQ(two.starts()[0].termination, LmTermination::kNoProgress);
  EXPECT_EQ(two.best_start(), 1);
  EXPECT_NEAR(two.best_u()[0], 0.3, 1e-9);
}

TEST(LevenbergMarquardt, ResumesFromItsSavedStateBitForBit) {
  const LeastSquares ls{[](const Eigen::VectorXd& u) -> Eigen::VectorXd {
                          const double x = 4 * u(0) - 2, y = 4 * u(1) - 2;
                          return Eigen::Vector2d(10 * (y - x * x), 1 - x);
                        },
                        [](const Eigen::VectorXd& u) -> Eigen::MatrixXd {
                          const double x = 4 * u(0) - 2;
                          Eigen::Matrix2d j;
                          j << -20 * x * 4, 10 * 4, -4, 0;
                          return j;
                        }};
  const std::vector<double> starts = {0.2, 0.9, 0.6, 0.1, 0.95, 0.95};
  LevenbergMarquardt whole({}, 2, starts);
  Drive(&whole, ls);
  LevenbergMarquardt first({}, 2, starts);
  Drive(&first, ls, 7);
  ASSERT_FALSE(first.Done());
  LevenbergMarquardt resumed(nlohmann::json::parse(first.SaveState().dump()));
  EXPECT_EQ(resumed.Ask(), first.Ask());
  Drive(&resumed, ls);
  EXPECT_EQ(resumed.SaveState(), whole.SaveState());
  EXPECT_EQ(resumed.best_u(), whole.best_u());
}

TEST(LevenbergMarquardt, InvalidOptionsAndStartsAreRefusedByName) {
  LevenbergMarquardtOptions bad;
  bad.tol_step = -1;
  std::string error;
  EXPECT_FALSE(bad.IsValid(&error));
  EXPECT_NE(error.find("tol_step"), std::string::npos);
  EXPECT_THROW(LevenbergMarquardt({}, 2, std::vector<double>{0.5}), Error);
  EXPECT_THROW(LevenbergMarquardt({}, 1, std::vector<double>{1.5}), Error);
  LevenbergMarquardt lm({}, 1, std::vector<double>{0.5});
  EXPECT_THROW(lm.Tell(std::vector<double>{1.0}), Error);  // 3 terms expected
}

// A noisy exponential decay y = a·e^(−b t) weighted as a χ²/2 cost (r = residual / (σ√2)): with
// sigma_step 0.05 the run stops where the Gauss–Newton step left is below 0.05 of each 1σ, which
// puts it within about that of the minimum. The minimum and its 1σ ((2JᵀJ)⁻¹) are computed here by
// plain Gauss–Newton iterations to convergence.
TEST(LevenbergMarquardt, SigmaStepStopsWithinAFractionOfOneSigmaOfTheMinimum) {
  const int lines = 40;
  const double noise = 0.01;
  Eigen::VectorXd t(lines), y(lines);
  for (int i = 0; i < lines; ++i) {
    t(i) = 0.25 * i;
    y(i) = 2.0 * std::exp(-0.7 * t(i)) + noise * std::sin(12.9898 * i + 78.233);
  }
  const double w = 1.0 / (noise * std::sqrt(2.0));  // F = χ²/2
  // u0 → a = 4 u0, u1 → b = 2 u1.
  const LeastSquares ls{[&](const Eigen::VectorXd& u) -> Eigen::VectorXd {
                          Eigen::VectorXd r(lines);
                          for (int i = 0; i < lines; ++i)
                            r(i) = w * (4 * u(0) * std::exp(-2 * u(1) * t(i)) - y(i));
                          return r;
                        },
                        [&](const Eigen::VectorXd& u) -> Eigen::MatrixXd {
                          Eigen::MatrixXd j(lines, 2);
                          for (int i = 0; i < lines; ++i) {
                            const double e = std::exp(-2 * u(1) * t(i));
                            j(i, 0) = w * 4 * e;
                            j(i, 1) = w * 4 * u(0) * e * (-2 * t(i));
                          }
                          return j;
                        }};
  Eigen::VectorXd minimum(Eigen::Vector2d(0.5, 0.35));
  for (int k = 0; k < 100; ++k) {
    const Eigen::MatrixXd j = ls.jacobian(minimum);
    minimum -= (j.transpose() * j).ldlt().solve(j.transpose() * ls.r(minimum));
  }
  const Eigen::MatrixXd j = ls.jacobian(minimum);
  const Eigen::MatrixXd information = 2.0 * j.transpose() * j;
  const Eigen::MatrixXd covariance = information.ldlt().solve(Eigen::MatrixXd::Identity(2, 2));
  const std::vector<double> start{0.9, 0.05};

  LevenbergMarquardtOptions options;
  options.sigma_step = 0.05;
  LevenbergMarquardt short_run(options, 2, start);
  Drive(&short_run, ls);
  LevenbergMarquardt full_run({}, 2, start);
  Drive(&full_run, ls);
  EXPECT_EQ(short_run.starts()[0].termination, LmTermination::kSigmaStep);
  EXPECT_TRUE(IsConverged(LmTermination::kSigmaStep));
  EXPECT_NE(full_run.starts()[0].termination, LmTermination::kSigmaStep);  // off by default
  EXPECT_LT(short_run.evaluations(), full_run.evaluations());
  for (int i = 0; i < 2; ++i) {
    const double sigma = std::sqrt(covariance(i, i));
    EXPECT_LE(std::abs(short_run.best_u()[i] - minimum(i)), 0.05 * sigma) << i;
    EXPECT_NEAR(full_run.best_u()[i], minimum(i), 1e-6 * sigma) << i;
    // Not trivially there: the run stopped before the last polishing steps.
    EXPECT_GT(std::abs(short_run.best_u()[i] - minimum(i)), 1e-9 * sigma) << i;
  }
  // The option is saved with a checkpoint and read back.
  LevenbergMarquardt resumed(short_run.SaveState());
  EXPECT_EQ(resumed.options().sigma_step, 0.05);
  options.sigma_step = -1;
  std::string error;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("sigma_step"), std::string::npos);
}

}  // namespace
}  // namespace frfit
