// Evaluator: costs = evaluate(problems, population). The only hot path of a fit. The cpu and cuda
// backends run the same per-line arithmetic (kernels/line_cost.h) and the same reduction order
// (kernels/tree_sum.h), so their costs compare equal with ==.
//
// Reduction order of one individual's cost, fixed for every backend:
//   posture_sum = TreeSum(line costs of the posture, lines in order)
//   cost        = Σ_postures (posture_weight · posture_sum), postures in order, left to right.
// The normal equations (EvaluateNormalEquations) reduce each of their terms the same way, so
// their cost term has the bits of Evaluate's cost.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "frfit/evaluator/packed_problem.h"

namespace frfit {

enum class BackendType { kCpu, kCuda, kAuto };
std::string ToString(BackendType backend);
bool FromString(const std::string& text, BackendType* backend);

// Whether the cuda backend was compiled in, and whether a usable GPU is present now
// (`reason` says why not).
bool IsCudaCompiled();
bool IsCudaUsable(std::string* reason);

// One batch of points whose least-squares normal equations are wanted (kernels/line_normal.h).
//   individuals[p]   points of problem p in this call (0 allowed)
//   dims[p]          free parameters of problem p, 1 to kernels::kMaxParameters
//   coefficients     [problem][individual][posture][3n + 1 + masses], as for Evaluate
//   sensitivities    [problem][individual][posture][3n + 1 + masses][dims[p]]: ∂coefficients/∂u
struct NormalEquationsBatch {
  std::span<const int> individuals;
  std::span<const int> dims;
  std::span<const double> coefficients;
  std::span<const double> sensitivities;
};

// Terms per point of a problem with `dim` free parameters: the cost, the gradient g = JᵀWr (dim)
// and the upper triangle of A = JᵀWJ row by row (kernels::NormalTermCount).
int NormalTermCount(int dim);

// The size rule of every backend's SetProblems, in one place: a problem with lines needs 1 to
// kernels::kMaxDofs elastic DOFs (the per-line kernels' fixed scratch solves its n×n system); one
// without lines (problem.num_lines() == 0, a fit from modes alone) is never solved line by line,
// so only n >= 1. Throws Error("problem", "expected 1 to 64 elastic DOFs, got N") otherwise.
void CheckLineCapacity(const PackedProblem& problem);

struct EvaluatorOptions {
  BackendType backend = BackendType::kCpu;
  int threads = 0;  // cpu backend: 0 = every hardware thread
  // cuda backend: -1 the current device (device 0 unless CUDA_VISIBLE_DEVICES says otherwise);
  // otherwise device cuda_device % the number of devices: an MPI fleet run passes each rank's
  // local rank, so the ranks of a machine with several GPUs use one each.
  int cuda_device = -1;
  bool IsValid(std::string* error) const;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual BackendType backend() const = 0;
  virtual std::string description() const = 0;  // e.g. "cpu, 2 threads" or the GPU's name

  // Takes the problems for the rest of the evaluator's life (or until the next call).
  virtual void SetProblems(std::vector<PackedProblem> problems) = 0;
  // Replaces one problem, the others kept: how a fit moves to a refinement pass (a reweighting
  // at its model, the linear cost after a log-cost search: fit/fit_passes.h). The new problem must
  // have the old one's DOFs and postures (a fit's points keep their size); Error otherwise. This
  // default packs every problem again.
  virtual void SetProblem(int index, PackedProblem problem);
  const std::vector<PackedProblem>& problems() const { return problems_; }

  // individuals[p]: how many parameter sets of problem p this call evaluates (0 allowed).
  // coefficients: packed [problem][individual][posture][stride]; costs/status: [problem][individual].
  virtual void Evaluate(std::span<const int> individuals, std::span<const double> coefficients,
                        std::span<double> costs, std::span<EvalStatus> status) = 0;

  // For every point: its cost, g = JᵀWr and JᵀWJ, packed [problem][individual][terms] into
  // `normal`; status per point as Evaluate's (a non-OK point's terms are all +inf). The cost
  // term equals what Evaluate returns for the same coefficients, bit for bit.
  virtual void EvaluateNormalEquations(const NormalEquationsBatch& batch, std::span<double> normal,
                                       std::span<EvalStatus> status) = 0;

  // Line-solves done so far (one per individual × posture × line), for throughput reports.
  long long line_solves() const { return line_solves_; }

 protected:
  // Checks the sizes of one call against the problems; throws Error("expected N, got M").
  void CheckCall(std::span<const int> individuals, std::span<const double> coefficients,
                 std::span<double> costs, std::span<EvalStatus> status) const;
  void CheckCall(const NormalEquationsBatch& batch, std::span<double> normal,
                 std::span<EvalStatus> status) const;
  // Checks SetProblem's arguments against the problems (the same messages).
  void CheckReplacement(int index, const PackedProblem& problem) const;
  std::vector<PackedProblem> problems_;
  long long line_solves_ = 0;
};

// Passes every call to another evaluator (not owned); derive from it to watch the calls
// (the fleet's round counter and timer, tests).
class ForwardingEvaluator : public Evaluator {
 public:
  explicit ForwardingEvaluator(Evaluator* inner) : inner_(inner) {}
  BackendType backend() const override { return inner_->backend(); }
  std::string description() const override { return inner_->description(); }
  void SetProblems(std::vector<PackedProblem> problems) override {
    inner_->SetProblems(std::move(problems));
    problems_ = inner_->problems();
  }
  void SetProblem(int index, PackedProblem problem) override {
    inner_->SetProblem(index, std::move(problem));
    // That one problem only: a fleet's runs move to their refinement passes one by one, and
    // copying every problem each time made a 1024-robot night spend a fifth of its time in memcpy.
    problems_[index] = inner_->problems()[index];
  }
  void Evaluate(std::span<const int> individuals, std::span<const double> coefficients,
                std::span<double> costs, std::span<EvalStatus> status) override {
    inner_->Evaluate(individuals, coefficients, costs, status);
    line_solves_ = inner_->line_solves();
  }
  void EvaluateNormalEquations(const NormalEquationsBatch& batch, std::span<double> normal,
                               std::span<EvalStatus> status) override {
    inner_->EvaluateNormalEquations(batch, normal, status);
    line_solves_ = inner_->line_solves();
  }

 private:
  Evaluator* inner_;
};

// Creates the evaluator `options` ask for; kAuto picks cuda when usable, else cpu. Asking for
// cuda where it is not usable is an Error that says why.
std::unique_ptr<Evaluator> CreateEvaluator(const EvaluatorOptions& options);

// The cpu backend on its own (also what kAuto falls back to). threads: 0 = every hardware thread.
// simd names the vector code: "scalar", "sse2", "sse2x4", "avx2", "avx2x4" or "avx512"; "" takes
// the environment variable FRFIT_CPU_SIMD if set, else avx2 where the processor has it, sse2x4
// elsewhere. Every choice gives the same bits (docs/cpu-backend.md). Throws Error for a name the
// processor cannot run.
std::unique_ptr<Evaluator> CreateCpuEvaluator(int threads, const std::string& simd = "");

}  // namespace frfit
