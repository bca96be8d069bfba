// Tests for NelderMead (fminsearch as a stepper) and BoundedNelderMead: the documented fminsearch
// result on Rosenbrock, agreement with a direct loop transcription of fminsearch.m, limits,
// bounds, and checkpoint/resume bit-identity.
#include "frfit/optim/nelder_mead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include "frfit/common/error.h"

namespace frfit {
namespace {

using Cost = std::function<double(const double*, int)>;

double Rosenbrock(const double* x, int) {
  return 100.0 * (x[1] - x[0] * x[0]) * (x[1] - x[0] * x[0]) + (1.0 - x[0]) * (1.0 - x[0]);
}

template <typename Stepper>
void StepOnce(Stepper& nm, const Cost& cost) {
  const std::vector<double>& points = nm.Ask();
  const int n = nm.dim();
  std::vector<double> costs(points.size() / n);
  for (std::size_t i = 0; i < costs.size(); ++i) costs[i] = cost(&points[i * n], n);
  nm.Tell(costs);
}

template <typename Stepper>
void RunToEnd(Stepper& nm, const Cost& cost) {
  while (!nm.Done()) StepOnce(nm, cost);
}

// fminsearch.m's main loop written the plain way (one function call at a time), as the
// obviously-correct reference for the ask/tell state machine.
struct Reference {
  std::vector<std::vector<double>> v;
  std::vector<double> fv;
  int iterations = 0;
  int evaluations = 0;
};

Reference DirectFminsearch(const Cost& f, std::vector<double> x0, int max_iter, int max_fun,
                           double tol_x, double tol_fun) {
  const int n = static_cast<int>(x0.size());
  Reference r;
  r.v.push_back(x0);
  r.fv.push_back(f(x0.data(), n));
  for (int j = 0; j < n; ++j) {
    std::vector<double> y = x0;
    y[j] = y[j] != 0.0 ? 1.05 * y[j] : 0.00025;
    r.v.push_back(y);
    r.fv.push_back(f(y.data(), n));
  }
  auto sort = [&] {
    std::vector<int> idx(n + 1);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return r.fv[a] < r.fv[b]; });
    auto v = r.v;
    auto fv = r.fv;
    for (int k = 0; k <= n; ++k) {
      r.v[k] = v[idx[k]];
      r.fv[k] = fv[idx[k]];
    }
  };
  sort();
  r.iterations = 1;
  r.evaluations = n + 1;
  auto point = [&](const std::vector<double>& xbar, double a, double b) {
    std::vector<double> x(n);
    for (int i = 0; i < n; ++i) x[i] = a * xbar[i] - b * r.v[n][i];
    return x;
  };
  while (r.evaluations < max_fun && r.iterations < max_iter) {
    double df = 0.0, dx = 0.0;
    for (int j = 1; j <= n; ++j) {
      df = std::max(df, std::fabs(r.fv[0] - r.fv[j]));
      for (int i = 0; i < n; ++i) dx = std::max(dx, std::fabs(r.v[j][i] - r.v[0][i]));
    }
    if (df <= tol_fun && dx <= tol_x) break;
    std::vector<double> xbar(n, 0.0);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) xbar[i] += r.v[j][i];
      xbar[i] /= n;
    }
    const std::vector<double> xr = point(xbar, 2.0, 1.0);
    const double fxr = f(xr.data(), n);
    ++r.evaluations;
    bool shrink = false;
    if (fxr < r.fv[0]) {
      const std::vector<double> xe = point(xbar, 3.0, 2.0);
      const double fxe = f(xe.data(), n);
      ++r.evaluations;
      if (fxe < fxr) {
        r.v[n] = xe, r.fv[n] = fxe;
      } else {
        r.v[n] = xr, r.fv[n] = fxr;
      }
    } else if (fxr < r.fv[n - 1]) {
      r.v[n] = xr, r.fv[n] = fxr;
    } else if (fxr < r.fv[n]) {
      const std::vector<double> xc = point(xbar, 1.5, 0.5);
      const double fxc = f(xc.data(), n);
      ++r.evaluations;
      if (fxc <= fxr) {
        r.v[n] = xc, r.fv[n] = fxc;
      } else {
        shrink = true;
      }
    } else {
      const std::vector<double> xcc = point(xbar, 0.5, -0.5);
      const double fxcc = f(xcc.data(), n);
      ++r.evaluations;
      if (fxcc < r.fv[n]) {
        r.v[n] = xcc, r.fv[n] = fxcc;
      } else {
        shrink = true;
      }
    }
    if (shrink) {
      for (int j = 1; j <= n; ++j) {
        for (int i = 0; i < n; ++i) r.v[j][i] = r.v[0][i] + 0.5 * (r.v[j][i] - r.v[0][i]);
        r.fv[j] = f(r.v[j].data(), n);
      }
      r.evaluations += n;
    }
    sort();
    ++r.iterations;
  }
  return r;
}

TEST(NelderMeadOptionsTest, IsValidNamesTheBadField) {
  NelderMeadOptions o;
  std::string error;
  EXPECT_TRUE(o.IsValid(&error)) << error;
  EXPECT_EQ(o.MaxEvaluationsUsed(3), 600);
  o.max_iterations = 0;
  EXPECT_FALSE(o.IsValid(&error));
  EXPECT_EQ(error.rfind("max_iterations", 0), 0u) << error;
  o = {};
  o.max_evaluations = 0;
  EXPECT_FALSE(o.IsValid(&error));
  EXPECT_EQ(error.rfind("max_evaluations", 0), 0u) << error;
  o = {};
  o.tol_x = -1.0;
  EXPECT_FALSE(o.IsValid(&error));
  EXPECT_EQ(error.rfind("tol_x", 0), 0u) << error;
  o = {};
  o.tol_fun = std::nan("");
  EXPECT_FALSE(o.IsValid(&error));
  EXPECT_EQ(error.rfind("tol_fun", 0), 0u) << error;
  const std::vector<double> x0 = {1.0};
  EXPECT_THROW(NelderMead(o, x0), Error);
  EXPECT_THROW(NelderMead(NelderMeadOptions{}, std::vector<double>{}), Error);
}

TEST(NelderMeadTest, InitialSimplexIsFminsearchs) {
  const std::vector<double> x0 = {-1.2, 0.0};
  NelderMead nm(NelderMeadOptions{}, x0);
  EXPECT_EQ(nm.step(), NelderMeadStep::kInitialSimplex);
  const std::vector<double> expected = {-1.2, 0.0, 1.05 * -1.2, 0.0, -1.2, 0.00025};
  EXPECT_EQ(nm.Ask(), expected);
}

TEST(NelderMeadTest, RosenbrockMatchesFminsearchDocumentation) {
  // Matlab's fminsearch documentation: fun = @(x)100*(x(2)-x(1)^2)^2+(1-x(1))^2,
  // x0 = [-1.2,1], x = fminsearch(fun,x0) gives x = [1.0000 1.0000]; the same page's output
  // struct reports iterations 85, funcCount 159 and fval 8.1777e-10. Matlab's default limits
  // for n = 2 are MaxIter = MaxFunEvals = 400; TolX = TolFun = 1e-4.
  NelderMeadOptions o;
  o.max_iterations = 400;
  const std::vector<double> x0 = {-1.2, 1.0};
  NelderMead nm(o, x0);
  RunToEnd(nm, Rosenbrock);
  EXPECT_EQ(nm.termination(), NelderMeadTermination::kTolerance);
  EXPECT_EQ(ToString(nm.termination()), "tol");
  EXPECT_NEAR(nm.best_x()[0], 1.0, 5e-5);
  EXPECT_NEAR(nm.best_x()[1], 1.0, 5e-5);
  EXPECT_LT(nm.best_cost(), 1e-8);
  EXPECT_EQ(nm.iterations(), 85);
  EXPECT_EQ(nm.evaluations(), 159);
  EXPECT_NEAR(nm.best_cost(), 8.1777e-10, 0.00005e-10);
}

TEST(NelderMeadTest, StepperMatchesDirectTranscription) {
  struct Case {
    Cost f;
    std::vector<double> x0;
    bool expect_shrink;
  };
  // A staircase: its plateaus make reflections and contractions fail, so shrinks and cost ties
  // (where the stable sort decides) happen often.
  const Cost staircase = [](const double* x, int) {
    return std::floor(4.0 * x[0] * x[0]) + std::floor(4.0 * x[1] * x[1]);
  };
  const Cost kinked = [](const double* x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += (i + 1) * std::fabs(x[i] - 0.3 * i) + x[i] * x[i];
    return s;
  };
  const Case cases[] = {
      {Rosenbrock, {-1.2, 1.0}, false},
      {staircase, {-1.2, 1.0}, true},
      {staircase, {1.0, 1.0}, true},
      {kinked, {0.0, 2.0, -1.0, 0.5}, false},
  };
  for (const Case& c : cases) {
    NelderMeadOptions o;
    o.tol_x = 1e-9;
    o.tol_fun = 1e-12;
    NelderMead nm(o, c.x0);
    bool saw_shrink = false;
    while (!nm.Done()) {
      saw_shrink |= nm.step() == NelderMeadStep::kShrink;
      const int b = nm.batch_size();
      EXPECT_TRUE(b == 1 || (nm.step() == NelderMeadStep::kShrink && b == nm.dim()) ||
                  (nm.step() == NelderMeadStep::kInitialSimplex && b == nm.dim() + 1));
      StepOnce(nm, c.f);
    }
    const Reference r = DirectFminsearch(c.f, c.x0, o.max_iterations,
                                         o.MaxEvaluationsUsed(nm.dim()), o.tol_x, o.tol_fun);
    EXPECT_EQ(nm.iterations(), r.iterations);
    EXPECT_EQ(nm.evaluations(), r.evaluations);
    for (int k = 0; k <= nm.dim(); ++k) {
      EXPECT_EQ(nm.values()[k], r.fv[k]);
      for (int i = 0; i < nm.dim(); ++i) EXPECT_EQ(nm.simplex()[k * nm.dim() + i], r.v[k][i]);
    }
    if (c.expect_shrink) {
      EXPECT_TRUE(saw_shrink);
    }
  }
}

TEST(NelderMeadTest, EvaluationAndIterationLimits) {
  const std::vector<double> x0 = {-1.2, 1.0};
  NelderMeadOptions o;
  o.max_evaluations = 30;
  NelderMead by_evals(o, x0);
  RunToEnd(by_evals, Rosenbrock);
  EXPECT_EQ(by_evals.termination(), NelderMeadTermination::kMaxEvaluations);
  EXPECT_GE(by_evals.evaluations(), 30);
  EXPECT_LE(by_evals.evaluations(), 30 + 2);  // the last iteration may overrun by up to n

  o = {};
  o.max_iterations = 10;
  NelderMead by_iters(o, x0);
  RunToEnd(by_iters, Rosenbrock);
  EXPECT_EQ(by_iters.termination(), NelderMeadTermination::kMaxIterations);
  EXPECT_EQ(by_iters.iterations(), 10);
  EXPECT_TRUE(by_iters.Ask().empty());
  EXPECT_THROW(by_iters.Tell(std::vector<double>{1.0}), Error);
}

TEST(NelderMeadTest, TellChecksTheNumberOfCosts) {
  const std::vector<double> x0 = {0.1, 0.2, 0.3};
  NelderMead nm(NelderMeadOptions{}, x0);
  EXPECT_THROW(nm.Tell(std::vector<double>(3, 0.0)), Error);  // needs 4
}

TEST(NelderMeadTest, CheckpointResumeIsBitIdentical) {
  const std::vector<double> x0 = {-1.2, 1.0};
  NelderMeadOptions o;
  o.tol_x = 1e-10;
  o.tol_fun = 1e-14;
  NelderMead straight(o, x0);
  RunToEnd(straight, Rosenbrock);

  // Stop at several phases, including mid-iteration (expansion/contraction pending).
  for (int stop = 1; stop < 60; stop += 7) {
    NelderMead first(o, x0);
    for (int k = 0; k < stop && !first.Done(); ++k) StepOnce(first, Rosenbrock);
    const std::string text = nlohmann::json(first.SaveState()).dump();
    NelderMead resumed(nlohmann::json::parse(text).get<NelderMeadState>());
    EXPECT_EQ(resumed.Ask(), first.Ask());
    EXPECT_EQ(resumed.step(), first.step());
    RunToEnd(resumed, Rosenbrock);
    EXPECT_EQ(resumed.termination(), straight.termination());
    EXPECT_EQ(resumed.iterations(), straight.iterations());
    EXPECT_EQ(resumed.evaluations(), straight.evaluations());
    EXPECT_EQ(resumed.simplex(), straight.simplex());
    EXPECT_EQ(resumed.values(), straight.values());
  }
}

TEST(BoundedNelderMeadTest, StaysInBoundsAndFindsOptimumOnABound) {
  // Unconstrained minimum at (1.3, 0.4, -0.2): the box optimum is (1, 0.4, 0).
  auto cost = [](const double* u, int) {
    return (u[0] - 1.3) * (u[0] - 1.3) + (u[1] - 0.4) * (u[1] - 0.4) + (u[2] + 0.2) * (u[2] + 0.2);
  };
  const std::vector<double> u0 = {0.5, 0.9, 0.95};
  NelderMeadOptions o;
  o.tol_x = 1e-8;
  o.tol_fun = 1e-12;
  BoundedNelderMead nm(o, u0);
  while (!nm.Done()) {
    for (double u : nm.Ask()) ASSERT_TRUE(u >= 0.0 && u <= 1.0) << u;
    StepOnce(nm, cost);
  }
  EXPECT_EQ(nm.termination(), NelderMeadTermination::kTolerance);
  const std::vector<double> best = nm.best_u();
  EXPECT_NEAR(best[0], 1.0, 1e-5);
  EXPECT_NEAR(best[1], 0.4, 1e-5);
  EXPECT_NEAR(best[2], 0.0, 1e-5);
  EXPECT_NEAR(nm.best_cost(), 0.09 + 0.04, 1e-8);
  EXPECT_THROW(BoundedNelderMead(o, std::vector<double>{1.2}), Error);
}

TEST(BoundedNelderMeadTest, CheckpointResumeIsBitIdentical) {
  auto cost = [](const double* u, int) { return std::fabs(u[0] - 0.999) + (u[1] - 0.1) * u[1]; };
  const std::vector<double> u0 = {0.2, 0.7};
  BoundedNelderMead straight(NelderMeadOptions{}, u0);
  RunToEnd(straight, cost);

  BoundedNelderMead first(NelderMeadOptions{}, u0);
  for (int k = 0; k < 13; ++k) StepOnce(first, cost);
  const NelderMeadState state = nlohmann::json(first.SaveState()).get<NelderMeadState>();
  EXPECT_TRUE(state.bounded);
  EXPECT_THROW(NelderMead{state}, Error);  // a bounded state is not an unbounded one
  BoundedNelderMead resumed(state);
  EXPECT_EQ(resumed.Ask(), first.Ask());
  RunToEnd(resumed, cost);
  EXPECT_EQ(resumed.evaluations(), straight.evaluations());
  EXPECT_EQ(resumed.best_u(), straight.best_u());
  EXPECT_EQ(resumed.best_cost(), straight.best_cost());
}

}  // namespace
}  // namespace frfit
