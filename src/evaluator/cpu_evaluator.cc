// The cpu backend: (problem, individual) tasks spread over threads. Each task runs the shared
// per-line code and the fixed reduction on its own, so the bits do not depend on the thread count
// or on which thread ran which task.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "kernels/line_cost.h"
#include "kernels/tree_sum.h"

namespace frfit {
namespace {

class CpuEvaluator final : public Evaluator {
 public:
  explicit CpuEvaluator(int threads)
      : threads_(threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

  BackendType backend() const override { return BackendType::kCpu; }
  std::string description() const override {
    return "cpu, " + std::to_string(threads_) + (threads_ == 1 ? " thread" : " threads");
  }

  void SetProblems(std::vector<PackedProblem> problems) override {
    for (const PackedProblem& p : problems)
      if (p.n < 1 || p.n > kernels::kMaxDofs)
        throw Error("", "problem", "expected 1 to " + std::to_string(kernels::kMaxDofs) +
                                       " elastic DOFs, got " + std::to_string(p.n));
    problems_ = std::move(problems);
  }

  void Evaluate(std::span<const int> individuals, std::span<const double> coefficients,
                std::span<double> costs, std::span<EvalStatus> status) override {
    CheckCall(individuals, coefficients, costs, status);
    // Flatten to tasks with their offsets into the packed arrays.
    struct Task {
      int problem;
      size_t coefficient_offset;
      size_t cost_index;
    };
    std::vector<Task> tasks;
    size_t coefficient_offset = 0, cost_index = 0;
    for (size_t p = 0; p < problems_.size(); ++p) {
      const size_t per_individual =
          static_cast<size_t>(problems_[p].num_postures()) * problems_[p].coefficient_stride();
      for (int i = 0; i < individuals[p]; ++i) {
        tasks.push_back({static_cast<int>(p), coefficient_offset, cost_index++});
        coefficient_offset += per_individual;
        for (const auto& posture : problems_[p].postures) line_solves_ += posture.num_lines();
      }
    }
    std::atomic<size_t> next{0};
    auto worker = [&] {
      std::vector<double> line_costs;
      for (size_t t = next++; t < tasks.size(); t = next++) {
        const Task& task = tasks[t];
        unsigned line_status = kernels::kLineOk;
        costs[task.cost_index] =
            IndividualCost(problems_[task.problem], coefficients.data() + task.coefficient_offset,
                           &line_costs, &line_status);
        status[task.cost_index] = line_status & kernels::kLineSingular ? EvalStatus::kSingular
                                  : line_status ? EvalStatus::kNonFinite
                                                : EvalStatus::kOk;
        if (line_status) costs[task.cost_index] = std::numeric_limits<double>::infinity();
      }
    };
    const int workers = static_cast<int>(std::min<size_t>(threads_, tasks.size()));
    if (workers <= 1) {
      worker();
      return;
    }
    std::vector<std::thread> pool;
    for (int w = 0; w < workers; ++w) pool.emplace_back(worker);
    for (auto& thread : pool) thread.join();
  }

 private:
  static double IndividualCost(const PackedProblem& problem, const double* coefficients,
                               std::vector<double>* line_costs, unsigned* status) {
    double total = 0.0;
    for (const PackedPosture& posture : problem.postures) {
      const kernels::PostureArrays arrays{problem.n, posture.mass.data(), posture.gravity.data(),
                                          posture.basis.data()};
      line_costs->resize(posture.num_lines());
      for (int l = 0; l < posture.num_lines(); ++l) {
        const kernels::LineTarget line{posture.omega_rad_s[l], posture.weight.data() + 9 * l,
                                       posture.target.data() + 18 * l};
        (*line_costs)[l] = kernels::LineCost(arrays, coefficients, line, posture.fit_order,
                                             problem.cost_kind, problem.phase_mode, status);
      }
      total = total + posture.posture_weight *
                          kernels::TreeSum(line_costs->data(), posture.num_lines());
      coefficients += problem.coefficient_stride();
    }
    return total;
  }

  int threads_;
};

}  // namespace

std::unique_ptr<Evaluator> CreateCpuEvaluator(int threads) {
  return std::make_unique<CpuEvaluator>(threads);
}

}  // namespace frfit
