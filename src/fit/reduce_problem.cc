#include "frfit/fit/reduce_problem.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>

#include "frfit/common/error.h"
#include "frfit/cost/residual_weight.h"
#include "frfit/fit/fit_passes.h"
#include "kernels/line_cost.h"

namespace frfit {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// The coefficient sets the basis must hold at: the initial point first (the constraint modes are
// taken there), then each free parameter at its lower and upper bound, the others initial.
std::vector<JointCoefficients> Samples(const ParameterMap& map, const std::vector<double>& q) {
  const std::vector<double> initial = map.InitialU();
  std::vector<JointCoefficients> samples = {Coefficients(map.model(), map.Physical(initial), q)};
  for (int i = 0; i < map.dim(); ++i)
    for (double bound : {0.0, 1.0}) {
      std::vector<double> u = initial;
      u[i] = bound;
      samples.push_back(Coefficients(map.model(), map.Physical(u), q));
    }
  return samples;
}

double HighestLine(const Problem& problem) {
  double top = 0.0;
  for (const ProblemPosture& pp : problem.postures)
    for (double f : pp.measured.frequency_hz) top = std::max(top, f);
  return top;
}

void ReducePosture(const ReductionOptions& options, int joints, const ParameterMap& map,
                   ProblemPosture* pp) {
  const MeasurementPoints points = PointsOf(*pp);
  const std::vector<JointCoefficients> samples = Samples(map, pp->posture.q);
  const auto start = Clock::now();
  auto reduction = std::make_shared<Reduction>(
      Reduce(pp->posture, joints, samples, {points.excitation_basis, points.response_basis},
             options, pp->source));
  pp->reduction = std::move(reduction);
  pp->basis_seconds += Seconds(start);  // both passes of a padded posture
}

// ReductionError over the set's lines at the samples the basis was built at.
void EstimateError(const ParameterMap& map, ProblemPosture* pp) {
  const auto start = Clock::now();
  pp->reduction_error = ReductionError(pp->posture, *pp->reduction, Samples(map, pp->posture.q),
                                       pp->measured.frequency_hz);
  pp->error_seconds = Seconds(start);
}

}  // namespace

int KeptCoordinates(const Model& model) {
  int kept = model.num_dofs();
  for (const Beam& beam : model.beams)
    if (beam.num_nodes() > 0) kept = std::min(kept, beam.first_dof);
  return kept;
}

bool WillReduce(const ReductionSettings& settings, const std::string& config_source,
                const Problem& problem) {
  const Model& model = *problem.model;
  const int n = model.num_dofs(), joints = KeptCoordinates(model);
  const bool beams = joints < n;
  if (settings.mode == ReductionMode::kNever) {
    // Modes alone (no FRF set, no static test) are never solved line by line: any size.
    if (n > kernels::kMaxDofs && !problem.postures.empty())
      throw Error(config_source, "reduction.mode",
                  "expected auto or always: never solves the full model, which holds at most " +
                      std::to_string(kernels::kMaxDofs) + " elastic coordinates, and model '" +
                      model.name + "' has " + std::to_string(n));
    return false;
  }
  const bool reduce = beams && (settings.mode == ReductionMode::kAlways || n > kReducePast);
  // A problem its caller reduced already is fitted as it is.
  const bool reduced = std::any_of(problem.postures.begin(), problem.postures.end(),
                                   [](const ProblemPosture& pp) { return pp.reduction != nullptr; });
  return reduce && !reduced && !problem.postures.empty();
}

bool ReduceProblem(const ReductionSettings& settings, const std::string& config_source,
                   ParameterMap* map, Problem* problem) {
  if (!WillReduce(settings, config_source, *problem)) return false;
  const int joints = KeptCoordinates(*problem->model);
  ReductionOptions options;
  options.krylov_orders = settings.krylov_orders;
  options.modes_up_to_hz =
      settings.modes_up_to_hz > 0.0 ? settings.modes_up_to_hz : 4.0 * HighestLine(*problem);
  if (!(options.modes_up_to_hz > 0.0)) options.modes_up_to_hz = 1.0;  // static tests only
  for (ProblemPosture& pp : problem->postures) {
    ReducePosture(options, joints, *map, &pp);
    pp.assess_on_full = settings.assess_on_full;
  }
  // One size for every posture (the packed problem has one n): the smaller ones take further
  // modes.
  int size = 0;
  for (const ProblemPosture& pp : problem->postures) size = std::max(size, pp.reduction->posture.n);
  options.size = size;
  for (ProblemPosture& pp : problem->postures)
    if (pp.reduction->posture.n < size) ReducePosture(options, joints, *map, &pp);
  for (const ProblemPosture& pp : problem->postures)
    if (pp.reduction->posture.n != size || size > kernels::kMaxDofs)
      throw Error(config_source, "reduction.modes_up_to_hz",
                  "expected a reduced posture of at most " + std::to_string(kernels::kMaxDofs) +
                      " coordinates, the same at every posture, got " +
                      std::to_string(pp.reduction->posture.n) + " at " + SetName(pp) +
                      " (lower modes_up_to_hz or krylov_orders)");
  for (ProblemPosture& pp : problem->postures) EstimateError(*map, &pp);
  map->UseReducedLayout(joints, size);
  return true;
}

namespace {

// ε²·S of one set of the search's problem (ReductionFloor), before its posture weight.
double SetFloor(const ProblemPosture& pp, const CostOptions& cost) {
  const double error = pp.reduction ? pp.reduction_error : 0.0;
  if (!(error > 0.0) || !std::isfinite(error)) return 0.0;
  // A static test is scored by its linear residual whatever the cost (Pack).
  const CostType type = pp.is_static ? CostType::kNormalizedComplex : cost.type;
  double scale = 0.0, norm = 0.0;
  for (int k = 0; k < pp.measured.num_lines(); ++k) {
    double line = 0.0, largest = 0.0;
    for (int e = 0; e < 9; ++e) {
      const std::complex<double> h = pp.measured.H[k * 9 + e];
      const double w = pp.weights[k * 9 + e];
      line += std::norm(h);
      norm += w * std::norm(h);
      // A residual ΔH of the entry weighs w·|ΔH|²/LinearWeightScale: |ΔH/H|² under a log cost.
      if (w > 0.0) largest = std::max(largest, w / LinearWeightScale(type, h));
    }
    scale += line * largest;
  }
  if (NormalizesWeights(cost, pp.is_static) && norm > 0.0) scale /= norm;
  return error * error * scale;
}

}  // namespace

double ReductionFloor(const Problem& problem) {
  if (std::none_of(problem.postures.begin(), problem.postures.end(),
                   [](const ProblemPosture& pp) { return pp.reduction != nullptr; }))
    return 0.0;
  const Problem search = SearchProblem(problem);  // the weights the search's cost has
  double floor = 0.0;
  for (const ProblemPosture& pp : search.postures)
    floor += pp.posture_weight * SetFloor(pp, search.cost);
  return std::isfinite(floor) ? kReductionFloorMargin * floor : 0.0;
}

std::vector<SetReduction> Reductions(const Problem& problem) {
  std::vector<SetReduction> out;
  for (const ProblemPosture& pp : problem.postures)
    if (pp.reduction)
      out.push_back({SetName(pp), pp.posture.n, pp.reduction->posture.n, pp.reduction->modes,
                     pp.reduction->corrections, pp.reduction_error, pp.basis_seconds,
                     pp.error_seconds});
  return out;
}

nlohmann::ordered_json ReductionsToJson(const std::vector<SetReduction>& reductions) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const SetReduction& r : reductions)
    out[r.set] = {{"full_n", r.full_n},
                  {"reduced_n", r.reduced_n},
                  {"modes", r.modes},
                  {"corrections", r.corrections},
                  {"max_relative_error", r.max_relative_error},
                  {"seconds", {{"basis", r.basis_seconds}, {"error", r.error_seconds}}}};
  return out;
}

}  // namespace frfit
