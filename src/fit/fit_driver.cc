#include "frfit/fit/fit_driver.h"

#include <chrono>

#include "frfit/common/error.h"

namespace frfit {

void DriveFits(const std::vector<FitJob>& jobs, Evaluator* evaluator, const DriveOptions& options) {
  using Clock = std::chrono::steady_clock;
  if (jobs.size() != evaluator->problems().size())
    throw Error("", "fit", "expected one job per evaluator problem: " + std::to_string(jobs.size()) +
                               " jobs, " + std::to_string(evaluator->problems().size()) + " problems");
  const auto start = Clock::now();
  auto last_checkpoint = start;
  std::int64_t total = 0, since_checkpoint = 0;
  std::vector<int> individuals(jobs.size());
  std::vector<double> coefficients, costs;
  std::vector<EvalStatus> status;
  while (true) {
    coefficients.clear();
    size_t points = 0;
    for (size_t j = 0; j < jobs.size(); ++j) {
      const FitRun& run = *jobs[j].run;
      const std::vector<double>& u = run.Ask();
      individuals[j] = run.Done() ? 0 : static_cast<int>(u.size()) / jobs[j].map->dim();
      if (individuals[j] && jobs[j].posture_q.empty())
        jobs[j].map->AppendCoefficients(u, jobs[j].num_postures, &coefficients);
      else if (individuals[j])
        jobs[j].map->AppendCoefficients(u, jobs[j].posture_q, &coefficients);
      points += individuals[j];
    }
    if (points == 0) break;
    costs.assign(points, 0.0);
    status.assign(points, EvalStatus::kOk);
    const auto t0 = Clock::now();
    evaluator->Evaluate(individuals, coefficients, costs, status);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    total += static_cast<std::int64_t>(points);
    since_checkpoint += static_cast<std::int64_t>(points);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    size_t offset = 0;
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (!individuals[j]) continue;
      FitRun& run = *jobs[j].run;
      const int before_step = run.step();
      const FitPhase before_phase = run.phase();
      // Each job is charged the round's time in proportion to its share of the points.
      run.Tell(std::span<const double>(costs).subspan(offset, individuals[j]),
               seconds * individuals[j] / static_cast<double>(points));
      offset += individuals[j];
      if (options.progress && (run.step() != before_step || run.phase() != before_phase)) {
        // The row Tell just recorded names the generation or iteration that finished, with its
        // phase and cycle; run.step() and run.cycle() may already count the phase that follows.
        const HistoryRow& done = run.history().back();
        options.progress({static_cast<int>(j), done.phase, done.cycle, done.step, run.best_cost(),
                          run.evaluations(), elapsed > 0 ? total / elapsed : 0.0});
      }
    }
    const bool by_count = options.checkpoint_every_evaluations > 0 &&
                          since_checkpoint >= options.checkpoint_every_evaluations;
    const bool by_time =
        options.checkpoint_every_seconds > 0.0 &&
        std::chrono::duration<double>(Clock::now() - last_checkpoint).count() >=
            options.checkpoint_every_seconds;
    if (options.checkpoint && (by_count || by_time)) {
      std::vector<nlohmann::json> states;
      for (const FitJob& job : jobs) states.push_back(job.run->SaveState(options.checkpoint_history));
      options.checkpoint(states);
      since_checkpoint = 0;
      last_checkpoint = Clock::now();
    }
  }
}

}  // namespace frfit
