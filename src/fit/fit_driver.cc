#include "frfit/fit/fit_driver.h"

#include <chrono>

#include "frfit/common/error.h"
#include "frfit/fit/load_problem.h"
#include "frfit/fit/fit_passes.h"

namespace frfit {

FitJob MakeFitJob(FitRun* run, const ParameterMap& map, const Problem& problem) {
  return {run, &map, static_cast<int>(problem.postures.size()), PostureCoordinates(problem),
          [&problem, &map](int pass, std::span<const double> u) {
            return PackForPass(problem, map, pass, u);
          }};
}

void DriveFits(const std::vector<FitJob>& jobs, Evaluator* evaluator, const DriveOptions& options) {
  using Clock = std::chrono::steady_clock;
  if (jobs.size() != evaluator->problems().size())
    throw Error("", "fit", "expected one job per evaluator problem: " + std::to_string(jobs.size()) +
                               " jobs, " + std::to_string(evaluator->problems().size()) + " problems");
  const auto start = Clock::now();
  auto last_checkpoint = start;
  std::int64_t total = 0, since_checkpoint = 0;
  // Per round: one Evaluate call for the jobs that want costs (GA, Nelder–Mead) and one
  // EvaluateNormalEquations call for those refining by least squares; each covers every such job.
  const size_t count = jobs.size();
  std::vector<int> cost_points(count), normal_points(count), dims(count);
  for (size_t j = 0; j < count; ++j) dims[j] = jobs[j].map->dim();
  std::vector<double> coefficients, normal_coefficients, sensitivities, costs, normal;
  std::vector<EvalStatus> status;
  std::vector<std::vector<std::vector<double>>> posture_q(count);
  for (size_t j = 0; j < count; ++j) {
    const Model& model = jobs[j].map->model();
    if (jobs[j].posture_q.empty() && model.has_posture_dependent_stiffness())
      throw Error(model.source, "dofs",
                  "posture-dependent stiffness needs the postures' coordinates");
    posture_q[j] =
        jobs[j].posture_q.empty()
            ? std::vector<std::vector<double>>(jobs[j].num_postures,
                                               std::vector<double>(model.num_coordinates(), 0.0))
            : jobs[j].posture_q;
  }
  // Each job's pass as installed in the evaluator: the caller packed the run's pass, and a run
  // resumed in a later pass gets its problem at the first round.
  std::vector<int> installed(count, 0);
  while (true) {
    for (size_t j = 0; j < count; ++j) {
      const FitRun& run = *jobs[j].run;
      if (run.pass() == installed[j]) continue;
      if (!jobs[j].problem_for_pass)
        throw Error("", "fit",
                    "a run moves to a refinement pass but its job cannot give that pass's "
                    "problem (build the job with MakeFitJob)");
      evaluator->SetProblem(static_cast<int>(j), jobs[j].problem_for_pass(run.pass(), run.pass_point()));
      installed[j] = run.pass();
    }
    coefficients.clear();
    normal_coefficients.clear();
    sensitivities.clear();
    size_t points = 0, cost_total = 0, normal_total = 0, normal_terms = 0;
    for (size_t j = 0; j < count; ++j) {
      const FitRun& run = *jobs[j].run;
      const std::vector<double>& u = run.Ask();
      const int asked = run.Done() ? 0 : static_cast<int>(u.size()) / dims[j];
      const bool normal_wanted = asked > 0 && run.WantsNormalEquations();
      cost_points[j] = normal_wanted ? 0 : asked;
      normal_points[j] = normal_wanted ? asked : 0;
      if (cost_points[j]) jobs[j].map->AppendCoefficients(u, posture_q[j], &coefficients);
      if (normal_points[j]) {
        jobs[j].map->AppendCoefficients(u, posture_q[j], &normal_coefficients);
        jobs[j].map->AppendSensitivities(u, posture_q[j], &sensitivities);
        normal_terms += static_cast<size_t>(asked) * NormalTermCount(dims[j]);
      }
      cost_total += cost_points[j];
      normal_total += normal_points[j];
    }
    points = cost_total + normal_total;
    if (points == 0) break;
    double cost_seconds = 0.0, normal_seconds = 0.0;
    if (cost_total) {
      costs.assign(cost_total, 0.0);
      status.assign(cost_total, EvalStatus::kOk);
      const auto t0 = Clock::now();
      evaluator->Evaluate(cost_points, coefficients, costs, status);
      cost_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    if (normal_total) {
      normal.assign(normal_terms, 0.0);
      status.assign(normal_total, EvalStatus::kOk);
      const auto t0 = Clock::now();
      evaluator->EvaluateNormalEquations({normal_points, dims, normal_coefficients, sensitivities},
                                         normal, status);
      normal_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    total += static_cast<std::int64_t>(points);
    since_checkpoint += static_cast<std::int64_t>(points);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    size_t cost_offset = 0, normal_offset = 0;
    for (size_t j = 0; j < count; ++j) {
      if (!cost_points[j] && !normal_points[j]) continue;
      FitRun& run = *jobs[j].run;
      const size_t before_rows = run.history().size();
      // Each job is charged its call's time in proportion to its share of the call's points.
      if (cost_points[j]) {
        run.Tell(std::span<const double>(costs).subspan(cost_offset, cost_points[j]),
                 cost_seconds * cost_points[j] / static_cast<double>(cost_total));
        cost_offset += cost_points[j];
      } else {
        const size_t terms = static_cast<size_t>(normal_points[j]) * NormalTermCount(dims[j]);
        run.TellNormalEquations(
            std::span<const double>(normal).subspan(normal_offset, terms),
            normal_seconds * normal_points[j] / static_cast<double>(normal_total));
        normal_offset += terms;
      }
      if (options.progress && run.history().size() != before_rows) {
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
