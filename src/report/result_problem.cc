#include "frfit/report/result_problem.h"

#include "frfit/common/error.h"

namespace frfit {

Problem ProblemFromResult(const ReportData& data, std::shared_ptr<const Model> model,
                          const FitOptions& options) {
  Problem problem;
  problem.model = model;
  problem.cost = options.cost;
  for (const ReportPosture& rp : data.postures) {
    if (model->FindPosture(rp.posture) < 0)
      throw Error(data.result_file, "/postures/" + rp.name,
                  "posture '" + rp.posture + "' is not in model '" + model->name + "'");
    ProblemPosture pp;
    pp.posture = Linearize(*model, rp.posture);
    pp.source = rp.frf_file;
    pp.measured.posture = rp.posture;
    pp.measured.response_frame = rp.response_frame;
    pp.measured.excitation_frame = rp.excitation_frame;
    if (!FromString(rp.format, &pp.measured.format))
      throw Error(data.result_file, "/postures/" + rp.name + "@format",
                  "unknown format '" + rp.format + "'");
    pp.measured.frequency_hz = rp.frequency_hz;
    pp.measured.H = rp.measured;
    pp.measured.present = rp.present;
    // The noise model the fit weighed by: a candidate is assumed as noisy (posture_design.cc).
    pp.measured.noise_variance = rp.noise_variance;
    pp.measured.noise_source = rp.noise_source;
    pp.weights = rp.weights;
    const auto weight = options.posture_weights.find(rp.posture);
    pp.posture_weight = weight == options.posture_weights.end() ? 1.0 : weight->second;
    SetMeasurementPoints(*model, data.result_file + " /postures/" + rp.name, &pp);
    problem.postures.push_back(std::move(pp));
  }
  return problem;
}

}  // namespace frfit
