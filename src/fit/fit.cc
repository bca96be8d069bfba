#include "frfit/fit/fit.h"

#include "frfit/fit/fit_passes.h"

namespace frfit {

void DriveTogether(const std::vector<BatchFit>& fits, Evaluator* evaluator,
                   const DriveOptions& drive) {
  std::vector<PackedProblem> packed;
  std::vector<FitJob> jobs;
  for (const BatchFit& fit : fits) {
    packed.push_back(PackForPass(*fit.problem, *fit.map, 0, {}));
    jobs.push_back(MakeFitJob(fit.run, *fit.map, *fit.problem));
  }
  evaluator->SetProblems(std::move(packed));
  DriveFits(jobs, evaluator, drive);
}

}  // namespace frfit
