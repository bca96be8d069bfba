#include "frfit/evaluator/evaluator.h"

#include <limits>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "kernels/line_normal.h"
#if defined(FRFIT_HAVE_CUDA)
#include "frfit/evaluator/cuda_backend.h"
#endif

namespace frfit {

namespace {
constexpr std::pair<BackendType, const char*> kBackends[] = {
    {BackendType::kCpu, "cpu"}, {BackendType::kCuda, "cuda"}, {BackendType::kAuto, "auto"}};
}  // namespace

std::string ToString(BackendType backend) { return EnumName(kBackends, backend); }
bool FromString(const std::string& text, BackendType* backend) {
  return EnumFromName(kBackends, text, backend);
}

bool IsCudaCompiled() {
#if defined(FRFIT_HAVE_CUDA)
  return true;
#else
  return false;
#endif
}

bool IsCudaUsable(std::string* reason) {
#if defined(FRFIT_HAVE_CUDA)
  return CudaDeviceUsable(reason);
#else
  if (reason) *reason = "this build of frfit has no cuda backend (no CUDA toolkit at build time)";
  return false;
#endif
}

void CheckLineCapacity(const PackedProblem& problem) {
  const int most = problem.num_lines() > 0 ? kernels::kMaxDofs : std::numeric_limits<int>::max();
  if (problem.n < 1 || problem.n > most)
    throw Error("", "problem",
                problem.num_lines() > 0
                    ? "expected 1 to " + std::to_string(kernels::kMaxDofs) +
                          " elastic DOFs, got " + std::to_string(problem.n)
                    : "expected at least 1 elastic DOF, got " + std::to_string(problem.n));
}

bool EvaluatorOptions::IsValid(std::string* error) const {
  if (threads < 0) {
    if (error) *error = "threads: expected >= 0 (0 = all hardware threads), got " + std::to_string(threads);
    return false;
  }
  if (cuda_device < -1) {
    if (error)
      *error = "cuda_device: expected >= -1 (-1 = the current device), got " +
               std::to_string(cuda_device);
    return false;
  }
  return true;
}

void Evaluator::CheckCall(std::span<const int> individuals, std::span<const double> coefficients,
                          std::span<double> costs, std::span<EvalStatus> status) const {
  if (individuals.size() != problems_.size())
    throw Error("", "evaluate", "expected individual counts for " + std::to_string(problems_.size()) +
                                    " problems, got " + std::to_string(individuals.size()));
  size_t want_coefficients = 0, want_costs = 0;
  for (size_t p = 0; p < problems_.size(); ++p) {
    if (individuals[p] < 0) throw Error("", "evaluate", "expected individual counts >= 0");
    want_coefficients += static_cast<size_t>(individuals[p]) * problems_[p].num_postures() *
                         problems_[p].coefficient_stride();
    want_costs += individuals[p];
  }
  if (coefficients.size() != want_coefficients)
    throw Error("", "evaluate", "expected " + std::to_string(want_coefficients) +
                                    " packed coefficients, got " + std::to_string(coefficients.size()));
  if (costs.size() != want_costs || status.size() != want_costs)
    throw Error("", "evaluate", "expected " + std::to_string(want_costs) + " costs and statuses, got " +
                                    std::to_string(costs.size()) + " and " + std::to_string(status.size()));
}

int NormalTermCount(int dim) { return kernels::NormalTermCount(dim); }

void Evaluator::CheckReplacement(int index, const PackedProblem& problem) const {
  if (index < 0 || index >= static_cast<int>(problems_.size()))
    throw Error("", "problem", "expected a problem index below " +
                                   std::to_string(problems_.size()) + ", got " +
                                   std::to_string(index));
  const PackedProblem& old = problems_[index];
  if (problem.n != old.n || problem.num_postures() != old.num_postures())
    throw Error("", "problem", "expected " + std::to_string(old.n) + " DOFs at " +
                                   std::to_string(old.num_postures()) + " postures, got " +
                                   std::to_string(problem.n) + " at " +
                                   std::to_string(problem.num_postures()));
}

void Evaluator::SetProblem(int index, PackedProblem problem) {
  CheckReplacement(index, problem);
  std::vector<PackedProblem> problems = problems_;
  problems[index] = std::move(problem);
  SetProblems(std::move(problems));
}

void Evaluator::CheckCall(const NormalEquationsBatch& batch, std::span<double> normal,
                          std::span<EvalStatus> status) const {
  if (batch.dims.size() != problems_.size())
    throw Error("", "evaluate", "expected parameter counts for " + std::to_string(problems_.size()) +
                                    " problems, got " + std::to_string(batch.dims.size()));
  size_t want_sensitivities = 0, want_normal = 0, points = 0;
  for (size_t p = 0; p < problems_.size(); ++p) {
    if (batch.dims[p] < 1 || batch.dims[p] > kernels::kMaxParameters)
      throw Error("", "evaluate", "expected 1 to " + std::to_string(kernels::kMaxParameters) +
                                      " free parameters, got " + std::to_string(batch.dims[p]));
    const size_t count = p < batch.individuals.size() && batch.individuals[p] > 0 ? batch.individuals[p] : 0;
    want_sensitivities += count * problems_[p].num_postures() * problems_[p].coefficient_stride() *
                          static_cast<size_t>(batch.dims[p]);
    want_normal += count * static_cast<size_t>(kernels::NormalTermCount(batch.dims[p]));
    points += count;
  }
  std::vector<double> no_costs(points);
  CheckCall(batch.individuals, batch.coefficients, no_costs, status);
  if (batch.sensitivities.size() != want_sensitivities)
    throw Error("", "evaluate", "expected " + std::to_string(want_sensitivities) +
                                    " packed sensitivities, got " + std::to_string(batch.sensitivities.size()));
  if (normal.size() != want_normal)
    throw Error("", "evaluate", "expected " + std::to_string(want_normal) +
                                    " normal-equation terms, got " + std::to_string(normal.size()));
}

std::unique_ptr<Evaluator> CreateEvaluator(const EvaluatorOptions& options) {
  std::string error;
  if (!options.IsValid(&error)) throw Error("", "evaluator", error);
  if (options.backend == BackendType::kCpu) return CreateCpuEvaluator(options.threads);
  std::string reason;
  const bool usable = IsCudaUsable(&reason);
  if (options.backend == BackendType::kCuda && !usable)
    throw Error("", "--backend cuda", "no usable GPU: " + reason);
#if defined(FRFIT_HAVE_CUDA)
  if (usable) return CreateCudaEvaluator(0, options.cuda_device);
#endif
  return CreateCpuEvaluator(options.threads);
}

}  // namespace frfit
