// An independent computation of a prepared problem's residuals and their Jacobian, for tests of
// the evaluator's normal equations and of the identifiability report: Eigen's dense solve
// (Synthesize), std::log and std::arg, central differences in the optimiser's u. None of it goes
// through kernels/.
//
// Residuals: r = √(posture weight · w) · (Re δ, Im δ) per fitted entry and line, δ as the problem's
// cost defines it (log magnitude and phase difference, wrapped or not; or H_s − H with the
// normalised cost's 1/Σw|H|² folded into w unless w are noise weights); log-magnitude costs have
// no phase residual.
#pragma once

#include <cmath>
#include <complex>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit::test {

inline double WrapPhase(double a) {
  while (a > M_PI) a -= 2 * M_PI;
  while (a <= -M_PI) a += 2 * M_PI;
  return a;
}

struct ReferenceResiduals {
  std::vector<double> r;      // the residuals
  std::vector<double> scale;  // each one's √(posture weight · w)
  std::vector<bool> is_phase;
};

inline ReferenceResiduals ComputeReferenceResiduals(const Problem& problem, const ParameterMap& map,
                                                    const std::vector<double>& u) {
  using cd = std::complex<double>;
  const std::vector<double> physical = map.Physical(u);
  const CostType type = problem.cost.type;
  ReferenceResiduals out;
  auto push = [&](double value, double scale, bool phase) {
    out.r.push_back(scale * value);
    out.scale.push_back(scale);
    out.is_phase.push_back(phase);
  };
  for (const ProblemPosture& pp : problem.postures) {
    const JointCoefficients coefficients = Coefficients(*problem.model, physical, pp.posture.q);
    const FrfSet hs =
        Synthesize(pp.posture, coefficients, pp.measured.frequency_hz, pp.measured.format,
                   PointsOf(pp));
    double norm = 0.0;
    for (int k = 0; k < pp.measured.num_lines(); ++k)
      for (int e = 0; e < 9; ++e)
        norm += pp.weights[k * 9 + e] * std::norm(pp.measured.H[k * 9 + e]);
    for (int k = 0; k < pp.measured.num_lines(); ++k)
      for (int e = 0; e < 9; ++e) {
        double w = pp.weights[k * 9 + e];
        if (w == 0.0) continue;
        const cd s = hs.H[k * 9 + e], m = pp.measured.H[k * 9 + e];
        // Noise weights are inverse variances already: no normalisation (cost_options.h).
        if (type == CostType::kNormalizedComplex && problem.cost.weights.mode != WeightMode::kNoise)
          w /= norm;
        const double scale = std::sqrt(pp.posture_weight * w);
        if (type == CostType::kNormalizedComplex) {
          push((s - m).real(), scale, false);
          push((s - m).imag(), scale, false);
          continue;
        }
        push(std::log(std::abs(s)) - std::log(std::abs(m)), scale, false);
        if (type == CostType::kLogComplex) {
          const double dp = std::arg(s) - std::arg(m);
          push(problem.cost.phase == PhaseMode::kWrapped ? WrapPhase(dp) : dp, scale, true);
        }
      }
  }
  return out;
}

// Column j: ∂r/∂u_j by central differences of step h; a phase difference that crosses the
// branch cut between the two evaluations is brought back by 2π.
inline std::vector<std::vector<double>> ReferenceJacobian(const Problem& problem,
                                                          const ParameterMap& map,
                                                          const std::vector<double>& u, double h) {
  const ReferenceResiduals base = ComputeReferenceResiduals(problem, map, u);
  std::vector<std::vector<double>> jac(u.size(), std::vector<double>(base.r.size()));
  for (size_t j = 0; j < u.size(); ++j) {
    std::vector<double> up = u, down = u;
    up[j] += h;
    down[j] -= h;
    const ReferenceResiduals rp = ComputeReferenceResiduals(problem, map, up);
    const ReferenceResiduals rm = ComputeReferenceResiduals(problem, map, down);
    for (size_t i = 0; i < base.r.size(); ++i) {
      double diff = rp.r[i] - rm.r[i];
      if (base.is_phase[i] && base.scale[i] > 0.0)
        diff = WrapPhase(diff / base.scale[i]) * base.scale[i];
      jac[j][i] = diff / (2 * h);
    }
  }
  return jac;
}

}  // namespace frfit::test

namespace frfit::test {

// What the cpu evaluator computes for one point u of a problem: the normal-equation terms (cost,
// g, the upper triangle of A; kernels/line_normal.h) and the cost of the cost path, with their
// statuses — the side the tests above hold against the reference.
struct EvaluatorTerms {
  std::vector<double> normal;
  EvalStatus normal_status = EvalStatus::kOk;
  double cost = 0.0;
  EvalStatus cost_status = EvalStatus::kOk;
};

// The cost path alone (Evaluator::Evaluate) at one point u.
inline double CostAt(const Problem& problem, const ParameterMap& map, const std::vector<double>& u,
                     EvalStatus* status) {
  std::vector<double> coefficients;
  map.AppendCoefficients(u, PostureCoordinates(problem), &coefficients);
  auto evaluator = CreateCpuEvaluator(1);
  evaluator->SetProblems({Pack(problem)});
  const int one = 1;
  double cost = 0.0;
  evaluator->Evaluate({&one, 1}, coefficients, {&cost, 1}, {status, 1});
  return cost;
}

inline EvaluatorTerms EvaluateTermsAt(const Problem& problem, const ParameterMap& map,
                                      const std::vector<double>& u) {
  const std::vector<std::vector<double>> q = PostureCoordinates(problem);
  std::vector<double> coefficients, sensitivities;
  map.AppendCoefficients(u, q, &coefficients);
  map.AppendSensitivities(u, q, &sensitivities);
  auto evaluator = CreateCpuEvaluator(1);
  evaluator->SetProblems({Pack(problem)});
  const int one = 1, dim = map.dim();
  EvaluatorTerms out;
  out.normal.assign(NormalTermCount(dim), 0.0);
  evaluator->EvaluateNormalEquations({{&one, 1}, {&dim, 1}, coefficients, sensitivities},
                                     out.normal, {&out.normal_status, 1});
  out.cost = CostAt(problem, map, u, &out.cost_status);
  return out;
}

}  // namespace frfit::test
