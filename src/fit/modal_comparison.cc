#include "frfit/fit/modal_comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/model/joint_coefficients.h"

namespace frfit {
namespace {

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
    for (Mode& m : ComputeModes(posture, Coefficients(model, values, posture.q)))
      if (m.frequency_hz <= max_hz) modes.push_back(std::move(m));
    return modes;
  }
  // Measured data: the modes the FRFs themselves show (frfit ema with its defaults).
  EmaOptions options;
  options.band_max_hz = max_hz;
  try {
    auto result = std::make_shared<const EmaResult>(EstimateModes(measured, options, "measured FRFs"));
    *description = "modes estimated from the measured FRFs (frfit ema): " + DescribeMethod(*result);
    for (const EmaMode& m : result->modes) modes.push_back(m.mode);
    if (ema) *ema = std::move(result);
  } catch (const Error& e) {
    *description = std::string("none: the measured FRFs give no modal estimate (") + e.what() + ")";
  }
  return modes;
}

ModalComparison CompareModes(const std::vector<Mode>& reference, const std::vector<Mode>& fitted,
                             const std::string& description) {
  ModalComparison out;
  out.reference = description;
  for (const Mode& ref : reference) {
    ModalComparisonRow row;
    row.reference_frequency_hz = ref.frequency_hz;
    row.reference_damping_ratio = ref.damping_ratio;
    const Mode* best = nullptr;
    for (const Mode& f : fitted)
      if (!best || std::abs(f.frequency_hz - ref.frequency_hz) < std::abs(best->frequency_hz - ref.frequency_hz))
        best = &f;
    if (!best) {
      row.fitted_frequency_hz = row.fitted_damping_ratio = std::nan("");
    } else {
      row.fitted_frequency_hz = best->frequency_hz;
      row.fitted_damping_ratio = best->damping_ratio;
    }
    row.frequency_error_percent = 100.0 * (row.fitted_frequency_hz - ref.frequency_hz) / ref.frequency_hz;
    row.damping_error_percent =
        100.0 * (row.fitted_damping_ratio - ref.damping_ratio) / ref.damping_ratio;
    row.mac = std::nan("");
    // Over the axes the reference knows: an estimated shape is NaN on axes no FRF measured.
    if (best) {
      Eigen::VectorXcd a(3), b(3);
      int n = 0;
      for (int i = 0; i < 3; ++i)
        if (std::isfinite(std::abs(ref.sensor_shape(i)))) a(n) = ref.sensor_shape(i), b(n++) = best->sensor_shape(i);
      a.conservativeResize(n), b.conservativeResize(n);
      if (a.squaredNorm() > 0.0 && b.squaredNorm() > 0.0) row.mac = Mac({a}, {b})(0, 0);
    }
    out.rows.push_back(row);
  }
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
