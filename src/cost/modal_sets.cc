#include "frfit/cost/modal_sets.h"

#include <cmath>

#include "frfit/common/error.h"

namespace frfit {

bool ModalCostOptions::IsValid(std::string* error) const {
  if (!(shape_std > 0.0) || !std::isfinite(shape_std))
    return (error ? *error = "modes.shape_std: expected a positive number" : std::string()), false;
  return true;
}

MeasuredMode MakeMeasuredMode(double frequency_hz, double frequency_sigma_hz,
                              double damping_ratio, double damping_sigma,
                              const Eigen::VectorXcd& shape, const std::string& source,
                              const std::string& field, const std::string& shape_field) {
  MeasuredMode m;
  m.frequency_hz = frequency_hz;
  m.damping_ratio = damping_ratio;
  if (!(m.frequency_hz > 0.0) || !std::isfinite(m.frequency_hz))
    throw Error(source, field + ".frequency_hz", "expected a positive frequency");
  const bool has_sigma = frequency_sigma_hz > 0.0 && std::isfinite(frequency_sigma_hz);
  m.frequency_sigma_hz = has_sigma ? frequency_sigma_hz : 0.01 * m.frequency_hz;
  const bool has_damping_sigma = damping_sigma > 0.0 && std::isfinite(damping_sigma);
  m.damping_sigma = has_damping_sigma ? damping_sigma : 0.25 * std::abs(m.damping_ratio);
  double norm2 = 0.0;
  for (Eigen::Index a = 0; a < shape.size(); ++a)
    if (std::isfinite(std::abs(shape(a)))) norm2 += std::norm(shape(a));
  if (!(norm2 > 0.0))
    throw Error(source, shape_field, "expected a shape with a non-zero known entry");
  m.shape = shape / std::sqrt(norm2);
  return m;
}

ModalSet MakeModalSet(const Model& model, const EmaResult& ema, const std::string& source) {
  const FrfSet& measured = ema.measured;
  if (measured.posture.empty() || model.FindPosture(measured.posture) < 0)
    throw Error(source, "posture",
                "expected a posture of model '" + model.name + "' (it has " + model.PostureNames() +
                    "), got '" + measured.posture + "'");
  if (ema.modes.empty())
    throw Error(source, "modes", "expected at least one mode (frfit ema found none)");
  ModalSet set;
  set.source = source;
  set.posture = Linearize(model, measured.posture);
  set.response_frames = {measured.response_frame};
  set.basis = PointsAt(model, set.posture, measured.response_frame, measured.excitation_frame,
                       source).response_basis;
  for (size_t i = 0; i < ema.modes.size(); ++i) {
    const EmaMode& e = ema.modes[i];
    const std::string field = "modes[" + std::to_string(i) + "]";
    set.modes.push_back(MakeMeasuredMode(e.mode.frequency_hz, e.frequency_sigma_hz,
                                         e.mode.damping_ratio, e.damping_sigma,
                                         e.mode.sensor_shape, source, field,
                                         field + ".sensor_shape"));
  }
  return set;
}

Eigen::MatrixXd StackedPointBasis(const Model& model, const Posture& posture,
                                  const std::vector<std::string>& frames,
                                  const std::string& source) {
  Eigen::MatrixXd basis(posture.n, 3 * static_cast<Eigen::Index>(frames.size()));
  for (size_t i = 0; i < frames.size(); ++i)
    basis.middleCols(3 * static_cast<Eigen::Index>(i), 3) =
        PointsAt(model, posture, frames[i], frames[i], source).response_basis;
  return basis;
}

}  // namespace frfit
