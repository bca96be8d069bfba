#include "frfit/results/mode_uncertainty.h"

#include <cmath>
#include <complex>
#include <limits>

#include "frfit/model/joint_coefficients.h"

namespace frfit {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

double PropagatedVariance(const std::vector<double>& g, const Identifiability& id) {
  const size_t p = g.size();
  double variance = 0.0;
  for (size_t a = 0; a < p; ++a)
    for (size_t b = 0; b < p; ++b)
      variance += g[a] * g[b] * id.per_parameter[a].std_absolute *
                  id.per_parameter[b].std_absolute * (a == b ? 1.0 : id.correlation[a * p + b]);
  return std::isfinite(variance) && variance >= 0.0 ? variance : kNaN;
}

std::vector<int> FreeParameterIndices(const Model& model, const Identifiability& id) {
  const size_t p = id.per_parameter.size();
  if (p == 0 || id.correlation.size() != p * p) return {};
  std::vector<int> index(p);
  for (size_t j = 0; j < p; ++j) {
    index[j] = model.FindParameter(id.per_parameter[j].name);
    if (index[j] < 0) return {};
  }
  return index;
}

std::vector<ModeSigma> PropagateModeSigmas(const Posture& posture, const Model& model,
                                           const std::vector<double>& parameters,
                                           const Identifiability& id) {
  return PropagateModeSigmas(FullHostPosture(posture), model, parameters, id);
}

std::vector<ModeSigma> PropagateModeSigmas(const HostPosture& host, const Model& model,
                                           const std::vector<double>& parameters,
                                           const Identifiability& id) {
  const Posture& posture = *host.posture;
  const JointCoefficients coefficients = host.CoefficientsAt(model, parameters);
  const std::vector<std::complex<double>> by_coefficient =
      ModeEigenvalueDerivatives(posture, coefficients);
  const std::vector<Mode> modes = ComputeModes(posture, coefficients);
  std::vector<ModeSigma> out(modes.size(), ModeSigma{kNaN, kNaN});
  const std::vector<int> index = FreeParameterIndices(model, id);
  if (index.empty()) return out;
  const int p = static_cast<int>(index.size());
  const std::vector<double> coefficient_jacobian = host.CoefficientJacobianAt(model, parameters);
  const int stride = 3 * posture.n + 1 + static_cast<int>(posture.mass_parts.size()) +
                     static_cast<int>(coefficients.parts.size());
  const int np = model.num_parameters();
  for (size_t k = 0; k < modes.size(); ++k) {
    // ∂λ/∂θ_j, then the frequency Im λ/2π and the damping ratio ζ = −a/|λ| (λ = a + ib):
    // dζ = (−b² da + a b db) / |λ|³.
    const double a = modes[k].eigenvalue.real(), b = modes[k].eigenvalue.imag();
    const double r3 = std::pow(std::abs(modes[k].eigenvalue), 3);
    std::vector<double> g_frequency(p, 0.0), g_damping(p, 0.0);
    for (int j = 0; j < p; ++j) {
      std::complex<double> d = 0.0;
      for (int row = 0; row < stride; ++row)
        d += by_coefficient[k * stride + row] *
             coefficient_jacobian[static_cast<size_t>(row) * np + index[j]];
      g_frequency[j] = d.imag() / (2.0 * M_PI);
      g_damping[j] = (-b * b * d.real() + a * b * d.imag()) / r3;
    }
    out[k].frequency_hz = std::sqrt(PropagatedVariance(g_frequency, id));
    out[k].damping_ratio = std::sqrt(PropagatedVariance(g_damping, id));
  }
  return out;
}

}  // namespace frfit
