#include "frfit/predict/posture_map.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

#include "frfit/common/error.h"
#include "frfit/results/mode_uncertainty.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/posture/posture.h"
#include "frfit/predict/lobes_model.h"
#include "tool_tip_receptance.h"

namespace frfit {
namespace {

using Cplx = std::complex<double>;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Where the tool tip may give way most: 0 Hz (the static compliance), the band's top, and the
// peak of `magnitude` near each mode in the band (within ±3 half-power bandwidths).
double LeastStiffFrequency(const std::function<double(double)>& magnitude,
                           const Eigen::VectorXcd& lambda, double max_hz) {
  double best = 0.0, best_value = magnitude(0.0);
  auto consider = [&](double f) {
    const double value = magnitude(f);
    if (value > best_value) best = f, best_value = value;
  };
  consider(max_hz);
  for (int r = 0; r < lambda.size(); ++r) {
    const double f = lambda(r).imag() / (2.0 * M_PI), width = std::abs(lambda(r).real()) / (2.0 * M_PI);
    if (!(f > 0.0) || f - 3.0 * width > max_hz) continue;
    const double low = std::max(0.0, f - 3.0 * width), high = std::min(max_hz, f + 3.0 * width);
    if (high > low) consider(PeakFrequency(magnitude, low, high));
  }
  return best;
}

// ∂k/∂θ of the stiffness k = 1/|H_ii(ω)| at its minimum ω (where ∂|H_ii|/∂ω = 0, so ω stays):
// ∂H/∂c = −Gᵀ(∂Z/∂c)G with G = Z⁻¹B (Z is symmetric), ∂Z/∂c of linearize.cc's TangentStiffness
// and TangentDamping: e_j e_jᵀ for k_j, iω e_j e_jᵀ for the viscous d_j, i e_j e_jᵀ for the
// hysteretic η_j k_j, iω M for α, MassPartDerivative for a fitted mass, a beam's affine parts by
// their target. Chained with ∂c/∂θ over the free parameters `index`.
std::vector<double> StiffnessGradient(const Posture& posture, const JointCoefficients& c,
                                      const std::vector<double>& coefficient_jacobian, int np,
                                      const std::vector<int>& index, int axis, double frequency_hz) {
  const int n = posture.n;
  const double w = 2.0 * M_PI * frequency_hz;
  const Cplx iw(0.0, w);
  const Eigen::MatrixXcd M = MassMatrix(posture, c).cast<Cplx>();
  const Eigen::MatrixXcd Z = -w * w * M + iw * TangentDamping(posture, c).cast<Cplx>() +
                             TangentStiffness(posture, c);
  const Eigen::VectorXcd g = Z.partialPivLu().solve(posture.sensor_basis.col(axis).cast<Cplx>());
  const Cplx h = (posture.sensor_basis.col(axis).cast<Cplx>().transpose() * g)(0, 0);
  const int masses = static_cast<int>(posture.mass_parts.size());
  std::vector<Cplx> dh(3 * n + 1 + masses + c.parts.size());
  for (int j = 0; j < n; ++j) {
    dh[j] = -g(j) * g(j);
    dh[n + j] = iw * dh[j];
    dh[2 * n + j] = Cplx(0.0, 1.0) * dh[j];
  }
  dh[3 * n] = -iw * (g.transpose() * M * g)(0, 0);
  for (int b = 0; b < masses; ++b)
    dh[3 * n + 1 + b] = -(g.transpose() * MassPartDerivative(posture, c, b, w) * g)(0, 0);
  // A beam's affine parts (posture.h, AffinePart): ∂Z/∂c_a is the part's matrix times 1 (K), i
  // (loss), iω (C) or −ω² + iωα (M, whose α·M share is damping too).
  for (const AffinePart& part : posture.affine_parts) {
    using T = AffinePart::Target;
    const Cplx scale = part.target == T::kStiffness       ? Cplx(1.0, 0.0)
                       : part.target == T::kLossStiffness ? Cplx(0.0, 1.0)
                       : part.target == T::kDamping       ? iw
                                                          : -w * w + iw * c.mass_proportional;
    dh[3 * n + 1 + masses + part.coefficient] -=
        scale * (g.transpose() * part.matrix.cast<Cplx>() * g)(0, 0);
  }
  const double magnitude = std::abs(h);
  std::vector<double> gradient(index.size(), 0.0);
  for (size_t p = 0; p < index.size(); ++p) {
    Cplx d = 0.0;
    for (int row = 0; row < static_cast<int>(dh.size()); ++row)
      d += dh[row] * coefficient_jacobian[static_cast<size_t>(row) * np + index[p]];
    gradient[p] = -(std::conj(h) * d).real() / (magnitude * magnitude * magnitude);
  }
  return gradient;
}

ToolTipStiffness Stiffness(const Posture& posture, const JointCoefficients& c, const Model& model,
                           const std::vector<double>& parameters, const Identifiability& id,
                           double max_hz) {
  const ToolTipReceptance receptance(posture, c);
  ToolTipStiffness out;
  const std::vector<int> index = FreeParameterIndices(model, id);
  const std::vector<double> jacobian =
      index.empty() ? std::vector<double>() : CoefficientJacobian(model, parameters, posture.q);
  for (int i = 0; i < 3; ++i) {
    // Searched on |H_ii|²: the same maximum, without a square root per evaluation.
    auto magnitude = [&](double f) { return receptance.DiagonalNorm(i, f); };
    const double f = LeastStiffFrequency(magnitude, receptance.eigenvalues(), max_hz);
    out.axis_at_hz[i] = f;
    out.axis_n_per_m[i] = 1.0 / std::abs(receptance.At(f)(i, i));
    out.axis_sigma_n_per_m[i] =
        index.empty() ? kNaN
                      : std::sqrt(PropagatedVariance(
                            StiffnessGradient(posture, c, jacobian, model.num_parameters(), index, i, f), id));
  }
  auto largest = [&](double f) { return receptance.LargestSingularValueSquared(f); };
  out.least_at_hz = LeastStiffFrequency(largest, receptance.eigenvalues(), max_hz);
  // The direction: the right singular vector of the largest singular value (HᴴH's eigenvector),
  // turned so that its largest component is real and positive; what is left imaginary is the part
  // of the motion out of phase.
  const Eigen::Matrix3cd h = receptance.At(out.least_at_hz);
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3cd> gram(h.adjoint() * h);
  out.least_n_per_m = 1.0 / std::sqrt(gram.eigenvalues()(2));
  Eigen::Vector3cd v = gram.eigenvectors().col(2);
  int k = 0;
  v.cwiseAbs().maxCoeff(&k);
  v *= std::polar(1.0, -std::arg(v(k)));
  const Eigen::Vector3d direction = v.real().normalized();
  for (int a = 0; a < 3; ++a) out.least_direction[a] = direction(a);
  return out;
}

MapStability Stability(const Posture& posture, const JointCoefficients& c, const CutConfig& cut) {
  const StabilityLobes lobes = ComputeStabilityLobes(ToolTipFrf(posture, c, cut), LobeOptionsFor(cut));
  return {lobes.critical_depth_m, lobes.critical_spindle_speed_rpm, lobes.absolute_critical_depth_m};
}

MapPoint ComputePoint(const Model& model, const std::vector<double>& parameters, const Identifiability& id,
                      const std::vector<double>& q, const MapOptions& options) {
  const double max_hz = options.max_hz;
  MapPoint point;
  point.q = q;
  const Posture posture = Linearize(model, q, "map");
  const JointCoefficients c = Coefficients(model, parameters, q);
  const std::vector<Mode> modes = AnalyseModes(posture, c).modes;
  const std::vector<ModeSigma> sigma = PropagateModeSigmas(posture, model, parameters, id);
  for (size_t k = 0; k < modes.size(); ++k) {
    if (modes[k].frequency_hz > max_hz) break;  // sorted by frequency
    MapMode m{modes[k].frequency_hz, modes[k].damping_ratio, sigma[k].frequency_hz,
              sigma[k].damping_ratio, {}};
    for (int j = 0; j < posture.n; ++j)
      if (std::abs(modes[k].shape(j)) >= 0.5) m.dominant_dofs.push_back(model.dofs[j].name);
    point.modes.push_back(std::move(m));
  }
  point.stiffness = Stiffness(posture, c, model, parameters, id, max_hz);
  if (options.cut) point.stability = Stability(posture, c, *options.cut);
  return point;
}

}  // namespace

bool MapOptions::IsValid(std::string* error) const {
  if (!(max_hz > 0.0) || !std::isfinite(max_hz))
    return Invalid(error, "max_hz: expected a finite frequency > 0 Hz, got " + FormatDouble(max_hz));
  if (threads < 1) return Invalid(error, "threads: expected an integer >= 1, got " + std::to_string(threads));
  std::string inner;
  if (cut && !LobeOptionsFor(*cut).IsValid(&inner)) return Invalid(error, "cut." + inner);
  return true;
}

std::vector<MapPoint> ComputePostureMap(const Model& model, const std::vector<double>& parameters,
                                        const Identifiability& id,
                                        const std::vector<std::vector<double>>& postures,
                                        const MapOptions& options) {
  if (std::string error; !options.IsValid(&error)) throw Error("posture map", "", error);
  std::vector<MapPoint> points(postures.size());
  std::atomic<size_t> next{0}, done{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  // Each posture is independent: threads take the next one until none is left; the first error
  // (a posture-dependent stiffness law giving k <= 0 there, say) stops the map. Only the calling
  // thread reports progress, so the callback need not be thread-safe.
  auto work = [&](bool reports) {
    for (size_t i; (i = next++) < postures.size();) {
      try {
        points[i] = ComputePoint(model, parameters, id, postures[i], options);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = postures.size();
      }
      const size_t finished = ++done;
      if (reports && options.progress) options.progress(finished, postures.size());
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, options.threads); ++t) threads.emplace_back(work, false);
  work(true);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  if (options.progress) options.progress(postures.size(), postures.size());
  return points;
}

}  // namespace frfit
