#include "frfit/frf/frf_set.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/common/warning.h"

namespace frfit {

std::string EntryName(int entry) {
  static const char* kAxes = "xyz";
  return std::string(1, kAxes[entry / 3]) + kAxes[entry % 3];
}

namespace {

// Where line k entry e is: "noise_variance[k][i][j]".
std::string At(const char* what, size_t k, int e) {
  return std::string(what) + "[" + std::to_string(k) + "][" + std::to_string(e / 3) + "][" +
         std::to_string(e % 3) + "]";
}

void ValidateNoise(const FrfSet& set, const std::string& source) {
  const size_t values = set.frequency_hz.size() * 9;
  if (!set.noise_variance.empty()) {
    if (set.noise_variance.size() != values)
      throw Error(source, "noise_variance",
                  "expected " + std::to_string(values / 9) + "×3×3 values, got " +
                      std::to_string(set.noise_variance.size()));
    for (size_t i = 0; i < values; ++i)
      if (set.present[i % 9] && !(set.noise_variance[i] >= 0.0))  // NaN fails too; +inf is allowed
        throw Error(source, At("noise_variance", i / 9, static_cast<int>(i % 9)),
                    "expected a variance >= 0, got " + FormatDouble(set.noise_variance[i]));
  }
  if (!set.coherence.empty()) {
    if (set.coherence.size() != values)
      throw Error(source, "coherence",
                  "expected " + std::to_string(values / 9) + "×3×3 values, got " +
                      std::to_string(set.coherence.size()));
    if (set.averages < 1)
      throw Error(source, "averages",
                  "expected the number of averages behind the coherence (>= 1), got " +
                      std::to_string(set.averages));
    for (size_t i = 0; i < values; ++i)
      if (set.present[i % 9] && !(set.coherence[i] >= 0.0 && set.coherence[i] <= 1.0))
        throw Error(source, At("coherence", i / 9, static_cast<int>(i % 9)),
                    "expected a coherence in [0, 1], got " + FormatDouble(set.coherence[i]));
  }
}

constexpr std::pair<Symmetrization, const char*> kSymmetrizations[] = {
    {Symmetrization::kNone, "none"},
    {Symmetrization::kMirrorUpper, "mirror_upper"},
    {Symmetrization::kMirrorLower, "mirror_lower"},
    {Symmetrization::kAverage, "average"}};

}  // namespace

std::string ToString(Symmetrization mode) { return EnumName(kSymmetrizations, mode); }
bool FromString(const std::string& text, Symmetrization* mode) {
  return EnumFromName(kSymmetrizations, text, mode);
}

double ExponentialWindowTauOf(const std::vector<std::pair<std::string, std::string>>& provenance) {
  double tau = std::numeric_limits<double>::infinity();
  for (const auto& [key, value] : provenance)
    if (key == "exponential_window_tau_s") tau = std::strtod(value.c_str(), nullptr);
  return tau > 0.0 && std::isfinite(tau) ? tau : std::numeric_limits<double>::infinity();
}

double VarianceFromCoherence(std::complex<double> h, double coherence, int averages) {
  if (averages < kMinAveragesForNoise)
    throw Error("coherence", "averages", "expected at least " + std::to_string(kMinAveragesForNoise) +
                                             " averages for a noise variance, got " + std::to_string(averages));
  if (coherence <= 0.0) return std::numeric_limits<double>::infinity();
  return (1.0 - coherence) / ((averages - 2) * coherence) * std::norm(h);
}

void NoiseFromCoherence(FrfSet* set, const std::string& source) {
  if (set->coherence.empty() || !set->noise_variance.empty()) return;
  Validate(*set, source);  // the coherence's shape and range before it is used
  if (set->averages < kMinAveragesForNoise) {
    Warn(source, "averages",
         "coherence from " + std::to_string(set->averages) + " average" + (set->averages == 1 ? "" : "s") +
             " gives no noise variance (at least " + std::to_string(kMinAveragesForNoise) +
             " are needed); a fit estimates the noise from the FRFs");
    return;
  }
  set->noise_variance.resize(set->H.size());
  for (size_t i = 0; i < set->H.size(); ++i)
    set->noise_variance[i] = VarianceFromCoherence(set->H[i], set->coherence[i], set->averages);
  set->noise_source = "coherence";
}

FrfSet Symmetrize(const FrfSet& set, Symmetrization mode) {
  if (mode == Symmetrization::kNone) return set;
  FrfSet out = set;
  out.coherence.clear();  // of the entries as measured, not of their mirror or mean
  out.averages = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) {
      const int upper = EntryIndex(i, j), lower = EntryIndex(j, i);
      const bool has_upper = set.present[upper], has_lower = set.present[lower];
      for (int k = 0; k < set.num_lines(); ++k) {
        const auto hu = set.H[k * 9 + upper], hl = set.H[k * 9 + lower];
        std::complex<double> value;
        if (mode == Symmetrization::kMirrorUpper) value = has_upper ? hu : hl;
        else if (mode == Symmetrization::kMirrorLower) value = has_lower ? hl : hu;
        else value = has_upper && has_lower ? 0.5 * (hu + hl) : (has_upper ? hu : hl);
        out.H[k * 9 + upper] = out.H[k * 9 + lower] = value;
        if (!set.noise_variance.empty()) {
          const double vu = set.noise_variance[k * 9 + upper], vl = set.noise_variance[k * 9 + lower];
          double v;
          if (mode == Symmetrization::kMirrorUpper) v = has_upper ? vu : vl;
          else if (mode == Symmetrization::kMirrorLower) v = has_lower ? vl : vu;
          else v = has_upper && has_lower ? 0.25 * (vu + vl) : (has_upper ? vu : vl);
          out.noise_variance[k * 9 + upper] = out.noise_variance[k * 9 + lower] = v;
        }
      }
      out.present[upper] = out.present[lower] = has_upper || has_lower;
    }
  return out;
}

FrfSet SelectLines(const FrfSet& set, const std::vector<int>& lines) {
  FrfSet out = set;
  out.frequency_hz.clear();
  out.H.clear();
  out.noise_variance.clear();
  out.coherence.clear();
  for (int k : lines) {
    out.frequency_hz.push_back(set.frequency_hz[k]);
    out.H.insert(out.H.end(), set.H.begin() + k * 9, set.H.begin() + k * 9 + 9);
    if (!set.noise_variance.empty())
      out.noise_variance.insert(out.noise_variance.end(), set.noise_variance.begin() + k * 9,
                                set.noise_variance.begin() + k * 9 + 9);
    if (!set.coherence.empty())
      out.coherence.insert(out.coherence.end(), set.coherence.begin() + k * 9,
                           set.coherence.begin() + k * 9 + 9);
  }
  return out;
}

void Validate(const FrfSet& set, const std::string& source) {
  const size_t lines = set.frequency_hz.size();
  if (lines == 0) throw Error(source, "frequency_hz", "expected at least one frequency line");
  if (set.H.size() != lines * 9)
    throw Error(source, "H", "expected " + std::to_string(lines) + "×3×3 values, got " +
                                 std::to_string(set.H.size()));
  bool any = false;
  for (bool p : set.present) any = any || p;
  if (!any) throw Error(source, "present", "expected at least one measured FRF entry");
  for (size_t k = 0; k < lines; ++k) {
    const double f = set.frequency_hz[k];
    if (!std::isfinite(f) || f < 0.0)
      throw Error(source, "frequency_hz[" + std::to_string(k) + "]",
                  "expected a finite frequency >= 0 Hz, got " + FormatDouble(f));
    if (k > 0 && !(f > set.frequency_hz[k - 1]))
      throw Error(source, "frequency_hz[" + std::to_string(k) + "]",
                  "expected strictly increasing frequencies, got " + FormatDouble(f) + " after " +
                      FormatDouble(set.frequency_hz[k - 1]));
  }
  ValidateNoise(set, source);
}

FrfSet ConvertFormat(const FrfSet& set, FrfFormat to) {
  FrfSet out = set;
  out.format = to;
  if (to == set.format) return out;
  const bool down = DerivativeOrder(to) < DerivativeOrder(set.format);
  for (int k = 0; k < set.num_lines(); ++k) {
    const double omega = 2.0 * M_PI * set.frequency_hz[k];
    if (down && omega == 0.0)
      throw Error("", "frequency_hz[" + std::to_string(k) + "]",
                  "cannot convert " + ToString(set.format) + " to " + ToString(to) + " at 0 Hz");
    const std::complex<double> factor = ConversionFactor(set.format, to, omega);
    for (int e = 0; e < 9; ++e) out.H[k * 9 + e] = set.H[k * 9 + e] * factor;
    if (!set.noise_variance.empty())
      for (int e = 0; e < 9; ++e) out.noise_variance[k * 9 + e] *= std::norm(factor);
  }
  return out;
}

}  // namespace frfit
