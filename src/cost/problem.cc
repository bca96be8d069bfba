#include "frfit/cost/problem.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "frfit/common/error.h"
#include "frfit/cost/residual_weight.h"
#include "frfit/modal/ema.h"
#include "kernels/det_math.h"
#include "kernels/line_cost.h"

namespace frfit {
namespace {

bool Bad(std::complex<double> h) {
  return !std::isfinite(h.real()) || !std::isfinite(h.imag()) || (h.real() == 0.0 && h.imag() == 0.0);
}

// The cost options with the peaks at the modes frfit ema finds in the prepared data.
CostOptions WithEmaPeaks(const FrfSet& prepared, const CostOptions& cost, const std::string& source) {
  CostOptions out = cost;
  std::string why;
  try {
    for (const EmaMode& m : EstimateModes(prepared, EmaOptions{}, source).modes)
      out.weights.peak_frequencies_hz.push_back(m.mode.frequency_hz);
  } catch (const Error& e) {
    why = std::string(": ") + e.what();
  }
  if (out.weights.peak_frequencies_hz.empty())
    throw Error(source, "cost.weights.ema_peaks",
                "expected the measured FRFs to show stable modes in the band, found none" + why +
                    " (give peak_frequencies_hz or set ema_peaks: false)");
  return out;
}

// The prepared set's noise model as cost.noise asks: the file's, or estimated from the data.
void ChooseNoiseModel(const CostOptions& cost, const std::string& source, ProblemPosture* out) {
  FrfSet& set = out->measured;
  const bool needed = cost.weights.mode == WeightMode::kNoise;
  if (cost.noise.source == NoiseSource::kFile && set.noise_variance.empty())
    throw Error(source, "noise_variance",
                "cost.noise.source is file, but the file carries no noise model (a noise_variance, "
                "or coherence with averages: docs/file-formats.md)");
  if (!set.noise_variance.empty() && cost.noise.source != NoiseSource::kEstimate) return;
  try {
    out->noise_estimate = EstimateNoise(set, source);
  } catch (const Error&) {
    if (needed) throw;
    set.noise_variance.clear();  // no noise model: the fit goes on without one
    set.noise_source.clear();
    return;
  }
  set.noise_variance = out->noise_estimate.variance;
  set.noise_source = "estimated";
}

// Affine part coefficients a posture's parts use: one more than the largest index.
int PartCoefficients(const Posture& posture) {
  int count = 0;
  for (const AffinePart& part : posture.affine_parts) count = std::max(count, part.coefficient + 1);
  return count;
}

// The affine parts row-major with their (target, coefficient) pairs (PackedPosture).
void PackAffineParts(const Posture& posture, PackedPosture* p) {
  static_assert(static_cast<int>(AffinePart::Target::kStiffness) == kernels::kPartStiffness &&
                    static_cast<int>(AffinePart::Target::kLossStiffness) ==
                        kernels::kPartLossStiffness &&
                    static_cast<int>(AffinePart::Target::kDamping) == kernels::kPartDamping &&
                    static_cast<int>(AffinePart::Target::kMass) == kernels::kPartMass,
                "PartTarget follows AffinePart::Target");
  if (static_cast<int>(posture.affine_parts.size()) > kernels::kMaxParts)
    throw Error("posture " + posture.name, "affine parts",
                "at most " + std::to_string(kernels::kMaxParts) + " parts, got " +
                    std::to_string(posture.affine_parts.size()));
  for (const AffinePart& part : posture.affine_parts) {
    if (part.matrix.rows() != posture.n || part.matrix.cols() != posture.n || part.coefficient < 0)
      throw Error("posture " + posture.name, "affine parts",
                  "expected n×n matrices (n = " + std::to_string(posture.n) +
                      ") with coefficient indices >= 0");
    for (int r = 0; r < posture.n; ++r)
      for (int c = 0; c < posture.n; ++c) p->part_matrices.push_back(part.matrix(r, c));
    p->part_layout.push_back(static_cast<double>(part.target));
    p->part_layout.push_back(static_cast<double>(part.coefficient));
  }
}

// M0 and K_gravity row-major; with fitted masses their rest and each mass's share per kg
// (PackedPosture), so that the kernels add m_b·share to the rest for every individual.
void PackMassMatrices(const Posture& posture, PackedPosture* p) {
  auto append = [](const Eigen::MatrixXd& m, std::vector<double>* out) {
    for (int r = 0; r < m.rows(); ++r)
      for (int c = 0; c < m.cols(); ++c) out->push_back(m(r, c));
  };
  if (posture.mass_parts.empty()) {
    append(posture.mass, &p->mass);
    append(posture.gravity_stiffness, &p->gravity);
    return;
  }
  JointCoefficients rest;
  rest.masses.assign(posture.mass_parts.size(), 0.0);
  rest.parts.assign(PartCoefficients(posture), 0.0);  // mass parts are the kernels' to add
  append(MassMatrix(posture, rest), &p->mass);
  append(GravityStiffness(posture, rest), &p->gravity);
  for (const MassPart& part : posture.mass_parts) {
    append(part.mass, &p->mass_parts);
    append(part.gravity, &p->gravity_parts);
  }
}

}  // namespace

std::vector<int> FindPeaks(const std::vector<double>& magnitude, double min_prominence_db,
                           double floor_db) {
  const int n = static_cast<int>(magnitude.size());
  const double ratio = std::pow(10.0, min_prominence_db / 20.0);
  std::vector<int> peaks;
  for (int k = 1; k + 1 < n; ++k) {
    const double m = magnitude[k];
    if (!(m > magnitude[k - 1] && m >= magnitude[k + 1])) continue;
    // Walk out to the nearest higher line (or the end) on each side, keeping the valley.
    double left = m, right = m;
    for (int l = k - 1; l >= 0 && magnitude[l] <= m; --l) left = std::min(left, magnitude[l]);
    for (int r = k + 1; r < n && magnitude[r] <= m; ++r) right = std::min(right, magnitude[r]);
    if (m >= ratio * std::max(left, right)) peaks.push_back(k);
  }
  double highest = 0.0;
  for (int k : peaks) highest = std::max(highest, magnitude[k]);
  const double floor = highest * std::pow(10.0, -floor_db / 20.0);
  std::erase_if(peaks, [&](int k) { return magnitude[k] < floor; });
  return peaks;
}

std::vector<double> ComputeWeights(const FrfSet& set, const CostOptions& cost) {
  const WeightOptions& w = cost.weights;
  const int lines = set.num_lines();
  std::vector<double> weights(static_cast<size_t>(lines) * 9, 0.0);
  std::array<bool, 9> fitted{};
  for (int e = 0; e < 9; ++e) fitted[e] = cost.entries[e] && set.present[e];
  const double base = w.mode == WeightMode::kUniform ? 1.0 : w.base_gain;
  for (int k = 0; k < lines; ++k)
    for (int e = 0; e < 9; ++e)
      if (fitted[e]) weights[k * 9 + e] = base;
  if (w.mode == WeightMode::kUniform) return weights;
  if (w.mode == WeightMode::kNoise) {
    if (set.noise_variance.empty())
      throw Error("", "cost.weights.mode", "noise weights need a noise model (cost.noise)");
    for (size_t i = 0; i < weights.size(); ++i)
      if (weights[i] != 0.0) weights[i] = InverseNoiseVariance(cost.type, set.H[i], set.noise_variance[i]);
    return weights;
  }
  if (w.mode == WeightMode::kBands) {
    for (const WeightBand& band : w.bands)
      for (int k = 0; k < lines; ++k)
        if (set.frequency_hz[k] >= band.from_hz && set.frequency_hz[k] <= band.to_hz)
          for (int e = 0; e < 9; ++e)
            if (fitted[e] && band.entries[e]) weights[k * 9 + e] = band.gain;
    return weights;
  }
  auto mark = [&](int peak, int entry) {
    for (int k = std::max(0, peak - w.peak_halfwidth_lines);
         k <= std::min(lines - 1, peak + w.peak_halfwidth_lines); ++k)
      weights[k * 9 + entry] = w.peak_gain;
  };
  std::vector<int> shared_peaks;
  if (!w.peak_frequencies_hz.empty()) {
    for (double f : w.peak_frequencies_hz) {
      const auto it = std::lower_bound(set.frequency_hz.begin(), set.frequency_hz.end(), f);
      int k = static_cast<int>(it - set.frequency_hz.begin());
      if (k == lines || (k > 0 && f - set.frequency_hz[k - 1] < set.frequency_hz[k] - f)) --k;
      shared_peaks.push_back(k);
    }
  } else if (!w.peaks_per_entry) {
    std::vector<double> sum(lines, 0.0);
    for (int k = 0; k < lines; ++k)
      for (int i = 0; i < 3; ++i)
        if (fitted[EntryIndex(i, i)]) sum[k] += std::abs(set.at(k, i, i));
    shared_peaks = FindPeaks(sum, w.min_prominence_db, w.peak_floor_db);
  }
  for (int e = 0; e < 9; ++e) {
    if (!fitted[e]) continue;
    std::vector<int> peaks = shared_peaks;
    if (w.peak_frequencies_hz.empty() && w.peaks_per_entry) {
      std::vector<double> magnitude(lines);
      for (int k = 0; k < lines; ++k) magnitude[k] = std::abs(set.H[k * 9 + e]);
      peaks = FindPeaks(magnitude, w.min_prominence_db, w.peak_floor_db);
    }
    for (int peak : peaks) mark(peak, e);
  }
  return weights;
}

ProblemPosture PreparePosture(const Posture& posture, const FrfSet& measured,
                              const CostOptions& cost, const std::string& source,
                              double posture_weight) {
  std::string error;
  if (!cost.IsValid(&error)) throw Error(source, "", error);
  Validate(measured, source);
  ProblemPosture out;
  out.posture = posture;
  out.source = source;
  out.posture_weight = posture_weight;
  if (measured.posture != posture.name)
    throw Error(source, "/@posture", "expected posture '" + posture.name + "', the file says '" +
                                         measured.posture + "'");
  // Band first, so bad lines outside the band do not matter.
  std::vector<int> file_line;  // index in the file of each banded line, for messages
  for (int k = 0; k < measured.num_lines(); ++k) {
    const double f = measured.frequency_hz[k];
    if (f >= cost.band_min_hz && f <= cost.band_max_hz) file_line.push_back(k);
  }
  const FrfSet banded = SelectLines(measured, file_line);
  if (banded.frequency_hz.empty())
    throw Error(source, "frequency_hz",
                "no line inside the fitted band cost.band_hz = [" + FormatDouble(cost.band_min_hz) + ", " +
                    FormatDouble(cost.band_max_hz) + "] Hz (the file covers " +
                    FormatDouble(measured.frequency_hz.front()) + " to " +
                    FormatDouble(measured.frequency_hz.back()) + " Hz)");
  std::array<bool, 9> fitted{};
  bool any = false;
  for (int e = 0; e < 9; ++e) {
    fitted[e] = cost.entries[e] && measured.present[e];
    any = any || fitted[e];
  }
  if (!any) throw Error(source, "present", "none of the fitted entries is in the file");

  // Reciprocity (H = Hᵀ) holds at a driving point only: a transfer set between two points is
  // fitted as measured.
  const bool driving_point = measured.response_frame == measured.excitation_frame;
  FrfSet symmetric =
      Symmetrize(banded, driving_point ? cost.symmetrization : Symmetrization::kNone);
  // Bad lines: checked in the measured format (before conversion, which cannot repair them) and
  // at 0 Hz where converting down would divide by zero.
  std::vector<int> kept;
  for (int k = 0; k < symmetric.num_lines(); ++k) {
    std::string bad;
    for (int e = 0; e < 9 && bad.empty(); ++e)
      if (fitted[e] && Bad(symmetric.H[k * 9 + e])) bad = "H_" + EntryName(e) + " is zero or not finite";
    const bool zero_hz = symmetric.frequency_hz[k] == 0.0 &&
                         DerivativeOrder(cost.fit_format) != DerivativeOrder(symmetric.format);
    if (bad.empty() && zero_hz) bad = "0 Hz cannot be converted between FRF formats";
    if (!bad.empty()) {
      if (!cost.drop_bad_lines)
        throw Error(source, "line " + std::to_string(file_line[k]) + " (" +
                                FormatDouble(symmetric.frequency_hz[k]) + " Hz)",
                    bad + " (set cost.drop_bad_lines: true to leave such lines out)");
      out.dropped_hz.push_back(symmetric.frequency_hz[k]);
      continue;
    }
    kept.push_back(k);
  }
  if (kept.empty()) throw Error(source, "", "every line in the band is bad");
  out.measured = ConvertFormat(SelectLines(symmetric, kept), cost.fit_format);
  ChooseNoiseModel(cost, source, &out);
  out.weights =
      ComputeWeights(out.measured, cost.weights.ema_peaks ? WithEmaPeaks(out.measured, cost, source) : cost);
  for (int k = 0; k < out.measured.num_lines(); ++k)
    for (int e = 0; e < 9; ++e)
      if (!fitted[e]) out.weights[k * 9 + e] = 0.0;
  return out;
}

std::vector<int> ClearPeaks(const FrfSet& set, const WeightOptions& weights, int entry) {
  const int n = set.num_lines();
  std::vector<double> magnitude(n);
  for (int k = 0; k < n; ++k) magnitude[k] = std::abs(set.H[k * 9 + entry]);
  std::vector<int> peaks = FindPeaks(magnitude, weights.min_prominence_db, weights.peak_floor_db);
  if (set.noise_variance.size() != set.H.size()) return peaks;
  // A peak clear of the noise stands 10 dB above it, and above the higher of its two valleys
  // (FindPeaks' prominence) by 3 noise standard deviations: a bump the noise can make does not.
  std::erase_if(peaks, [&](int k) {
    const double m = magnitude[k], variance = set.noise_variance[k * 9 + entry];
    double left = m, right = m;
    for (int l = k - 1; l >= 0 && magnitude[l] <= m; --l) left = std::min(left, magnitude[l]);
    for (int r = k + 1; r < n && magnitude[r] <= m; ++r) right = std::min(right, magnitude[r]);
    const double rise = m - std::max(left, right);
    return !(m * m >= 10.0 * variance && rise * rise >= 9.0 * variance);
  });
  return peaks;
}

std::vector<double> NoiseWeightsAtModel(const ProblemPosture& posture, const FrfSet& model,
                                        const CostOptions& cost) {
  const FrfSet& set = posture.measured;
  if (model.H.size() != set.H.size())
    throw Error("", "weights", "expected the model's FRF on the " +
                                   std::to_string(set.num_lines()) + " lines of the fit");
  std::vector<double> weights = posture.weights;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] == 0.0) continue;
    const double variance = NoiseVarianceAt(set, posture.noise_estimate, i, model.H[i]);
    weights[i] = InverseNoiseVariance(cost.type, model.H[i], variance);
    if (weights[i] == 0.0) weights[i] = std::numeric_limits<double>::min();  // stays fitted
  }
  return weights;
}

void SetMeasurementPoints(const Model& model, const std::string& source, ProblemPosture* posture) {
  posture->points = PointsAt(model, posture->posture, posture->measured.response_frame,
                             posture->measured.excitation_frame, source + " /@response_frame");
}

MeasurementPoints PointsOf(const ProblemPosture& pp) {
  if (pp.points.response_basis.size() > 0) return pp.points;
  // Never fit a set measured elsewhere as tool-tip data.
  if (!pp.measured.response_frame.empty() || !pp.measured.excitation_frame.empty())
    throw Error(pp.source, "/@response_frame",
                "the set names measurement frames ('" + pp.measured.response_frame + "', '" +
                    pp.measured.excitation_frame +
                    "') that were not resolved on the model (SetMeasurementPoints)");
  return {"", "", pp.posture.sensor_basis, pp.posture.sensor_basis};
}

std::string SetName(const std::string& posture, const std::string& a, const std::string& b) {
  if (a.empty() && b.empty()) return posture;
  return posture + ":" + (a.empty() ? "sensor" : a) + ":" + (b.empty() ? "sensor" : b);
}

std::string SetName(const ProblemPosture& pp) {
  if (pp.is_static) return pp.source;
  return SetName(pp.posture.name, pp.measured.response_frame, pp.measured.excitation_frame);
}

static_assert(kernels::kCostNormalizedComplex == 2, "PackedPosture::CostKind's static kind");

PackedProblem Pack(const Problem& problem) {
  PackedProblem packed;
  packed.n = problem.model->num_dofs();
  if (!problem.postures.empty() && problem.postures.front().reduction)
    packed.n = problem.postures.front().reduction->posture.n;
  packed.masses = problem.model->num_masses();
  if (packed.masses > kernels::kMaxMasses)
    throw Error(problem.model->source, "bodies",
                "at most " + std::to_string(kernels::kMaxMasses) + " fitted masses, got " +
                    std::to_string(packed.masses));
  packed.cost_kind = problem.cost.type == CostType::kLogComplex     ? kernels::kCostLogComplex
                     : problem.cost.type == CostType::kLogMagnitude ? kernels::kCostLogMagnitude
                                                                     : kernels::kCostNormalizedComplex;
  packed.phase_mode = problem.cost.phase == PhaseMode::kWrapped ? kernels::kPhaseWrapped
                                                                 : kernels::kPhasePrincipalLogs;
  packed.noise_weighted = problem.cost.weights.mode == WeightMode::kNoise;
  packed.loss = problem.cost.loss.type == LossType::kHuber    ? kernels::kLossHuber
                : problem.cost.loss.type == LossType::kCauchy ? kernels::kLossCauchy
                                                               : kernels::kLossNone;
  packed.loss_scale = packed.loss == kernels::kLossNone ? 0.0 : problem.cost.loss.scale;
  const int n = packed.n;
  for (const ProblemPosture& pp : problem.postures) {
    PackedPosture p;
    p.posture_weight = pp.posture_weight;
    p.fit_order = DerivativeOrder(pp.measured.format);
    p.is_static = pp.is_static;
    const int cost_kind = p.CostKind(packed.cost_kind);
    const Posture& posture = pp.reduction ? pp.reduction->posture : pp.posture;
    if (posture.n != n)
      throw Error(pp.source, "reduction", "expected every posture reduced to " + std::to_string(n) +
                                              " coordinates, got " + std::to_string(posture.n));
    PackMassMatrices(posture, &p);
    PackAffineParts(posture, &p);
    packed.parts = std::max(packed.parts, PartCoefficients(posture));
    MeasurementPoints points = PointsOf(pp);
    if (pp.reduction) {
      points.excitation_basis = ReducedPointBasis(*pp.reduction, points.excitation_basis);
      points.response_basis = ReducedPointBasis(*pp.reduction, points.response_basis);
    }
    for (int r = 0; r < n; ++r)
      for (int j = 0; j < 3; ++j) p.basis.push_back(points.excitation_basis(r, j));
    if (!points.same_point())
      for (int r = 0; r < n; ++r)
        for (int j = 0; j < 3; ++j) p.response_basis.push_back(points.response_basis(r, j));
    const int lines = pp.measured.num_lines();
    double norm = 0.0;  // Σ w|H|² for the normalised complex cost
    for (int k = 0; k < lines; ++k) {
      p.omega_rad_s.push_back(2.0 * M_PI * pp.measured.frequency_hz[k]);
      for (int e = 0; e < 9; ++e) {
        const std::complex<double> h = pp.measured.H[k * 9 + e];
        const double w = pp.weights[k * 9 + e];
        p.weight.push_back(w);
        norm += w * std::norm(h);
        if (cost_kind == kernels::kCostNormalizedComplex) {
          p.target.push_back(h.real());
          p.target.push_back(h.imag());
        } else {
          // The same log and atan2 as the simulated side, so a perfect model costs exactly 0.
          p.target.push_back(w == 0.0 ? 0.0 : det::LogAbs(h.real(), h.imag()));
          p.target.push_back(w == 0.0 ? 0.0 : det::Atan2(h.imag(), h.real()));
        }
      }
    }
    // Noise weights are inverse variances already: the cost is then a χ² as it stands. So are a
    // static test's.
    if (NormalizesWeights(problem.cost, pp.is_static) && norm > 0.0)
      for (double& w : p.weight) w /= norm;
    packed.postures.push_back(std::move(p));
  }
  return packed;
}

int CountResiduals(const PackedProblem& problem) {
  int count = 0;
  for (const PackedPosture& posture : problem.postures) {
    // A static deflection's residual is real: its imaginary part is 0 by construction.
    const int per_entry =
        problem.cost_kind == kernels::kCostLogMagnitude || posture.is_static ? 1 : 2;
    for (double w : posture.weight) count += w != 0.0 ? per_entry : 0;
  }
  return count;
}

}  // namespace frfit
