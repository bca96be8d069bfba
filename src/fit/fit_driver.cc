#include "frfit/fit/fit_driver.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/reduce_problem.h"
#include "src/evaluator/cpu/thread_pool.h"

namespace frfit {

FitJob MakeFitJob(FitRun* run, const ParameterMap& map, const Problem& problem) {
  run->UseModalData(&problem.modes);
  run->UseReductionFloor(ReductionFloor(problem));
  return {run, &map, static_cast<int>(problem.postures.size()), PostureCoordinates(problem),
          [run, &problem, &map](int pass, std::span<const double> u) {
            if (!PassReweights(problem, pass, u)) return PackForPass(problem, map, pass, u);
            // The pass's weights, kept for the run's result (FitRun::PassWeights).
            std::vector<std::vector<double>> weights = NoiseWeightsAt(problem, map, u);
            PackedProblem packed = Pack(WithWeights(problem, weights));
            run->KeepPassWeights(&problem, pass, u, std::move(weights));
            return packed;
          }};
}

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// DriveFits' rounds, stage by stage. Per round: one Evaluate call for the jobs that want costs
// (GA, Nelder–Mead) and one EvaluateNormalEquations call for those refining by least squares;
// each covers every such job. The rounds' own work — each moving job's new problem, each job's
// Tell — runs on the pool, job by job: no job reads another's state, so the threads change no
// result.
class Rounds {
 public:
  Rounds(const std::vector<FitJob>& jobs, Evaluator* evaluator, const DriveOptions& options)
      : jobs_(jobs), evaluator_(evaluator), options_(options), count_(jobs.size()),
        pool_(std::max(1, options.threads)) {
    if (count_ != evaluator->problems().size())
      throw Error("", "fit", "expected one job per evaluator problem: " + std::to_string(count_) +
                                 " jobs, " + std::to_string(evaluator->problems().size()) +
                                 " problems");
    cost_points_.resize(count_), normal_points_.resize(count_), dims_.resize(count_);
    for (size_t j = 0; j < count_; ++j) dims_[j] = jobs[j].map->dim();
    posture_q_.resize(count_);
    for (size_t j = 0; j < count_; ++j) {
      const Model& model = jobs[j].map->model();
      if (jobs[j].posture_q.empty() && model.has_posture_dependent_stiffness())
        throw Error(model.source, "dofs",
                    "posture-dependent stiffness needs the postures' coordinates");
      posture_q_[j] =
          jobs[j].posture_q.empty()
              ? std::vector<std::vector<double>>(jobs[j].num_postures,
                                                 std::vector<double>(model.num_coordinates(), 0.0))
              : jobs[j].posture_q;
    }
    // The caller packed each run's pass; a run resumed in a later pass gets its problem at the
    // first round.
    installed_.assign(count_, 0);
  }

  // One round; false once no job asks for anything.
  bool Run() {
    InstallPasses();
    if (Gather() == 0) return false;
    Evaluate();
    TellJobs();
    Checkpoint();
    return true;
  }

 private:
  // The problem of every job whose run moved to another pass, built on the pool.
  void InstallPasses() {
    moving_.clear();
    for (size_t j = 0; j < count_; ++j) {
      if (jobs_[j].run->pass() == installed_[j]) continue;
      if (!jobs_[j].problem_for_pass)
        throw Error("", "fit",
                    "a run moves to a refinement pass but its job cannot give that pass's "
                    "problem (build the job with MakeFitJob)");
      moving_.push_back(j);
    }
    moved_.assign(moving_.size(), PackedProblem{});
    pool_.RunEach(moving_.size(), [&](size_t k) {
      const FitRun& run = *jobs_[moving_[k]].run;
      moved_[k] = jobs_[moving_[k]].problem_for_pass(run.pass(), run.pass_point());
    });
    for (size_t k = 0; k < moving_.size(); ++k) {
      evaluator_->SetProblem(static_cast<int>(moving_[k]), std::move(moved_[k]));
      installed_[moving_[k]] = jobs_[moving_[k]].run->pass();
    }
  }

  // Every job's asked points, as coefficients (and sensitivities) for the two calls, and where
  // each asking job's share of them begins. Returns the points.
  size_t Gather() {
    coefficients_.clear(), normal_coefficients_.clear(), sensitivities_.clear();
    told_.clear(), cost_offsets_.clear(), normal_offsets_.clear();
    cost_total_ = normal_total_ = normal_terms_ = 0;
    for (size_t j = 0; j < count_; ++j) {
      const FitRun& run = *jobs_[j].run;
      const std::vector<double>& u = run.Ask();
      const int asked = run.Done() ? 0 : static_cast<int>(u.size()) / dims_[j];
      const bool normal_wanted = asked > 0 && run.WantsNormalEquations();
      cost_points_[j] = normal_wanted ? 0 : asked;
      normal_points_[j] = normal_wanted ? asked : 0;
      if (asked == 0) continue;
      told_.push_back(j);
      cost_offsets_.push_back(cost_total_);
      normal_offsets_.push_back(normal_terms_);
      if (cost_points_[j]) jobs_[j].map->AppendCoefficients(u, posture_q_[j], &coefficients_);
      if (normal_points_[j]) {
        jobs_[j].map->AppendCoefficients(u, posture_q_[j], &normal_coefficients_);
        jobs_[j].map->AppendSensitivities(u, posture_q_[j], &sensitivities_);
        normal_terms_ += static_cast<size_t>(asked) * NormalTermCount(dims_[j]);
      }
      cost_total_ += cost_points_[j];
      normal_total_ += normal_points_[j];
    }
    return cost_total_ + normal_total_;
  }

  void Evaluate() {
    cost_seconds_ = normal_seconds_ = 0.0;
    if (cost_total_) {
      costs_.assign(cost_total_, 0.0);
      status_.assign(cost_total_, EvalStatus::kOk);
      const auto t0 = Clock::now();
      evaluator_->Evaluate(cost_points_, coefficients_, costs_, status_);
      cost_seconds_ = SecondsSince(t0);
    }
    if (normal_total_) {
      normal_.assign(normal_terms_, 0.0);
      status_.assign(normal_total_, EvalStatus::kOk);
      const auto t0 = Clock::now();
      evaluator_->EvaluateNormalEquations(
          {normal_points_, dims_, normal_coefficients_, sensitivities_}, normal_, status_);
      normal_seconds_ = SecondsSince(t0);
    }
    const std::int64_t points = static_cast<std::int64_t>(cost_total_ + normal_total_);
    total_ += points;
    since_checkpoint_ += points;
  }

  // Each asking job told its share on the pool; then, in job order, the progress of those that
  // finished a generation or iteration.
  void TellJobs() {
    const double elapsed = SecondsSince(start_);
    history_rows_.resize(told_.size());
    pool_.RunEach(told_.size(), [&](size_t k) {
      const size_t j = told_[k];
      FitRun& run = *jobs_[j].run;
      history_rows_[k] = run.history().size();
      // Each job is charged its call's time in proportion to its share of the call's points.
      if (cost_points_[j]) {
        run.Tell(std::span<const double>(costs_).subspan(cost_offsets_[k], cost_points_[j]),
                 cost_seconds_ * cost_points_[j] / static_cast<double>(cost_total_));
      } else {
        const size_t terms = static_cast<size_t>(normal_points_[j]) * NormalTermCount(dims_[j]);
        run.TellNormalEquations(
            std::span<const double>(normal_).subspan(normal_offsets_[k], terms),
            normal_seconds_ * normal_points_[j] / static_cast<double>(normal_total_));
      }
    });
    if (!options_.progress) return;
    for (size_t k = 0; k < told_.size(); ++k) {
      const FitRun& run = *jobs_[told_[k]].run;
      if (run.history().size() == history_rows_[k]) continue;
      // The row Tell just recorded names the generation or iteration that finished, with its
      // phase and cycle; run.step() and run.cycle() may already count the phase that follows.
      const HistoryRow& done = run.history().back();
      options_.progress({static_cast<int>(told_[k]), done.phase, done.cycle, done.step,
                         run.best_cost(), run.evaluations(),
                         elapsed > 0 ? total_ / elapsed : 0.0});
    }
  }

  void Checkpoint() {
    const bool by_count = options_.checkpoint_every_evaluations > 0 &&
                          since_checkpoint_ >= options_.checkpoint_every_evaluations;
    const bool by_time = options_.checkpoint_every_seconds > 0.0 &&
                         SecondsSince(last_checkpoint_) >= options_.checkpoint_every_seconds;
    if (!options_.checkpoint || !(by_count || by_time)) return;
    std::vector<nlohmann::json> states;
    for (const FitJob& job : jobs_) states.push_back(job.run->SaveState(options_.checkpoint_history));
    options_.checkpoint(states);
    since_checkpoint_ = 0;
    last_checkpoint_ = Clock::now();
  }

  const std::vector<FitJob>& jobs_;
  Evaluator* evaluator_;
  const DriveOptions& options_;
  const size_t count_;
  cpu::ThreadPool pool_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_checkpoint_ = start_;
  std::int64_t total_ = 0, since_checkpoint_ = 0;
  std::vector<int> installed_;  // each job's pass as installed in the evaluator
  std::vector<int> cost_points_, normal_points_, dims_;
  std::vector<std::vector<std::vector<double>>> posture_q_;
  std::vector<size_t> moving_;
  std::vector<PackedProblem> moved_;
  std::vector<double> coefficients_, normal_coefficients_, sensitivities_, costs_, normal_;
  std::vector<EvalStatus> status_;
  size_t cost_total_ = 0, normal_total_ = 0, normal_terms_ = 0;
  double cost_seconds_ = 0.0, normal_seconds_ = 0.0;
  std::vector<size_t> told_, cost_offsets_, normal_offsets_, history_rows_;
};

}  // namespace

bool DriveOptions::IsValid(std::string* error) const {
  if (checkpoint_every_evaluations < 0)
    return Invalid(error, "checkpoint_every_evaluations: expected an integer >= 0 (0: off), got " +
                              std::to_string(checkpoint_every_evaluations));
  if (!(checkpoint_every_seconds >= 0.0) || std::isinf(checkpoint_every_seconds))
    return Invalid(error, "checkpoint_every_seconds: expected a finite number >= 0 (0: off), got " +
                              FormatDouble(checkpoint_every_seconds));
  if (checkpoint_history != StateHistory::kInline && checkpoint_history != StateHistory::kRowCountOnly)
    return Invalid(error, "checkpoint_history: expected inline or row count only, got " +
                              std::to_string(static_cast<int>(checkpoint_history)));
  if (threads < 1) return Invalid(error, "threads: expected an integer >= 1, got " + std::to_string(threads));
  return true;
}

void DriveFits(const std::vector<FitJob>& jobs, Evaluator* evaluator, const DriveOptions& options) {
  if (std::string error; !options.IsValid(&error)) throw Error("", "drive", error);
  Rounds rounds(jobs, evaluator, options);
  while (rounds.Run()) {
  }
}

}  // namespace frfit
