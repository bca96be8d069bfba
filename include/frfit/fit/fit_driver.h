// Drives FitRuns against one Evaluator: each round packs the asked points of every unfinished
// run into one Evaluate call (one GPU job on the cuda backend) and the points of every run that
// refines by least squares into one EvaluateNormalEquations call, hands the results back,
// reports progress and writes checkpoints. A single fit is a batch of one.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

struct FitJob {
  FitRun* run;
  const ParameterMap* map;
  int num_postures;  // of the job's problem, in the evaluator's problem order
  // The postures' coordinates (rad / m), needed when the model's stiffness depends on the
  // posture; when empty, the stiffness must not (DriveFits checks).
  std::vector<std::vector<double>> posture_q = {};
  // The packed problem of a pass of the run at the point the previous pass ended
  // (FitRun::pass, pass_point; fit/fit_passes.h); may be empty for runs that have no passes.
  std::function<PackedProblem(int pass, std::span<const double> u)> problem_for_pass = {};
};

// The job of a run on `problem` (which must outlive the drive): its postures' coordinates and its
// passes' problems (fit_passes.h) filled in, and the problem's measured modes and, for a reduced
// problem, its reduction floor given to the run (FitRun::UseModalData, UseReductionFloor). The evaluator's problem for it starts as
// PackForPass(problem, map, 0, {}) — Pack(problem) for the log costs.
FitJob MakeFitJob(FitRun* run, const ParameterMap& map, const Problem& problem);

struct ProgressEvent {
  int job;                 // index into the jobs
  FitPhase phase;           // of the step that just finished, as are cycle and step
  int cycle;
  int step;                 // GA generation (0: the initial population) or NM iteration
  double best_cost;
  std::int64_t evaluations;
  double evaluations_per_second;  // over the whole drive so far, all jobs together
};

struct DriveOptions {
  // Called after a round in which a job finished a GA generation or NM iteration.
  std::function<void(const ProgressEvent&)> progress;
  // Called with every job's saved state, after a round, when checkpoint_every_evaluations more
  // evaluations (all jobs together) have been done, or checkpoint_every_seconds of wall time have
  // passed, since the last call (or the start); each trigger is off at 0. A checkpoint's size
  // grows with the number of jobs, so a count-based trigger costs a batch of N jobs N² in
  // total; the time-based one keeps checkpoints a fixed share of the run.
  std::int64_t checkpoint_every_evaluations = 0;
  double checkpoint_every_seconds = 0.0;
  // How the states carry the cost histories: with kRowCountOnly the callback keeps the rows
  // itself (a HistoryLog), which a batch of many long jobs needs to keep checkpoints small.
  StateHistory checkpoint_history = StateHistory::kInline;
  std::function<void(const std::vector<nlohmann::json>&)> checkpoint;
  // Threads for the rounds' own work between evaluator calls: each job's Tell (a least-squares
  // step solve) and the problem of a job that moves to a refinement pass (its model's FRFs for
  // the new weights). Every job's work is its own, so the count changes no result; with a fleet
  // of jobs it is the evaluator's thread count.
  int threads = 1;

  // Names the offending field: the checkpoint triggers >= 0 (seconds finite), checkpoint_history
  // one of StateHistory's values, threads >= 1 (a caller resolves "all hardware threads" itself).
  bool IsValid(std::string* error) const;
};

// Jobs are in the same order as the evaluator's problems, each packed for the run's current pass
// (a fresh run: pass 0); a job whose run moves to another pass gets that pass's problem
// (Evaluator::SetProblem). Returns when every run is done. Invalid options throw
// Error("drive: <field>: expected …") before any job is looked at.
void DriveFits(const std::vector<FitJob>& jobs, Evaluator* evaluator, const DriveOptions& options);

}  // namespace frfit
