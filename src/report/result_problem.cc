#include "frfit/report/result_problem.h"

#include "frfit/common/error.h"

namespace frfit {

Problem ProblemFromResult(const FitResult& result, std::shared_ptr<const Model> model,
                          const FitOptions& options) {
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  for (const PostureResult& rp : result.postures) {
    const std::string& posture = rp.measured.posture;
    if (model->FindPosture(posture) < 0)
      throw Error(result.file, "/postures/" + rp.name,
                  "posture '" + posture + "' is not in model '" + model->name + "'");
    ProblemPosture pp;
    pp.posture = Linearize(*model, posture);
    pp.source = rp.frf_source;
    // The set as fitted, with the noise model the fit weighed by: a candidate is assumed as noisy
    // (posture_design.cc).
    pp.measured = rp.measured;
    pp.weights = rp.weights;
    const auto weight = options.posture_weights.find(posture);
    pp.posture_weight = weight == options.posture_weights.end() ? 1.0 : weight->second;
    SetMeasurementPoints(*model, result.file + " /postures/" + rp.name, &pp);
    problem.postures.push_back(std::move(pp));
  }
  return problem;
}

}  // namespace frfit
