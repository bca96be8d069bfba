#include "frfit/fit/modal_comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/modal/mode_pairing.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {
namespace {

constexpr double kReferenceMinContribution = 0.02;

// Parses "k_z1=2e6;d_z1=1200;..." against the model; false if any name is unknown or missing.
bool ParametersFromProvenance(const Model& model, const std::string& text, std::vector<double>* out) {
  out->assign(model.num_parameters(), std::nan(""));
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) return false;
    const int index = model.FindParameter(item.substr(0, eq));
    if (index < 0) return false;
    (*out)[index] = std::strtod(item.substr(eq + 1).c_str(), nullptr);
  }
  // Every parameter given and finite; positive where the model requires it (a stiffness-law
  // coefficient other than the constant may be zero or negative, as in LoadParameters).
  for (int i = 0; i < model.num_parameters(); ++i)
    if (!std::isfinite((*out)[i]) || (model.parameters[i].log_scale && !((*out)[i] > 0.0)))
      return false;
  return true;
}

}  // namespace

std::vector<Mode> ReferenceModes(const Model& model, const Posture& posture, const FrfSet& measured,
                                 double max_hz, std::string* description,
                                 std::shared_ptr<const EmaResult>* ema) {
  std::string model_name, parameters;
  for (const auto& [key, value] : measured.provenance) {
    if (key == "model") model_name = value;
    if (key == "parameters") parameters = value;
  }
  std::vector<double> values;
  std::vector<Mode> modes;
  if (model_name == model.name && ParametersFromProvenance(model, parameters, &values)) {
    *description = "modes of the model with the parameters the FRFs were synthesised from";
    std::vector<Mode> all = ComputeModes(posture, Coefficients(model, values, posture.q));
    if (!measured.response_frame.empty() || !measured.excitation_frame.empty())
      SeeShapesAt(PointsAt(model, posture, measured.response_frame, measured.excitation_frame,
                           "measured /@response_frame")
                      .response_basis,
                  &all);
    for (Mode& m : all)
      if (m.frequency_hz <= max_hz) modes.push_back(std::move(m));
    return modes;
  }
  // Measured data: the modes the FRFs themselves show (frfit ema), keeping modes that explain as
  // little as 2 % of the modal model's misfit: on noisy FRFs that misfit is mostly noise, and
  // frfit ema's default of 20 % drops real modes there (a 15 kg local mode at 27 Hz under 3 %
  // noise contributes 5-20 %). On noise-only data of the bundled KUKA model no mode appears that
  // is not one of the model's (docs/decisions.md).
  EmaOptions options;
  options.band_max_hz = max_hz;
  options.criteria.min_contribution = kReferenceMinContribution;
  try {
    EmaResult estimate = EstimateModes(measured, options, "measured FRFs");
    // The structure's damping, as frfit ema gives it: FRFs under an exponential window hold its
    // damping too (the fit warns that its own dampings include it: load_problem.cc).
    const double tau = ExponentialWindowTau(measured);
    RemoveExponentialWindow(tau, &estimate);
    auto result = std::make_shared<const EmaResult>(std::move(estimate));
    *description = "modes estimated from the measured FRFs (frfit ema): " + DescribeMethod(*result) +
                   (std::isfinite(tau) ? "; the exponential window's damping (tau " + FormatDouble(tau) +
                                             " s) removed"
                                       : "");
    for (const EmaMode& m : result->modes) modes.push_back(m.mode);
    if (ema) *ema = std::move(result);
  } catch (const Error& e) {
    *description = std::string("none: the measured FRFs give no modal estimate (") + e.what() + ")";
  }
  return modes;
}

ModalComparison CompareModes(const std::vector<Mode>& reference, const std::vector<Mode>& fitted,
                             const std::string& description, double max_hz) {
  ModalComparison out;
  out.reference = description;
  const std::vector<int> partner = PairModes(reference, fitted, {0.25, 0.0});
  std::vector<char> taken(fitted.size(), 0);
  for (size_t r = 0; r < reference.size(); ++r) {
    const Mode& ref = reference[r];
    ModalComparisonRow row;
    row.reference_frequency_hz = ref.frequency_hz;
    row.reference_damping_ratio = ref.damping_ratio;
    const Mode* best = partner[r] >= 0 ? &fitted[partner[r]] : nullptr;
    if (best) taken[partner[r]] = 1;
    row.fitted_frequency_hz = best ? best->frequency_hz : std::nan("");
    row.fitted_damping_ratio = best ? best->damping_ratio : std::nan("");
    row.frequency_error_percent = 100.0 * (row.fitted_frequency_hz - ref.frequency_hz) / ref.frequency_hz;
    row.damping_error_percent =
        100.0 * (row.fitted_damping_ratio - ref.damping_ratio) / ref.damping_ratio;
    row.mac = best ? SensorMac(ref, *best) : std::nan("");
    row.fitted_index = partner[r];
    out.rows.push_back(row);
  }
  double top = 0.0;
  for (const Mode& ref : reference) top = std::max(top, ref.frequency_hz);
  if (std::isfinite(max_hz)) top = std::max(top, max_hz);
  for (size_t f = 0; f < fitted.size(); ++f)
    if (!taken[f] && fitted[f].frequency_hz <= top)
      out.unpaired_fitted_frequency_hz.push_back(fitted[f].frequency_hz);
  double highest = 0.0;
  for (const Mode& ref : reference) highest = std::max(highest, ref.frequency_hz);
  std::vector<const Mode*> columns;
  for (const Mode& f : fitted) {
    bool paired = false;
    for (const ModalComparisonRow& row : out.rows)
      paired = paired || row.fitted_frequency_hz == f.frequency_hz;
    if (paired || f.frequency_hz <= 1.2 * highest) columns.push_back(&f);
  }
  out.mac.resize(static_cast<Eigen::Index>(reference.size()),
                 static_cast<Eigen::Index>(columns.size()));
  for (size_t c = 0; c < columns.size(); ++c) {
    out.mac_fitted_frequency_hz.push_back(columns[c]->frequency_hz);
    for (size_t r = 0; r < reference.size(); ++r) {
      const bool shapes = reference[r].sensor_shape.squaredNorm() > 0.0 &&
                          columns[c]->sensor_shape.squaredNorm() > 0.0;
      out.mac(r, c) = shapes ? Mac({reference[r].sensor_shape}, {columns[c]->sensor_shape})(0, 0)
                             : std::nan("");
    }
  }
  return out;
}

}  // namespace frfit
