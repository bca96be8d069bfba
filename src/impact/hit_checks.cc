#include "frfit/impact/hit_checks.h"

#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"

namespace frfit {

bool HitCheckOptions::IsValid(std::string* error) const {
  if (!(double_hit_fraction > 0.0 && double_hit_fraction < 1.0))
    return Invalid(error, "double_hit_fraction: expected a fraction in (0, 1)");
  if (flat_top_samples < 2) return Invalid(error, "flat_top_samples: expected at least 2");
  if (!(max_force_drop_db > 0.0)) return Invalid(error, "max_force_drop_db: expected dB > 0");
  if (!(tail_fraction > 0.0 && tail_fraction < 1.0))
    return Invalid(error, "tail_fraction: expected a fraction in (0, 1)");
  if (!(max_tail_ratio > 0.0 && max_tail_ratio < 1.0))
    return Invalid(error, "max_tail_ratio: expected a fraction in (0, 1)");
  return true;
}

namespace {
std::string Percent(double fraction) {
  return FormatDouble(std::round(fraction * 1000.0) / 10.0) + " %";
}
std::string Seconds(double s) { return FormatDouble(std::round(s * 1e4) / 1e4) + " s"; }
}  // namespace

std::vector<std::string> CheckDoubleHit(const std::vector<double>& force, const Pulse& pulse,
                                        double sample_rate_hz, const HitCheckOptions& options) {
  // Outside the pulse the hammer does not touch the structure; a force there is a second
  // contact (a rebound, before or after the main one), whose spectrum has notches.
  const double limit = options.double_hit_fraction * std::abs(pulse.peak_value);
  int worst = -1;
  for (int k = 0; k < static_cast<int>(force.size()); ++k)
    if ((k < pulse.first || k > pulse.last) && std::abs(force[k]) > limit &&
        (worst < 0 || std::abs(force[k]) > std::abs(force[worst])))
      worst = k;
  if (worst < 0) return {};
  return {"double hit: a second force peak of " +
          Percent(std::abs(force[worst]) / std::abs(pulse.peak_value)) + " of the first, " +
          Seconds((worst - pulse.peak) / sample_rate_hz) + " from it (limit " +
          Percent(options.double_hit_fraction) + ")"};
}

std::vector<std::string> CheckClipping(const TimeRecording& raw, const HitCheckOptions& options) {
  std::vector<std::string> reasons;
  for (const TimeChannel& c : raw.channels) {
    const auto [lo, hi] = std::minmax_element(c.samples.begin(), c.samples.end());
    if (c.full_scale > 0.0) {
      const long at = std::count_if(c.samples.begin(), c.samples.end(),
                                    [&](double v) { return std::abs(v) >= c.full_scale; });
      if (at > 0)
        reasons.push_back("clipped: channel " + c.name + " reaches its full scale ±" +
                          FormatDouble(c.full_scale) + " on " + std::to_string(at) + " samples");
      continue;
    }
    // Without a known range a clipped front end shows as a run of samples stuck at the extreme;
    // noise makes equal consecutive samples anywhere else practically impossible. An extreme
    // near the channel's median is its rest level (a force at rest, a noise-free record), not a
    // clipped excursion.
    std::vector<double> sorted = c.samples;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    const double median = sorted[sorted.size() / 2];
    for (double extreme : {*lo, *hi}) {
      if (std::abs(extreme - median) <= 0.5 * (*hi - *lo)) continue;  // constant: no excursion
      int run = 0, longest = 0;
      for (double v : c.samples) {
        run = v == extreme ? run + 1 : 0;
        longest = std::max(longest, run);
      }
      if (longest >= options.flat_top_samples) {
        reasons.push_back("clipped: channel " + c.name + " has a flat top of " +
                          std::to_string(longest) + " samples at " + FormatDouble(extreme));
        break;
      }
    }
  }
  return reasons;
}

std::vector<std::string> CheckDecay(const TimeRecording& record,
                                    const std::vector<double>& exponential, int dc_end,
                                    const HitCheckOptions& options) {
  std::vector<std::string> reasons;
  for (const TimeChannel& c : record.channels) {
    if (c.quantity == ChannelQuantity::kForce) continue;
    const int n = static_cast<int>(c.samples.size());
    const int tail = std::max(1, static_cast<int>(std::lround(options.tail_fraction * n)));
    auto windowed = [&](int k) { return c.samples[k] * (exponential.empty() ? 1.0 : exponential[k]); };
    double peak = 0.0, tail_sq = 0.0, noise_sq = 0.0;
    for (int k = 0; k < n; ++k) peak = std::max(peak, std::abs(windowed(k)));
    for (int k = n - tail; k < n; ++k) tail_sq += windowed(k) * windowed(k);
    for (int k = 0; k < dc_end; ++k) noise_sq += c.samples[k] * c.samples[k];
    const double tail_rms = std::sqrt(tail_sq / tail);
    const double floor_rms = dc_end > 0 ? std::sqrt(noise_sq / dc_end) : 0.0;
    // Leakage needs both: a tail large against the peak and one the noise floor does not explain.
    if (tail_rms > options.max_tail_ratio * peak && tail_rms > 3.0 * floor_rms)
      reasons.push_back("not decayed: response " + c.name + " ends at " +
                        Percent(tail_rms / peak) + " of its peak (RMS of the last " +
                        Percent(options.tail_fraction) + " of the record; limit " +
                        Percent(options.max_tail_ratio) +
                        "): lengthen the record or use an exponential window");
  }
  return reasons;
}

std::string CheckForceDrop(const std::vector<double>& force_power, const HitCheckOptions& options) {
  if (force_power.empty()) return "";
  const auto [lo, hi] = std::minmax_element(force_power.begin(), force_power.end());
  const double drop_db = *lo > 0.0 ? 10.0 * std::log10(*hi / *lo) : INFINITY;
  if (drop_db <= options.max_force_drop_db) return "";
  return "force spectrum drops " + FormatDouble(std::round(drop_db * 10.0) / 10.0) +
         " dB inside the band (limit " + FormatDouble(options.max_force_drop_db) +
         " dB): the tip is too soft for this band, or the hit was too slow";
}

}  // namespace frfit
