// The cpu backend: (problem, individual) tasks spread over threads. Each task runs the shared
// per-line code (the cost, or the normal equations) and the fixed reduction on its own, so the
// bits do not depend on the thread count or on which thread ran which task.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "kernels/line_cost.h"
#include "kernels/line_normal.h"
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
    const std::vector<Task> tasks = Tasks(individuals, {});
    RunTasks(tasks.size(), [&](size_t t, std::vector<double>* line_costs) {
      const Task& task = tasks[t];
      unsigned line_status = kernels::kLineOk;
      costs[task.point] =
          IndividualCost(problems_[task.problem], coefficients.data() + task.coefficients,
                         line_costs, &line_status);
      status[task.point] = ToEvalStatus(line_status);
      if (line_status) costs[task.point] = std::numeric_limits<double>::infinity();
    });
  }

  void EvaluateNormalEquations(const NormalEquationsBatch& batch, std::span<double> normal,
                               std::span<EvalStatus> status) override {
    CheckCall(batch, normal, status);
    const std::vector<Task> tasks = Tasks(batch.individuals, batch.dims);
    RunTasks(tasks.size(), [&](size_t t, std::vector<double>* scratch) {
      const Task& task = tasks[t];
      const int dim = batch.dims[task.problem];
      std::span<double> out = normal.subspan(task.normal, kernels::NormalTermCount(dim));
      unsigned line_status = kernels::kLineOk;
      IndividualNormal(problems_[task.problem], batch.coefficients.data() + task.coefficients,
                       batch.sensitivities.data() + task.sensitivities, dim, out, scratch,
                       &line_status);
      status[task.point] = ToEvalStatus(line_status);
      if (line_status) std::fill(out.begin(), out.end(), std::numeric_limits<double>::infinity());
    });
  }

 private:
  // One (problem, individual) of a call, with its offsets into the packed arrays.
  struct Task {
    int problem;
    size_t point;          // into costs / status
    size_t coefficients;   // into the packed coefficients
    size_t sensitivities;  // into the packed sensitivities (normal equations only)
    size_t normal;         // into the packed normal-equation terms (normal equations only)
  };

  // Tasks in (problem, individual) order; `dims` empty for a cost-only call. Counts line-solves.
  std::vector<Task> Tasks(std::span<const int> individuals, std::span<const int> dims) {
    std::vector<Task> tasks;
    Task next{0, 0, 0, 0, 0};
    for (size_t p = 0; p < problems_.size(); ++p) {
      const size_t per_individual =
          static_cast<size_t>(problems_[p].num_postures()) * problems_[p].coefficient_stride();
      const int dim = dims.empty() ? 0 : dims[p];
      for (int i = 0; i < individuals[p]; ++i) {
        next.problem = static_cast<int>(p);
        tasks.push_back(next);
        ++next.point;
        next.coefficients += per_individual;
        next.sensitivities += per_individual * dim;
        if (dim) next.normal += kernels::NormalTermCount(dim);
        for (const auto& posture : problems_[p].postures) line_solves_ += posture.num_lines();
      }
    }
    return tasks;
  }

  // Runs work(task, scratch) for every task on up to threads_ threads; each thread has its own
  // scratch vector. Which thread runs which task does not change any bit.
  template <typename Work>
  void RunTasks(size_t count, Work&& work) const {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      std::vector<double> scratch;
      for (size_t t = next++; t < count; t = next++) work(t, &scratch);
    };
    const int workers = static_cast<int>(std::min<size_t>(threads_, count));
    if (workers <= 1) {
      worker();
      return;
    }
    std::vector<std::thread> pool;
    for (int w = 0; w < workers; ++w) pool.emplace_back(worker);
    for (auto& thread : pool) thread.join();
  }

  static EvalStatus ToEvalStatus(unsigned line_status) {
    return line_status & kernels::kLineSingular ? EvalStatus::kSingular
           : line_status                        ? EvalStatus::kNonFinite
                                                : EvalStatus::kOk;
  }

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

  // The same reduction as IndividualCost for each term: lines' terms laid out [term][line] so
  // that every term's lines are contiguous for TreeSum, postures added left to right.
  static void IndividualNormal(const PackedProblem& problem, const double* coefficients,
                               const double* sensitivities, int dim, std::span<double> out,
                               std::vector<double>* line_terms, unsigned* status) {
    const int terms = kernels::NormalTermCount(dim);
    std::fill(out.begin(), out.end(), 0.0);
    const size_t sensitivity_stride = static_cast<size_t>(problem.coefficient_stride()) * dim;
    for (const PackedPosture& posture : problem.postures) {
      const kernels::PostureArrays arrays{problem.n, posture.mass.data(), posture.gravity.data(),
                                          posture.basis.data()};
      const int lines = posture.num_lines();
      line_terms->resize(static_cast<size_t>(lines) * terms);
      for (int l = 0; l < lines; ++l) {
        const kernels::LineTarget line{posture.omega_rad_s[l], posture.weight.data() + 9 * l,
                                       posture.target.data() + 18 * l};
        kernels::LineNormalTerms(arrays, coefficients, sensitivities, dim, line,
                                 posture.fit_order, problem.cost_kind, problem.phase_mode,
                                 line_terms->data() + l, lines, status);
      }
      for (int t = 0; t < terms; ++t)
        out[t] = out[t] + posture.posture_weight *
                              kernels::TreeSum(line_terms->data() + static_cast<size_t>(t) * lines, lines);
      coefficients += problem.coefficient_stride();
      sensitivities += sensitivity_stride;
    }
  }

  int threads_;
};

}  // namespace

std::unique_ptr<Evaluator> CreateCpuEvaluator(int threads) {
  return std::make_unique<CpuEvaluator>(threads);
}

}  // namespace frfit
